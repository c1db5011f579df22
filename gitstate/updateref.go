package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrBadRef means a ref name was refused: not a valid git ref name, or
// outside refs/itr/, where UpdateRef may not move refs.
var ErrBadRef = errors.New("bad ref name")

// RefChangedError is a compare-and-swap of a ref that found another value
// than the one expected. It matches ErrRefChanged with errors.Is.
type RefChangedError struct {
	Ref  string // full ref name
	Want string // the value expected ("": absent)
	Have string // the value the ref holds ("": absent)
}

// Error implements error.
func (e *RefChangedError) Error() string {
	return fmt.Sprintf("ref %s: %s: it holds %s, expected %s; re-read it and retry", e.Ref, ErrRefChanged, orAbsent(e.Have), orAbsent(e.Want))
}

// Is makes errors.Is(err, ErrRefChanged) true.
func (e *RefChangedError) Is(target error) bool { return target == ErrRefChanged }

func orAbsent(v string) string {
	if v == "" {
		return "nothing (absent)"
	}
	return v
}

// checkItrRef refuses a ref name that is not valid or not under refs/itr/.
func checkItrRef(name string) error {
	if !strings.HasPrefix(name, "refs/itr/") {
		return fmt.Errorf("update ref %q: %w: only refs under refs/itr/ may be moved this way", name, ErrBadRef)
	}
	if err := validRefName(name); err != nil {
		return fmt.Errorf("update ref: %w: %w", ErrBadRef, err)
	}
	return nil
}

// WriteBlob stores data as a blob object, byte for byte (no filters, no
// ref, no index, no working tree), and returns its id.
func (r *Repo) WriteBlob(data []byte) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cfg, err := r.loadConfig(r.currentBranch())
	if err != nil {
		return "", err
	}
	r.dur = durabilityOf(cfg)
	lw := r.newLooseWriter()
	h, err := lw.put(plumbing.BlobObject, data)
	lw.sync()
	if err != nil {
		return "", fmt.Errorf("write blob: %w", err)
	}
	return h.String(), nil
}

// UpdateRef moves the ref name (a full name under refs/itr/) from oldID to
// newID with git's lock-file protocol, compare-and-swap: oldID "" means the
// ref must not exist; newID "" deletes it (from the loose file and from
// packed-refs). When the ref holds another value than oldID nothing
// changes and the error is a *RefChangedError (ErrRefChanged). A name
// outside refs/itr/ is refused with ErrBadRef; a lock another process
// holds past the retry budget is ErrLocked. The reflog is written as git
// update-ref writes it (see logItrRef); a delete removes it, and the empty
// folders the ref leaves, as git does.
func (r *Repo) UpdateRef(name, newID, oldID string) error {
	if err := checkItrRef(name); err != nil {
		return err
	}
	for _, id := range []string{newID, oldID} {
		if id != "" && !isHex40(id) {
			return fmt.Errorf("update ref %s: %q is not a full object name", name, id)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if newID != "" {
		if _, _, err := r.readRaw(plumbing.NewHash(newID)); err != nil {
			return fmt.Errorf("update ref %s: object %s: %w", name, newID, ErrNotFound)
		}
	}
	cfg, lock, cur, err := r.lockRef(name, newID != "")
	if err != nil {
		return err
	}
	defer lock.rollback()
	r.dur = durabilityOf(cfg)
	file := r.refFile(name)
	if cur != oldID {
		return &RefChangedError{Ref: name, Want: oldID, Have: cur}
	}
	if newID == "" {
		if cur == "" {
			return nil
		}
		if err := r.deleteRef(name, file); err != nil {
			return err
		}
		lock.rollback()
		r.removeEmptyParents(name)
		return nil
	}
	lock.nosync = !r.dur.refs
	if err := lock.commitValue(newID); err != nil {
		return err
	}
	return r.logItrRef(cfg, name, cur, newID)
}

// logItrRef appends the reflog line git update-ref writes for a ref under
// refs/itr/ (no message): to a reflog that exists, or a new one when
// core.logAllRefUpdates is "always". Without a committer identity it
// writes none.
func (r *Repo) logItrRef(cfg *configSet, name, old, newID string) error {
	logPath := filepath.Join(r.commonDir, "logs", filepath.FromSlash(name))
	create := strings.EqualFold(cfg.value("core", "", "logallrefupdates"), "always")
	if _, err := os.Stat(logPath); err != nil && !create {
		return nil
	}
	who, err := identity(cfg, "committer", time.Now())
	if err != nil {
		return nil
	}
	if old == "" {
		old = zeroHash
	}
	line := fmt.Sprintf("%s %s %s <%s> %d %s\n", old, newID, who.Name, who.Email, who.When.Unix(), who.When.Format("-0700"))
	return appendReflog(logPath, line, create)
}

// deleteRef removes name from packed-refs (under packed-refs.lock) and its
// loose file and reflog, as `git update-ref -d` does. The caller holds
// r.mu and the ref's lock.
func (r *Repo) deleteRef(name, file string) error {
	packed, err := r.packedRef(name)
	if err != nil {
		return err
	}
	if packed != "" {
		if err := r.unpackRef(name); err != nil {
			return err
		}
	}
	if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("delete ref %s: %w", name, err)
	}
	_ = os.Remove(filepath.Join(r.commonDir, "logs", filepath.FromSlash(name)))
	return nil
}

// removeEmptyParents removes the empty folders of a deleted ref below
// refs/, as git does.
func (r *Repo) removeEmptyParents(name string) {
	for _, base := range []string{r.commonDir, filepath.Join(r.commonDir, "logs")} {
		for dir := path.Dir(name); strings.Count(dir, "/") >= 1; dir = path.Dir(dir) {
			if os.Remove(filepath.Join(base, filepath.FromSlash(dir))) != nil {
				break
			}
		}
	}
}

// unpackRef rewrites packed-refs without name (and its peeled line) under
// packed-refs.lock.
func (r *Repo) unpackRef(name string) error {
	path := filepath.Join(r.commonDir, "packed-refs")
	lock, err := r.acquireLock(path)
	if err != nil {
		return err
	}
	defer lock.rollback()
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read packed-refs: %w", err)
	}
	var out bytes.Buffer
	skipPeel := false
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if line[0] == '^' && skipPeel {
			continue
		}
		skipPeel = false
		body := bytes.TrimRight(line, "\n")
		if len(body) > 41 && body[0] != '#' && body[40] == ' ' && string(body[41:]) == name {
			skipPeel = true
			continue
		}
		out.Write(line)
	}
	lock.nosync = !r.dur.refs
	if _, err := lock.Write(out.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", lock.lock, err)
	}
	return lock.commit()
}

// WriteBlob stores data as a blob, byte for byte (no filters or
// conversions), with one `git unpack-objects`, and returns its id in the
// repository's object format.
func (g *GitRepo) WriteBlob(data []byte) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	o := g.newObject("blob", data)
	if err := g.writeObjects([]packObject{o}); err != nil {
		return "", fmt.Errorf("write blob: %w", err)
	}
	return o.id, nil
}

// UpdateRef is the compare-and-swap of *Repo.UpdateRef done by `git
// update-ref NAME NEW OLD` (OLD the zero id for "must not exist") and `git
// update-ref -d NAME OLD`, so it works on every ref backend, reftable
// included. When git refuses, the ref is read again: a value other than
// oldID is a *RefChangedError; anything else keeps git's own words.
func (g *GitRepo) UpdateRef(name, newID, oldID string) error {
	if err := checkItrRef(name); err != nil {
		return err
	}
	for _, id := range []string{newID, oldID} {
		if id != "" && !g.isID(id) {
			return fmt.Errorf("update ref %s: %q is not a full object name", name, id)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if newID != "" {
		_, ok, err := g.query("info", newID)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("update ref %s: object %s: %w", name, newID, ErrNotFound)
		}
	}
	var args []string
	switch {
	case newID == "" && oldID == "":
		cur, err := g.exactRef(name)
		if err != nil {
			return err
		}
		if cur != "" {
			return &RefChangedError{Ref: name, Want: "", Have: cur}
		}
		return nil
	case newID == "":
		args = []string{"update-ref", "-d", name, oldID}
	default:
		old := oldID
		if old == "" {
			old = strings.Repeat("0", g.hexLen)
		}
		args = []string{"update-ref", name, newID, old}
	}
	err := g.retryLocked(func() error {
		_, err := g.run(nil, args...)
		return err
	})
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrLocked) {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	cur, rerr := g.exactRef(name)
	if rerr == nil && cur != oldID {
		return &RefChangedError{Ref: name, Want: oldID, Have: cur}
	}
	return fmt.Errorf("update ref %s: %w", name, err)
}

// exactRef is the object the ref called exactly name holds ("" when there
// is none), with no abbreviation rules (`git for-each-ref`, which lists the
// refs below name too: only name itself counts).
func (g *GitRepo) exactRef(name string) (string, error) {
	out, err := g.run(nil, "for-each-ref", "--format=%(objectname) %(refname)", name)
	if err != nil {
		return "", fmt.Errorf("read ref %s: %w", name, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if id, ref, ok := strings.Cut(line, " "); ok && ref == name {
			return id, nil
		}
	}
	return "", nil
}
