package gitstate

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// CommitFiles writes one commit of the given paths on the current branch,
// as git's own plumbing writes it:
//
//  1. each file's blob: where a clean filter, ident or an encoding may
//     apply, or line endings may be converted and the file holds a CR,
//     with `git hash-object -w --path=P`, so git converts it as `git add`
//     would; elsewhere git stores the bytes as they are, and the blob is
//     named here;
//  2. the trees on the way to the changed paths, patched from HEAD's;
//  3. with run_hooks, the pre-commit, prepare-commit-msg and commit-msg
//     hooks, on a private index holding HEAD and the change, as `git commit
//     <paths>` runs them; a failing hook refuses the commit;
//  4. the commit: with `git commit-tree -S` where commit.gpgSign asks for a
//     signature (gpg, ssh or x509 as gpg.format says) or hooks ran; else
//     named here, with the identity git's configuration gives; blobs,
//     trees and commit go to git in one pack for `git unpack-objects`,
//     which checks and writes them, and each name is checked against git's;
//  5. the branch through HEAD with `git update-ref HEAD NEW OLD`, git's own
//     compare-and-swap, logged in the reflogs of HEAD and the branch;
//  6. the index and, with req.Worktree, the working tree: where git stores
//     bytes unconverted, the files are written and `git update-index --add
//     --remove --stdin` records them (stat data included, so git status
//     stays fast); elsewhere `git update-index --index-info` and `git
//     checkout-index -u` write what `git checkout` would write (CRLF in a
//     CRLF clone, smudged by filters). In a cone-mode sparse checkout the
//     files are written inside and outside the cone alike, tracked, as `git
//     add --sparse` and `git commit` leave them (`git sparse-checkout
//     reapply` takes the ones outside out); without req.Worktree, a path
//     outside the cone that has no file gets a skip-worktree entry, as git
//     keeps such a path, so that git does not see it as deleted.
//
// Until step 5 nothing but unreachable objects is written: a refusal, a
// failing hook or a moved HEAD changes nothing a person can see.
func (g *GitRepo) CommitFiles(req CommitRequest) (Commit, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, err := g.prepareCommit(req)
	if err != nil {
		return Commit{}, err
	}
	for attempt := 0; ; attempt++ {
		head, err := g.attemptHead(req)
		if err != nil {
			return Commit{}, err
		}
		parent := head.Hash
		id, message, err := g.writeCommit(c, parent)
		if err != nil {
			return Commit{}, err
		}
		if err := g.updateHead(c.env, parent, id, message); err != nil {
			if err := g.retryMove(req, head, attempt, err); err != nil {
				return Commit{}, err
			}
			continue
		}
		return g.finishCommit(req, c, parent, id)
	}
}

// gitCommit is what (*GitRepo).CommitFiles works out once, before its
// attempts: the changes and the message, the author and committer and the
// environment naming them, the blobs (by path) and those still to write,
// whether to sign, the sparse cone, and the objects written so far.
type gitCommit struct {
	changes           []FileChange
	msg               string
	author, committer Signature
	env               []string
	blobs             map[string]string
	objs              []packObject
	sign              bool
	cone              *sparseCone
	written           map[string]bool
}

// prepareCommit checks the request and works out the gitCommit of
// CommitFiles: the blobs git may convert are written by git now.
func (g *GitRepo) prepareCommit(req CommitRequest) (*gitCommit, error) {
	changes, err := normaliseChanges(req.Changes)
	if err != nil {
		return nil, err
	}
	if req.Worktree && g.root == "" {
		return nil, fmt.Errorf("commit: the repository %s is bare; it has no working tree to write files into", g.gitDir)
	}
	when := req.When
	if when.IsZero() {
		when = time.Now()
	}
	msg := cleanMessage(req.Message)
	if req.Worktree {
		if err := g.checkWorktree(changes); err != nil {
			return nil, err
		}
	}
	head, err := g.head()
	if err != nil {
		return nil, err
	}
	cfg, err := g.files.loadConfig(head.Branch) // includeIf "onbranch:" as git reads it
	if err != nil {
		return nil, err
	}
	author, committer, err := g.identities(cfg, req.Author, when)
	if err != nil {
		return nil, err
	}
	env := append(identityEnv("AUTHOR", author), identityEnv("COMMITTER", committer)...)
	blobs, objs, err := g.blobObjects(changes)
	if err != nil {
		return nil, err
	}
	sign := isTrue(cfg.value("commit", "", "gpgsign"))
	cone, err := g.sparseCone(cfg)
	if err != nil {
		return nil, err
	}
	return &gitCommit{
		changes: changes, msg: msg,
		author: author, committer: committer, env: env,
		blobs: blobs, objs: objs,
		sign: sign, cone: cone,
		written: map[string]bool{},
	}, nil
}

// attemptHead reads HEAD for an attempt of CommitFiles: it must be on a
// branch and, with req.Expect, where req.Expect says or with req.Guard's
// paths unchanged since.
func (g *GitRepo) attemptHead(req CommitRequest) (Head, error) {
	head, err := g.head()
	if err != nil {
		return Head{}, err
	}
	if head.Detached {
		return Head{}, fmt.Errorf("commit: %w at %s; switch to a branch with `git switch <branch>`", ErrDetachedHead, head.Hash)
	}
	if req.Expect != "" && head.Hash != req.Expect && !g.guardsUnchanged(req.Guard, req.Expect, head.Hash) {
		return Head{}, fmt.Errorf("commit: %w: %s is at %s, expected %s; re-read and retry", ErrHeadMoved, head.Branch, orNone(head.Hash), req.Expect)
	}
	return head, nil
}

// writeCommit writes the commit of the changes on parent (steps 1 to 4 of
// CommitFiles; the blobs git converts are written already) and returns its
// name and message: with hooks, of the tree and message the hooks leave;
// else with the trees, and the commit itself unless it is to be signed, in
// one pack. `git commit-tree` writes a commit not named here.
func (g *GitRepo) writeCommit(c *gitCommit, parent string) (id, message string, err error) {
	var tree string
	message = c.msg
	if g.runHooks {
		if err := g.writeNew(c.objs, c.written); err != nil {
			return "", "", err
		}
		if tree, message, err = g.hookedTree(parent, c.changes, c.blobs, c.msg, c.env); err != nil {
			return "", "", err
		}
	} else if tree, id, err = g.packCommit(c, parent); err != nil {
		return "", "", err
	}
	if id == "" {
		if id, err = g.commitTree(c, tree, parent, message); err != nil {
			return "", "", err
		}
	}
	return id, message, nil
}

// packCommit writes the blobs not written yet and the trees of the changes
// on parent in one pack, with the commit named here unless it is to be
// signed (its name is then ""). It returns the root tree and the commit.
func (g *GitRepo) packCommit(c *gitCommit, parent string) (tree, id string, err error) {
	var parents []string
	if parent != "" {
		parents = []string{parent}
	}
	var trees []packObject
	tree, trees, err = g.buildTrees(parent, c.changes, c.blobs)
	if err != nil {
		return "", "", err
	}
	pending := append(append([]packObject{}, c.objs...), trees...)
	if !c.sign {
		o := g.newObject("commit", commitBody(tree, parents, c.author, c.committer, c.msg))
		pending, id = append(pending, o), o.id
	}
	if err := g.writeNew(pending, c.written); err != nil {
		return "", "", err
	}
	return tree, id, nil
}

// commitTree writes the commit of tree on parent with `git commit-tree`
// (-S when it is to be signed) and returns its name.
func (g *GitRepo) commitTree(c *gitCommit, tree, parent, message string) (string, error) {
	args := []string{"commit-tree", tree}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	if c.sign {
		args = append(args, "-S")
	}
	out, err := g.runEnv(c.env, []byte(message), args...)
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// updateHead moves the branch through HEAD from parent to id with `git
// update-ref HEAD NEW OLD`, git's compare-and-swap, logged as git commit
// logs it. Its error is git's, unwrapped.
func (g *GitRepo) updateHead(env []string, parent, id, message string) error {
	old := parent
	if old == "" {
		old = strings.Repeat("0", g.hexLen)
	}
	kind := "commit"
	if parent == "" {
		kind = "commit (initial)"
	}
	subj, _, _ := strings.Cut(message, "\n")
	_, err := g.runEnv(env, nil, "update-ref", "-m", reflogMessage(kind+": "+subj), "HEAD", id, old)
	return err
}

// retryMove decides on a failed move of the branch (err) in CommitFiles:
// nil when the branch moved from head meanwhile and the commit is to be
// rebuilt on it; else the error, err itself when the branch did not move,
// ErrHeadMoved when a guarded path changed (with req.Expect) or too many
// attempts failed.
func (g *GitRepo) retryMove(req CommitRequest, head Head, attempt int, err error) error {
	now, herr := g.head()
	moved := herr == nil && (now.Hash != head.Hash || now.Branch != head.Branch)
	if !moved {
		return fmt.Errorf("commit: move %s: %w", head.Branch, err)
	}
	if req.Expect != "" && !g.guardsUnchanged(req.Guard, req.Expect, now.Hash) {
		return fmt.Errorf("commit: %w: %s is at %s, expected %s; re-read and retry", ErrHeadMoved, head.Branch, orNone(now.Hash), req.Expect)
	}
	if attempt >= maxRebuilds {
		return fmt.Errorf("commit: %w %d times while committing; retry when the other git process is done", ErrHeadMoved, attempt+1)
	}
	return nil
}

// finishCommit follows the moved branch: the index and working tree (step
// 6 of CommitFiles), the post-commit hook, and the commit read back.
func (g *GitRepo) finishCommit(req CommitRequest, c *gitCommit, parent, id string) (Commit, error) {
	if err := g.syncIndex(parent, c.changes, c.blobs, req.Worktree, c.cone); err != nil {
		return Commit{}, err
	}
	if g.runHooks {
		_ = g.hook(nil, "post-commit") // as in git, post-commit cannot undo the commit: its exit status is ignored
	}
	o, ok, err := g.query("contents", id)
	if err != nil || !ok {
		return Commit{}, fmt.Errorf("commit: read back %s: %w", id, ErrNotFound)
	}
	return g.decodeCommit(id, o.data)
}

// identities are the author and committer of a commit at when: who, when
// given; else git's configuration and environment as the native engine
// reads them (the same precedence as git's), or, where `git -c` settings
// are in play or that finds none, `git var`.
func (g *GitRepo) identities(cfg *configSet, who *Signature, when time.Time) (author, committer Signature, err error) {
	if who != nil {
		s := Signature{Name: who.Name, Email: who.Email, When: when}
		return s, s, nil
	}
	if _, set := os.LookupEnv("GIT_CONFIG_PARAMETERS"); !set {
		a, aerr := identity(cfg, "author", when)
		c, cerr := identity(cfg, "committer", when)
		if aerr == nil && cerr == nil {
			return a, c, nil
		}
	}
	for i, role := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		out, err := g.run(nil, "var", role)
		if err != nil {
			return Signature{}, Signature{}, fmt.Errorf("commit: %w: git says: %s; set it with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com` (or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL)", ErrNoIdentity, gitStderr(err))
		}
		s := parseSignature(bytes.TrimSpace(out))
		s.When = when
		if i == 0 {
			author = s
		} else {
			committer = s
		}
	}
	return author, committer, nil
}

// writeNew writes the objects not written yet (by name) in one pack.
func (g *GitRepo) writeNew(objs []packObject, written map[string]bool) error {
	var todo []packObject
	for _, o := range objs {
		if !written[o.id] {
			todo = append(todo, o)
		}
	}
	if err := g.writeObjects(todo); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	for _, o := range todo {
		written[o.id] = true
	}
	return nil
}

// guardsUnchanged reports whether every guard path names the same entry
// (or nothing) at commits a and b.
func (g *GitRepo) guardsUnchanged(guards []string, a, b string) bool {
	if len(guards) == 0 || a == "" || b == "" {
		return false
	}
	for _, p := range guards {
		ea, erra := g.entry(a, p)
		eb, errb := g.entry(b, p)
		switch {
		case errors.Is(erra, ErrNotFound) && errors.Is(errb, ErrNotFound):
		case erra != nil || errb != nil:
			return false
		case ea.id != eb.id || ea.typ != eb.typ:
			return false
		}
	}
	return true
}

// needsGit reports whether git may store other bytes than data at a path:
// a filter, ident or encoding may apply, or line endings may be converted
// and data holds a CR.
func (g *GitRepo) needsGit(data []byte) bool {
	return g.filters || (g.lineEndings && bytes.IndexByte(data, '\r') >= 0)
}

// blobObjects names the new files' blobs. Those git may convert are
// written by git now, as if each were at its path (`git hash-object -w
// --path`, a few at a time); the others are returned to be written in the
// commit's pack.
func (g *GitRepo) blobObjects(changes []FileChange) (map[string]string, []packObject, error) {
	out := map[string]string{}
	var objs []packObject
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		first error
		slots = make(chan struct{}, 4)
	)
	for _, c := range changes {
		if c.Delete {
			continue
		}
		if !g.needsGit(c.Data) {
			o := g.newObject("blob", c.Data)
			mu.Lock() // the goroutines below write out too
			out[c.Path] = o.id
			mu.Unlock()
			objs = append(objs, o)
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func(c FileChange) {
			defer func() { <-slots; wg.Done() }()
			id, err := g.run(c.Data, "hash-object", "-w", "--stdin", "--path="+c.Path)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = fmt.Errorf("commit: write %s: %w", c.Path, err)
				}
				return
			}
			out[c.Path] = strings.TrimSpace(string(id))
		}(c)
	}
	wg.Wait()
	return out, objs, first
}

// treeNode is a folder touched by a change: its files and its subfolders.
type treeNode struct {
	files map[string]*FileChange
	dirs  map[string]*treeNode
}

func newTreeNode() *treeNode {
	return &treeNode{files: map[string]*FileChange{}, dirs: map[string]*treeNode{}}
}

// buildTrees patches parent's tree with the changes and returns the new
// trees, named here, to be written with the commit.
func (g *GitRepo) buildTrees(parent string, changes []FileChange, blobs map[string]string) (string, []packObject, error) {
	root := changeTree(changes)
	oldRoot, err := g.parentTree(parent)
	if err != nil {
		return "", nil, err
	}
	b := &treeBuilder{g: g, blobs: blobs}
	rootID, _, err := b.build(oldRoot, root, "")
	if err != nil {
		return "", nil, err
	}
	return rootID, b.trees, nil
}

// changeTree is the folders the changes touch, each with its changed files
// and subfolders.
func changeTree(changes []FileChange) *treeNode {
	root := newTreeNode()
	for i := range changes {
		c := &changes[i]
		parts := strings.Split(c.Path, "/")
		n := root
		for _, d := range parts[:len(parts)-1] {
			if n.dirs[d] == nil {
				n.dirs[d] = newTreeNode()
			}
			n = n.dirs[d]
		}
		n.files[parts[len(parts)-1]] = c
	}
	return root
}

// parentTree is the name of parent's root tree ("" without a parent).
func (g *GitRepo) parentTree(parent string) (string, error) {
	if parent == "" {
		return "", nil
	}
	o, ok, err := g.query("info", parent+"^{tree}")
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("commit: tree of %s: %w", parent, ErrNotFound)
	}
	return o.id, nil
}

// treeBuilder patches trees for buildTrees: blobs names the new files'
// blobs by path, trees collects the new trees.
type treeBuilder struct {
	g     *GitRepo
	blobs map[string]string
	trees []packObject
}

// build patches the tree old ("" none) of the folder prefix with the
// changes under n and names the new tree. It returns empty=true, and names
// nothing, when a folder other than the root ends up empty.
func (b *treeBuilder) build(old string, n *treeNode, prefix string) (string, bool, error) {
	var es []rawTreeEntry
	if old != "" {
		var err error
		if es, err = b.g.tree(old); err != nil {
			return "", false, err
		}
	}
	t := newTreeEdit(es)
	if err := b.patchFiles(t, n); err != nil {
		return "", false, err
	}
	if err := b.patchDirs(t, n, prefix); err != nil {
		return "", false, err
	}
	kept := t.kept()
	if len(kept) == 0 && prefix != "" {
		return "", true, nil
	}
	id, err := b.writeTree(kept)
	if err != nil {
		return "", false, err
	}
	return id, false, nil
}

// patchFiles sets or drops the changed files of the folder n. A file cannot
// take the place of a folder unless that folder changes too.
func (b *treeBuilder) patchFiles(t *treeEdit, n *treeNode) error {
	for name, c := range n.files {
		if c.Delete {
			t.remove(name)
			continue
		}
		if i, ok := t.idx[name]; ok && t.es[i].isDir() && n.dirs[name] == nil {
			return fmt.Errorf("commit: %s is a folder at HEAD; delete it in the same commit to put a file there", c.Path)
		}
		t.set(rawTreeEntry{mode: "100644", name: name, id: b.blobs[c.Path]})
	}
	return nil
}

// patchDirs builds the changed subfolders of the folder n and sets them, or
// drops those that end up empty. A folder cannot take the place of a file
// kept, unless it only deletes.
func (b *treeBuilder) patchDirs(t *treeEdit, n *treeNode, prefix string) error {
	for name, sub := range n.dirs {
		subOld := ""
		if i, ok := t.idx[name]; ok && !t.drop[name] {
			if !t.es[i].isDir() {
				if onlyDeletesIn(sub) {
					continue // nothing under a file to delete
				}
				return fmt.Errorf("commit: %s is a file at HEAD, not a folder; delete it in the same commit to put a folder there", joinPath(prefix, name))
			}
			subOld = t.es[i].id
		}
		id, empty, err := b.build(subOld, sub, joinPath(prefix, name))
		if err != nil {
			return err
		}
		if empty {
			t.remove(name)
			continue
		}
		t.set(rawTreeEntry{mode: "40000", name: name, id: id})
	}
	return nil
}

// writeTree sorts the entries in git's order, names their tree and adds it
// to the trees to write.
func (b *treeBuilder) writeTree(kept []rawTreeEntry) (string, error) {
	sort.Slice(kept, func(i, j int) bool { return treeSortKey(kept[i]) < treeSortKey(kept[j]) })
	var buf bytes.Buffer
	for _, e := range kept {
		raw, err := hex.DecodeString(e.id)
		if err != nil || len(raw) != b.g.hexLen/2 {
			return "", fmt.Errorf("commit: entry %s has a bad object name %q", e.name, e.id)
		}
		buf.WriteString(e.mode + " " + e.name + "\x00")
		buf.Write(raw)
	}
	o := b.g.newObject("tree", buf.Bytes())
	b.trees = append(b.trees, o)
	return o.id, nil
}

// treeEdit is one folder's entries being patched: the entries, the index
// of each name among them, and the names dropped.
type treeEdit struct {
	es   []rawTreeEntry
	idx  map[string]int
	drop map[string]bool
}

// newTreeEdit starts the patch of a folder's entries es.
func newTreeEdit(es []rawTreeEntry) *treeEdit {
	t := &treeEdit{es: es, idx: map[string]int{}, drop: map[string]bool{}}
	for i, e := range es {
		t.idx[e.name] = i
	}
	return t
}

// set puts e in place of the entry of its name (dropped or not), or adds
// it.
func (t *treeEdit) set(e rawTreeEntry) {
	if i, ok := t.idx[e.name]; ok {
		t.es[i] = e
		delete(t.drop, e.name)
		return
	}
	t.idx[e.name] = len(t.es)
	t.es = append(t.es, e)
}

// remove drops the entry of name, if there is one.
func (t *treeEdit) remove(name string) {
	if _, ok := t.idx[name]; ok {
		t.drop[name] = true
	}
}

// kept is the entries not dropped, filtered in place.
func (t *treeEdit) kept() []rawTreeEntry {
	kept := t.es[:0]
	for _, e := range t.es {
		if !t.drop[e.name] {
			kept = append(kept, e)
		}
	}
	return kept
}

// onlyDeletesIn reports whether a folder of the change only deletes.
func onlyDeletesIn(n *treeNode) bool {
	for _, c := range n.files {
		if !c.Delete {
			return false
		}
	}
	for _, d := range n.dirs {
		if !onlyDeletesIn(d) {
			return false
		}
	}
	return true
}

// treeSortKey is git's order of tree entries: a folder sorts as "name/".
func treeSortKey(e rawTreeEntry) string {
	if e.isDir() {
		return e.name + "/"
	}
	return e.name
}

// indexLines are the `git update-index --index-info` lines that put the
// changes in the index: a removal of every stage, then the new entry.
func (g *GitRepo) indexLines(parent string, changes []FileChange, blobs map[string]string) ([]byte, []string, error) {
	zero := strings.Repeat("0", g.hexLen)
	var b bytes.Buffer
	var written []string
	for _, c := range changes {
		if c.Delete {
			paths, err := g.deletedPaths(parent, c.Path)
			if err != nil {
				return nil, nil, err
			}
			for _, p := range paths {
				fmt.Fprintf(&b, "0 %s\t%s\x00", zero, p)
			}
			continue
		}
		fmt.Fprintf(&b, "0 %s\t%s\x00", zero, c.Path)
		fmt.Fprintf(&b, "100644 %s\t%s\x00", blobs[c.Path], c.Path)
		written = append(written, c.Path)
	}
	return b.Bytes(), written, nil
}

// deletedPaths are the index paths a delete of p takes out: p itself, the
// files under it at parent, and whatever the index holds under it. The
// caller holds g.mu.
func (g *GitRepo) deletedPaths(parent, p string) ([]string, error) {
	gone := map[string]bool{p: true}
	if parent != "" {
		if err := g.walkTree(parent, p, true, func(q string, _ rawTreeEntry) { gone[q] = true }); err != nil {
			return nil, err
		}
	}
	staged, err := g.staged(p)
	if err != nil {
		return nil, err
	}
	for _, e := range staged {
		gone[e.Path] = true
	}
	paths := make([]string, 0, len(gone))
	for q := range gone {
		paths = append(paths, q)
	}
	sort.Strings(paths)
	return paths, nil
}

// syncIndex puts the committed paths in the index and, with worktree, the
// files in the working tree as git checks them out. Without worktree, a
// path outside the sparse cone (when there is one) that has no file in the
// working tree is marked skip-worktree: git's form of a path outside the
// cone, which neither `git status` nor `git commit -a` takes for deleted.
func (g *GitRepo) syncIndex(parent string, changes []FileChange, blobs map[string]string, worktree bool, cone *sparseCone) error {
	if g.root == "" {
		return nil
	}
	if worktree && !g.lineEndings && !g.filters {
		return g.syncVerbatim(parent, changes)
	}
	lines, written, err := g.indexLines(parent, changes, blobs)
	if err != nil {
		return err
	}
	var skip []string
	if cone != nil && !worktree {
		for _, p := range written {
			if cone.includes(p) {
				continue
			}
			if _, err := os.Lstat(filepath.Join(g.root, filepath.FromSlash(p))); errors.Is(err, os.ErrNotExist) {
				skip = append(skip, p)
			}
		}
	}
	if err := g.retryLocked(func() error {
		if _, err := g.run(lines, "update-index", "-z", "--index-info"); err != nil {
			return err
		}
		if len(skip) == 0 {
			return nil
		}
		_, err := g.run([]byte(strings.Join(skip, "\x00")+"\x00"), "update-index", "-z", "--skip-worktree", "--stdin")
		return err
	}); err != nil {
		return fmt.Errorf("commit: the branch moved, but the index was not updated (`git status` shows the task's files as changed; `itr reconcile` repairs it): %w", err)
	}
	if !worktree {
		return nil
	}
	for _, c := range changes {
		if c.Delete {
			dst := filepath.Join(g.root, filepath.FromSlash(c.Path))
			if err := os.RemoveAll(dst); err != nil {
				return fmt.Errorf("delete %s: %w", dst, err)
			}
			for d := filepath.Dir(dst); d != g.root && len(d) > len(g.root); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break
				}
			}
		}
	}
	if len(written) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, p := range written {
		in.WriteString(p + "\x00")
	}
	return g.retryLocked(func() error {
		_, err := g.run(in.Bytes(), "checkout-index", "-f", "-u", "-q", "-z", "--stdin")
		if err != nil {
			return fmt.Errorf("commit: write the files to the working tree: %w", err)
		}
		return nil
	})
}

// checkWorktree refuses, before anything is written, a file whose folder
// cannot be made in the working tree (a file or a link stands there).
func (g *GitRepo) checkWorktree(changes []FileChange) error {
	for _, c := range changes {
		if c.Delete {
			continue
		}
		parts := strings.Split(c.Path, "/")
		for i := 1; i < len(parts); i++ {
			p := filepath.Join(g.root, filepath.FromSlash(strings.Join(parts[:i], "/")))
			fi, err := os.Lstat(p)
			if errors.Is(err, os.ErrNotExist) {
				break
			}
			if err != nil {
				return fmt.Errorf("commit: %w", err)
			}
			if !fi.IsDir() {
				return fmt.Errorf("commit: cannot write %s: %s is not a folder in the working tree; move it away", c.Path, p)
			}
		}
		dst := filepath.Join(g.root, filepath.FromSlash(c.Path))
		if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
			return fmt.Errorf("commit: cannot write %s: it is a folder in the working tree; move it away", c.Path)
		}
	}
	return nil
}

// syncVerbatim is syncIndex where git stores files' bytes as they are:
// the files are written (or deleted) here, dated a second back so that the
// index git writes next vouches for them, and one `git update-index --add
// --remove` records them with their stat data, replacing any conflict
// stages, as `git add` does.
func (g *GitRepo) syncVerbatim(parent string, changes []FileChange) error {
	var paths []string
	for _, c := range changes {
		dst := filepath.Join(g.root, filepath.FromSlash(c.Path))
		if c.Delete {
			gone, err := g.deletedPaths(parent, c.Path)
			if err != nil {
				return err
			}
			paths = append(paths, gone...)
			if err := os.RemoveAll(dst); err != nil {
				return fmt.Errorf("delete %s: %w", dst, err)
			}
			for d := filepath.Dir(dst); d != g.root && len(d) > len(g.root); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break
				}
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return fmt.Errorf("create folder for %s: %w", dst, err)
		}
		if err := writeFileAtomic(dst, c.Data, false); err != nil {
			return err
		}
		past := time.Now().Add(-time.Second).Truncate(time.Second)
		_ = os.Chtimes(dst, past, past)
		paths = append(paths, c.Path)
	}
	sort.Strings(paths)
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p + "\x00")
	}
	if err := g.retryLocked(func() error {
		_, err := g.run(in.Bytes(), "update-index", "--add", "--remove", "-z", "--stdin")
		return err
	}); err != nil {
		return fmt.Errorf("commit: the branch moved, but the index was not updated (`git status` shows the task's files as changed; `itr reconcile` repairs it): %w", err)
	}
	return nil
}

// retryLocked runs fn again while git reports index.lock held by another
// git process, for up to the lock budget.
func (g *GitRepo) retryLocked(fn func() error) error {
	deadline := time.Now().Add(2 * time.Second)
	for delay := time.Millisecond; ; delay *= 2 {
		err := fn()
		if err == nil || !strings.Contains(gitStderr(err), ".lock") || time.Now().After(deadline) {
			if err != nil && strings.Contains(gitStderr(err), ".lock") {
				return fmt.Errorf("%w: %w", ErrLocked, err)
			}
			return err
		}
		if delay > 100*time.Millisecond {
			delay = 100 * time.Millisecond
		}
		time.Sleep(delay)
	}
}

// Stage writes the files to the working tree and the index at stage 0
// (replacing conflict stages), as `git add` would store them.
func (g *GitRepo) Stage(changes []FileChange) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.root == "" {
		return fmt.Errorf("stage: the repository %s is bare", g.gitDir)
	}
	changes, err := normaliseChanges(changes)
	if err != nil {
		return err
	}
	if err := g.checkWorktree(changes); err != nil {
		return err
	}
	blobs, objs, err := g.blobObjects(changes)
	if err != nil {
		return err
	}
	if err := g.writeObjects(objs); err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	head, err := g.head()
	if err != nil {
		return err
	}
	return g.syncIndex(head.Hash, changes, blobs, true, nil)
}

// sparseCone is a cone-mode sparse checkout: the folders whose whole
// content is in the working tree and the folders on the way to them, whose
// own files are; the files at the top always are.
type sparseCone struct {
	full      bool            // "/*" without "!/*/": everything
	recursive map[string]bool // folder → all below it
	parents   map[string]bool // folder → its files
}

// sparseCone reads this worktree's sparse checkout when it is in cone mode
// (core.sparseCheckout and core.sparseCheckoutCone, patterns in
// info/sparse-checkout); nil when there is none, or when its patterns are
// not cone patterns, which git then matches as gitignore patterns (itr
// marks nothing skip-worktree there).
func (g *GitRepo) sparseCone(cfg *configSet) (*sparseCone, error) {
	if g.root == "" || !isTrue(cfg.value("core", "", "sparsecheckout")) || !isTrue(cfg.value("core", "", "sparsecheckoutcone")) {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(g.gitDir, "info", "sparse-checkout"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // git checks out everything without the file
	}
	if err != nil {
		return nil, fmt.Errorf("commit: read the sparse-checkout patterns: %w", err)
	}
	return parseCone(string(data)), nil
}

// parseCone reads cone-mode patterns as git does (dir.c,
// add_pattern_to_hashsets): "/*" and "!/*/" at the top, "/a/" for a
// folder with everything below it, "!/a/*/" for a folder on the way to
// one, whose files only are in. Anything else is not a cone: nil.
func parseCone(data string) *sparseCone {
	c := &sparseCone{recursive: map[string]bool{}, parents: map[string]bool{}}
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || line[0] == '#' {
			continue
		}
		neg := line[0] == '!'
		if neg {
			line = line[1:]
		}
		dir := strings.HasSuffix(line, "/")
		line = strings.TrimSuffix(line, "/")
		switch {
		case line == "/*" && neg && dir:
			c.full = false
			continue
		case line == "/*" && !neg && !dir:
			c.full = true
			continue
		case len(line) < 2 || line[0] != '/' || !dir || strings.Contains(line, "**"):
			return nil
		}
		name, parent := line[1:], false
		if strings.HasSuffix(name, "/*") {
			if !neg {
				return nil
			}
			name, parent = strings.TrimSuffix(name, "/*"), true
		} else if neg {
			return nil
		}
		var b strings.Builder
		for i := 0; i < len(name); i++ {
			switch ch := name[i]; {
			case ch == '\\' && i+1 < len(name) && strings.IndexByte(`*?[\\`, name[i+1]) >= 0:
				i++
				b.WriteByte(name[i])
			case ch == '*' || ch == '?' || ch == '[' || ch == '\\':
				return nil // a glob: not a cone pattern
			default:
				b.WriteByte(ch)
			}
		}
		if parent {
			c.parents[b.String()] = true
			delete(c.recursive, b.String())
		} else {
			c.recursive[b.String()] = true
		}
	}
	return c
}

// includes reports whether a file's path is in the cone (dir.c,
// path_matches_pattern_list in cone mode).
func (c *sparseCone) includes(p string) bool {
	if c.full || c.recursive[p] {
		return true
	}
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return true // the files at the top always are
	}
	if c.parents[p[:i]] {
		return true
	}
	for d := p[:i]; ; {
		if c.recursive[d] {
			return true
		}
		j := strings.LastIndexByte(d, '/')
		if j < 0 {
			return false
		}
		d = d[:j]
	}
}

// hookedTree runs pre-commit, prepare-commit-msg and commit-msg as `git
// commit <paths>` runs them: on a private index holding parent's tree and
// the change (GIT_INDEX_FILE), so a hook that stages more is heard, and on
// the message in a file a hook may edit. It returns the tree of that index
// and the final message.
func (g *GitRepo) hookedTree(parent string, changes []FileChange, blobs map[string]string, msg string, env []string) (string, string, error) {
	dir, err := os.MkdirTemp(g.gitDir, "itr-hooks-")
	if err != nil {
		return "", "", fmt.Errorf("commit: %w", err)
	}
	defer os.RemoveAll(dir)
	index := filepath.Join(dir, "index")
	ienv := append(append([]string{}, env...), "GIT_INDEX_FILE="+index, "GIT_EDITOR=:")
	readTree := []string{"read-tree", "--empty"}
	if parent != "" {
		readTree = []string{"read-tree", parent}
	}
	if _, err := g.runEnv(ienv, nil, readTree...); err != nil {
		return "", "", fmt.Errorf("commit: private index: %w", err)
	}
	lines, _, err := g.indexLines(parent, changes, blobs)
	if err != nil {
		return "", "", err
	}
	if _, err := g.runEnv(ienv, lines, "update-index", "-z", "--index-info"); err != nil {
		return "", "", fmt.Errorf("commit: private index: %w", err)
	}
	if err := g.hook(ienv, "pre-commit"); err != nil {
		return "", "", err
	}
	msgFile := filepath.Join(dir, "COMMIT_EDITMSG")
	if err := os.WriteFile(msgFile, []byte(msg), 0o644); err != nil {
		return "", "", fmt.Errorf("commit: %w", err)
	}
	if err := g.hook(ienv, "prepare-commit-msg", msgFile, "message"); err != nil {
		return "", "", err
	}
	if err := g.hook(ienv, "commit-msg", msgFile); err != nil {
		return "", "", err
	}
	edited, err := os.ReadFile(msgFile)
	if err != nil {
		return "", "", fmt.Errorf("commit: %w", err)
	}
	final := cleanMessage(keepTrailers(msg, stripComments(string(edited))))
	if strings.TrimSpace(final) == "" {
		return "", "", errors.New("commit: a commit hook left the message empty, or left it so that git would not read itr's Itr-* trailers as trailers (a \"---\" line ends them); nothing was committed")
	}
	out, err := g.runEnv(ienv, nil, "write-tree")
	if err != nil {
		return "", "", fmt.Errorf("commit: %w", err)
	}
	return strings.TrimSpace(string(out)), final, nil
}

// stripComments drops the lines a hook wrote as comments ("#"), as git's
// default cleanup does.
func stripComments(m string) string {
	lines := strings.Split(m, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// HookError is a commit hook that refused itr's commit: its name, exit
// code and what it printed.
type HookError struct {
	Hook   string
	Code   int
	Output string
}

// Error implements error.
func (e *HookError) Error() string {
	out := strings.TrimSpace(e.Output)
	if out != "" {
		out = ":\n" + out
	}
	return fmt.Sprintf("commit: the %s hook refused the commit (exit %d); nothing was committed (run_hooks: true in .itr.yaml runs the repository's hooks; fix what it reports, or set run_hooks: false)%s", e.Hook, e.Code, out)
}

// hook runs one hook with `git hook run --ignore-missing` (core.hooksPath
// applies); its output goes to itr's stderr as git's does, and with a
// failure into the error.
func (g *GitRepo) hook(env []string, name string, args ...string) error {
	if env == nil {
		env = []string{"GIT_EDITOR=:"}
	}
	full := append([]string{"hook", "run", "--ignore-missing", name}, "--")
	full = append(full, args...)
	out, err := g.runEnv(env, nil, full...)
	var ge *GitError
	text := string(out)
	if errors.As(err, &ge) {
		text += ge.Stderr
	}
	if text != "" {
		os.Stderr.WriteString(text)
	}
	if err != nil {
		if name == "post-commit" {
			return nil
		}
		return &HookError{Hook: name, Code: exitCode(err), Output: text}
	}
	return nil
}

// keepTrailers makes sure a message a hook edited still ends with the
// trailers of the message itr wrote (the Itr-* keys itr reads its history
// by): those a hook pushed out of the trailer block (by adding a paragraph
// after it) are taken out of the body and appended to the final block. It
// returns "" when the message is empty or the trailers cannot be kept.
func keepTrailers(orig, final string) string {
	if strings.TrimSpace(final) == "" {
		return ""
	}
	final = cleanMessage(final) // as git will store it: what is a trailer there
	want := ParseTrailers(orig)
	have := map[string]bool{}
	for _, t := range ParseTrailers(final) {
		have[t.Key+": "+t.Value] = true
	}
	var missing []string
	for _, t := range want {
		if !have[t.Key+": "+t.Value] {
			missing = append(missing, t.Key+": "+t.Value)
		}
	}
	if len(missing) == 0 {
		return final
	}
	drop := map[string]bool{}
	for _, m := range missing {
		drop[m] = true
	}
	var kept []string
	for _, l := range strings.Split(strings.TrimRight(final, "\n"), "\n") {
		if !drop[strings.TrimSpace(l)] {
			kept = append(kept, l)
		}
	}
	// Blank lines left where the trailers were fold into one.
	var b []string
	for _, l := range kept {
		if strings.TrimSpace(l) == "" && len(b) > 0 && strings.TrimSpace(b[len(b)-1]) == "" {
			continue
		}
		b = append(b, l)
	}
	body := strings.Trim(cleanMessage(strings.Join(b, "\n")), "\n")
	if strings.TrimSpace(body) == "" {
		return "" // nothing but itr's trailers: the hook emptied the message
	}
	sep := "\n\n"
	if len(ParseTrailers(body+"\n")) > 0 {
		sep = "\n" // the body ends in a trailer block: join it
	}
	out := body + sep + strings.Join(missing, "\n") + "\n"
	have = map[string]bool{}
	for _, t := range ParseTrailers(out) {
		have[t.Key+": "+t.Value] = true
	}
	for _, t := range want {
		if !have[t.Key+": "+t.Value] {
			return "" // git would not read them as trailers (a "---" line, ...)
		}
	}
	return out
}
