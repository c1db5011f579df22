package gitstate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Errors of the ref writers in this file; test them with errors.Is.
var (
	// ErrRefExists means a ref that was to be created already exists.
	ErrRefExists = errors.New("ref already exists")
	// ErrRefChanged means a ref did not hold the value a compare-and-swap
	// expected.
	ErrRefChanged = errors.New("ref changed")
)

// Tag is an annotated tag as itr sees it.
type Tag struct {
	Ref     string // full ref name, e.g. refs/tags/itr/archive/x/2026-01-14
	Hash    string // the tag object
	Name    string // the name inside the tag object
	Target  string // the commit the tag points at
	Tagger  Signature
	Message string
}

// ReadRef returns the value of a ref (loose, else packed-refs), following
// symbolic refs: the object it names, which for an annotated tag is the tag
// object. It returns "" and no error when the ref does not exist.
func (r *Repo) ReadRef(name string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resolveRef(name)
}

// RawRefs returns every ref whose name starts with prefix and the object it
// names, unpeeled, whether or not that object exists, so a checker can
// report refs that no longer resolve. Loose refs beat packed ones, as in
// git; lock files ("<ref>.lock", held by a running git) and files that do
// not hold a hash are skipped.
func (r *Repo) RawRefs(prefix string) (map[string]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rawRefs(prefix)
}

func (r *Repo) rawRefs(prefix string) (map[string]string, error) {
	out := map[string]string{}
	packed, err := r.packedWithPrefix(prefix)
	if err != nil {
		return nil, err
	}
	for _, name := range packed {
		if v, err := r.packedRef(name); err == nil && v != "" {
			out[name] = v
		}
	}
	dir := prefix
	if i := strings.LastIndex(dir, "/"); i >= 0 {
		dir = dir[:i]
	}
	base := filepath.Join(r.commonDir, filepath.FromSlash(dir))
	err = filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(r.commonDir, p)
		if err != nil {
			return nil
		}
		name := filepath.ToSlash(rel)
		if !strings.HasPrefix(name, prefix) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil // vanished or unreadable: git would skip it too
		}
		if v := strings.TrimSpace(string(b)); isHex40(v) {
			out[name] = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list references under %s: %w", prefix, err)
	}
	return out, nil
}

// PeelCommit returns the commit a ref or object hash leads to, following
// annotated tags; an error wrapping ErrNotFound when the object is missing
// or is not a commit.
func (r *Repo) PeelCommit(hash string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !isHex40(hash) {
		return "", fmt.Errorf("peel %q: not a full object name: %w", hash, ErrNotFound)
	}
	h, err := r.peel(plumbing.NewHash(hash), hash)
	if err != nil {
		return "", err
	}
	if _, err := r.readCommit(h); err != nil {
		return "", fmt.Errorf("read commit %s: %w", h, ErrNotFound)
	}
	return h.String(), nil
}

// ReadTag reads the annotated tag a ref names (a full ref name such as
// refs/tags/v1). It returns an error wrapping ErrNotFound when the ref does
// not exist, its object is missing, or it is a lightweight tag.
func (r *Repo) ReadTag(ref string) (Tag, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	val, err := r.resolveRef(ref)
	if err != nil {
		return Tag{}, err
	}
	if val == "" {
		return Tag{}, fmt.Errorf("tag %s: %w", ref, ErrNotFound)
	}
	return r.readTagObject(ref, plumbing.NewHash(val))
}

func (r *Repo) readTagObject(ref string, h plumbing.Hash) (Tag, error) {
	typ, data, err := r.readRaw(h)
	if err != nil {
		return Tag{}, fmt.Errorf("tag %s: object %s: %w", ref, h, ErrNotFound)
	}
	if typ != plumbing.TagObject {
		return Tag{}, fmt.Errorf("tag %s: %s is a %s, not an annotated tag: %w", ref, h, typ, ErrNotFound)
	}
	t, err := decodeTag(h, data)
	if err != nil {
		return Tag{}, fmt.Errorf("tag %s: read %s: %w", ref, h, err)
	}
	return Tag{Ref: ref, Hash: h.String(), Name: t.Name, Target: t.Target.String(),
		Tagger: t.Tagger, Message: t.Message}, nil
}

// SetBranch points the branch name (a full ref name under refs/heads/) at
// commit, creating it or moving it from whatever it held, with git's
// lock-file protocol, and appends the reflog line `msg` by who. It refuses
// a name git would refuse, a commit that does not exist, and a name that
// clashes with an existing ref as file and folder (refs/heads/a versus
// refs/heads/a/b).
func (r *Repo) SetBranch(name, commit string, who Signature, msg string) error {
	if !strings.HasPrefix(name, "refs/heads/") {
		return fmt.Errorf("branch %q: give the full ref name, refs/heads/...", name) //nolint:revive,staticcheck // error-strings/ST1005: the message ends with the ref pattern, not punctuation
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkCommit(name, commit); err != nil {
		return err
	}
	return r.updateRef(name, commit, nil, who, msg, false)
}

// CreateTag writes an annotated tag object for commit with message, tagged
// by tagger, and creates the ref name (a full ref name under refs/tags/)
// pointing at it with git's lock-file protocol. It returns the tag object's
// hash, or an error wrapping ErrRefExists when the ref already exists (the
// tag object is then left unreferenced for git gc).
func (r *Repo) CreateTag(name, commit, message string, tagger Signature) (string, error) {
	short, ok := strings.CutPrefix(name, "refs/tags/")
	if !ok {
		return "", fmt.Errorf("tag %q: give the full ref name, refs/tags/...", name) //nolint:revive,staticcheck // error-strings/ST1005: the message ends with the ref pattern, not punctuation
	}
	if tagger.Name == "" || tagger.Email == "" {
		return "", fmt.Errorf("tag %s: the tagger needs a name and an email: %w", name, ErrNoIdentity)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := validRefName(name); err != nil {
		return "", err
	}
	if err := r.checkCommit(name, commit); err != nil {
		return "", err
	}
	if cur, err := r.resolveRef(name); err != nil {
		return "", err
	} else if cur != "" {
		return "", fmt.Errorf("tag %s: %w (at %s); pick another name", name, ErrRefExists, cur)
	}
	if !strings.HasSuffix(message, "\n") {
		message += "\n"
	}
	lw := r.newLooseWriter()
	h, err := lw.put(plumbing.TagObject, encodeTag(plumbing.NewHash(commit), short, tagger, message))
	lw.sync()
	if err != nil {
		return "", fmt.Errorf("tag %s: write the tag object: %w", name, err)
	}
	mustBeNew := func(cur string) error {
		if cur != "" {
			return fmt.Errorf("tag %s: %w (at %s); pick another name", name, ErrRefExists, cur)
		}
		return nil
	}
	if err := r.updateRef(name, h.String(), mustBeNew, tagger, "tag: "+short, true); err != nil {
		return "", err
	}
	return h.String(), nil
}

// checkCommit makes sure commit names an existing commit object.
func (r *Repo) checkCommit(name, commit string) error {
	if !isHex40(commit) {
		return fmt.Errorf("%s: %q is not a full commit hash", name, commit)
	}
	if _, err := r.readCommit(plumbing.NewHash(commit)); err != nil {
		return fmt.Errorf("%s: commit %s: %w", name, commit, ErrNotFound)
	}
	return nil
}

// updateRef writes name = hash under <ref>.lock: the lock is taken, the
// current value read (loose, then packed) and passed to check, the new value
// written, fsynced and renamed into place, then the reflog line appended
// (created for branches as core.logAllRefUpdates says; for tags only when it
// is "always"). The caller holds r.mu.
func (r *Repo) updateRef(name, hash string, check func(cur string) error, who Signature, msg string, isTag bool) error {
	if err := validRefName(name); err != nil {
		return err
	}
	cfg, lock, cur, err := r.lockRef(name, true)
	if err != nil {
		return err
	}
	defer lock.rollback()
	if check != nil {
		if err := check(cur); err != nil {
			return err
		}
	}
	if err := lock.commitValue(hash); err != nil {
		return err
	}
	old := cur
	if old == "" {
		old = zeroHash
	}
	logAll := cfg.value("core", "", "logallrefupdates")
	create := strings.EqualFold(logAll, "always")
	if !isTag {
		create = create || r.root != "" && (logAll == "" || isTrue(logAll))
	}
	return appendReflog(filepath.Join(r.commonDir, "logs", filepath.FromSlash(name)), reflogLine(old, hash, who, reflogMessage(msg)), create)
}

// lockRef takes name's lock and reads, under it, the config and the ref's
// current value (loose, then packed; "" when absent). A symbolic ref is
// refused, and so, when the ref is to hold a value (sets), is a name that
// clashes with another ref's (refClash). The caller holds r.mu and rolls
// the lock back or commits it.
func (r *Repo) lockRef(name string, sets bool) (*configSet, *lockFile, string, error) {
	if sets {
		if err := r.refClash(name); err != nil {
			return nil, nil, "", err
		}
	}
	cfg, err := r.loadConfig(r.currentBranch())
	if err != nil {
		return nil, nil, "", err
	}
	lock, err := r.acquireLock(r.refFile(name))
	if err != nil {
		return nil, nil, "", err
	}
	cur, err := r.readRawRef(name)
	if err == nil && strings.HasPrefix(cur, "ref:") {
		err = fmt.Errorf("%s is a symbolic ref (%s); itr does not move it: remove it with `git symbolic-ref -d %s`", name, cur, name)
	}
	if err != nil {
		lock.rollback()
		return nil, nil, "", err
	}
	return cfg, lock, cur, nil
}

// refClash refuses a ref name that is a prefix folder of an existing ref or
// has an existing ref as one of its folders, loose or packed: git could not
// store both.
func (r *Repo) refClash(name string) error {
	parts := strings.Split(name, "/")
	for i := 2; i < len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		val, err := r.readRawRef(prefix)
		if err != nil {
			return err
		}
		if val != "" {
			return fmt.Errorf("cannot create %s: the ref %s exists, and git cannot hold both; rename it with `git branch -m` or `git tag`", name, prefix)
		}
	}
	if isDirErr(r.refFile(name)) {
		entries, _ := os.ReadDir(r.refFile(name))
		if len(entries) > 0 {
			return fmt.Errorf("cannot create %s: refs exist under %s/; remove them or pick another name", name, name)
		}
		// An empty folder left by deleted refs: git removes it too.
		if err := os.Remove(r.refFile(name)); err != nil {
			return fmt.Errorf("cannot create %s: %w", name, err)
		}
	}
	under, err := r.packedWithPrefix(name + "/")
	if err != nil {
		return err
	}
	if len(under) > 0 {
		return fmt.Errorf("cannot create %s: the ref %s exists under it; remove it or pick another name", name, under[0])
	}
	return nil
}

// packedWithPrefix lists the names in packed-refs that start with prefix.
func (r *Repo) packedWithPrefix(prefix string) ([]string, error) {
	f, err := os.Open(filepath.Join(r.commonDir, "packed-refs"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	p := []byte(prefix)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 42 || line[0] == '#' || line[0] == '^' || line[40] != ' ' {
			continue
		}
		if bytes.HasPrefix(line[41:], p) {
			out = append(out, string(line[41:]))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

// validRefName applies git's check-ref-format rules to a full ref name.
func validRefName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%q is not a valid git ref name: %s", name, why)
	}
	if !strings.HasPrefix(name, "refs/") {
		return bad("it must start with refs/")
	}
	if strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") {
		return bad("it ends with '/' or '.'")
	}
	if strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") {
		return bad("it contains '..', '@{' or '//'")
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return bad(fmt.Sprintf("it contains %q", c))
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if comp == "" || strings.HasPrefix(comp, ".") || strings.HasSuffix(comp, ".lock") {
			return bad(fmt.Sprintf("the part %q is empty, starts with '.' or ends with .lock", comp))
		}
	}
	return nil
}
