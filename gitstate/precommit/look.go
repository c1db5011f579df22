// Package precommit is the program behind itr's pre-commit hook
// (cmd/itr-hook). Every `git commit` in a repository with the hook starts
// it, so it must cost next to nothing when the commit stages none of itr's
// logs, which is nearly always: it reads the index and HEAD's trees itself
// with gitfmt (no git process, no go-git), answers Clean, and the commit
// goes on. When a log is staged, or when the repository is one it does not
// read (a split or sparse index, SHA-256, reftable, no commit yet), it hands
// the commit to `itr hooks pre-commit`, the full check.
package precommit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
)

// Logs are the names of itr's append-only logs. A staged file with one of
// these names, in any folder, makes the commit go to itr's full check (as
// the pathspec ':(glob)**/NAME' of the script hook does).
var Logs = []string{"progress.md", "guardrails.md", "decisions.md"}

// Verdict is what the quick look found.
type Verdict int

const (
	// Clean means every log in the index is HEAD's: itr has nothing to check.
	Clean Verdict = iota
	// Staged means a log is added, changed or removed in the index.
	Staged
	// Unsure means the quick look cannot tell; itr's full check decides.
	Unsure
)

func (v Verdict) String() string {
	switch v {
	case Clean:
		return "clean"
	case Staged:
		return "staged"
	}
	return "unsure"
}

// Env gives the value of an environment variable ("" when unset).
type Env func(string) string

// Look compares the index with HEAD for every path named as one of Logs, as
// `git diff-index --cached --quiet HEAD -- ':(glob)**/progress.md' …`
// would, from dir (the working tree's top, where git runs hooks) and the
// environment git gives hooks (GIT_DIR, GIT_INDEX_FILE, …). why says what
// decided anything but Clean.
func Look(dir string, env Env) (v Verdict, why string) {
	r, err := locate(dir, env)
	if err != nil {
		return Unsure, err.Error()
	}
	head, err := r.headCommit()
	if err != nil {
		return Unsure, err.Error()
	}
	if r.replaced(env) {
		return Unsure, "the repository replaces objects (refs/replace)"
	}
	logs, why := r.stagedLogs()
	if logs == nil {
		return Unsure, why
	}
	tree, err := r.commitTree(head)
	if err != nil {
		return Unsure, err.Error()
	}
	w := walker{r: r, logs: logs.entries}
	changed, err := w.dir(logs.cacheTree, tree, "")
	switch {
	case err != nil:
		return Unsure, err.Error()
	case changed != "":
		return Staged, changed
	case len(w.logs) > 0:
		first := ""
		for p := range w.logs {
			if first == "" || p < first {
				first = p
			}
		}
		return Staged, first + ": added"
	}
	return Clean, ""
}

// repo is where a hook finds the repository's files.
type repo struct {
	gitDir, commonDir, objDir, index string

	packed     []byte // packed-refs, once read (nil: none)
	packedRead bool
}

// packedRefs returns the packed-refs file, read once (nil when there is
// none): both HEAD's branch and the replace refs may be there.
func (r *repo) packedRefs() []byte {
	if !r.packedRead {
		r.packed, _ = os.ReadFile(filepath.Join(r.commonDir, "packed-refs"))
		r.packedRead = true
	}
	return r.packed
}

// locate finds the repository as git has set it up for its hook: GIT_DIR
// when set, else the .git folder (or gitfile) in dir; the common folder of
// a linked worktree; GIT_INDEX_FILE, relative to dir.
func locate(dir string, env Env) (*repo, error) {
	if env("GIT_ALTERNATE_OBJECT_DIRECTORIES") != "" {
		return nil, errors.New("GIT_ALTERNATE_OBJECT_DIRECTORIES is set")
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	r := &repo{}
	if g := env("GIT_DIR"); g != "" {
		r.gitDir = abs(g)
	} else {
		dotgit := filepath.Join(dir, ".git")
		fi, err := os.Stat(dotgit)
		if err != nil {
			return nil, fmt.Errorf("no .git in %s", dir)
		}
		r.gitDir = dotgit
		if !fi.IsDir() {
			b, err := os.ReadFile(dotgit)
			if err != nil {
				return nil, err
			}
			line, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
			if !ok {
				return nil, fmt.Errorf("%s: not a gitfile", dotgit)
			}
			r.gitDir = line
			if !filepath.IsAbs(line) {
				r.gitDir = filepath.Join(dir, line)
			}
		}
	}
	r.commonDir = r.gitDir
	if c := env("GIT_COMMON_DIR"); c != "" {
		r.commonDir = abs(c)
	} else if b, err := os.ReadFile(filepath.Join(r.gitDir, "commondir")); err == nil {
		c := strings.TrimRight(string(b), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(r.gitDir, c)
		}
		r.commonDir = c
	}
	if _, err := os.Stat(filepath.Join(r.commonDir, "reftable")); err == nil {
		return nil, errors.New("the refs are in a reftable")
	}
	r.objDir = filepath.Join(r.commonDir, "objects")
	if o := env("GIT_OBJECT_DIRECTORY"); o != "" {
		r.objDir = abs(o)
	}
	r.index = filepath.Join(r.gitDir, "index")
	if i := env("GIT_INDEX_FILE"); i != "" {
		r.index = abs(i)
	}
	return r, nil
}

// indexLogs is what the index holds of itr's logs: their entries by path,
// and the cache tree (nil when the index has none).
type indexLogs struct {
	entries   map[string]indexLog
	cacheTree *gitfmt.CacheTree
}

// indexLog is one staged log.
type indexLog struct {
	mode uint32
	id   gitfmt.ID
}

// stagedLogs reads the index; nil (and why) when it cannot be judged here:
// an index gitfmt does not read, or a log in conflict or added with -N.
func (r *repo) stagedLogs() (*indexLogs, string) {
	f, err := os.Open(r.index)
	if err != nil {
		return nil, err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err.Error()
	}
	out := &indexLogs{entries: map[string]indexLog{}}
	var odd string
	visit := func(uint32) func(gitfmt.Entry) error {
		return func(e gitfmt.Entry) error {
			base := e.Name
			if i := bytes.LastIndexByte(base, '/'); i >= 0 {
				base = base[i+1:]
			}
			if !isLog(base) {
				return nil
			}
			if e.Stage != 0 {
				odd = string(e.Name) + ": in conflict"
				return errStop
			}
			flags := uint16(e.Fixed[60])<<8 | uint16(e.Fixed[61])
			if flags&gitfmt.FlagExtended != 0 && len(e.Fixed) >= 64 && e.Fixed[62]&0x20 != 0 {
				odd = string(e.Name) + ": intent to add"
				return errStop
			}
			l := indexLog{mode: uint32(e.Fixed[24])<<24 | uint32(e.Fixed[25])<<16 | uint32(e.Fixed[26])<<8 | uint32(e.Fixed[27])}
			copy(l.id[:], e.Fixed[40:60])
			out.entries[string(e.Name)] = l
			return nil
		}
	}
	idx, err := gitfmt.ReadIndex(r.index, f, fi.Size(), nil, visit)
	if errors.Is(err, errStop) {
		return nil, odd
	}
	if err != nil {
		return nil, err.Error()
	}
	for _, x := range idx.Exts {
		if x.Sig == "TREE" {
			if ct, rest, ok := gitfmt.ParseCacheTree(x.Data); ok && len(rest) == 0 {
				out.cacheTree = ct
			}
		}
	}
	return out, ""
}

var errStop = errors.New("stop")

func isLog(base []byte) bool {
	for _, l := range Logs {
		if string(base) == l {
			return true
		}
	}
	return false
}

// headCommit resolves HEAD to a commit: a detached HEAD, or a branch as a
// loose ref or in packed-refs (symbolic refs followed a few deep).
func (r *repo) headCommit() (gitfmt.ID, error) {
	b, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return gitfmt.ID{}, err
	}
	for depth := 0; depth < 5; depth++ {
		s := strings.TrimRight(string(b), "\r\n")
		name, sym := strings.CutPrefix(s, "ref: ")
		if !sym {
			return parseID(s)
		}
		if !strings.HasPrefix(name, "refs/") || strings.Contains(name, "..") {
			return gitfmt.ID{}, fmt.Errorf("HEAD names %q", name)
		}
		dir := r.commonDir
		if !strings.HasPrefix(name, "refs/heads/") && !strings.HasPrefix(name, "refs/tags/") && !strings.HasPrefix(name, "refs/remotes/") {
			dir = r.gitDir // refs/worktree/, refs/bisect/: per worktree
		}
		b, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, os.ErrNotExist) {
			return r.packedRef(name)
		}
		if err != nil {
			return gitfmt.ID{}, err
		}
	}
	return gitfmt.ID{}, errors.New("HEAD: symbolic refs too deep")
}

// packedRef finds name in packed-refs.
func (r *repo) packedRef(name string) (gitfmt.ID, error) {
	if hexID, ok := findPackedRef(r.packedRefs(), name); ok {
		return parseID(hexID)
	}
	return gitfmt.ID{}, fmt.Errorf("%s: no such branch yet", name)
}

// findPackedRef returns the object name packed-refs (data) gives the ref
// name: a line "<hex> <name>".
func findPackedRef(data []byte, name string) (string, bool) {
	want := " " + name
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > 0 && line[0] != '#' && line[0] != '^' && bytes.HasSuffix(line, []byte(want)) {
			return string(line[:len(line)-len(want)]), true
		}
	}
	return "", false
}

// replaced reports whether the repository replaces objects (refs/replace/,
// loose or packed), which git would honour in HEAD's trees.
func (r *repo) replaced(env Env) bool {
	if env("GIT_NO_REPLACE_OBJECTS") != "" {
		return false
	}
	if env("GIT_REPLACE_REF_BASE") != "" {
		return true
	}
	if ents, err := os.ReadDir(filepath.Join(r.commonDir, "refs", "replace")); err == nil && len(ents) > 0 {
		return true
	}
	return bytes.Contains(r.packedRefs(), []byte(" refs/replace/"))
}

// parseID parses a SHA-1 object name; a SHA-256 one is refused.
func parseID(s string) (gitfmt.ID, error) {
	var id gitfmt.ID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("%q is not a SHA-1 object name", s)
	}
	for i := range id {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return id, fmt.Errorf("%q is not a SHA-1 object name", s)
		}
		id[i] = byte(v)
	}
	return id, nil
}

// read reads an object of type want. Its name is not hashed again (that
// would link crypto, whose start-up the hook cannot afford): the zlib
// checksum of a loose object or pack entry guards its bytes.
func (r *repo) read(id gitfmt.ID, want gitfmt.Type) ([]byte, error) {
	t, data, err := gitfmt.ReadObject(r.objDir, id)
	if err != nil {
		return nil, err
	}
	if t != want {
		return nil, fmt.Errorf("object %s: type %d, want %d", id, t, want)
	}
	return data, nil
}

// commitTree returns the tree of a commit.
func (r *repo) commitTree(c gitfmt.ID) (gitfmt.ID, error) {
	data, err := r.read(c, gitfmt.Commit)
	if err != nil {
		return gitfmt.ID{}, err
	}
	hexID, ok := bytes.CutPrefix(data, []byte("tree "))
	if !ok || len(hexID) < 41 || hexID[40] != '\n' {
		return gitfmt.ID{}, fmt.Errorf("commit %s: no tree", c)
	}
	return parseID(string(hexID[:40]))
}

// walker walks HEAD's tree beside the index's cache tree.
type walker struct {
	r     *repo
	logs  map[string]indexLog // the staged logs not yet matched with HEAD's
	reads int                 // trees read
}

// dir compares the folder prefix (tree in HEAD, ct in the cache tree, nil
// when it has no node for it). A valid cache-tree node naming the same tree
// as HEAD means nothing under it is staged, and the walk stops there (git's
// own shortcut); otherwise every log in HEAD's folder must be in the index
// with the same mode and blob. changed names the first that is not.
func (w *walker) dir(ct *gitfmt.CacheTree, tree gitfmt.ID, prefix string) (changed string, err error) {
	if ct != nil && ct.Count >= 0 && bytes.Equal(ct.Hash, tree[:]) {
		for p := range w.logs {
			if strings.HasPrefix(p, prefix) {
				delete(w.logs, p)
			}
		}
		return "", nil
	}
	data, err := w.r.read(tree, gitfmt.Tree)
	if err != nil {
		return "", err
	}
	w.reads++
	for len(data) > 0 {
		e, rest, ok := gitfmt.NextTreeEntry(data)
		if !ok {
			return "", fmt.Errorf("tree %s: malformed", tree)
		}
		data = rest
		switch {
		case e.Mode == gitfmt.ModeTree:
			var child *gitfmt.CacheTree
			if ct != nil {
				child = ct.Child(string(e.Name))
			}
			if changed, err := w.dir(child, e.ID, prefix+string(e.Name)+"/"); changed != "" || err != nil {
				return changed, err
			}
		case e.Mode == gitfmt.ModeGitlink || !isLog(e.Name):
		default:
			p := prefix + string(e.Name)
			l, ok := w.logs[p]
			if !ok {
				return p + ": removed", nil
			}
			if l.id != e.ID || l.mode != e.Mode {
				return p + ": changed", nil
			}
			delete(w.logs, p)
		}
	}
	return "", nil
}
