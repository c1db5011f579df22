package gitstate

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
)

// GitRepo is the engine on git's own plumbing: every read goes through one
// long-lived `git cat-file --batch-command` (or a listing command), and
// every write through the command git itself would use — `git hash-object
// -w --path` so attributes, line endings and filters apply, `git
// commit-tree -S` where git signs, `git update-ref` with the old value,
// `git update-index --index-info` and `git checkout-index` for the index
// and the working tree, `git tag` for annotated tags. It serves every
// repository git can use (SHA-256, reftable, split and sparse index, CRLF
// clones, signed commits, GIT_DIR and the rest of git's environment),
// at the cost of a few processes per command.
type GitRepo struct {
	mu        sync.Mutex
	git       string
	root      string
	gitDir    string
	commonDir string
	hexLen    int      // 40 (sha1) or 64 (sha256)
	format    string   // "sha1" or "sha256"
	env       []string // the environment of every git child
	files     *Repo    // the repository's own files: config, operation state
	runHooks  bool
	signTags  bool
	cat       *catFile
	// What Choose found: conversions that may apply to the task's files,
	// and whether refs live in reftable.
	lineEndings, filters, reftable bool
	// hasher is one `git hash-object -w --stdin-paths` that reads working
	// tree files as git stores them, for the life of the repository.
	hasher *hashPaths
}

var _ Repository = (*GitRepo)(nil)

// OpenGit opens the repository around dir with git's own plumbing, whatever
// its settings.
func OpenGit(dir string) (*GitRepo, error) {
	loc, err := Locate(dir)
	if err != nil {
		return nil, err
	}
	c, err := Choose(loc, OpenOptions{})
	if err != nil {
		return nil, err
	}
	return openGit(loc, OpenOptions{}, c)
}

// locateByGit asks git where the repository around dir is (GIT_DIR and the
// like are set).
func locateByGit(dir string) (Location, error) {
	git, err := gitProgram()
	if err != nil {
		return Location{}, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, fmt.Errorf("open %s: %w", dir, err)
	}
	out, err := runGit(git, abs, nil, nil, "rev-parse", "--absolute-git-dir", "--git-common-dir", "--is-bare-repository")
	if err != nil {
		return Location{}, notRepo(abs, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 3 {
		return Location{}, fmt.Errorf("open %s: git rev-parse answered %q", abs, out)
	}
	loc := Location{GitDir: lines[0], CommonDir: lines[1], ByGit: true}
	if !filepath.IsAbs(loc.CommonDir) {
		loc.CommonDir = filepath.Join(abs, loc.CommonDir)
	}
	loc.CommonDir = filepath.Clean(loc.CommonDir)
	if loc.wtConfig, err = worktreeConfigOn(loc.CommonDir); err != nil {
		return Location{}, err
	}
	// Not bare: the top git names (with GIT_DIR alone, the current folder,
	// as git takes it), even when the current folder is outside it.
	if lines[2] != "true" {
		top, err := runGit(git, abs, nil, nil, "rev-parse", "--show-toplevel")
		if err != nil {
			return Location{}, notRepo(abs, err)
		}
		loc.Root = strings.TrimRight(string(top), "\n")
	}
	return loc, nil
}

// notRepo words git's refusal to open a repository.
func notRepo(dir string, err error) error {
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "dubious ownership") {
		return fmt.Errorf("%s: git refuses a repository owned by someone else: %s", dir, strings.TrimSpace(ge.Stderr))
	}
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
		return fmt.Errorf("%s: %w (git says: %s); run `git init` or pass a folder inside a repository", dir, ErrNotRepo, strings.TrimSpace(ge.Stderr))
	}
	return fmt.Errorf("open %s: %w", dir, err)
}

// openGit opens a located repository on git's plumbing with what Choose
// found: its object format, ref backend and the conversions that may apply
// to its files. Where the repository belongs to someone else (or the format
// is not known) git is asked first, and refuses what git refuses.
func openGit(loc Location, opts OpenOptions, c Choice) (*GitRepo, error) {
	git, err := gitProgram()
	if err != nil {
		return nil, err
	}
	g := &GitRepo{
		git: git, root: loc.Root, gitDir: loc.GitDir, commonDir: loc.CommonDir,
		files:       loc.uncachedFiles(),
		runHooks:    opts.RunHooks,
		format:      c.ObjectFormat,
		lineEndings: c.LineEndings,
		filters:     c.Filters,
		reftable:    c.Reftable,
	}
	g.env = childEnv(loc)
	ask := g.format != "sha1" && g.format != "sha256"
	for _, r := range c.Reasons {
		ask = ask || strings.HasPrefix(r.Setting, "owner of ")
	}
	if ask {
		out, err := g.run(nil, "rev-parse", "--show-object-format")
		if err != nil {
			return nil, notRepo(g.dir(), err)
		}
		g.format = strings.TrimSpace(string(out))
	}
	switch g.format {
	case "sha1":
		g.hexLen = 40
	case "sha256":
		g.hexLen = 64
	default:
		return nil, fmt.Errorf("open %s: git names objects with %q, which itr does not know; report it", g.dir(), g.format)
	}
	if cfg, err := g.files.loadConfig(""); err == nil {
		g.signTags = isTrue(cfg.value("tag", "", "gpgsign"))
	}
	return g, nil
}

// childEnv is the environment of git's children: this process's, with the
// located repository pinned when git located it, so a relative GIT_DIR
// means the same from the folder the children run in.
func childEnv(loc Location) []string {
	env := os.Environ()
	if !loc.ByGit {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GIT_DIR" || k == "GIT_WORK_TREE" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "GIT_DIR="+loc.GitDir)
	if loc.Root != "" {
		out = append(out, "GIT_WORK_TREE="+loc.Root)
	}
	return out
}

// GitError is a git command that failed: its arguments, exit code and what
// it wrote to stderr.
type GitError struct {
	Args   []string
	Code   int
	Stderr string
}

// Error implements error.
func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = "exit status " + strconv.Itoa(e.Code)
	}
	return "git " + strings.Join(e.Args, " ") + ": " + msg
}

// runGit runs git in dir with env (nil: this process's) and stdin, and
// returns its stdout or a *GitError.
func runGit(git, dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command(git, args...)
	cmd.Dir = dir
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stdout.Bytes(), &GitError{Args: args, Code: ee.ExitCode(), Stderr: stderr.String()}
		}
		return nil, fmt.Errorf("run git %s: %w", strings.Join(args, " "), err)
	}
	return stdout.Bytes(), nil
}

// dir is where git's children run: the working tree top, else the git dir.
func (g *GitRepo) dir() string {
	if g.root != "" {
		return g.root
	}
	return g.gitDir
}

func (g *GitRepo) run(stdin []byte, args ...string) ([]byte, error) {
	return runGit(g.git, g.dir(), g.env, stdin, args...)
}

func (g *GitRepo) runEnv(extra []string, stdin []byte, args ...string) ([]byte, error) {
	return runGit(g.git, g.dir(), append(append([]string{}, g.env...), extra...), stdin, args...)
}

// exitCode is the exit code of a failed git command, or -1.
func exitCode(err error) int {
	var ge *GitError
	if errors.As(err, &ge) {
		return ge.Code
	}
	return -1
}

// Root is the top of the working tree ("" when bare).
func (g *GitRepo) Root() string { return g.root }

// GitDir is this worktree's git directory.
func (g *GitRepo) GitDir() string { return g.gitDir }

// CommonDir is the git directory shared by every worktree.
func (g *GitRepo) CommonDir() string { return g.commonDir }

// ObjectFormat names the hash of the repository's objects: "sha1" or
// "sha256".
func (g *GitRepo) ObjectFormat() string { return g.format }

// Close stops the object reader.
func (g *GitRepo) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var err error
	if g.hasher != nil {
		err = g.hasher.close()
		g.hasher = nil
	}
	if g.cat != nil {
		if cerr := g.cat.close(); err == nil {
			err = cerr
		}
		g.cat = nil
	}
	return err
}

// catFile is one `git cat-file --batch-command` that answers object
// questions for the life of the repository.
type catFile struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	inw io.WriteCloser
	out *bufio.Reader
	err bytes.Buffer
}

// batch starts the object reader on first use. The caller holds g.mu.
func (g *GitRepo) batch() (*catFile, error) {
	if g.cat != nil {
		return g.cat, nil
	}
	c := &catFile{}
	c.cmd = exec.Command(g.git, "cat-file", "--batch-command")
	c.cmd.Dir = g.dir()
	c.cmd.Env = g.env
	c.cmd.Stderr = &c.err
	w, err := c.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	r, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	c.inw, c.in, c.out = w, bufio.NewWriter(w), bufio.NewReaderSize(r, 64*1024)
	g.cat = c
	return c, nil
}

func (c *catFile) close() error {
	c.inw.Close()
	return c.cmd.Wait()
}

// object is one answer of the object reader.
type object struct {
	id   string
	typ  string
	size int64
	data []byte
}

// query sends "contents NAME" (or "info NAME") and reads the answer; found
// is false when git says the name is missing or ambiguous. The caller holds
// g.mu.
func (g *GitRepo) query(verb, name string) (object, bool, error) {
	if strings.ContainsAny(name, "\n\x00") {
		return object{}, false, fmt.Errorf("object name %q: %w", name, ErrNotFound)
	}
	c, err := g.batch()
	if err != nil {
		return object{}, false, err
	}
	fail := func(err error) (object, bool, error) {
		c.close()
		g.cat = nil
		if said := strings.Join(strings.Fields(c.err.String()), " "); said != "" {
			// git stopped: say what it said (a repository it refuses, ...).
			return object{}, false, fmt.Errorf("git cannot read this repository: %s", said)
		}
		return object{}, false, fmt.Errorf("git cat-file %s %s: %w", verb, name, err)
	}
	if _, err := c.in.WriteString(verb + " " + name + "\n"); err != nil {
		return fail(err)
	}
	if err := c.in.Flush(); err != nil {
		return fail(err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		return fail(err)
	}
	line = strings.TrimSuffix(line, "\n")
	if strings.HasSuffix(line, " missing") || strings.HasSuffix(line, " ambiguous") {
		return object{}, false, nil
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return fail(fmt.Errorf("unexpected answer %q", line))
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return fail(fmt.Errorf("unexpected answer %q", line))
	}
	o := object{id: f[0], typ: f[1], size: int64(size)}
	if verb == "contents" {
		// Room to append to a large blob in place (gitfmt.Room).
		o.data = make([]byte, size+1, size+1+gitfmt.Room(size))
		if _, err := io.ReadFull(c.out, o.data); err != nil {
			return fail(err)
		}
		o.data = o.data[:size]
	}
	return o, true, nil
}

// Head reads HEAD of this worktree.
func (g *GitRepo) Head() (Head, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.head()
}

func (g *GitRepo) head() (Head, error) {
	if !g.reftable {
		// Refs are files: HEAD is read as git reads it, and its branch
		// resolved by the object reader (loose, then packed refs).
		branch, hash, err := g.headFile()
		if err != nil {
			return Head{}, err
		}
		if branch == "" {
			return Head{Hash: hash, Detached: true}, nil
		}
		return g.branchHead(branch)
	}
	out, err := g.run(nil, "symbolic-ref", "-q", "HEAD")
	switch {
	case err == nil:
		return g.branchHead(strings.TrimSpace(string(out)))
	case exitCode(err) == 1:
		o, ok, err := g.query("info", "HEAD")
		if err != nil {
			return Head{}, err
		}
		if !ok {
			return Head{}, fmt.Errorf("read HEAD: it names no commit; repair it with `git checkout <branch>`")
		}
		return Head{Hash: o.id, Detached: true}, nil
	default:
		return Head{}, fmt.Errorf("read HEAD: %w", err)
	}
}

// branchHead is HEAD on branch: its commit, or unborn when the branch has
// none yet.
func (g *GitRepo) branchHead(branch string) (Head, error) {
	h := Head{Branch: branch}
	o, ok, err := g.query("info", branch)
	if err != nil {
		return Head{}, err
	}
	if ok {
		h.Hash = o.id
	} else {
		h.Unborn = true
	}
	return h, nil
}

// ResolveRev returns the full commit hash of rev ("" is HEAD), tags peeled.
func (g *GitRepo) ResolveRev(rev string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.resolve(rev)
}

func (g *GitRepo) resolve(rev string) (string, error) {
	rev = revName(rev)
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("revision %s: %w", rev, ErrNotFound)
	}
	o, ok, err := g.query("info", rev+"^{commit}")
	if err != nil {
		return "", err
	}
	if !ok {
		if rev == "HEAD" {
			if h, err := g.head(); err == nil && h.Unborn {
				return "", fmt.Errorf("revision HEAD: %w: %s has no commit yet", ErrNotFound, h.Branch)
			}
		}
		return "", fmt.Errorf("revision %s: %w", rev, ErrNotFound)
	}
	return o.id, nil
}

// History walks first parents from rev, newest first, until fn returns
// false; a shallow boundary (given with Shallow set) or a missing parent
// ends it.
func (g *GitRepo) History(rev string, fn func(Commit) bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if rev == "" || rev == "HEAD" {
		h, err := g.head()
		if err != nil {
			return err
		}
		if h.Unborn {
			return nil
		}
	}
	start, err := g.resolve(rev)
	if err != nil {
		return err
	}
	shallow := g.shallow()
	for h := start; ; {
		o, ok, err := g.query("contents", h)
		if err != nil {
			return err
		}
		if !ok {
			if h != start {
				return nil
			}
			return fmt.Errorf("read commit %s: %w", h, ErrNotFound)
		}
		c, err := g.decodeCommit(h, o.data)
		if err != nil {
			return err
		}
		c.Shallow = shallow[h]
		g.mu.Unlock()
		more := fn(c)
		g.mu.Lock()
		if !more || len(c.Parents) == 0 || shallow[h] {
			return nil
		}
		h = c.Parents[0]
	}
}

// shallow reads the shallow boundary, if any.
func (g *GitRepo) shallow() map[string]bool {
	p := filepath.Join(g.commonDir, "shallow")
	if f := os.Getenv("GIT_SHALLOW_FILE"); f != "" {
		p = f
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	return parseShallow(data)
}

// decodeCommit parses a commit of any object format.
func (g *GitRepo) decodeCommit(id string, data []byte) (Commit, error) {
	f, err := parseCommit(data)
	if err != nil {
		return Commit{}, fmt.Errorf("commit %s: %w", id, err)
	}
	return Commit{Hash: id, Parents: f.Parents, Author: f.Author, Committer: f.Committer,
		Message: f.Message, Subject: subject(f.Message), Trailers: ParseTrailers(f.Message)}, nil
}

// entry reads the tree entry of path at rev (the root's tree for "").
func (g *GitRepo) entry(rev, p string) (object, error) {
	name := revName(rev) + ":" + strings.Trim(p, "/")
	o, ok, err := g.query("info", name)
	if err != nil {
		return object{}, err
	}
	if !ok {
		return object{}, fmt.Errorf("%s at %s: %w", p, revName(rev), ErrNotFound)
	}
	return o, nil
}

// ReadFile returns the contents of the file at path in rev.
func (g *GitRepo) ReadFile(rev, p string) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	o, ok, err := g.query("contents", revName(rev)+":"+strings.Trim(p, "/"))
	if err != nil {
		return nil, err
	}
	if !ok || p == "" {
		return nil, fmt.Errorf("%s at %s: %w", p, revName(rev), ErrNotFound)
	}
	if o.typ != "blob" {
		return nil, fmt.Errorf("%s at %s: %w (it is a folder)", p, revName(rev), ErrNotFound)
	}
	return o.data, nil
}

// FileHashAt is the blob name of path at rev, or ErrNotFound.
func (g *GitRepo) FileHashAt(rev, p string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	o, err := g.entry(rev, p)
	if err != nil {
		return "", err
	}
	return o.id, nil
}

// rawTreeEntry is one entry of a tree object.
type rawTreeEntry struct {
	mode string
	name string
	id   string
}

func (e rawTreeEntry) isDir() bool { return e.mode == "40000" }

func (e rawTreeEntry) isFile() bool { return strings.HasPrefix(e.mode, "100") || e.mode == "120000" }

// tree reads the entries of a tree object.
func (g *GitRepo) tree(id string) ([]rawTreeEntry, error) {
	o, ok, err := g.query("contents", id)
	if err != nil {
		return nil, err
	}
	if !ok || o.typ != "tree" {
		return nil, fmt.Errorf("tree %s: %w", id, ErrNotFound)
	}
	return parseRawTree(o.data, g.hexLen/2)
}

// parseRawTree splits a tree object's body with binary names of n bytes.
func parseRawTree(data []byte, n int) ([]rawTreeEntry, error) {
	var out []rawTreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+n {
			return nil, fmt.Errorf("tree: %w", errMalformed)
		}
		out = append(out, rawTreeEntry{mode: string(data[:sp]), name: string(data[sp+1 : nul]), id: hex.EncodeToString(data[nul+1 : nul+1+n])})
		data = data[nul+1+n:]
	}
	return out, nil
}

// walkTree calls fn for every file below the folder dir at rev, with its
// path and blob name; a missing folder or a file there has none.
func (g *GitRepo) walkTree(rev, dir string, recursive bool, fn func(p string, e rawTreeEntry)) error {
	dir = strings.Trim(dir, "/")
	o, err := g.entry(rev, dir)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.typ != "tree" {
		return nil
	}
	var walk func(id, prefix string) error
	walk = func(id, prefix string) error {
		es, err := g.tree(id)
		if err != nil {
			return err
		}
		for _, e := range es {
			p := joinPath(prefix, e.name)
			if e.isDir() {
				if recursive {
					if err := walk(e.id, p); err != nil {
						return err
					}
				}
				continue
			}
			fn(p, e)
		}
		return nil
	}
	return walk(o.id, dir)
}

// ListFiles returns every file below dir at rev, in git order.
func (g *GitRepo) ListFiles(rev, dir string) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	err := g.walkTree(rev, dir, true, func(p string, e rawTreeEntry) {
		if e.mode != "160000" {
			out = append(out, p)
		}
	})
	return out, err
}

// TreeFiles returns every file below dir at rev: path → blob name.
func (g *GitRepo) TreeFiles(rev, dir string) (map[string]string, error) {
	return g.fileIDs(rev, dir, true)
}

// FolderHashes returns the files directly in dir at rev: name → blob name.
func (g *GitRepo) FolderHashes(rev, dir string) (map[string]string, error) {
	return g.fileIDs(rev, dir, false)
}

// fileIDs maps the files below dir at rev (recursive: by path from the
// top; else only those directly in dir, by name) to their blob names.
func (g *GitRepo) fileIDs(rev, dir string, recursive bool) (map[string]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]string{}
	err := g.walkTree(rev, dir, recursive, func(p string, e rawTreeEntry) {
		if !e.isFile() {
			return
		}
		if recursive {
			out[p] = e.id
		} else {
			out[e.name] = e.id
		}
	})
	return out, err
}

// ReadBlob returns the content of a blob.
func (g *GitRepo) ReadBlob(id string) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	o, ok, err := g.query("contents", id)
	if err != nil {
		return nil, err
	}
	if !ok || o.typ != "blob" || !g.isID(id) {
		return nil, fmt.Errorf("blob %s: %w", id, ErrNotFound)
	}
	return o.data, nil
}

// PeelCommit follows tags from an object to the commit it names.
func (g *GitRepo) PeelCommit(id string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	o, ok, err := g.query("info", id+"^{commit}")
	if err != nil {
		return "", err
	}
	if !ok || !g.isID(id) {
		return "", fmt.Errorf("object %s: %w", id, ErrNotFound)
	}
	return o.id, nil
}

// isID reports whether s is a full object name of this repository.
func (g *GitRepo) isID(s string) bool {
	return len(s) == g.hexLen && isHex(s)
}

// listRefs lists refs whose names start with prefix: name, object, and the
// object a tag peels to.
func (g *GitRepo) listRefs(prefix string) ([][3]string, error) {
	pattern := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		pattern = prefix[:i]
	}
	args := []string{"for-each-ref", "--format=%(refname)%00%(objectname)%00%(*objectname)"}
	if pattern != "" {
		args = append(args, pattern)
	}
	out, err := g.run(nil, args...)
	if err != nil {
		return nil, fmt.Errorf("list references: %w", err)
	}
	var refs [][3]string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Split(l, "\x00")
		if len(f) != 3 || !strings.HasPrefix(f[0], prefix) {
			continue
		}
		refs = append(refs, [3]string{f[0], f[1], f[2]})
	}
	return refs, nil
}

// Refs returns the refs under the prefixes, peeled to commits; refs to
// anything else are left out.
func (g *GitRepo) Refs(prefixes ...string) (map[string]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]string{}
	for _, p := range prefixes {
		refs, err := g.listRefs(p)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			o, ok, err := g.query("info", r[1]+"^{commit}")
			if err != nil {
				return nil, err
			}
			if ok {
				out[r[0]] = o.id
			}
		}
	}
	return out, nil
}

// RawRefs returns the refs under prefix and the object each names,
// unpeeled, whether or not the object exists.
func (g *GitRepo) RawRefs(prefix string) (map[string]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	refs, err := g.listRefs(prefix)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range refs {
		out[r[0]] = r[1]
	}
	return out, nil
}

// ReadRef returns the object a ref names ("" when there is no such ref).
func (g *GitRepo) ReadRef(name string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.readRef(name)
}

func (g *GitRepo) readRef(name string) (string, error) {
	if strings.HasPrefix(name, "-") {
		return "", nil
	}
	out, err := g.run(nil, "rev-parse", "-q", "--verify", "--end-of-options", name)
	if exitCode(err) == 1 {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read ref %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// ReadTag reads the annotated tag a ref names.
func (g *GitRepo) ReadTag(ref string) (Tag, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id, err := g.readRef(ref)
	if err != nil {
		return Tag{}, err
	}
	if id == "" {
		return Tag{}, fmt.Errorf("tag %s: %w", ref, ErrNotFound)
	}
	o, ok, err := g.query("contents", id)
	if err != nil {
		return Tag{}, err
	}
	if !ok || o.typ != "tag" {
		return Tag{}, fmt.Errorf("tag %s: %w (not an annotated tag)", ref, ErrNotFound)
	}
	f, err := parseTag(o.data)
	if err != nil {
		return Tag{}, fmt.Errorf("tag %s: %w", ref, err)
	}
	return Tag{Ref: ref, Hash: id, Name: f.Name, Target: f.Target, Tagger: f.Tagger, Message: f.Message}, nil
}

// Staged returns the index entries at or below dir, as git lists them
// (whole, even where the index is sparse or split).
func (g *GitRepo) Staged(dir string) ([]IndexEntry, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.staged(dir)
}

// staged is Staged for a caller holding g.mu.
func (g *GitRepo) staged(dir string) ([]IndexEntry, error) {
	if g.root == "" {
		return nil, nil
	}
	args := []string{"ls-files", "--stage", "-z", "--full-name"}
	if dir != "" {
		args = append(args, "--", ":(top,literal)"+strings.TrimSuffix(dir, "/"))
	}
	out, err := g.run(nil, args...)
	if err != nil {
		return nil, fmt.Errorf("read the index: %w", err)
	}
	var es []IndexEntry
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 {
			continue
		}
		st, _ := strconv.Atoi(f[2])
		es = append(es, IndexEntry{Path: p, Stage: st, Hash: f[1]})
	}
	return es, nil
}

// Operation names the operation in progress in this worktree.
func (g *GitRepo) Operation() string { return g.files.Operation() }

// OperationHeads lists the commits the operation in progress names.
func (g *GitRepo) OperationHeads() []string {
	return operationHeads(g.gitDir, g.ResolveRev)
}

// BlobID is the object name data has as a blob in this repository.
func (g *GitRepo) BlobID(data []byte) string {
	return objectID(g.format, "blob", data)
}

// objectID hashes an object as git names it in the given format.
func objectID(format, typ string, data []byte) string {
	var h hash.Hash
	if format == "sha256" {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	fmt.Fprintf(h, "%s %d\x00", typ, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Committer is the identity git gives for a commit at now (`git var
// GIT_COMMITTER_IDENT`: configuration, includes and environment).
func (g *GitRepo) Committer(now time.Time) (Signature, error) {
	out, err := g.run(nil, "var", "GIT_COMMITTER_IDENT")
	if err != nil {
		return Signature{}, fmt.Errorf("%w: git says: %s; set it with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com` (or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL)", ErrNoIdentity, gitStderr(err))
	}
	s := parseSignature(bytes.TrimSpace(out))
	if now.IsZero() {
		now = time.Now()
	}
	s.When = now
	return s, nil
}

// gitStderr is what a failed git command said.
func gitStderr(err error) string {
	var ge *GitError
	if errors.As(err, &ge) {
		return strings.TrimSpace(ge.Stderr)
	}
	return err.Error()
}

// JournalLocks is a no-op: the git engine takes no lock file itself; git
// cleans up after its own commands.
func (g *GitRepo) JournalLocks(string) {}

// ItrPath is ItrPath of the native engine: itr's own files in the common
// git directory.
func (g *GitRepo) ItrPath(elem ...string) string { return g.files.ItrPath(elem...) }

// WorktreeItrPath is itr's own files in this worktree's git directory.
func (g *GitRepo) WorktreeItrPath(elem ...string) string { return g.files.WorktreeItrPath(elem...) }

// HooksDir is where git looks for hooks.
func (g *GitRepo) HooksDir() (string, error) { return g.files.HooksDir() }

// ConfigFile names the repository's config file for a person.
func (g *GitRepo) ConfigFile() string { return g.files.ConfigFile() }

// ConfigSection reads a section of the repository's own config file.
func (g *GitRepo) ConfigSection(name, sub string) ([][2]string, error) {
	return g.files.ConfigSection(name, sub)
}

// SetConfigSection writes a section of the repository's own config file.
func (g *GitRepo) SetConfigSection(name, sub string, keys [][2]string) (bool, error) {
	return g.files.SetConfigSection(name, sub, keys)
}

// gitDate is a time as git's environment takes it.
func gitDate(t time.Time) string {
	return "@" + strconv.FormatInt(t.Unix(), 10) + " " + t.Format("-0700")
}

// checkCommit makes sure id names a commit of this repository.
func (g *GitRepo) checkCommit(name, id string) error {
	if !g.isID(id) {
		return fmt.Errorf("%s: %q is not a full commit hash", name, id)
	}
	o, ok, err := g.query("info", id)
	if err != nil {
		return err
	}
	if !ok || o.typ != "commit" {
		return fmt.Errorf("%s: commit %s: %w", name, id, ErrNotFound)
	}
	return nil
}

// SetBranch points a branch at commit with `git update-ref`, logged as who.
func (g *GitRepo) SetBranch(name, commit string, who Signature, msg string) error {
	if !strings.HasPrefix(name, "refs/heads/") {
		return fmt.Errorf("branch %q: give the full ref name, refs/heads/...", name) //nolint:revive,staticcheck // error-strings/ST1005: the message ends with the ref pattern, not punctuation
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := validRefName(name); err != nil {
		return err
	}
	if err := g.checkCommit(name, commit); err != nil {
		return err
	}
	env := identityEnv("COMMITTER", who)
	if _, err := g.runEnv(env, nil, "update-ref", "-m", reflogMessage(msg), name, commit); err != nil {
		return fmt.Errorf("branch %s: %w", name, err)
	}
	return nil
}

// identityEnv is the environment that makes git use who as author or
// committer.
func identityEnv(role string, who Signature) []string {
	env := []string{"GIT_" + role + "_NAME=" + who.Name, "GIT_" + role + "_EMAIL=" + who.Email}
	if !who.When.IsZero() {
		env = append(env, "GIT_"+role+"_DATE="+gitDate(who.When))
	}
	return env
}

// CreateTag writes an annotated tag with `git tag -a` (signed where
// tag.gpgSign says so) and returns the tag object's name.
func (g *GitRepo) CreateTag(name, commit, message string, tagger Signature) (string, error) {
	short, ok := strings.CutPrefix(name, "refs/tags/")
	if !ok {
		return "", fmt.Errorf("tag %q: give the full ref name, refs/tags/...", name) //nolint:revive,staticcheck // error-strings/ST1005: the message ends with the ref pattern, not punctuation
	}
	if tagger.Name == "" || tagger.Email == "" {
		return "", fmt.Errorf("tag %s: the tagger needs a name and an email: %w", name, ErrNoIdentity)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := validRefName(name); err != nil {
		return "", err
	}
	if err := g.checkCommit(name, commit); err != nil {
		return "", err
	}
	if cur, err := g.readRef(name); err != nil {
		return "", err
	} else if cur != "" {
		return "", fmt.Errorf("tag %s: %w (at %s); pick another name", name, ErrRefExists, cur)
	}
	if !strings.HasSuffix(message, "\n") {
		message += "\n"
	}
	args := []string{"tag", "-a", "--cleanup=verbatim", "-F", "-"}
	if g.signTags {
		args = append(args, "-s")
	}
	args = append(args, "--", short, commit)
	if _, err := g.runEnv(identityEnv("COMMITTER", tagger), []byte(message), args...); err != nil {
		if cur, _ := g.readRef(name); cur != "" {
			return "", fmt.Errorf("tag %s: %w (at %s); pick another name", name, ErrRefExists, cur)
		}
		return "", fmt.Errorf("tag %s: %w", name, err)
	}
	id, err := g.readRef(name)
	if err != nil {
		return "", err
	}
	return id, nil
}
