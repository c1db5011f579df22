package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/atomicfile"
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
func (w *Workspace) Setup() ([]string, error) {
	var changed []string
	before, err := w.Repo.ConfigSection("merge", mergeDriverName)
	if err != nil {
		return nil, err
	}
	if err := w.registerDriver(); err != nil {
		return nil, fmt.Errorf("register the merge driver in the git config: %w", err)
	}
	if after, _ := w.Repo.ConfigSection("merge", mergeDriverName); fmt.Sprint(after) != fmt.Sprint(before) {
		changed = append(changed, ".git/config [merge \"itr\"]")
	}
	attrs := w.Root + "/.gitattributes"
	data, ok, err := w.attributes()
	if err != nil {
		return nil, err
	}
	if ok {
		if err := os.MkdirAll(filepath.Dir(w.abs(attrs)), 0o755); err != nil {
			return nil, err
		}
		if err := writeFileAtomic(w.abs(attrs), data); err != nil {
			return nil, err
		}
		changed = append(changed, attrs+" (commit it so every clone merges alike)")
	}
	return changed, nil
}

// registerDriver sets the driver in the git config (for itr init).
func (w *Workspace) registerDriver() error {
	_, err := w.Repo.SetConfigSection("merge", mergeDriverName, [][2]string{
		{"name", "itr: union of log entries, state rebuilt from the log"},
		{"driver", mergeDriverCommand},
	})
	return err
}

var attributeLines = []string{
	"*/progress.md merge=itr",
	"*/guardrails.md merge=itr",
	"*/state.json merge=itr",
}

// attributes returns the root's .gitattributes with itr's lines added,
// keeping whatever else it holds, and whether that changes it.
func (w *Workspace) attributes() ([]byte, bool, error) {
	data, err := w.readWorktree(w.Root + "/.gitattributes")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	have := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		have[strings.TrimSpace(sc.Text())] = true
	}
	var add []string
	for _, l := range attributeLines {
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

// MergeRequest is one call of the merge driver: the three versions of one
// file as temporary files, and the path git is merging.
type MergeRequest struct {
	Base, Ours, Theirs string // %O %A %B
	Path               string // %P, relative to the repository top
	// Heads are commits that may be the other side (GITHEAD_* from the
	// environment, gathered by the caller).
	Heads []string
}

// MergeDriver resolves one of itr's files during a merge, rebase or
// cherry-pick and writes the result over req.Ours, as git's merge drivers
// do. progress.md and guardrails.md become the union of both sides' entries
// (ours, then what only theirs has). state.json is rebuilt by the reducer
// from the union of the two sides' logs, which it finds in HEAD (ours) and
// in the commit whose state.json is the theirs version (searched among the
// operation's heads and the branch tips); when that commit cannot be found
// it leaves the conflict for `itr reconcile`.
func (w *Workspace) MergeDriver(req MergeRequest) error {
	read := func(p string) ([]byte, error) {
		if p == "" {
			return nil, nil
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return data, err
	}
	base, err := read(req.Base)
	if err != nil {
		return err
	}
	ours, err := read(req.Ours)
	if err != nil {
		return err
	}
	theirs, err := read(req.Theirs)
	if err != nil {
		return err
	}
	var merged []byte
	switch path.Base(req.Path) {
	case ProgressFile:
		merged, _, err = progresslog.Union(base, ours, theirs)
	case GuardrailsFile:
		merged, err = unionGuardrails(ours, theirs)
	case StateFile:
		merged, err = w.mergeState(req.Path, ours, theirs)
	default:
		return fmt.Errorf("%s is not a file itr merges (progress.md, guardrails.md, state.json)", req.Path)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(req.Ours, merged, 0o644)
}

// unionGuardrails keeps ours and appends the lessons only theirs has.
func unionGuardrails(ours, theirs []byte) ([]byte, error) {
	og := progresslog.ParseGuardrails(ours)
	seen := map[string]bool{}
	for _, g := range og.Entries {
		seen[g.Name+"\x00"+g.When+"\x00"+g.Problem+"\x00"+g.Solution] = true
	}
	out := ours
	for _, g := range progresslog.ParseGuardrails(theirs).Entries {
		k := g.Name + "\x00" + g.When + "\x00" + g.Problem + "\x00" + g.Solution
		if seen[k] {
			continue
		}
		seen[k] = true
		g.Line, g.Side = 0, progresslog.Both
		var err error
		if out, err = progresslog.AppendGuardrail(out, g); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeState rebuilds state.json from the union of both sides' logs.
func (w *Workspace) mergeState(rel string, ours, theirs []byte) ([]byte, error) {
	dir := path.Dir(rel)
	logRel := dir + "/" + ProgressFile
	oursLog, err := w.readAt("HEAD", logRel)
	if err != nil {
		return nil, err
	}
	theirsCommit, err := w.commitWithBlob(rel, theirs)
	if err != nil {
		return nil, err
	}
	theirsLog, err := w.readAt(theirsCommit, logRel)
	if err != nil {
		return nil, err
	}
	log, _, err := progresslog.Union(nil, oursLog, theirsLog)
	if err != nil {
		return nil, err
	}
	return w.foldMerged(path.Base(dir), ours, theirs, log, dir)
}

// foldMerged folds a merged log with the plan on disk, carrying what no
// event knows from ours (or theirs when ours is unreadable).
func (w *Workspace) foldMerged(slug string, ours, theirs, log []byte, dir string) ([]byte, error) {
	base, err := state.Decode(ours)
	if err != nil {
		if base, err = state.Decode(theirs); err != nil {
			base = nil
		}
	}
	var p *plan.Plan
	for _, name := range []string{TasksFile, PlanFile} {
		data, err := w.readWorktree(dir + "/" + name)
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
	s, _ := reconcile.Fold(reconcile.Input{Slug: slug, Base: base, Plan: p, Entries: progresslog.Parse(log).Entries})
	return s.Encode(), nil
}

var errNoTheirs = errors.New("cannot tell which commit the other side of the merge is")

// commitWithBlob finds the commit whose file rel holds exactly data: the
// other side of the operation in progress.
func (w *Workspace) commitWithBlob(rel string, data []byte) (string, error) {
	want := gitstate.BlobHash(data)
	var candidates []string
	candidates = append(candidates, w.operationHeads()...)
	refs, err := w.Repo.Refs("refs/heads/", "refs/remotes/", "refs/tags/")
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
		if h, err := w.Repo.FileHashAt(c, rel); err == nil && h == want {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s: %w; run `itr reconcile` to resolve it", rel, errNoTheirs)
}

// operationHeads lists the commits an operation in progress names:
// MERGE_HEAD, CHERRY_PICK_HEAD, REVERT_HEAD, REBASE_HEAD, the commit a
// rebase is applying, FETCH_HEAD, and GITHEAD_* given by the caller.
func (w *Workspace) operationHeads() []string {
	var out []string
	gd := w.Repo.GitDir()
	for _, f := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "FETCH_HEAD", "rebase-merge/stopped-sha", "rebase-apply/original-commit"} {
		data, err := os.ReadFile(filepath.Join(gd, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if fields := strings.Fields(line); len(fields) > 0 && len(fields[0]) >= 40 {
				out = append(out, fields[0])
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(gd, "rebase-merge", "done")); err == nil {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			fields := strings.Fields(lines[i])
			if len(fields) >= 2 {
				if h, err := w.Repo.ResolveRev(fields[1]); err == nil {
					out = append(out, h)
					break
				}
			}
		}
	}
	for _, h := range w.heads {
		// Heads may be names (a branch, a tag, an abbreviated hash).
		if full, err := w.Repo.ResolveRev(h); err == nil {
			out = append(out, full)
		}
	}
	return out
}

// SetHeads gives the merge driver commits that may be the other side
// (from GITHEAD_* variables).
func (w *Workspace) SetHeads(heads []string) { w.heads = heads }
