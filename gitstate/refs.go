package gitstate

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const zeroHash = "0000000000000000000000000000000000000000"

// Head describes what HEAD points at.
type Head struct {
	Branch   string // full ref name, e.g. refs/heads/main; "" if detached
	Hash     string // commit hash; "" if the branch is unborn
	Unborn   bool   // the branch has no commit yet
	Detached bool   // HEAD holds a commit hash, not a branch
}

// Head reads HEAD of this worktree.
func (r *Repo) Head() (Head, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.head()
}

func (r *Repo) head() (Head, error) {
	b, err := r.cache.readFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return Head{}, fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(s, "ref:"); ok {
		target = strings.TrimSpace(target)
		h := Head{Branch: target}
		val, err := r.resolveRef(target)
		if err != nil {
			return Head{}, err
		}
		if val == "" {
			h.Unborn = true
		} else {
			h.Hash = val
		}
		return h, nil
	}
	if !isHex40(s) {
		return Head{}, fmt.Errorf("%s: HEAD holds %q, neither a ref nor a hash; repair it with `git checkout <branch>`", filepath.Join(r.gitDir, "HEAD"), s)
	}
	return Head{Hash: s, Detached: true}, nil
}

// currentBranch returns HEAD's branch or "" (errors are ignored: this is
// only for includeIf onbranch).
func (r *Repo) currentBranch() string {
	h, err := r.head()
	if err != nil {
		return ""
	}
	return h.Branch
}

// refFile returns the loose file of a ref: per-worktree refs live in the
// worktree's git dir, the others in the common dir.
func (r *Repo) refFile(name string) string {
	if name == "HEAD" || strings.HasPrefix(name, "refs/bisect/") ||
		strings.HasPrefix(name, "refs/worktree/") || strings.HasPrefix(name, "refs/rewritten/") {
		return filepath.Join(r.gitDir, filepath.FromSlash(name))
	}
	return filepath.Join(r.commonDir, filepath.FromSlash(name))
}

// resolveRef follows a ref (loose, then packed-refs; symbolic refs up to a
// few levels) to a hash. It returns "" with no error when the ref does not
// exist.
func (r *Repo) resolveRef(name string) (string, error) {
	for depth := 0; depth < 5; depth++ {
		val, err := r.readRawRef(name)
		if err != nil || val == "" {
			return "", err
		}
		if target, ok := strings.CutPrefix(val, "ref:"); ok {
			name = strings.TrimSpace(target)
			continue
		}
		return val, nil
	}
	return "", fmt.Errorf("ref %s: symbolic refs nest too deep; repair them with `git symbolic-ref`", name)
}

// readRawRef returns a ref's stored value ("ref: x" or a hash) or "",
// read once per process while the file stays the same (proccache.go).
func (r *Repo) readRawRef(name string) (string, error) {
	b, err := r.cache.readFile(r.refFile(name))
	if err == nil {
		s := strings.TrimSpace(string(b))
		if strings.HasPrefix(s, "ref:") || isHex40(s) {
			return s, nil
		}
		return "", fmt.Errorf("%s: ref holds %q, not a hash; repair it with `git update-ref`", r.refFile(name), s)
	}
	if !os.IsNotExist(err) && !isDirErr(r.refFile(name)) {
		return "", fmt.Errorf("read ref %s: %w", name, err)
	}
	if !strings.HasPrefix(name, "refs/") {
		return "", nil
	}
	return r.packedRef(name)
}

func isDirErr(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// packedRef looks name up in packed-refs.
func (r *Repo) packedRef(name string) (string, error) {
	data, err := r.cache.readFile(filepath.Join(r.commonDir, "packed-refs"))
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read packed-refs: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	want := []byte(name)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 42 || line[0] == '#' || line[0] == '^' {
			continue
		}
		if line[40] == ' ' && bytes.Equal(line[41:], want) {
			return string(line[:40]), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("read packed-refs: %w", err)
	}
	return "", nil
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// reflogMessage normalises a reflog message as git's copy_reflog_msg does:
// runs of whitespace become one space, ends trimmed.
func reflogMessage(msg string) string {
	return strings.Join(strings.Fields(msg), " ")
}

// reflogLine formats one reflog line in git's format.
func reflogLine(old, new string, who Signature, msg string) string {
	return fmt.Sprintf("%s %s %s <%s> %d %s\t%s\n", old, new, who.Name, who.Email, who.When.Unix(), who.When.Format("-0700"), msg)
}

// appendReflog appends a line to the reflog file, creating it if create is
// true; an existing file is always appended to (like git).
func appendReflog(path, line string, create bool) error {
	flags := os.O_WRONLY | os.O_APPEND
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return fmt.Errorf("create folder for %s: %w", path, err)
		}
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flags, 0o666)
	if os.IsNotExist(err) && !create {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open reflog %s: %w", path, err)
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return fmt.Errorf("write reflog %s: %w", path, err)
	}
	return f.Close()
}
