package testgit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Snapshot is what a refused command must leave of a repository byte for
// byte, read with commands that only read (git status would refresh the
// index): the commit HEAD names and the branch it is on, every ref, the
// index as git lists it and its file, git's configuration, the operation
// in progress, and every file of the working tree outside git's own
// directory. Files are digests of their content, "absent" for a file
// that is not there.
type Snapshot struct {
	Head, Branch, Refs, Staged, Index, Config, Operation string
	// Files are the working tree's files by slash path from the top: the
	// digest of a file's content, "-> target" for a symbolic link, the
	// kind of any other file (which is not read: a FIFO would block).
	Files map[string]string
}

// operations are the files of git's directory that say an operation is in
// progress.
var operations = []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply"}

// Snap takes the Snapshot of the repository whose working tree's top is
// dir.
func Snap(t testing.TB, dir string) Snapshot {
	t.Helper()
	args := []string{"rev-parse", "--path-format=absolute", "--absolute-git-dir", "--git-path", "index", "--git-path", "config"}
	for _, op := range operations {
		args = append(args, "--git-path", op)
	}
	paths := strings.Split(strings.TrimSpace(Out(t, dir, args...)), "\n")
	if len(paths) != 3+len(operations) {
		t.Fatalf("git %s printed %q", strings.Join(args, " "), paths)
	}
	gitDir, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	head, _ := Run(dir, "rev-parse", "-q", "--verify", "HEAD")
	branch, _ := Run(dir, "symbolic-ref", "-q", "HEAD")
	s := Snapshot{
		Head:   head,
		Branch: branch,
		Refs:   Refs(t, dir, ""),
		Staged: Out(t, dir, "ls-files", "--stage"),
		Index:  digestOf(paths[1]),
		Config: digestOf(paths[2]),
		Files:  map[string]string{},
	}
	for i, op := range operations {
		if _, err := os.Lstat(paths[3+i]); err == nil {
			s.Operation += op + " "
		}
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			if info, err := d.Info(); err == nil && os.SameFile(info, gitDir) {
				return filepath.SkipDir
			}
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			s.Files[filepath.ToSlash(rel)] = "-> " + target
		case d.Type().IsRegular():
			s.Files[filepath.ToSlash(rel)] = digestOf(p)
		default:
			s.Files[filepath.ToSlash(rel)] = "a " + d.Type().String() + " file"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Diff lists how s differs from other, one line a part or file that
// differs; nil when they are equal.
func (s Snapshot) Diff(other Snapshot) []string {
	var out []string
	parts := func(x Snapshot) []string {
		return []string{x.Head, x.Branch, x.Refs, x.Staged, x.Index, x.Config, x.Operation}
	}
	for i, name := range []string{"HEAD", "the branch", "the refs", "the index as git lists it", "the index file", "git's configuration", "the operation in progress"} {
		if a, b := parts(s)[i], parts(other)[i]; a != b {
			out = append(out, name+": "+quote(a)+" then "+quote(b))
		}
	}
	names := map[string]bool{}
	for n := range s.Files {
		names[n] = true
	}
	for n := range other.Files {
		names[n] = true
	}
	var files []string
	for n := range names {
		files = append(files, n)
	}
	sort.Strings(files)
	for _, n := range files {
		a, inS := s.Files[n]
		b, inOther := other.Files[n]
		switch {
		case !inS:
			out = append(out, "file "+n+": added")
		case !inOther:
			out = append(out, "file "+n+": removed")
		case a != b:
			out = append(out, "file "+n+": changed")
		}
	}
	if len(out) == 0 && !reflect.DeepEqual(s, other) {
		out = append(out, "the snapshots differ")
	}
	return out
}

// Unchanged requires the repository of dir to be as the snapshot before
// was: it fails the test at once, naming what changed.
func Unchanged(t testing.TB, dir string, before Snapshot) {
	t.Helper()
	if diff := before.Diff(Snap(t, dir)); len(diff) > 0 {
		t.Fatalf("the repository changed (HEAD, refs, index, configuration, operation, working tree):\n%s", strings.Join(diff, "\n"))
	}
}

// quote is s in quotes, cut to a length a failure can show.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return `"` + s + `"`
}

// digestOf is the digest of the file at path, "absent" when there is
// none.
func digestOf(path string) string {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	if err != nil {
		return "unreadable: " + err.Error()
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
