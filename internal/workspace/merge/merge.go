// Package merge resolves itr's files when git merges, rebases or
// cherry-picks: the merge driver (Driver) that unions both sides' log
// entries and rebuilds state.json from the union, the fold of a merge in
// progress for reconcile (FoldMerged), and the driver's registration in
// the git config and the root's .gitattributes (Setup, Register,
// Attributes).
package merge

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/atomicfile"
	"github.com/itr-dev/itr/internal/workspace/index"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// The merge driver's registration.
const (
	mergeDriverName    = "itr"
	mergeDriverCommand = "itr merge-driver %O %A %B %P"
	attributesHeader   = "# itr: merge progress.md and state.json with `itr merge-driver` (itr setup)"
)

// Setup registers itr's git merge driver: a .gitattributes in the task
// root naming the driver for every task's progress.md, guardrails.md and
// state.json, and the driver's command in the repository's config. Other
// entries of both files stay as they were; running it twice changes
// nothing. It reports what it changed.
func Setup(st *store.Store) ([]string, error) {
	var changed []string
	before, err := st.Repo.ConfigSection("merge", mergeDriverName)
	if err != nil {
		return nil, err
	}
	if err := Register(st); err != nil {
		return nil, fmt.Errorf("register the merge driver in the git config: %w", err)
	}
	if after, _ := st.Repo.ConfigSection("merge", mergeDriverName); fmt.Sprint(after) != fmt.Sprint(before) {
		changed = append(changed, st.Repo.ConfigFile()+" [merge \"itr\"]")
	}
	attrs := st.Root + "/.gitattributes"
	data, ok, err := Attributes(st)
	if err != nil {
		return nil, err
	}
	if ok {
		if err := os.MkdirAll(filepath.Dir(st.Abs(attrs)), 0o755); err != nil {
			return nil, err
		}
		if err := writeFileAtomic(st.Abs(attrs), data); err != nil {
			return nil, err
		}
		changed = append(changed, attrs+" (commit it so every clone merges alike)")
	}
	return changed, nil
}

// Register sets the driver in the git config (for itr init).
func Register(st *store.Store) error {
	_, err := st.Repo.SetConfigSection("merge", mergeDriverName, [][2]string{
		{"name", "itr: union of log entries, state rebuilt from the log"},
		{"driver", mergeDriverCommand},
	})
	return err
}

// indexAttribute sends the root's INDEX.md (index: true in .itr.yaml) to
// the driver; the leading slash keeps it to the root's own file.
const indexAttribute = "/" + index.File + " merge=itr"

var attributeLines = []string{
	"*/progress.md merge=itr",
	"*/guardrails.md merge=itr",
	"*/state.json merge=itr",
	"*/tasks.md merge=itr",
	"*/plan.md merge=itr",
	"*/decisions.md merge=itr",
}

// Attributes returns the root's .gitattributes with itr's lines added,
// keeping whatever else it holds, and whether that changes it.
func Attributes(st *store.Store) ([]byte, bool, error) {
	data, err := st.ReadWorktree(st.Root + "/.gitattributes")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(line)] = true
	}
	var add []string
	lines := attributeLines
	if st.Config.Index {
		// INDEX.md at the root, which the driver joins row by row.
		lines = append(lines[:len(lines):len(lines)], indexAttribute)
	}
	for _, l := range lines {
		if !have[l] {
			add = append(add, l)
		}
	}
	if len(add) == 0 {
		return data, false, nil
	}
	out := string(data)
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if !have[attributesHeader] {
		out += attributesHeader + "\n"
	}
	out += strings.Join(add, "\n") + "\n"
	return []byte(out), true, nil
}

// writeFileAtomic writes through a temporary file and a rename.
func writeFileAtomic(p string, data []byte) error { return atomicfile.Write(p, data, 0o644) }

// Request is one call of the merge driver: the three versions of one
// file as temporary files, and the path git is merging.
type Request struct {
	Base, Ours, Theirs string // %O %A %B
	Path               string // %P, relative to the repository top
	// Heads are commits that may be the other side (GITHEAD_* from the
	// environment, gathered by the caller).
	Heads []string
}

// Driver resolves one of itr's files during a merge, rebase or
// cherry-pick and writes the result over req.Ours, as git's merge drivers
// do. progress.md and guardrails.md become the union of both sides' entries
// (ours, then what only theirs has). state.json is rebuilt by the reducer
// from the union of the two sides' logs, which it finds in HEAD (ours) and
// in the commit whose state.json is the theirs version (searched among the
// operation's heads and the branch tips).
//
// The driver trusts nothing and never guesses. It refuses, with an error
// naming the path, the version and the problem, and leaves req.Ours as it
// was so that git keeps the conflict for `itr reconcile` or a person, when:
// ours or theirs is missing, a directory, a symbolic link or not a regular
// file (the base may be missing or empty: an add on both sides); a version
// is not text (a NUL byte, bytes that are not UTF-8); a progress.md side has
// text but no entry; a side holds conflict markers; a side of progress.md
// or guardrails.md is not an extension of the base (it rewrote or removed
// an entry of the base, or changed its title); a side of state.json does not
// decode; or, for state.json, either log fails the same checks against the
// log of the commit both sides descend from, or theirs cannot be found. The
// result replaces req.Ours through a temporary file and a rename in its
// folder, so a link is never written through.
func Driver(st *store.Store, req Request) error {
	if err := driver(st, req); err != nil {
		return fmt.Errorf("merge driver: %s: %w; git keeps the conflict: resolve it with `itr reconcile` or by hand", quoteName(req.Path), err)
	}
	return nil
}

func driver(st *store.Store, req Request) error {
	kind := path.Base(req.Path)
	switch kind {
	case store.ProgressFile, store.GuardrailsFile, store.DecisionsFile, store.StateFile, store.TasksFile, store.PlanFile:
	case index.File:
		if req.Path != index.Path(st) {
			return fmt.Errorf("not a file itr merges: itr's %s is %s", index.File, index.Path(st))
		}
	default:
		return errors.New("not a file itr merges (progress.md, guardrails.md, decisions.md, state.json, tasks.md, plan.md, the root's INDEX.md)")
	}
	inputs := []*mergeInput{
		{version: "base", flag: "%O", path: req.Base, optional: true},
		{version: "ours", flag: "%A", path: req.Ours},
		{version: "theirs", flag: "%B", path: req.Theirs},
	}
	for _, in := range inputs {
		if err := in.read(); err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
	}
	base, ours, theirs := inputs[0], inputs[1], inputs[2]
	byVersion := func(err error) error {
		var me *progresslog.MergeError
		if errors.As(err, &me) {
			for _, in := range inputs {
				if in.version == me.Version {
					return fmt.Errorf("%s: %w", in, me.Err)
				}
			}
		}
		return err
	}
	var merged []byte
	var err error
	switch kind {
	case store.ProgressFile:
		merged, err = progresslog.StrictUnion(base.data, ours.data, theirs.data)
		err = byVersion(err)
	case store.GuardrailsFile:
		merged, err = progresslog.StrictUnionGuardrails(base.data, ours.data, theirs.data)
		err = byVersion(err)
	case store.DecisionsFile:
		merged, err = progresslog.StrictUnionDecisions(base.data, ours.data, theirs.data)
		err = byVersion(err)
	case store.StateFile:
		for _, in := range inputs {
			if err := progresslog.CheckText(in.data); err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
		}
		for _, in := range []*mergeInput{ours, theirs} {
			if _, err := state.Decode(in.data); err != nil {
				return fmt.Errorf("%s: not a state.json: %w", in, err)
			}
		}
		merged, err = mergeState(st, req.Heads, req.Path, ours.data, theirs.data)
	case store.TasksFile, store.PlanFile:
		merged, err = mergePlan(st, req, base.data, ours.data, theirs.data)
	case index.File:
		// Derived: joined row by row; the next itr commit of a task both
		// sides changed rewrites its row from the merged task.
		for _, in := range inputs {
			if err := progresslog.CheckText(in.data); err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
		}
		merged, err = index.Merge(base.data, ours.data, theirs.data)
	}
	if err != nil {
		return err
	}
	if err := replaceFile(req.Ours, merged, ours.mode); err != nil {
		return fmt.Errorf("write the result over %s: %w", ours, err)
	}
	return nil
}

// replaceFile replaces p (git's own temporary file, which git reads back
// at once and then deletes) with data; see atomicfile.Replace.
func replaceFile(p string, data []byte, mode fs.FileMode) error {
	return atomicfile.Replace(p, data, mode)
}

// mergeInput is one of the driver's three files.
type mergeInput struct {
	version, flag, path string
	optional            bool // the base: missing or empty is an add on both sides
	data                []byte
	mode                fs.FileMode
}

// String names the input for messages: `theirs (%B .merge_file_x)`.
func (in *mergeInput) String() string {
	if in.path == "" {
		return fmt.Sprintf("%s (%s)", in.version, in.flag)
	}
	return fmt.Sprintf("%s (%s %s)", in.version, in.flag, quoteName(in.path))
}

// read reads a regular file, never through a symbolic link: the file is
// checked with Lstat, opened, and checked again to be the same file.
func (in *mergeInput) read() error {
	if in.path == "" {
		if in.optional {
			return nil
		}
		return errors.New("no file given")
	}
	fi, err := os.Lstat(in.path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && in.optional:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("is missing")
	case err != nil:
		return err
	}
	if err := regular(in.path, fi); err != nil {
		return err
	}
	f, err := os.Open(in.path)
	if err != nil {
		return err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(fi, opened) {
		return errors.New("changed while the driver was reading it")
	}
	data := make([]byte, opened.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if n, _ := f.Read(make([]byte, 1)); n > 0 {
		return errors.New("changed while the driver was reading it")
	}
	in.data, in.mode = data, fi.Mode().Perm()
	return nil
}

// regular refuses anything but a regular file, saying what it is.
func regular(p string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		return fmt.Errorf("is a symbolic link (to %s); the driver never reads or writes through one", quoteName(target))
	case m.IsDir():
		return errors.New("is a directory")
	case !m.IsRegular():
		return fmt.Errorf("is not a regular file (%s)", m.Type())
	}
	return nil
}

// quoteName writes a path as it is, or quoted when it holds characters
// that would break a one-line message.
func quoteName(p string) string {
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}

// ancestorWalk is how many first parents the state.json driver follows on
// each side to find the commit both descend from.
const ancestorWalk = 10000

// mergeState rebuilds state.json from the union of both sides' logs: ours
// at HEAD, theirs in the commit whose state.json is theirs. Both logs are
// checked as the progress.md driver checks its sides, against the log of
// the first commit both first-parent lines reach (when they meet within
// ancestorWalk commits), so that state.json is never folded from a log
// that progress.md's own merge refuses.
func mergeState(st *store.Store, heads []string, rel string, ours, theirs []byte) ([]byte, error) {
	dir := path.Dir(rel)
	logRel := dir + "/" + store.ProgressFile
	head, err := st.Repo.Head()
	if err != nil {
		return nil, err
	}
	if head.Hash == "" {
		return nil, errors.New("HEAD has no commit, so ours' log cannot be read")
	}
	theirsCommit, err := commitWithBlob(st, heads, rel, theirs)
	if err != nil {
		return nil, err
	}
	logs := map[string]struct {
		at   string
		data []byte
	}{}
	for version, at := range map[string]string{"ours": head.Hash, "theirs": theirsCommit, "base": commonAncestor(st, head.Hash, theirsCommit, ancestorWalk)} {
		if at == "" {
			continue
		}
		data, err := st.ReadAt(at, logRel)
		if err != nil {
			return nil, err
		}
		if data == nil && version != "base" {
			return nil, fmt.Errorf("%s has state.json but no %s in commit %s", version, store.ProgressFile, store.Short(at))
		}
		logs[version] = struct {
			at   string
			data []byte
		}{at, data}
	}
	entries, err := progresslog.StrictUnionEntries(logs["base"].data, logs["ours"].data, logs["theirs"].data)
	if err != nil {
		var me *progresslog.MergeError
		if errors.As(err, &me) {
			which := "the log of " + me.Version
			if me.Version == "base" {
				which = "the log both sides descend from"
			}
			return nil, fmt.Errorf("%s (%s in commit %s): %w", which, logRel, store.Short(logs[me.Version].at), me.Err)
		}
		return nil, err
	}
	return foldEntries(st, path.Base(dir), ours, theirs, entries, dir)
}

// commonAncestor follows the first parents of a and b in turn, in runs
// that double in length, up to limit commits each, and returns the first
// commit both lines reach; "" when they do not meet. Any commit both sides
// descend from will do: an append-only history keeps every entry of its
// log on both sides.
func commonAncestor(st *store.Store, a, b string, limit int) string {
	seen := [2]map[string]bool{{}, {}}
	cur := [2]string{a, b}
	walked := [2]int{}
	for run := 8; cur[0] != "" || cur[1] != ""; run *= 2 {
		for i := range cur {
			if cur[i] == "" {
				continue
			}
			start, n, found := cur[i], 0, ""
			cur[i] = ""
			_ = st.Repo.History(start, func(c gitstate.Commit) bool {
				if seen[1-i][c.Hash] {
					found = c.Hash
					return false
				}
				seen[i][c.Hash] = true
				n++
				walked[i]++
				if n < run && walked[i] < limit {
					return true
				}
				if len(c.Parents) > 0 && walked[i] < limit {
					cur[i] = c.Parents[0]
				}
				return false
			})
			if found != "" {
				return found
			}
		}
	}
	return ""
}

// FoldMerged folds a merged log with the plan on disk, carrying what no
// event knows from ours (or theirs when ours is unreadable).
func FoldMerged(st *store.Store, slug string, ours, theirs, log []byte, dir string) ([]byte, error) {
	return foldEntries(st, slug, ours, theirs, progresslog.Parse(log).Entries, dir)
}

// foldEntries is foldMerged for the entries of a merged log.
func foldEntries(st *store.Store, slug string, ours, theirs []byte, entries []progresslog.Entry, dir string) ([]byte, error) {
	base, err := state.Decode(ours)
	if err != nil {
		if base, err = state.Decode(theirs); err != nil {
			base = nil
		}
	}
	var p *plan.Plan
	for _, name := range []string{store.TasksFile, store.PlanFile} {
		data, err := st.ReadWorktree(dir + "/" + name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if p, err = plan.Parse(dir+"/"+name, data); err != nil {
			return nil, fmt.Errorf("%w (resolve the plan first, then run `itr reconcile`)", err)
		}
		if p.Placeholder() {
			p = nil
		}
		break
	}
	s, _ := reconcile.Fold(reconcile.Input{Slug: slug, Base: base, Plan: p, Entries: entries})
	return s.Encode(), nil
}

var errNoTheirs = errors.New("cannot tell which commit the other side of the merge is")

// commitWithBlob finds the commit whose file rel holds exactly data: the
// other side of the operation in progress.
func commitWithBlob(st *store.Store, heads []string, rel string, data []byte) (string, error) {
	want := st.Repo.BlobID(data)
	var candidates []string
	candidates = append(candidates, operationHeads(st, heads)...)
	refs, err := st.Repo.Refs("refs/heads/", "refs/remotes/", "refs/tags/")
	if err != nil {
		return "", err
	}
	for _, n := range gitstate.RefNames(refs) {
		candidates = append(candidates, refs[n])
	}
	seen := map[string]bool{}
	for _, c := range candidates {
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		if h, err := st.Repo.FileHashAt(c, rel); err == nil && h == want {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w; run `itr reconcile` to resolve it", errNoTheirs)
}

// operationHeads lists the commits the operation in progress names (see
// gitstate's OperationHeads), the ones the caller gave (GITHEAD_*), and the
// arguments of the git that runs this driver: the commit a cherry-pick,
// revert or merge of a hash applies is named only there.
func operationHeads(st *store.Store, heads []string) []string {
	out := st.Repo.OperationHeads()
	for _, h := range append(append([]string(nil), heads...), gitstate.CallerArgs()...) {
		// Heads may be names (a branch, a tag, an abbreviated hash).
		if full, err := st.Repo.ResolveRev(h); err == nil {
			out = append(out, full)
		}
	}
	return out
}
