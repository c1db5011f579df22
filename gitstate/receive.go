package gitstate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// What a push brings to a server, as its pre-receive hook sees it: the
// hook runs in the repository receiving the push, with the pushed objects
// in git's quarantine (GIT_OBJECT_DIRECTORY and
// GIT_ALTERNATE_OBJECT_DIRECTORIES point at them), so everything here is
// asked of git's own plumbing, which honours them; the refs are not yet
// updated, so `--all` still names what the server held before the push.

// ZeroID is the object id git writes for "no object": the old value of a
// ref a push creates, the new value of one it deletes.
const ZeroID = "0000000000000000000000000000000000000000"

// PushedRef is one line of a pre-receive hook's input: a ref and its old
// and new values (ZeroID for none).
type PushedRef struct {
	Old, New, Ref string
}

// ParsePushedRefs reads a pre-receive hook's standard input, one
// "<old> <new> <ref>" line per ref the push updates.
func ParsePushedRefs(r io.Reader) ([]PushedRef, error) {
	var out []PushedRef
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text() // without its "\n" or "\r\n"
		if line == "" {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 || !isHexID(f[0]) || !isHexID(f[1]) || !isRefName(f[2]) {
			return nil, fmt.Errorf("pre-receive input line %d: %.100q is not \"<old-id> <new-id> <ref>\"", n, line)
		}
		out = append(out, PushedRef{Old: f[0], New: f[1], Ref: f[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the pre-receive input: %w", err)
	}
	return out, nil
}

// isRefName reports whether s could be a ref git sends: not empty, and no
// space or control character (git refuses those in ref names).
func isRefName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

func isHexID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// PushedChange is a file, one of those PushedChanges was asked about,
// that differs between a pushed commit and what it is compared with.
type PushedChange struct {
	// Commit is the pushed commit; Base what it is compared with: its
	// first parent, or, for a ref the push moves other than forward
	// (Ref != ""), the ref's old value.
	Commit, Base, Ref string
	Path              string
	// OldBlob and NewBlob are the file's object ids at Base and Commit
	// (ZeroID where it is absent); Status is git's letter: M, A, D, T.
	OldBlob, NewBlob string
	Status           string
}

// PushedChanges lists the files named one of names (the last element of
// the path) that a push changes: in each commit it brings that no ref of
// the repository holds yet, against its first parent (a root commit has
// nothing to compare with); and for each branch it moves other than
// forward (a force push), the new tip against the old one. It runs git
// twice whatever the push (rev-list, then one diff-tree of every commit,
// limited to those names, so only the folders a commit changed are
// read), and once more for each branch update that is not a fast-forward
// of the new commits. dir is the repository (its git dir when bare);
// the environment is this process's, as git gave it to the hook.
func PushedChanges(dir string, updates []PushedRef, names []string) ([]PushedChange, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("the server check needs git: %w", err)
	}
	args := []string{"rev-list", "--parents"}
	for _, u := range updates {
		if !isZero(u.New) {
			args = append(args, u.New)
		}
	}
	if len(args) == 2 {
		return nil, nil // deletions only
	}
	args = append(args, "--not", "--all")
	out, err := runGit(git, dir, nil, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("list the pushed commits: %w", err)
	}
	var input bytes.Buffer
	parents := map[string]string{} // a new commit's first parent
	parentOf := map[string]bool{}  // commits a new commit has as a parent
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		for _, p := range f[1:] {
			parentOf[p] = true
		}
		if len(f) > 1 {
			parents[f[0]] = f[1]
			input.WriteString(f[0] + " " + f[1] + "\n")
		}
	}
	diff := func(input []byte) ([]byte, error) {
		args := []string{"diff-tree", "--stdin", "-r", "-z", "--no-renames", "--"}
		for _, n := range names {
			args = append(args, ":(glob)**/"+n)
		}
		return runGit(git, dir, nil, input, args...)
	}
	var res []PushedChange
	if input.Len() > 0 {
		out, err := diff(input.Bytes())
		if err != nil {
			return nil, fmt.Errorf("compare the pushed commits with their parents: %w", err)
		}
		if res, err = parseDiffTree(out, parents, ""); err != nil {
			return nil, err
		}
	}
	for _, u := range updates {
		if !strings.HasPrefix(u.Ref, "refs/heads/") || isZero(u.Old) || isZero(u.New) || parentOf[u.Old] {
			continue
		}
		// Not shown a fast-forward by the new commits: ask git, and
		// compare the tips of a branch moved any other way.
		if _, err := runGit(git, dir, nil, nil, "merge-base", "--is-ancestor", u.Old, u.New); err == nil {
			continue
		} else if exitCode(err) != 1 {
			return nil, fmt.Errorf("compare %s's old and new values: %w", u.Ref, err)
		}
		out, err := diff([]byte(u.New + " " + u.Old + "\n"))
		if err != nil {
			return nil, fmt.Errorf("compare %s's new value with its old: %w", u.Ref, err)
		}
		more, err := parseDiffTree(out, map[string]string{u.New: u.Old}, u.Ref)
		if err != nil {
			return nil, err
		}
		res = append(res, more...)
	}
	return res, nil
}

func isZero(id string) bool { return strings.Trim(id, "0") == "" }

// parseDiffTree reads `git diff-tree --stdin -r -z` output: a commit id
// for each input line that has changes, then ":<mode> <mode> <old> <new>
// <status>" and the path for each change. bases are what each commit was
// compared with; ref is the branch when they are its old value.
func parseDiffTree(out []byte, bases map[string]string, ref string) ([]PushedChange, error) {
	var res []PushedChange
	var commit string
	toks := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	for i := 0; i < len(toks); i++ {
		t := string(toks[i])
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, ":") {
			commit = strings.TrimSpace(t)
			continue
		}
		f := strings.Fields(t[1:])
		if len(f) != 5 || i+1 >= len(toks) || commit == "" {
			return nil, fmt.Errorf("git diff-tree: unexpected output %.100q", t)
		}
		i++
		res = append(res, PushedChange{Commit: commit, Base: bases[commit], Ref: ref, Path: string(toks[i]),
			OldBlob: f[2], NewBlob: f[3], Status: f[4]})
	}
	return res, nil
}

// ReadPushedObjects reads the objects named by specs (object ids or
// "<commit>:<path>") in one `git cat-file --batch`; a spec naming nothing
// reads as nil, which is not an error.
func ReadPushedObjects(dir string, specs []string) ([][]byte, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("the server check needs git: %w", err)
	}
	var in bytes.Buffer
	for _, s := range specs {
		if strings.ContainsAny(s, "\n") {
			return nil, fmt.Errorf("read %q: a name with a newline", s)
		}
		in.WriteString(s + "\n")
	}
	out, err := runGit(git, dir, nil, in.Bytes(), "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("read the pushed files: %w", err)
	}
	res := make([][]byte, len(specs))
	for i := range specs {
		line, rest, ok := bytes.Cut(out, []byte{'\n'})
		if !ok {
			return nil, errors.New("git cat-file --batch: its output ended early")
		}
		f := strings.Fields(string(line))
		if len(f) == 3 && f[1] != "missing" {
			size, err := strconv.Atoi(f[2])
			if err != nil || size+1 > len(rest) {
				return nil, fmt.Errorf("git cat-file --batch: unexpected header %.100q", line)
			}
			res[i], out = rest[:size], rest[size+1:]
			continue
		}
		out = rest // "<spec> missing" or "ambiguous": nothing to read
	}
	return res, nil
}
