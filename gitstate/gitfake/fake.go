// Package gitfake is an in-memory gitstate.Repository for tests, in the
// manner of git-bug's repository.NewMockRepo: objects, trees, commits,
// refs, annotated tags, the index and the config live in memory, while the
// working tree is real files under the root, as callers read it with os.
//
// Objects are encoded as git encodes them, so every hash is the one git
// would give: a blob's is gitstate.BlobHash of its bytes, and a commit made
// with the same files, message, identity and time has the same hash in the
// fake and in a real repository. gitstate/gitcontract holds the behaviour
// the fake shares with *gitstate.Repo; what it adds are test controls:
// Fail, Calls, SetOperation, SetIdentity, SetHead, SetRef, Merge,
// SetConflict and WriteBlob.
//
// The fake shares no behaviour with the engine on purpose, though both
// build trees and walk histories the same way: it is the contract suite's
// second, independent implementation, and a shared helper would let one
// bug pass in both. What they share is the spelling of git's text in
// gitstate/internal/gitsyntax (revision suffixes, time zones, config
// quoting and sections), which the engine's tests check against git.
package gitfake

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/internal/gitsyntax"
)

// DefaultName and DefaultEmail are the identity a new fake commits as.
const (
	DefaultName  = "Fake Tester"
	DefaultEmail = "fake@example.com"
)

// Object types, as git names them.
const (
	typeBlob   = "blob"
	typeTree   = "tree"
	typeCommit = "commit"
	typeTag    = "tag"
)

// Tree entry modes, as git writes them in a tree.
const (
	modeFile = "100644"
	modeDir  = "40000"
)

// object is one object of the store, encoded as git encodes it.
type object struct {
	typ  string
	data []byte
}

// entry is one entry of a tree object.
type entry struct {
	mode string
	name string
	hash string
}

func (e entry) isDir() bool { return e.mode == modeDir }

// Repo is an in-memory git repository whose working tree is the real
// folder Root. It is safe for concurrent use. The methods for which
// *gitstate.Repo holds its mutex (those reading or writing objects, refs
// and the index) serialise here too, History included while it calls fn; a
// call of one of them from inside History's fn, which would deadlock the
// real one, panics. The others (Root, the private paths, the config,
// Operation) may be called from anywhere.
type Repo struct {
	gate    sync.Mutex // what *gitstate.Repo's mutex serialises
	mu      sync.Mutex // the fields below
	root    string
	private string

	objects map[string]object
	refs    map[string]string     // full ref name → object hash
	head    string                // "ref: refs/heads/x" or a commit hash
	index   []gitstate.IndexEntry // by path, then stage
	config  []byte                // the config file's text
	name    string
	email   string
	op      string
	opHeads []string
	dirty   []string // what Uncommitted reports (SetUncommitted)
	journal string

	fails map[string]error
	calls map[string]int

	historyG atomic.Int64 // the goroutine running History's fn, 0 if none
}

// begin starts a call of a method that holds *gitstate.Repo's mutex: it
// takes the gate and the fields' mutex (release both with unlock) and
// counts the call, or returns, with nothing held, the error Fail set.
func (f *Repo) begin(method string) error {
	f.lock(method)
	f.calls[method]++
	if err := f.fails[method]; err != nil {
		f.unlock()
		return err
	}
	return nil
}

// lock takes the gate and the fields' mutex, panicking for a call from
// inside History's fn.
func (f *Repo) lock(method string) {
	if g := f.historyG.Load(); g != 0 && g == goroutineID() {
		panic(fmt.Sprintf("gitfake: %s called from inside History's fn: *gitstate.Repo holds its lock there and would deadlock", method))
	}
	f.gate.Lock()
	f.mu.Lock()
}

// unlock releases what begin and lock take.
func (f *Repo) unlock() {
	f.mu.Unlock()
	f.gate.Unlock()
}

// enter starts a call of a method that *gitstate.Repo runs without its
// mutex: it takes only the fields' mutex and counts the call, or returns,
// with nothing held, the error Fail set.
func (f *Repo) enter(method string) error {
	f.mu.Lock()
	f.calls[method]++
	if err := f.fails[method]; err != nil {
		f.mu.Unlock()
		return err
	}
	return nil
}

// count counts a call of a method that cannot fail and for which
// *gitstate.Repo takes no mutex.
func (f *Repo) count(method string) {
	if f.enter(method) == nil {
		f.mu.Unlock()
	}
}

var _ gitstate.Repository = (*Repo)(nil)

// Option configures New.
type Option func(*Repo)

// WithBranch makes HEAD of the new fake point at the unborn branch name (a
// short name such as "main", or a full refs/heads/ name) instead of main.
func WithBranch(name string) Option {
	return func(f *Repo) {
		if !strings.HasPrefix(name, "refs/") {
			name = "refs/heads/" + name
		}
		f.head = "ref: " + name
	}
}

// WithPrivateDir puts the fake's own files (ItrPath, WorktreeItrPath,
// HooksDir, ConfigFile) under dir instead of a new folder next to the root.
func WithPrivateDir(dir string) Option {
	return func(f *Repo) { f.private = dir }
}

// New returns an empty repository whose working tree is root (made if
// missing), HEAD on the unborn branch refs/heads/main and the identity
// "Fake Tester <fake@example.com>". What *gitstate.Repo keeps in git's
// directory goes to a private folder outside the working tree: by default a
// new folder next to root (so that a root made by t.TempDir is removed with
// it). New panics if it cannot make the folders: it is for tests.
func New(root string, opts ...Option) *Repo {
	abs, err := filepath.Abs(root)
	if err != nil {
		panic(fmt.Sprintf("gitfake: %v", err))
	}
	f := &Repo{
		root:    abs,
		objects: map[string]object{},
		refs:    map[string]string{},
		head:    "ref: refs/heads/main",
		name:    DefaultName,
		email:   DefaultEmail,
		fails:   map[string]error{},
		calls:   map[string]int{},
	}
	for _, o := range opts {
		o(f)
	}
	if err := os.MkdirAll(abs, 0o777); err != nil {
		panic(fmt.Sprintf("gitfake: %v", err))
	}
	if f.private == "" {
		dir, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".gitfake-")
		if err != nil {
			dir, err = os.MkdirTemp("", "gitfake-")
		}
		if err != nil {
			panic(fmt.Sprintf("gitfake: %v", err))
		}
		f.private = dir
	}
	if err := os.MkdirAll(filepath.Join(f.private, "hooks"), 0o777); err != nil {
		panic(fmt.Sprintf("gitfake: %v", err))
	}
	return f
}

// ---- Test controls ----

// methods are the names of gitstate.Repository's methods.
var methods = func() map[string]bool {
	t := reflect.TypeOf((*gitstate.Repository)(nil)).Elem()
	out := map[string]bool{}
	for i := 0; i < t.NumMethod(); i++ {
		out[t.Method(i).Name] = true
	}
	return out
}()

// noError are the methods that return no error, which Fail cannot make fail.
var noError = map[string]bool{
	"Root": true, "Operation": true, "OperationHeads": true, "ItrPath": true,
	"WorktreeItrPath": true, "ConfigFile": true, "JournalLocks": true, "BlobID": true,
}

// Fail makes every later call of the method (a name of gitstate.Repository's
// methods, such as "CommitFiles") return err, unchanged, without doing
// anything, until Fail is called again with a nil err. It panics for a name
// that is not a method, or a method that returns no error.
func (f *Repo) Fail(method string, err error) {
	if !methods[method] {
		panic(fmt.Sprintf("gitfake: Fail(%q): gitstate.Repository has no such method", method))
	}
	if noError[method] {
		panic(fmt.Sprintf("gitfake: Fail(%q): the method returns no error", method))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		delete(f.fails, method)
		return
	}
	f.fails[method] = err
}

// Calls returns how often the method (a name of gitstate.Repository's
// methods) has been called, failed calls included. It panics for a name
// that is not a method.
func (f *Repo) Calls(method string) int {
	if !methods[method] {
		panic(fmt.Sprintf("gitfake: Calls(%q): gitstate.Repository has no such method", method))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

// SetOperation puts an operation in progress ("merge", "rebase",
// "cherry-pick", "revert"; "" for none) with the commits it names, as
// Operation and OperationHeads report them.
func (f *Repo) SetOperation(op string, heads ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.op = op
	f.opHeads = append([]string(nil), heads...)
}

// SetUncommitted sets the paths Uncommitted reports as work no commit
// holds (the fake keeps no status of its own working tree).
func (f *Repo) SetUncommitted(paths ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirty = append([]string(nil), paths...)
}

// SetIdentity sets the name and email that Committer returns and that
// CommitFiles commits as. With either empty, both fail as *gitstate.Repo
// does without an identity: with an error wrapping gitstate.ErrNoIdentity.
func (f *Repo) SetIdentity(name, email string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.name, f.email = name, email
}

// SetHead points HEAD at a branch (a full ref name under refs/, which need
// not exist yet) or, for any other revision, detaches it at that commit,
// as `git switch` and `git switch --detach` do; the index and the working
// tree are left alone.
func (f *Repo) SetHead(target string) error {
	f.lock("SetHead")
	defer f.unlock()
	if strings.HasPrefix(target, "refs/") {
		if err := gitstate.ValidRefName(target); err != nil {
			return err
		}
		f.head = "ref: " + target
		return nil
	}
	h, err := f.resolve(target)
	if err != nil {
		return err
	}
	f.head = h
	return nil
}

// Merge commits req on the current branch as a merge of the revision
// other: the first parent is HEAD, the second other. req.Changes may be
// empty (the tree is HEAD's); Expect and Guard are ignored.
func (f *Repo) Merge(other string, req gitstate.CommitRequest) (gitstate.Commit, error) {
	f.lock("Merge")
	defer f.unlock()
	h, err := f.resolve(other)
	if err != nil {
		return gitstate.Commit{}, err
	}
	req.Expect, req.Guard = "", nil
	return f.commit(req, []string{h}, true)
}

// WriteBlob stores data as a blob, byte for byte, and returns its hash.
func (f *Repo) WriteBlob(data []byte) (string, error) {
	if err := f.begin("WriteBlob"); err != nil {
		return "", err
	}
	defer f.unlock()
	return f.put(typeBlob, data), nil
}

// Blob stores data as a blob and returns its hash: WriteBlob for a test
// that sets things up, without an error to check (Fail does not apply).
func (f *Repo) Blob(data []byte) string {
	f.lock("Blob")
	defer f.unlock()
	return f.put(typeBlob, data)
}

// UpdateRef moves the ref name (a full name under refs/itr/) from oldID to
// newID, compare-and-swap, as gitstate.Repository says: oldID "" means the
// ref must not exist, newID "" deletes it, a ref holding another value
// than oldID is a *gitstate.RefChangedError (gitstate.ErrRefChanged) and
// nothing changes; a name outside refs/itr/ is gitstate.ErrBadRef and a
// newID that names no object gitstate.ErrNotFound.
func (f *Repo) UpdateRef(name, newID, oldID string) error {
	if err := f.begin("UpdateRef"); err != nil {
		return err
	}
	defer f.unlock()
	if !strings.HasPrefix(name, "refs/itr/") {
		return fmt.Errorf("update ref %q: %w: only refs under refs/itr/ may be moved this way", name, gitstate.ErrBadRef)
	}
	if err := gitstate.ValidRefName(name); err != nil {
		return fmt.Errorf("update ref: %w: %w", gitstate.ErrBadRef, err)
	}
	for _, id := range []string{newID, oldID} {
		if id != "" && !isHex40(id) {
			return fmt.Errorf("update ref %s: %q is not a full object name", name, id)
		}
	}
	if newID != "" {
		if _, ok := f.objects[newID]; !ok {
			return fmt.Errorf("update ref %s: object %s: %w", name, newID, gitstate.ErrNotFound)
		}
		if err := f.refClash(name); err != nil {
			return err
		}
	}
	if cur := f.refs[name]; cur != oldID {
		return &gitstate.RefChangedError{Ref: name, Want: oldID, Have: cur}
	}
	if newID == "" {
		delete(f.refs, name)
		return nil
	}
	f.refs[name] = newID
	return nil
}

// SetConflict replaces the index entries of path with the stages of a
// conflict: 1 (base), 2 (ours) and 3 (theirs), each left out when nil, as
// a merge that stopped on the path leaves them. The working tree is left
// alone.
func (f *Repo) SetConflict(path string, base, ours, theirs []byte) {
	f.lock("SetConflict")
	defer f.unlock()
	var out []gitstate.IndexEntry
	for _, e := range f.index {
		if e.Path != path {
			out = append(out, e)
		}
	}
	for i, data := range [][]byte{base, ours, theirs} {
		if data != nil {
			out = append(out, gitstate.IndexEntry{Path: path, Stage: i + 1, Hash: f.put(typeBlob, data)})
		}
	}
	f.index = sortIndex(out)
}

// SetRef points the ref name (a full name under refs/) at the object
// hash, or deletes it when hash is "", with no check that the object
// exists: for remote-tracking branches, which the interface cannot make,
// and for refs left dangling.
func (f *Repo) SetRef(name, hash string) error {
	f.lock("SetRef")
	defer f.unlock()
	if err := gitstate.ValidRefName(name); err != nil {
		return err
	}
	if hash == "" {
		delete(f.refs, name)
		return nil
	}
	if !isHex40(hash) {
		return fmt.Errorf("ref %s: %q is not a full object name", name, hash)
	}
	if err := f.refClash(name); err != nil {
		return err
	}
	f.refs[name] = hash
	return nil
}

// Journal returns the path JournalLocks was last given ("" if none). The
// fake takes no lock files, so nothing is written there.
func (f *Repo) Journal() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.journal
}

// goroutineID is the number of the calling goroutine, from its stack
// header "goroutine N [...]".
func goroutineID() int64 {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseInt(s, 10, 64)
	return id
}

// ---- Objects ----

// put stores an object and returns its hash.
func (f *Repo) put(typ string, data []byte) string {
	var h string
	if typ == typeBlob {
		h = gitstate.BlobHash(data)
	} else {
		s := sha1.New()
		fmt.Fprintf(s, "%s %d\x00", typ, len(data))
		s.Write(data)
		h = hex.EncodeToString(s.Sum(nil))
	}
	if _, ok := f.objects[h]; !ok {
		f.objects[h] = object{typ: typ, data: append([]byte{}, data...)}
	}
	return h
}

// encodeTree encodes entries, sorted in git order, as a tree object.
func encodeTree(entries []entry) []byte {
	sort.Slice(entries, func(i, j int) bool { return treeKey(entries[i]) < treeKey(entries[j]) })
	var b bytes.Buffer
	for _, e := range entries {
		raw, _ := hex.DecodeString(e.hash)
		b.WriteString(e.mode)
		b.WriteByte(' ')
		b.WriteString(e.name)
		b.WriteByte(0)
		b.Write(raw)
	}
	return b.Bytes()
}

// treeKey is git's sort key of a tree entry: a folder sorts as "name/".
func treeKey(e entry) string {
	if e.isDir() {
		return e.name + "/"
	}
	return e.name
}

// treeEntries decodes tree h.
func (f *Repo) treeEntries(h string) ([]entry, error) {
	o, ok := f.objects[h]
	if !ok || o.typ != typeTree {
		return nil, fmt.Errorf("tree %s: %w", h, gitstate.ErrNotFound)
	}
	var out []entry
	data := o.data
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("tree %s: malformed", h)
		}
		out = append(out, entry{mode: string(data[:sp]), name: string(data[sp+1 : nul]), hash: hex.EncodeToString(data[nul+1 : nul+21])})
		data = data[nul+21:]
	}
	return out, nil
}

// commitObject is a decoded commit.
type commitObject struct {
	tree    string
	parents []string
	author  gitstate.Signature
	commit  gitstate.Signature
	message string
}

// encodeCommit encodes a commit as git writes it.
func encodeCommit(c commitObject) []byte {
	var b bytes.Buffer
	b.WriteString("tree " + c.tree + "\n")
	for _, p := range c.parents {
		b.WriteString("parent " + p + "\n")
	}
	b.WriteString("author " + formatSignature(c.author) + "\n")
	b.WriteString("committer " + formatSignature(c.commit) + "\n\n")
	b.WriteString(c.message)
	return b.Bytes()
}

// formatSignature is "Name <email> <unix seconds> <+hhmm>", as git writes
// it.
func formatSignature(s gitstate.Signature) string {
	u := s.When.Unix()
	if u < 0 {
		u = 0
	}
	return fmt.Sprintf("%s <%s> %d %s", s.Name, s.Email, u, s.When.Format("-0700"))
}

// parseSignature reads what formatSignature writes, as gitstate reads it:
// the time in a zone of the written offset.
func parseSignature(v string) gitstate.Signature {
	var s gitstate.Signature
	open, end := strings.LastIndexByte(v, '<'), strings.LastIndexByte(v, '>')
	if open < 0 || end < open {
		s.Name = strings.TrimSpace(v)
		return s
	}
	s.Name = strings.Trim(v[:open], " ")
	s.Email = v[open+1 : end]
	ts, tz, _ := strings.Cut(strings.TrimLeft(v[end+1:], " "), " ")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return s
	}
	s.When = time.Unix(sec, 0).In(time.UTC)
	if loc, ok := gitsyntax.Zone(tz); ok {
		s.When = s.When.In(loc)
	}
	return s
}

// headers splits a commit or tag into its headers (key → values) and the
// message after the blank line.
func headers(data []byte) (map[string][]string, string) {
	out := map[string][]string{}
	s := string(data)
	for s != "" {
		line, rest, found := strings.Cut(s, "\n")
		if line == "" {
			return out, rest
		}
		s = rest
		k, v, _ := strings.Cut(line, " ")
		out[k] = append(out[k], v)
		if !found {
			break
		}
	}
	return out, ""
}

// readCommit decodes commit h.
func (f *Repo) readCommit(h string) (commitObject, error) {
	o, ok := f.objects[h]
	if !ok || o.typ != typeCommit {
		return commitObject{}, fmt.Errorf("commit %s: %w", h, gitstate.ErrNotFound)
	}
	hdr, msg := headers(o.data)
	c := commitObject{parents: hdr["parent"], message: msg}
	if t := hdr["tree"]; len(t) > 0 {
		c.tree = t[0]
	}
	if a := hdr["author"]; len(a) > 0 {
		c.author = parseSignature(a[0])
	}
	if a := hdr["committer"]; len(a) > 0 {
		c.commit = parseSignature(a[0])
	}
	return c, nil
}

// toCommit is commit h as gitstate.Commit.
func (f *Repo) toCommit(h string) (gitstate.Commit, error) {
	c, err := f.readCommit(h)
	if err != nil {
		return gitstate.Commit{}, err
	}
	return gitstate.Commit{
		Hash:      h,
		Parents:   append([]string(nil), c.parents...),
		Author:    c.author,
		Committer: c.commit,
		Message:   c.message,
		Subject:   gitstate.MessageSubject(c.message),
		Trailers:  gitstate.ParseTrailers(c.message),
	}, nil
}

// tagObject is a decoded annotated tag.
type tagObject struct {
	target, targetType, name string
	tagger                   gitstate.Signature
	message                  string
}

// readTag decodes tag h.
func (f *Repo) readTag(h string) (tagObject, bool) {
	o, ok := f.objects[h]
	if !ok || o.typ != typeTag {
		return tagObject{}, false
	}
	hdr, msg := headers(o.data)
	t := tagObject{message: msg}
	first := func(k string) string {
		if v := hdr[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	t.target, t.targetType, t.name = first("object"), first("type"), first("tag")
	t.tagger = parseSignature(first("tagger"))
	return t, true
}

// ---- Refs and revisions ----

// headLocked is Head under the mutex.
func (f *Repo) headLocked() gitstate.Head {
	if branch, ok := strings.CutPrefix(f.head, "ref: "); ok {
		h := gitstate.Head{Branch: branch, Hash: f.refs[branch]}
		h.Unborn = h.Hash == ""
		return h
	}
	return gitstate.Head{Hash: f.head, Detached: true}
}

// ref returns the object a ref names, following HEAD; "" if none.
func (f *Repo) ref(name string) string {
	if name == "HEAD" {
		return f.headLocked().Hash
	}
	return f.refs[name]
}

// resolve is ResolveRev under the mutex.
func (f *Repo) resolve(rev string) (string, error) {
	var hash string
	switch {
	case rev == "" || rev == "HEAD":
		h := f.headLocked()
		if h.Unborn {
			return "", fmt.Errorf("revision HEAD: %w: %s has no commit yet", gitstate.ErrNotFound, h.Branch)
		}
		hash = h.Hash
	case isHex40(rev):
		hash = rev
	default:
		for _, cand := range []string{rev, "refs/" + rev, "refs/tags/" + rev, "refs/heads/" + rev, "refs/remotes/" + rev, "refs/remotes/" + rev + "/HEAD"} {
			if strings.HasPrefix(cand, "refs/") {
				if v := f.refs[cand]; v != "" {
					hash = v
					break
				}
			}
		}
	}
	if hash == "" {
		h, err := f.resolveExpr(rev)
		if err != nil {
			return "", fmt.Errorf("revision %q: %w; check the name with `git rev-parse %s`", rev, gitstate.ErrNotFound, rev)
		}
		hash = h
	}
	return f.peel(hash, rev)
}

// resolveExpr resolves an abbreviated hash and a name followed by ~N, ^N,
// ^{commit} and ^{}.
func (f *Repo) resolveExpr(rev string) (string, error) {
	base, ops := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, ops = rev[:i], rev[i:]
	}
	var h string
	switch {
	case base == "":
		return "", gitstate.ErrNotFound
	case base != rev:
		b, err := f.resolve(base)
		if err != nil {
			return "", err
		}
		h = b
	case len(base) >= 4 && len(base) < 40 && isHex(base):
		prefix := strings.ToLower(base)
		var found []string
		for o := range f.objects {
			if strings.HasPrefix(o, prefix) {
				found = append(found, o)
			}
		}
		if len(found) != 1 {
			return "", gitstate.ErrNotFound // none, or ambiguous
		}
		return found[0], nil
	default:
		return "", gitstate.ErrNotFound
	}
	steps, ok := gitsyntax.Suffixes(ops)
	if !ok {
		return "", gitstate.ErrNotFound
	}
	for _, st := range steps {
		c, err := f.peel(h, rev)
		if err != nil {
			return "", err
		}
		h = c
		switch {
		case st.Peel:
		case st.Op == '~':
			for k := 0; k < st.N; k++ {
				if h, err = f.parent(h, 1); err != nil {
					return "", err
				}
			}
		case st.N > 0:
			if h, err = f.parent(h, st.N); err != nil {
				return "", err
			}
		}
	}
	return h, nil
}

// parent is the nth parent (1-based) of commit h.
func (f *Repo) parent(h string, n int) (string, error) {
	c, err := f.readCommit(h)
	if err != nil {
		return "", err
	}
	if n < 1 || n > len(c.parents) {
		return "", gitstate.ErrNotFound
	}
	return c.parents[n-1], nil
}

// peel follows annotated tags to a commit.
func (f *Repo) peel(h, rev string) (string, error) {
	for i := 0; i < 10; i++ {
		o, ok := f.objects[h]
		switch {
		case !ok:
			return "", fmt.Errorf("revision %q: object %s: %w", rev, h, gitstate.ErrNotFound)
		case o.typ == typeCommit:
			return h, nil
		case o.typ == typeTag:
			t, _ := f.readTag(h)
			h = t.target
		default:
			return "", fmt.Errorf("revision %q: %s is a %s, not a commit: %w", rev, h, o.typ, gitstate.ErrNotFound)
		}
	}
	return "", fmt.Errorf("revision %q: tags nest too deep", rev)
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// refClash refuses a ref name that is a folder of an existing ref or has
// an existing ref as one of its folders: git could not store both.
func (f *Repo) refClash(name string) error {
	parts := strings.Split(name, "/")
	for i := 2; i < len(parts); i++ {
		if prefix := strings.Join(parts[:i], "/"); f.refs[prefix] != "" {
			return fmt.Errorf("cannot create %s: the ref %s exists, and git cannot hold both; rename it with `git branch -m` or `git tag`", name, prefix)
		}
	}
	for other := range f.refs {
		if strings.HasPrefix(other, name+"/") {
			return fmt.Errorf("cannot create %s: the ref %s exists under it; remove it or pick another name", name, other)
		}
	}
	return nil
}

// checkCommit makes sure commit names an existing commit object.
func (f *Repo) checkCommit(name, commit string) error {
	if !isHex40(commit) {
		return fmt.Errorf("%s: %q is not a full commit hash", name, commit)
	}
	if o, ok := f.objects[commit]; !ok || o.typ != typeCommit {
		return fmt.Errorf("%s: commit %s: %w", name, commit, gitstate.ErrNotFound)
	}
	return nil
}

// ---- Reader ----

// Root returns the absolute top folder of the working tree.
func (f *Repo) Root() string {
	f.count("Root")
	return f.root
}

// Head reports what HEAD points at.
func (f *Repo) Head() (gitstate.Head, error) {
	if err := f.begin("Head"); err != nil {
		return gitstate.Head{}, err
	}
	defer f.unlock()
	return f.headLocked(), nil
}

// ResolveRev returns the full commit hash of rev as *gitstate.Repo reads
// it: "HEAD" (or ""), a full or abbreviated hash, a full ref name, a
// branch, tag or remote name, with ~N, ^N, ^{commit} and ^{} suffixes; tags
// are peeled. It returns an error wrapping gitstate.ErrNotFound when rev
// names nothing.
func (f *Repo) ResolveRev(rev string) (string, error) {
	if err := f.begin("ResolveRev"); err != nil {
		return "", err
	}
	defer f.unlock()
	return f.resolve(rev)
}

// History calls fn for rev ("" means HEAD) and its first-parent ancestors,
// newest first, until fn returns false. An unborn HEAD has no history. As
// with *gitstate.Repo, other calls wait while fn runs, and fn must not call
// the methods that read objects, refs or the index (the fake panics).
func (f *Repo) History(rev string, fn func(gitstate.Commit) bool) error {
	if err := f.begin("History"); err != nil {
		return err
	}
	defer f.unlock()
	if (rev == "" || rev == "HEAD") && f.headLocked().Unborn {
		return nil
	}
	h, err := f.resolve(rev)
	if err != nil {
		return err
	}
	f.historyG.Store(goroutineID())
	defer f.historyG.Store(0)
	for {
		c, err := f.toCommit(h)
		if err != nil {
			return err
		}
		if !f.outside(fn, c) || len(c.Parents) == 0 {
			return nil
		}
		h = c.Parents[0]
	}
}

// outside calls fn with the fields' mutex released (the gate stays held,
// as *gitstate.Repo's mutex does), and takes it again, even if fn panics.
func (f *Repo) outside(fn func(gitstate.Commit) bool, c gitstate.Commit) bool {
	f.mu.Unlock()
	defer f.mu.Lock()
	return fn(c)
}

// entryAt returns the tree entry of path p at rev (the root tree for "").
func (f *Repo) entryAt(rev, p string) (entry, error) {
	h, err := f.resolve(rev)
	if err != nil {
		return entry{}, err
	}
	c, err := f.readCommit(h)
	if err != nil {
		return entry{}, err
	}
	e := entry{mode: modeDir, hash: c.tree}
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return e, nil
	}
	for _, comp := range strings.Split(p, "/") {
		if !e.isDir() {
			return entry{}, fmt.Errorf("%s at %s: %w (a parent is a file)", p, revName(rev), gitstate.ErrNotFound)
		}
		entries, err := f.treeEntries(e.hash)
		if err != nil {
			return entry{}, err
		}
		found := false
		for _, te := range entries {
			if te.name == comp {
				e, found = te, true
				break
			}
		}
		if !found {
			return entry{}, fmt.Errorf("%s at %s: %w", p, revName(rev), gitstate.ErrNotFound)
		}
	}
	return e, nil
}

func revName(rev string) string {
	if rev == "" {
		return "HEAD"
	}
	return rev
}

// ReadFile returns the contents of the file at path in revision rev, or an
// error wrapping gitstate.ErrNotFound when the revision or the file does
// not exist or path is a folder.
func (f *Repo) ReadFile(rev, path string) ([]byte, error) {
	if err := f.begin("ReadFile"); err != nil {
		return nil, err
	}
	defer f.unlock()
	e, err := f.entryAt(rev, path)
	if err != nil {
		return nil, err
	}
	if e.isDir() {
		return nil, fmt.Errorf("%s at %s: %w (it is a folder)", path, revName(rev), gitstate.ErrNotFound)
	}
	// An empty file reads as empty, not as nil (no file), as in the real Repo.
	return append([]byte{}, f.objects[e.hash].data...), nil
}

// FileHashAt is the object name of path at rev (a blob, or a tree for a
// folder), or an error wrapping gitstate.ErrNotFound.
func (f *Repo) FileHashAt(rev, path string) (string, error) {
	if err := f.begin("FileHashAt"); err != nil {
		return "", err
	}
	defer f.unlock()
	e, err := f.entryAt(rev, path)
	if err != nil {
		return "", err
	}
	return e.hash, nil
}

// walk calls fn for every file below tree h, with its slash path under
// prefix ("" for the top).
func (f *Repo) walk(h, prefix string, fn func(path, hash string)) error {
	entries, err := f.treeEntries(h)
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return treeKey(entries[i]) < treeKey(entries[j]) })
	for _, e := range entries {
		p := e.name
		if prefix != "" {
			p = prefix + "/" + e.name
		}
		if e.isDir() {
			if err := f.walk(e.hash, p, fn); err != nil {
				return err
			}
			continue
		}
		fn(p, e.hash)
	}
	return nil
}

// folder returns the tree of the folder dir at rev, or "" when the
// revision or the folder does not exist or dir is a file.
func (f *Repo) folder(rev, dir string) (string, error) {
	e, err := f.entryAt(rev, dir)
	if errors.Is(err, gitstate.ErrNotFound) || err == nil && !e.isDir() {
		return "", nil
	}
	return e.hash, err
}

// ListFiles returns the paths of every file below the folder dir at rev,
// recursively, repository-relative with slashes, in git order. A folder
// that does not exist (or a file) has none.
func (f *Repo) ListFiles(rev, dir string) ([]string, error) {
	if err := f.begin("ListFiles"); err != nil {
		return nil, err
	}
	defer f.unlock()
	tree, err := f.folder(rev, dir)
	if tree == "" || err != nil {
		return nil, err
	}
	var out []string
	err = f.walk(tree, strings.Trim(dir, "/"), func(p, _ string) { out = append(out, p) })
	return out, err
}

// TreeFiles returns every file below the folder dir at rev, recursively,
// as repository-relative slash path → blob name; a missing folder has none.
func (f *Repo) TreeFiles(rev, dir string) (map[string]string, error) {
	return f.blobNames("TreeFiles", rev, dir, true)
}

// FolderHashes returns the blob names of the files directly in the folder
// dir at rev (name → hash); a missing folder has none.
func (f *Repo) FolderHashes(rev, dir string) (map[string]string, error) {
	return f.blobNames("FolderHashes", rev, dir, false)
}

// blobNames is TreeFiles (recursive) or FolderHashes, called as op.
func (f *Repo) blobNames(op, rev, dir string, recursive bool) (map[string]string, error) {
	if err := f.begin(op); err != nil {
		return nil, err
	}
	defer f.unlock()
	out := map[string]string{}
	tree, err := f.folder(rev, dir)
	if tree == "" || err != nil {
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	if recursive {
		err = f.walk(tree, strings.Trim(dir, "/"), func(p, h string) { out[p] = h })
		return out, err
	}
	entries, err := f.treeEntries(tree)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.isDir() {
			out[e.name] = e.hash
		}
	}
	return out, nil
}

// ReadBlob returns the content of the blob with the given hash, or an
// error wrapping gitstate.ErrNotFound.
func (f *Repo) ReadBlob(hash string) ([]byte, error) {
	if err := f.begin("ReadBlob"); err != nil {
		return nil, err
	}
	defer f.unlock()
	o, ok := f.objects[strings.ToLower(hash)]
	if !ok || o.typ != typeBlob {
		return nil, fmt.Errorf("blob %s: %w", hash, gitstate.ErrNotFound)
	}
	return append([]byte{}, o.data...), nil
}

// PeelCommit returns the commit a full object hash leads to, following
// annotated tags; an error wrapping gitstate.ErrNotFound when the object is
// missing or is not a commit.
func (f *Repo) PeelCommit(hash string) (string, error) {
	if err := f.begin("PeelCommit"); err != nil {
		return "", err
	}
	defer f.unlock()
	if !isHex40(hash) {
		return "", fmt.Errorf("peel %q: not a full object name: %w", hash, gitstate.ErrNotFound)
	}
	return f.peel(hash, hash)
}

// Refs returns the full names and commit hashes of the refs whose names
// start with one of the prefixes; annotated tags are peeled, refs to other
// objects left out.
func (f *Repo) Refs(prefixes ...string) (map[string]string, error) {
	if err := f.begin("Refs"); err != nil {
		return nil, err
	}
	defer f.unlock()
	out := map[string]string{}
	for _, p := range prefixes {
		for name, v := range f.rawRefs(p) {
			if h, err := f.peel(v, name); err == nil {
				out[name] = h
			}
		}
	}
	return out, nil
}

func (f *Repo) rawRefs(prefix string) map[string]string {
	out := map[string]string{}
	for name, v := range f.refs {
		if strings.HasPrefix(name, prefix) {
			out[name] = v
		}
	}
	return out
}

// RawRefs returns every ref whose name starts with prefix and the object
// it names, unpeeled.
func (f *Repo) RawRefs(prefix string) (map[string]string, error) {
	if err := f.begin("RawRefs"); err != nil {
		return nil, err
	}
	defer f.unlock()
	return f.rawRefs(prefix), nil
}

// ReadRef returns the object a ref names ("HEAD" is followed to its
// branch), or "" and no error when the ref does not exist.
func (f *Repo) ReadRef(name string) (string, error) {
	if err := f.begin("ReadRef"); err != nil {
		return "", err
	}
	defer f.unlock()
	return f.ref(name), nil
}

// ReadTag reads the annotated tag a ref names. It returns an error
// wrapping gitstate.ErrNotFound when the ref does not exist or is not an
// annotated tag.
func (f *Repo) ReadTag(ref string) (gitstate.Tag, error) {
	if err := f.begin("ReadTag"); err != nil {
		return gitstate.Tag{}, err
	}
	defer f.unlock()
	h := f.ref(ref)
	if h == "" {
		return gitstate.Tag{}, fmt.Errorf("tag %s: %w", ref, gitstate.ErrNotFound)
	}
	t, ok := f.readTag(h)
	if !ok {
		return gitstate.Tag{}, fmt.Errorf("tag %s: %s is not an annotated tag: %w", ref, h, gitstate.ErrNotFound)
	}
	return gitstate.Tag{Ref: ref, Hash: h, Name: t.name, Target: t.target, Tagger: t.tagger, Message: t.message}, nil
}

// Staged returns the index entries at or below dir ("" for all), in index
// order.
func (f *Repo) Staged(dir string) ([]gitstate.IndexEntry, error) {
	if err := f.begin("Staged"); err != nil {
		return nil, err
	}
	defer f.unlock()
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var out []gitstate.IndexEntry
	for _, e := range f.index {
		if dir == "" || e.Path == dir || strings.HasPrefix(e.Path, prefix) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Operation names the operation SetOperation put in progress, or "".
func (f *Repo) Operation() string {
	f.count("Operation")
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.op
}

// OperationHeads lists the commits SetOperation named.
func (f *Repo) OperationHeads() []string {
	f.count("OperationHeads")
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.opHeads...)
}

// ---- Writer ----

// identity is the configured identity at when, for role "author" or
// "committer".
func (f *Repo) identity(role string, when time.Time) (gitstate.Signature, error) {
	switch {
	case f.name == "":
		return gitstate.Signature{}, noIdentity(role + " name")
	case f.email == "":
		return gitstate.Signature{}, noIdentity(role + " email")
	}
	if when.IsZero() {
		when = time.Now()
	}
	return gitstate.Signature{Name: f.name, Email: f.email, When: when}, nil
}

// noIdentity is the error *gitstate.Repo gives without an identity.
func noIdentity(which string) error {
	return fmt.Errorf("%w: no git identity (%s): set it with git config --global user.name \"Your Name\" and git config --global user.email you@example.com (or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL)", gitstate.ErrNoIdentity, which)
}

// Committer returns the identity SetIdentity gave (by default Fake Tester
// <fake@example.com>) at now, or an error wrapping gitstate.ErrNoIdentity.
func (f *Repo) Committer(now time.Time) (gitstate.Signature, error) {
	if err := f.begin("Committer"); err != nil {
		return gitstate.Signature{}, err
	}
	defer f.unlock()
	return f.identity("committer", now)
}

// JournalLocks records the journal path; the fake takes no lock files.
func (f *Repo) JournalLocks(path string) {
	f.count("JournalLocks")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.journal = path
}

// dirChange is the set of changes under one folder.
type dirChange struct {
	files map[string]*gitstate.FileChange
	dirs  map[string]*dirChange
}

func newDirChange() *dirChange {
	return &dirChange{files: map[string]*gitstate.FileChange{}, dirs: map[string]*dirChange{}}
}

func onlyDeletes(d *dirChange) bool {
	for _, c := range d.files {
		if !c.Delete {
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

// buildTree applies ch to the tree old ("" for none) and stores the new
// trees; empty reports a folder left with nothing (not stored, except the
// root).
func (f *Repo) buildTree(old string, ch *dirChange, prefix string, isRoot bool) (hash string, empty bool, err error) {
	var entries []entry
	if old != "" {
		if entries, err = f.treeEntries(old); err != nil {
			return "", false, err
		}
	}
	find := func(name string) int {
		for i := range entries {
			if entries[i].name == name {
				return i
			}
		}
		return -1
	}
	remove := func(i int) { entries = append(entries[:i], entries[i+1:]...) }
	for name, c := range ch.files {
		i := find(name)
		if c.Delete {
			if i >= 0 {
				remove(i)
			}
			continue
		}
		if i >= 0 && entries[i].isDir() {
			return "", false, fmt.Errorf("commit: %s is a folder at HEAD; delete it first or choose another path", c.Path)
		}
		e := entry{mode: modeFile, name: name, hash: f.put(typeBlob, c.Data)}
		if i >= 0 {
			entries[i] = e
		} else {
			entries = append(entries, e)
		}
	}
	for name, sub := range ch.dirs {
		i := find(name)
		subOld := ""
		if i >= 0 {
			if !entries[i].isDir() {
				if onlyDeletes(sub) {
					continue
				}
				return "", false, fmt.Errorf("commit: %s is a file at HEAD, not a folder; delete it first or choose another path", joinPath(prefix, name))
			}
			subOld = entries[i].hash
		}
		h, subEmpty, err := f.buildTree(subOld, sub, joinPath(prefix, name), false)
		if err != nil {
			return "", false, err
		}
		switch {
		case subEmpty && i >= 0:
			remove(i)
		case subEmpty:
		case i >= 0:
			entries[i].hash = h
		default:
			entries = append(entries, entry{mode: modeDir, name: name, hash: h})
		}
	}
	if len(entries) == 0 && !isRoot {
		return "", true, nil
	}
	return f.put(typeTree, encodeTree(entries)), false, nil
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}

// guardsUnchanged reports whether every guard path has the same tree entry
// (or is absent in both) at commits a and b.
func (f *Repo) guardsUnchanged(guards []string, a, b string) bool {
	if len(guards) == 0 || a == "" || b == "" {
		return false
	}
	for _, g := range guards {
		ea, erra := f.entryAt(a, g)
		eb, errb := f.entryAt(b, g)
		switch {
		case errors.Is(erra, gitstate.ErrNotFound) && errors.Is(errb, gitstate.ErrNotFound):
		case erra != nil || errb != nil:
			return false
		case ea.hash != eb.hash || ea.mode != eb.mode:
			return false
		}
	}
	return true
}

// CommitFiles writes one commit on the current branch that changes only
// the given paths, as *gitstate.Repo does: with req.Expect set and HEAD
// elsewhere it fails with gitstate.ErrHeadMoved unless no path of
// req.Guard changed between the two, in which case the commit is built on
// the new HEAD. With req.Worktree the files are written to (or deleted
// from) the working tree; the index entries of the paths are replaced
// either way.
func (f *Repo) CommitFiles(req gitstate.CommitRequest) (gitstate.Commit, error) {
	if err := f.begin("CommitFiles"); err != nil {
		return gitstate.Commit{}, err
	}
	defer f.unlock()
	return f.commit(req, nil, false)
}

// commit is CommitFiles under the mutex, with more parents after HEAD.
func (f *Repo) commit(req gitstate.CommitRequest, more []string, allowEmpty bool) (gitstate.Commit, error) {
	changes, err := normaliseChanges(req.Changes, allowEmpty)
	if err != nil {
		return gitstate.Commit{}, err
	}
	when := req.When
	if when.IsZero() {
		when = time.Now()
	}
	head := f.headLocked()
	if head.Detached {
		return gitstate.Commit{}, fmt.Errorf("commit: %w at %s; switch to a branch with `git switch <branch>`", gitstate.ErrDetachedHead, head.Hash)
	}
	if req.Expect != "" && head.Hash != req.Expect && !f.guardsUnchanged(req.Guard, req.Expect, head.Hash) {
		return gitstate.Commit{}, fmt.Errorf("commit: %w: %s is at %s, expected %s; re-read and retry", gitstate.ErrHeadMoved, head.Branch, orNone(head.Hash), req.Expect)
	}
	var author, committer gitstate.Signature
	if req.Author != nil {
		author = gitstate.Signature{Name: req.Author.Name, Email: req.Author.Email, When: when}
		committer = author
	} else {
		if author, err = f.identity("author", when); err != nil {
			return gitstate.Commit{}, err
		}
		if committer, err = f.identity("committer", when); err != nil {
			return gitstate.Commit{}, err
		}
	}
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
	var oldTree string
	var parents []string
	if head.Hash != "" {
		pc, err := f.readCommit(head.Hash)
		if err != nil {
			return gitstate.Commit{}, err
		}
		oldTree, parents = pc.tree, []string{head.Hash}
	}
	parents = append(parents, more...)
	tree, _, err := f.buildTree(oldTree, root, "", true)
	if err != nil {
		return gitstate.Commit{}, err
	}
	msg := gitstate.CleanMessage(req.Message)
	hash := f.put(typeCommit, encodeCommit(commitObject{tree: tree, parents: parents, author: author, commit: committer, message: msg}))
	if req.Worktree {
		if err := f.writeWorktree(changes); err != nil {
			return gitstate.Commit{}, err
		}
	}
	f.patchIndex(changes)
	f.refs[head.Branch] = hash
	return gitstate.Commit{
		Hash:      hash,
		Parents:   parents,
		Author:    author,
		Committer: committer,
		Message:   msg,
		Subject:   gitstate.MessageSubject(msg),
		Trailers:  gitstate.ParseTrailers(msg),
	}, nil
}

func orNone(h string) string {
	if h == "" {
		return "(no commit)"
	}
	return h
}

// writeWorktree writes or deletes each path in the working tree; a delete
// removes a whole folder, and the folders it leaves empty.
func (f *Repo) writeWorktree(changes []gitstate.FileChange) error {
	for _, c := range changes {
		dst := filepath.Join(f.root, filepath.FromSlash(c.Path))
		if c.Delete {
			if err := os.RemoveAll(dst); err != nil {
				return fmt.Errorf("delete %s: %w", dst, err)
			}
			for d := filepath.Dir(dst); d != f.root && len(d) > len(f.root); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break
				}
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return fmt.Errorf("create folder for %s: %w", dst, err)
		}
		if err := os.WriteFile(dst, c.Data, 0o666); err != nil {
			return fmt.Errorf("write %s: %w", dst, err)
		}
	}
	return nil
}

// patchIndex replaces the entries of the paths (every stage) with stage 0
// entries, or removes them for deletes; entries under a changed path, and
// files where a written path needs a folder, go too.
func (f *Repo) patchIndex(changes []gitstate.FileChange) {
	changed := map[string]bool{}
	for _, c := range changes {
		changed[c.Path] = true
	}
	var out []gitstate.IndexEntry
	for _, e := range f.index {
		if changed[e.Path] || indexConflict(changes, e.Path) {
			continue
		}
		out = append(out, e)
	}
	for _, c := range changes {
		if !c.Delete {
			out = append(out, gitstate.IndexEntry{Path: c.Path, Hash: f.put(typeBlob, c.Data)})
		}
	}
	f.index = sortIndex(out)
}

// indexConflict reports whether an index entry must go for changes: it is
// under a changed path, or a file where a written path needs a folder.
func indexConflict(changes []gitstate.FileChange, name string) bool {
	for _, c := range changes {
		if strings.HasPrefix(name, c.Path+"/") || !c.Delete && strings.HasPrefix(c.Path, name+"/") {
			return true
		}
	}
	return false
}

func sortIndex(es []gitstate.IndexEntry) []gitstate.IndexEntry {
	sort.Slice(es, func(i, j int) bool {
		if es[i].Path != es[j].Path {
			return es[i].Path < es[j].Path
		}
		return es[i].Stage < es[j].Stage
	})
	return es
}

// Stage writes the files to the working tree and records them in the index
// at stage 0, replacing any conflict stages of those paths; deletes remove
// them from both. Nothing is committed.
func (f *Repo) Stage(changes []gitstate.FileChange) error {
	if err := f.begin("Stage"); err != nil {
		return err
	}
	defer f.unlock()
	changes, err := normaliseChanges(changes, false)
	if err != nil {
		return err
	}
	if err := f.writeWorktree(changes); err != nil {
		return err
	}
	f.patchIndex(changes)
	return nil
}

// SetBranch points the branch name (a full ref name under refs/heads/) at
// commit, creating or moving it. It refuses a name git would refuse, a
// commit that does not exist (gitstate.ErrNotFound) and a name that clashes
// with an existing ref as file and folder. The fake keeps no reflog.
func (f *Repo) SetBranch(name, commit string, who gitstate.Signature, msg string) error {
	if err := f.begin("SetBranch"); err != nil {
		return err
	}
	defer f.unlock()
	if !strings.HasPrefix(name, "refs/heads/") {
		return fmt.Errorf("branch %q: give the full ref name, refs/heads/...", name) //nolint:revive,staticcheck // error-strings/ST1005: the message ends with the ref pattern, not punctuation
	}
	if err := f.checkCommit(name, commit); err != nil {
		return err
	}
	if err := gitstate.ValidRefName(name); err != nil {
		return err
	}
	if err := f.refClash(name); err != nil {
		return err
	}
	f.refs[name] = commit
	return nil
}

// CreateTag writes an annotated tag object for commit and creates the ref
// name (a full ref name under refs/tags/) pointing at it. It returns the
// tag object's hash, or an error wrapping gitstate.ErrRefExists when the
// ref exists and gitstate.ErrNoIdentity when the tagger has no name or
// email.
func (f *Repo) CreateTag(name, commit, message string, tagger gitstate.Signature) (string, error) {
	if err := f.begin("CreateTag"); err != nil {
		return "", err
	}
	defer f.unlock()
	short, ok := strings.CutPrefix(name, "refs/tags/")
	if !ok {
		return "", fmt.Errorf("tag %q: give the full ref name, refs/tags/...", name) //nolint:revive,staticcheck // error-strings/ST1005: the message ends with the ref pattern, not punctuation
	}
	if tagger.Name == "" || tagger.Email == "" {
		return "", fmt.Errorf("tag %s: the tagger needs a name and an email: %w", name, gitstate.ErrNoIdentity)
	}
	if err := gitstate.ValidRefName(name); err != nil {
		return "", err
	}
	if err := f.checkCommit(name, commit); err != nil {
		return "", err
	}
	if cur := f.refs[name]; cur != "" {
		return "", fmt.Errorf("tag %s: %w (at %s); pick another name", name, gitstate.ErrRefExists, cur)
	}
	if !strings.HasSuffix(message, "\n") {
		message += "\n"
	}
	data := "object " + commit + "\ntype commit\ntag " + short + "\ntagger " + formatSignature(tagger) + "\n\n" + message
	h := f.put(typeTag, []byte(data))
	if err := f.refClash(name); err != nil {
		return "", err
	}
	f.refs[name] = h
	return h, nil
}

// ---- Private ----

// ItrPath is a path in the fake's private folder (outside the working
// tree), where *gitstate.Repo would use git's common directory.
func (f *Repo) ItrPath(elem ...string) string {
	f.count("ItrPath")
	return filepath.Join(append([]string{f.private}, elem...)...)
}

// WorktreeItrPath is ItrPath: the fake is a repository's main worktree,
// whose own git directory is the common one.
func (f *Repo) WorktreeItrPath(elem ...string) string {
	f.count("WorktreeItrPath")
	return filepath.Join(append([]string{f.private}, elem...)...)
}

// HooksDir is the folder "hooks" of the private folder.
func (f *Repo) HooksDir() (string, error) {
	if err := f.enter("HooksDir"); err != nil {
		return "", err
	}
	defer f.mu.Unlock()
	return filepath.Join(f.private, "hooks"), nil
}

// ConfigFile names the file the fake writes its config to, absolute (it
// is outside the working tree).
func (f *Repo) ConfigFile() string {
	f.count("ConfigFile")
	return filepath.Join(f.private, "config")
}

// ConfigSection returns the keys of [name "sub"] in order, values
// unquoted as git reads them, or nil when the section is absent.
func (f *Repo) ConfigSection(name, sub string) ([][2]string, error) {
	if err := f.enter("ConfigSection"); err != nil {
		return nil, err
	}
	defer f.mu.Unlock()
	start, end := gitsyntax.FindSection(f.config, name, sub)
	if start < 0 {
		return nil, nil
	}
	var out [][2]string
	for _, line := range strings.Split(string(f.config[start:end]), "\n")[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok {
			out = append(out, [2]string{strings.TrimSpace(k), unquoteConfig(v)})
		}
	}
	return out, nil
}

// SetConfigSection makes the config hold exactly the given keys in
// section [name "sub"] (nil keys remove it), leaving every other line as
// it was, and writes it to ConfigFile. It reports whether the config
// changed.
func (f *Repo) SetConfigSection(name, sub string, keys [][2]string) (bool, error) {
	if err := f.enter("SetConfigSection"); err != nil {
		return false, err
	}
	defer f.mu.Unlock()
	data := f.config
	out, err := gitsyntax.SetSection(data, name, sub, keys)
	if err != nil {
		return false, err
	}
	if bytes.Equal(out, data) {
		return false, nil
	}
	if err := os.WriteFile(filepath.Join(f.private, "config"), out, 0o666); err != nil {
		return false, fmt.Errorf("write config: %w", err)
	}
	f.config = out
	return true, nil
}

// unquoteConfig reads a value as git does: blanks around it dropped
// outside quotes, quotes removed, escapes resolved, a comment ended.
func unquoteConfig(v string) string {
	var b strings.Builder
	quoted := false
	pending := 0 // blanks seen outside quotes, kept only if more follows
	v = strings.TrimLeft(v, " \t")
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case !quoted && (c == ' ' || c == '\t'):
			pending++
			continue
		case !quoted && (c == '#' || c == ';'):
			return b.String()
		}
		if pending > 0 {
			b.WriteString(strings.Repeat(" ", pending))
			pending = 0
		}
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			u, ok := gitsyntax.Unescape(v[i])
			if !ok {
				u = v[i]
			}
			b.WriteByte(u)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Close releases nothing: the private folder stays for the caller's
// temporary folder to remove.
func (f *Repo) Close() error {
	if err := f.enter("Close"); err != nil {
		return err
	}
	f.mu.Unlock()
	return nil
}

// normaliseChanges is gitstate's rule for the changes of a commit; the
// fake alone may be asked for an empty one.
func normaliseChanges(in []gitstate.FileChange, allowEmpty bool) ([]gitstate.FileChange, error) {
	if len(in) == 0 && allowEmpty {
		return nil, nil
	}
	return gitstate.NormaliseChanges(in)
}

// BlobID is gitstate.BlobHash: the fake names objects with SHA-1.
func (f *Repo) BlobID(data []byte) string {
	f.count("BlobID")
	return gitstate.BlobHash(data)
}

// WorktreeFile reads a file of the fake's working tree as it is (the fake
// applies no attributes), failing as Fail says.
func (f *Repo) WorktreeFile(rel string) ([]byte, error) {
	if err := f.enter("WorktreeFile"); err != nil {
		return nil, err
	}
	f.mu.Unlock()
	return os.ReadFile(filepath.Join(f.root, filepath.FromSlash(rel)))
}

// Uncommitted reports the paths SetUncommitted gave, outside except.
func (f *Repo) Uncommitted(except string) ([]string, error) {
	if err := f.enter("Uncommitted"); err != nil {
		return nil, err
	}
	defer f.mu.Unlock()
	var out []string
	for _, p := range f.dirty {
		if except == "" || (p != except && !strings.HasPrefix(p, strings.TrimSuffix(except, "/")+"/")) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ChangedFiles lists the files commit rev changed against its first
// parent (all of them for a root commit), sorted: both trees flattened to
// path → mode and object, compared. Unlike the engine it reads every file
// of both commits; the fake stays small.
func (f *Repo) ChangedFiles(rev string) ([]string, error) {
	if err := f.begin("ChangedFiles"); err != nil {
		return nil, err
	}
	defer f.unlock()
	h, err := f.resolve(rev)
	if err != nil {
		return nil, err
	}
	c, err := f.readCommit(h)
	if err != nil {
		return nil, err
	}
	flat := func(tree string) (map[string]string, error) {
		out := map[string]string{}
		if tree == "" {
			return out, nil
		}
		var walk func(h, prefix string) error
		walk = func(h, prefix string) error {
			entries, err := f.treeEntries(h)
			if err != nil {
				return err
			}
			for _, e := range entries {
				p := e.name
				if prefix != "" {
					p = prefix + "/" + e.name
				}
				if e.isDir() {
					if err := walk(e.hash, p); err != nil {
						return err
					}
					continue
				}
				out[p] = e.mode + " " + e.hash
			}
			return nil
		}
		return out, walk(tree, "")
	}
	parent := ""
	if len(c.parents) > 0 {
		if pc, err := f.readCommit(c.parents[0]); err == nil {
			parent = pc.tree
		}
	}
	before, err := flat(parent)
	if err != nil {
		return nil, err
	}
	after, err := flat(c.tree)
	if err != nil {
		return nil, err
	}
	var out []string
	for p, v := range after {
		if before[p] != v {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}
