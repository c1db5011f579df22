package gitstate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Signature is a name, an email and a time, as in a commit header.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// FileChange is one file to write or delete. Path is repository-relative
// with slashes; files are written with mode 100644. Delete of a folder path
// removes the whole folder.
type FileChange struct {
	Path   string
	Data   []byte
	Delete bool
}

// CommitRequest describes one commit of given paths.
type CommitRequest struct {
	Changes  []FileChange
	Message  string    // whole message, trailers included
	When     time.Time // author and committer time; zero means time.Now()
	Expect   string    // if set, the HEAD hash the caller read; ErrHeadMoved if HEAD differs
	Worktree bool      // also write (or delete) the files in the working tree
	// Guard, with Expect, names paths (files or folders) whose content the
	// caller read: when HEAD has moved but none of them changed between
	// Expect and the new HEAD, the commit is rebuilt on the new HEAD instead
	// of failing with ErrHeadMoved. Without Guard any move fails.
	Guard []string
	// Author, when set, is the name and email of both author and committer
	// instead of the identity git's configuration gives (its When is ignored).
	Author *Signature
}

// Commit is a commit as itr sees it.
type Commit struct {
	Hash      string
	Parents   []string
	Author    Signature
	Committer Signature
	Message   string
	Subject   string // first paragraph joined into one line, as git's %s
	Trailers  []Trailer
	// Shallow is set, by History, on a shallow clone's boundary commit (one
	// that .git/shallow lists): its parents are not in the repository, so
	// the history before it cannot be read. A deepened clone (git fetch
	// --deepen, --unshallow) moves or drops the boundary.
	Shallow bool
}

// Trailer returns the value of the last trailer whose key matches key
// (case-insensitively) and whether there is one.
func (c Commit) Trailer(key string) (string, bool) {
	for i := len(c.Trailers) - 1; i >= 0; i-- {
		if strings.EqualFold(c.Trailers[i].Key, key) {
			return c.Trailers[i].Value, true
		}
	}
	return "", false
}

// stepHook, set only by tests, is called at each step boundary of
// CommitFiles ("index locked", "objects", "refs locked", "worktree",
// "index", "branch", "released") and after looseWriter makes an object
// folder ("mkdir <path>"), so a test can act as a concurrent git there.
var stepHook func(step string)

func step(name string) {
	if stepHook != nil {
		stepHook(name)
	}
}

// maxRebuilds bounds how often CommitFiles rebuilds on a moved HEAD when
// req.Expect is empty.
const maxRebuilds = 20

// CommitFiles writes one commit on the current branch that changes only the
// given paths, moves the branch with compare-and-swap, and updates only those
// paths' index entries. Other staged, unstaged or untracked work is never
// touched; no worktree status is run.
//
// The order of the steps is chosen for what a git process running beside
// it can observe. `git commit` reads HEAD first and the index after it; it
// reads the index before it takes index.lock, then writes back what it
// read (refreshed) and builds its tree from the index file again. Had the
// branch moved before the index, a git commit reading HEAD in between
// would take itr's commit as its parent with the index from before it, and
// its own commit would silently take itr's entries out again. So:
//
//   - the index is put in place before the branch moves, and index.lock
//     stays held (the new index is published through a hard link, see
//     lockFile.publish) until the branch has moved: whoever reads the new
//     HEAD reads the new index, and whoever read the index before cannot
//     write it back while itr works;
//   - HEAD.lock is held as git commit holds it, so `git switch`, `git
//     checkout` and `git reflog expire` of HEAD wait.
//
// What remains is git's own race: a git command that read the index before
// step 5 and tries index.lock only after step 6 writes back the index from
// before the checkpoint (git loses a concurrent `git add` the same way).
// Its own commit then fails ("cannot lock ref 'HEAD'"), but the next git
// commit would take itr's entries out; itr notices such a commit and puts
// the entries back (workspace's undo repair).
//
// Steps, and what an interruption leaves behind:
//
//  1. index.lock is taken (held to the end). Interrupted: a stale
//     index.lock, which git reports; the next itr run removes it.
//  2. Blobs, trees and the commit are written as loose objects (fsynced).
//     Interrupted: unreachable objects only; git gc prunes them.
//  3. HEAD.lock and <ref>.lock are taken and the branch compared with the
//     parent. If HEAD moved: with req.Expect set, ErrHeadMoved and nothing
//     changed; otherwise the commit is rebuilt on the new HEAD.
//  4. With req.Worktree, the files are written (temp file + rename) or
//     deleted. Interrupted: the working tree shows the new content as
//     unstaged changes; the branch is unchanged.
//  5. The index entries of the paths are replaced (write, fsync, publish).
//     Interrupted: the paths show as staged changes of the working tree's
//     content; the branch is unchanged, and the next itr run puts the files
//     back (workspace's run record).
//  6. The branch is moved (write, fsync, rename of <ref>.lock), the reflog
//     lines of the branch and HEAD are appended, and HEAD.lock and
//     index.lock are released.
//
// Errors: ErrDetachedHead, ErrHeadMoved, ErrLocked (git's text), errors
// wrapping ErrNoIdentity, and *UnsupportedError for an index gitstate cannot
// patch (split index, sparse index, index.skipHash) — all before anything is
// written.
func (r *Repo) CommitFiles(req CommitRequest) (Commit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()

	changes, err := normaliseChanges(req.Changes)
	if err != nil {
		return Commit{}, err
	}
	s, err := r.prepareCommit(req)
	if err != nil {
		return Commit{}, err
	}

	// 1. Hold the index for the whole commit. It is validated and the
	// patch laid out now, streaming, so that a bad index stops the commit
	// before anything is written; the file stays open for the copy in 6.
	var ix heldIndex
	if r.root != "" {
		if ix, err = r.holdIndex(s.cfg, changes); err != nil {
			return Commit{}, err
		}
		defer ix.release()
	}

	msg := cleanMessage(req.Message)
	// 2. Objects, and 3. HEAD and the branch locked and compared.
	lc, err := r.writeAndLock(req, s, changes, msg)
	if err != nil {
		return Commit{}, err
	}
	defer lc.release()

	step("refs locked")
	// 4. Working tree files.
	if req.Worktree {
		if err := r.writeWorktree(changes); err != nil {
			return Commit{}, err
		}
	}
	step("worktree")

	// 5. The index, before the branch (see above), published while
	// index.lock stays held until the branch has moved.
	if ix.lock != nil {
		if err := r.publishIndex(ix, changes); err != nil {
			return Commit{}, err
		}
	}
	step("index")

	// 6. Move the branch and log it; release HEAD and the index.
	if err := lc.moveBranch(); err != nil {
		return Commit{}, err
	}
	step("branch")
	if err := r.logCommit(s, lc, msg); err != nil {
		return Commit{}, err
	}
	lc.head.rollback() // HEAD itself is unchanged: the lock only kept others out
	ix.lock.rollback() // the index was published in step 5
	step("released")
	return commitResult(s, lc, msg), nil
}

// commitSetup is what CommitFiles reads before it takes a lock: the branch
// HEAD is on, git's configuration, and the author and committer.
type commitSetup struct {
	head              Head
	cfg               *configSet
	author, committer Signature
}

// prepareCommit checks what CommitFiles can check before it writes
// anything and reads what it needs: a working tree when req.Worktree asks
// for one, HEAD on a branch and where req.Expect says (or with req.Guard
// unchanged), the configuration (which sets r.dur), the author and
// committer, and an index without index.skipHash.
func (r *Repo) prepareCommit(req CommitRequest) (commitSetup, error) {
	if req.Worktree && r.root == "" {
		return commitSetup{}, fmt.Errorf("commit: the repository %s is bare; it has no working tree to write files into", r.gitDir)
	}
	when := req.When
	if when.IsZero() {
		when = time.Now()
	}
	head, err := r.head()
	if err != nil {
		return commitSetup{}, err
	}
	if head.Detached {
		return commitSetup{}, fmt.Errorf("commit: %w at %s; switch to a branch with `git switch <branch>`", ErrDetachedHead, head.Hash)
	}
	if req.Expect != "" && head.Hash != req.Expect && !r.guardsUnchanged(req.Guard, req.Expect, head.Hash) {
		return commitSetup{}, fmt.Errorf("commit: %w: %s is at %s, expected %s; re-read and retry", ErrHeadMoved, head.Branch, orNone(head.Hash), req.Expect)
	}
	cfg, err := r.loadConfig(head.Branch)
	if err != nil {
		return commitSetup{}, err
	}
	r.dur = durabilityOf(cfg)
	author, committer, err := commitSignatures(cfg, req.Author, when)
	if err != nil {
		return commitSetup{}, err
	}
	if r.root != "" && isTrue(cfg.value("index", "", "skiphash")) {
		return commitSetup{}, unsupportedIndex("index.skipHash", "true", "run `git config index.skipHash false` and then `git update-index --force-write-index`")
	}
	return commitSetup{head: head, cfg: cfg, author: author, committer: committer}, nil
}

// commitSignatures are the author and committer of a commit at when: who
// for both, when given, else the identities git's configuration gives.
func commitSignatures(cfg *configSet, who *Signature, when time.Time) (author, committer Signature, err error) {
	if who != nil {
		author = Signature{Name: who.Name, Email: who.Email, When: when}
		return author, author, nil
	}
	if author, err = identity(cfg, "author", when); err != nil {
		return Signature{}, Signature{}, err
	}
	if committer, err = identity(cfg, "committer", when); err != nil {
		return Signature{}, Signature{}, err
	}
	return author, committer, nil
}

// heldIndex is the index as CommitFiles holds it from step 1 to the end:
// index.lock, the index file kept open for the copy, the index as read and
// the patch laid out for the changed paths. Its zero value holds nothing.
type heldIndex struct {
	lock *lockFile
	file *os.File
	idx  *rawIndex
	plan *indexPlan
}

// release closes the index file and removes index.lock, in that order.
func (ix heldIndex) release() {
	if ix.file != nil {
		ix.file.Close()
	}
	ix.lock.rollback()
}

// holdIndex is step 1 of CommitFiles: it takes index.lock, then reads and
// validates the index (a new one of index.version where there is none) and
// lays out the patch of the changed paths. On an error it holds nothing.
func (r *Repo) holdIndex(cfg *configSet, changes []FileChange) (_ heldIndex, err error) {
	var ix heldIndex
	indexPath := r.indexFile()
	if ix.lock, err = r.acquireLock(indexPath); err != nil {
		return heldIndex{}, err
	}
	ix.lock.nosync = !r.dur.index
	defer func() {
		if err != nil {
			ix.release()
		}
	}()
	step("index locked")
	paths := make([]indexChange, len(changes))
	for i, c := range changes {
		paths[i] = indexChange{path: c.Path, delete: c.Delete}
	}
	sortChanges(paths)
	f, err := os.Open(indexPath)
	switch {
	case err == nil:
		ix.file = f
		fi, err := f.Stat()
		if err != nil {
			return heldIndex{}, fmt.Errorf("read %s: %w", indexPath, err)
		}
		if ix.idx, ix.plan, err = readIndexPlan(indexPath, f, fi.Size(), paths); err != nil {
			return heldIndex{}, err
		}
	case os.IsNotExist(err):
		ix.idx = emptyIndex(indexVersion(cfg))
		if ix.plan, err = planIndex(ix.idx, paths); err != nil {
			return heldIndex{}, err
		}
	default:
		return heldIndex{}, fmt.Errorf("read %s: %w", indexPath, err)
	}
	return ix, nil
}

// lockedCommit is a commit written as loose objects, its parent, and the
// HEAD.lock and branch lock CommitFiles holds from step 3 until the branch
// has moved.
type lockedCommit struct {
	hash      plumbing.Hash
	parent    string
	head, ref *lockFile
}

// release removes the branch's lock and HEAD.lock, in that order.
func (lc lockedCommit) release() {
	lc.ref.rollback()
	lc.head.rollback()
}

// writeAndLock is steps 2 and 3 of CommitFiles: it writes the commit's
// objects on the branch's commit, takes HEAD.lock and the branch's lock as
// git commit does and compares the branch with the parent. Where HEAD moved
// meanwhile it releases the locks and rebuilds the commit on the new HEAD,
// or fails as movedHead says. On an error it holds no lock.
func (r *Repo) writeAndLock(req CommitRequest, s commitSetup, changes []FileChange, msg string) (lc lockedCommit, err error) {
	lc.parent = s.head.Hash
	defer func() {
		if err != nil {
			lc.release()
		}
	}()
	for attempt := 0; ; attempt++ {
		// 2. Objects.
		lc.hash, err = r.writeCommitObjects(lc.parent, changes, s.author, s.committer, msg)
		if err != nil {
			return lc, err
		}
		step("objects")
		// 3. Lock HEAD and the branch, as git commit does, and compare.
		if lc.head, err = r.acquireLock(filepath.Join(r.gitDir, "HEAD")); err != nil {
			return lc, err
		}
		if lc.ref, err = r.acquireLock(r.refFile(s.head.Branch)); err != nil {
			return lc, err
		}
		lc.ref.nosync = !r.dur.refs
		var now Head
		if now, err = r.head(); err != nil {
			return lc, err
		}
		if now.Branch == s.head.Branch && now.Hash == lc.parent {
			return lc, nil
		}
		lc.release()
		if err = r.movedHead(req, s.head, now, lc.parent, attempt); err != nil {
			return lc, err
		}
		lc.parent = now.Hash
	}
}

// movedHead is the error of step 3 of CommitFiles for a branch found at now
// instead of parent, or nil when the commit is to be rebuilt on now: HEAD
// detached or on another branch, a guarded path changed (with req.Expect
// set) and too many rebuilds are errors.
func (r *Repo) movedHead(req CommitRequest, head, now Head, parent string, attempt int) error {
	if now.Detached {
		return fmt.Errorf("commit: %w at %s; switch to a branch with `git switch <branch>`", ErrDetachedHead, now.Hash)
	}
	if now.Branch != head.Branch || (req.Expect != "" && !r.guardsUnchanged(req.Guard, parent, now.Hash)) {
		return fmt.Errorf("commit: %w: %s is at %s, expected %s; re-read and retry", ErrHeadMoved, now.Branch, orNone(now.Hash), orNone(parent))
	}
	if attempt >= maxRebuilds {
		return fmt.Errorf("commit: %w %d times while committing; retry when the other git process is done", ErrHeadMoved, attempt+1)
	}
	return nil
}

// publishIndex is step 5 of CommitFiles: it writes the held index with the
// changed paths' entries replaced and publishes it; index.lock stays held.
func (r *Repo) publishIndex(ix heldIndex, changes []FileChange) error {
	ichanges, err := r.indexChanges(changes)
	if err != nil {
		return err
	}
	sortChanges(ichanges) // the order plan was made with: paths are unique
	if err := writeIndexPlan(ix.lock, ix.idx, ix.plan, ichanges); err != nil {
		return fmt.Errorf("write %s: %w", ix.lock.lock, err)
	}
	return ix.lock.publish()
}

// moveBranch writes the commit's name into the branch's lock and renames
// the lock over the branch.
func (lc lockedCommit) moveBranch() error {
	if _, err := lc.ref.Write([]byte(lc.hash.String() + "\n")); err != nil {
		return fmt.Errorf("write %s: %w", lc.ref.lock, err)
	}
	return lc.ref.commit()
}

// logCommit appends the commit's line to the reflogs of the branch and of
// HEAD, creating them where core.logAllRefUpdates says.
func (r *Repo) logCommit(s commitSetup, lc lockedCommit, msg string) error {
	old := lc.parent
	kind := "commit"
	if old == "" {
		old = zeroHash
		kind = "commit (initial)"
	}
	subjectLine, _, _ := strings.Cut(msg, "\n")
	line := reflogLine(old, lc.hash.String(), s.committer, reflogMessage(kind+": "+subjectLine))
	logAll := s.cfg.value("core", "", "logallrefupdates")
	create := r.root != "" && (logAll == "" || isTrue(logAll)) || strings.EqualFold(logAll, "always")
	if err := appendReflog(filepath.Join(r.commonDir, "logs", filepath.FromSlash(s.head.Branch)), line, create); err != nil {
		return err
	}
	return appendReflog(filepath.Join(r.gitDir, "logs", "HEAD"), line, create)
}

// commitResult is the Commit CommitFiles made.
func commitResult(s commitSetup, lc lockedCommit, msg string) Commit {
	c := Commit{
		Hash:      lc.hash.String(),
		Author:    s.author,
		Committer: s.committer,
		Message:   msg,
		Subject:   subject(msg),
		Trailers:  ParseTrailers(msg),
	}
	if lc.parent != "" {
		c.Parents = []string{lc.parent}
	}
	return c
}

// indexVersion is the version of a new index: index.version, else 2.
func indexVersion(cfg *configSet) uint32 {
	switch cfg.value("index", "", "version") {
	case "3":
		return 3
	case "4":
		return 4
	}
	return 2
}

// guardsUnchanged reports whether every guard path has the same content
// (the same tree entry, or absent in both) at commits a and b.
func (r *Repo) guardsUnchanged(guards []string, a, b string) bool {
	if len(guards) == 0 || a == "" || b == "" {
		return false
	}
	for _, g := range guards {
		ea, erra := r.entryAt(a, g)
		eb, errb := r.entryAt(b, g)
		switch {
		case errors.Is(erra, ErrNotFound) && errors.Is(errb, ErrNotFound):
		case erra != nil || errb != nil:
			return false
		case ea.Hash != eb.Hash || ea.Mode != eb.Mode:
			return false
		}
	}
	return true
}

func orNone(h string) string {
	if h == "" {
		return "(no commit)"
	}
	return h
}

// cleanMessage trims trailing whitespace and blank lines and ends the
// message with one newline, as `git commit` does.
func cleanMessage(m string) string {
	lines := strings.Split(m, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n") + "\n"
}

// subject returns git's %s: the first paragraph joined with spaces.
func subject(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if strings.TrimSpace(l) == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		parts = append(parts, strings.TrimSpace(l))
	}
	return strings.Join(parts, " ")
}

// normaliseChanges validates paths and keeps the last change per path.
func normaliseChanges(in []FileChange) ([]FileChange, error) {
	if len(in) == 0 {
		return nil, errors.New("commit: no changes given; pass at least one FileChange")
	}
	byPath := map[string]int{}
	var out []FileChange
	for _, c := range in {
		p := c.Path
		if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "\\") || strings.Contains(p, "\x00") {
			return nil, fmt.Errorf("commit: path %q is not a repository-relative slash path", p)
		}
		for _, comp := range strings.Split(p, "/") {
			if comp == "" || comp == "." || comp == ".." || strings.EqualFold(comp, ".git") {
				return nil, fmt.Errorf("commit: path %q has an invalid component %q", p, comp)
			}
		}
		if i, ok := byPath[p]; ok {
			out[i] = c
			continue
		}
		byPath[p] = len(out)
		out = append(out, c)
	}
	for _, a := range out {
		for _, b := range out {
			if !a.Delete && !b.Delete && strings.HasPrefix(b.Path, a.Path+"/") {
				return nil, fmt.Errorf("commit: %q is both a file and a folder of %q; commit one of them", a.Path, b.Path)
			}
		}
	}
	return out, nil
}

// dirChange is the set of changes under one folder.
type dirChange struct {
	files map[string]*FileChange
	dirs  map[string]*dirChange
}

func newDirChange() *dirChange {
	return &dirChange{files: map[string]*FileChange{}, dirs: map[string]*dirChange{}}
}

// writeCommitObjects writes blobs, the trees on the changed paths and the
// commit, and returns the commit hash.
func (r *Repo) writeCommitObjects(parent string, changes []FileChange, author, committer Signature, msg string) (plumbing.Hash, error) {
	root := newDirChange()
	for i := range changes {
		c := &changes[i]
		node := root
		parts := strings.Split(c.Path, "/")
		for _, d := range parts[:len(parts)-1] {
			next, ok := node.dirs[d]
			if !ok {
				next = newDirChange()
				node.dirs[d] = next
			}
			node = next
		}
		node.files[parts[len(parts)-1]] = c
	}
	var oldTree plumbing.Hash
	var parents []plumbing.Hash
	if parent != "" {
		ph := plumbing.NewHash(parent)
		t, err := r.commitTree(ph)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read HEAD commit %s: %w", parent, err)
		}
		oldTree = t
		parents = []plumbing.Hash{ph}
	}
	lw := r.newLooseWriter()
	defer lw.closeIndexes()
	treeHash, _, err := r.buildTree(oldTree, root, "", lw, true)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	data := encodeCommit(treeHash, parents, author, committer, msg)
	h, err := lw.put(plumbing.CommitObject, data)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	lw.sync()
	return h, nil
}

// buildTree applies changes to the tree old (zero: none) and writes the new
// trees. It returns empty=true when the folder ends up empty (not written,
// except for the root).
func (r *Repo) buildTree(old plumbing.Hash, ch *dirChange, prefix string, lw *looseWriter, isRoot bool) (plumbing.Hash, bool, error) {
	var entries []treeEntry
	if !old.IsZero() {
		es, err := r.treeEntries(old)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read tree %s of %q: %w", old, "/"+prefix, err)
		}
		entries = es
	}
	find := func(name string) int {
		for i := range entries {
			if entries[i].Name == name {
				return i
			}
		}
		return -1
	}
	remove := func(i int) { entries = append(entries[:i], entries[i+1:]...) }
	for name, fc := range ch.files {
		i := find(name)
		if fc.Delete {
			if i >= 0 {
				remove(i)
			}
			continue
		}
		if i >= 0 && entries[i].Mode == filemode.Dir {
			return plumbing.ZeroHash, false, fmt.Errorf("commit: %s is a folder at HEAD; delete it first or choose another path", fc.Path)
		}
		h, err := lw.put(plumbing.BlobObject, fc.Data)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		e := treeEntry{Name: name, Mode: filemode.Regular, Hash: h}
		if i >= 0 {
			entries[i] = e
		} else {
			entries = append(entries, e)
		}
	}
	for name, sub := range ch.dirs {
		i := find(name)
		var subOld plumbing.Hash
		if i >= 0 {
			if entries[i].Mode != filemode.Dir {
				if onlyDeletes(sub) {
					continue
				}
				return plumbing.ZeroHash, false, fmt.Errorf("commit: %s is a file at HEAD, not a folder; delete it first or choose another path", path.Join(prefix, name))
			}
			subOld = entries[i].Hash
		}
		h, empty, err := r.buildTree(subOld, sub, path.Join(prefix, name), lw, false)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		switch {
		case empty && i >= 0:
			remove(i)
		case empty:
		case i >= 0:
			entries[i].Hash = h
		default:
			entries = append(entries, treeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
	}
	if len(entries) == 0 && !isRoot {
		return plumbing.ZeroHash, true, nil
	}
	sort.Slice(entries, func(i, j int) bool { return treeKey(entries[i]) < treeKey(entries[j]) })
	var buf bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&buf, "%o %s", uint32(e.Mode), e.Name)
		buf.WriteByte(0)
		buf.Write(e.Hash[:])
	}
	h, err := lw.put(plumbing.TreeObject, buf.Bytes())
	return h, false, err
}

// treeKey is the sort key of a tree entry in git order: folders sort as
// "name/".
func treeKey(e treeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

func onlyDeletes(d *dirChange) bool {
	for _, f := range d.files {
		if !f.Delete {
			return false
		}
	}
	for _, s := range d.dirs {
		if !onlyDeletes(s) {
			return false
		}
	}
	return true
}

// writeWorktree writes each file with a temp file and a rename, or deletes
// it (and folders it leaves empty).
func (r *Repo) writeWorktree(changes []FileChange) error {
	for _, c := range changes {
		dst := filepath.Join(r.root, filepath.FromSlash(c.Path))
		if c.Delete {
			if err := os.RemoveAll(dst); err != nil {
				return fmt.Errorf("delete %s: %w", dst, err)
			}
			r.dropSpare(c.Path)
			for d := filepath.Dir(dst); d != r.root && len(d) > len(r.root); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break
				}
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return fmt.Errorf("create folder for %s: %w", dst, err)
		}
		if done, err := r.replaceBySpare(c.Path, dst, c.Data, r.dur.index); err != nil {
			return err
		} else if !done {
			if err := writeFileAtomic(dst, c.Data, r.dur.index); err != nil {
				return err
			}
		}
		// Git treats a file whose mtime is not older than the index as
		// "racily clean" and re-hashes it on every git status until the
		// index is rewritten. The file was written just now, by us, with
		// exactly the content the index records, so date it a second back:
		// the index then vouches for it and git status stays as fast as
		// after a git commit.
		past := time.Now().Add(-time.Second).Truncate(time.Second)
		_ = os.Chtimes(dst, past, past)
	}
	return nil
}

// indexChanges builds the new index entries: stat data from the file on
// disk when it holds exactly the committed bytes, otherwise zeroed stat with
// the right size so git re-hashes the file.
func (r *Repo) indexChanges(changes []FileChange) ([]indexChange, error) {
	out := make([]indexChange, 0, len(changes))
	for _, c := range changes {
		ic := indexChange{path: c.Path, delete: c.Delete}
		if !c.Delete {
			h := hashObject(plumbing.BlobObject, c.Data)
			dst := filepath.Join(r.root, filepath.FromSlash(c.Path))
			var st statData
			if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(c.Data)) {
				if fileHolds(dst, c.Data) { // read in chunks: a large log is not held twice
					st = statOf(fi)
					ic.stat = true
				}
			}
			st.size = uint32(len(c.Data))
			b := ic.fixed[:]
			be := binary.BigEndian
			be.PutUint32(b[0:], st.ctimeSec)
			be.PutUint32(b[4:], st.ctimeNsec)
			be.PutUint32(b[8:], st.mtimeSec)
			be.PutUint32(b[12:], st.mtimeNsec)
			be.PutUint32(b[16:], st.dev)
			be.PutUint32(b[20:], st.ino)
			be.PutUint32(b[24:], 0o100644)
			be.PutUint32(b[28:], st.uid)
			be.PutUint32(b[32:], st.gid)
			be.PutUint32(b[36:], st.size)
			copy(b[40:60], h[:])
			n := len(c.Path)
			if n > flagNameMask {
				n = flagNameMask
			}
			be.PutUint16(b[60:], uint16(n))
		}
		out = append(out, ic)
	}
	return out, nil
}

// statData is the stat part of an index entry.
type statData struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	dev, ino, uid, gid, size                 uint32
}

// writeFileAtomic writes data to a temp file next to dst (mode 0666 less
// the umask, as git checks files out), fsyncs it and renames it over dst.
func writeFileAtomic(dst string, data []byte, fsync bool) error {
	var f *os.File
	var tmp string
	for i := 0; ; i++ {
		tmp = fmt.Sprintf("%s.itr-%d-%d.tmp", dst, os.Getpid(), time.Now().UnixNano()+int64(i))
		var err error
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 10 {
			return fmt.Errorf("write %s: %w", dst, err)
		}
	}
	_, err := f.Write(data)
	if err == nil && fsync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameFile(tmp, dst)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return nil
}
