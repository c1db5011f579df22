// Package testgit prepares the real git for tests: a home of their own
// with an identity, and nothing of the machine's configuration or of the
// caller's environment that would make git or itr look elsewhere
// (Isolate, or Unconfigured for a test that configures git itself). It runs
// git (Git, Try, Run, Out, Line), makes remotes and clones (Bare, Clone),
// and judges a repository with git itself: fsck and status (Check), its
// refs, trees and history (Refs, LsTree, AppendOnly), and whether a
// command left it as it was (Snap, Unchanged). It knows nothing of itr's
// files (package testrepo does) and imports nothing of itr's, so that
// gitstate's own tests may use it. Only tests import it.
package testgit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Name and Email are the identity Isolate gives git.
const (
	Name  = "Test Agent"
	Email = "agent@example.com"
)

// cleared are the variables that would make git or itr look elsewhere
// than the test's repository and home, or name another identity or time.
var cleared = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
	"GIT_CEILING_DIRECTORIES", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_SYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
	"GIT_COMMITTER_EMAIL", "EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE",
	"ITR_ROOT", "ITR_TASK", "ITR_ENGINE", "ITR_AGENT", "ITR_MODEL", "ITR_SESSION", "ITR_NOW",
}

// noMaintenance is gitstate.NoMaintenanceEnv: itr starts no background
// git maintenance after its commits, which would outlive the test's
// folders. (Spelled here so that this package imports nothing of itr's.)
const noMaintenance = "ITR_NO_MAINTENANCE"

// Isolate points HOME and XDG_CONFIG_HOME at a new temporary folder whose
// .gitconfig names the identity Name <Email>, main as the default branch
// and no advice on detached heads; it reads no system configuration,
// clears the variables in cleared for the test, and keeps itr from
// starting git's maintenance. It returns the home.
func Isolate(t testing.TB) string {
	t.Helper()
	home := Unconfigured(t)
	t.Setenv(noMaintenance, "1")
	config := "[init]\n\tdefaultBranch = main\n[user]\n\tname = " + Name + "\n\temail = " + Email + "\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// Unconfigured is Isolate without the .gitconfig and the maintenance
// switch: HOME and XDG_CONFIG_HOME point at a new, empty temporary folder,
// no system configuration is read and the variables in cleared are
// cleared for the test. It returns the home, for a test that writes its
// own configuration (gitstate's, which tests maintenance) or none.
func Unconfigured(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range cleared {
		t.Setenv(v, "")
		if err := os.Unsetenv(v); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// Git runs git in dir and returns what it printed, stdout and stderr
// together; an error fails the test, naming the command and its output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Try(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Try runs git in dir and returns what it printed, stdout and stderr
// together, and its error.
func Try(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Run runs git in dir and returns what it printed on stdout. Its error
// names the command and holds what git printed on stderr.
func Run(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), errors.New("git " + strings.Join(args, " ") + ": " + err.Error() + ": " + stderr.String())
	}
	return stdout.String(), nil
}

// Out runs git in dir and returns what it printed on stdout; an error
// fails the test, with what git printed on stderr.
func Out(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Run(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Line is Out without the white space around it: the one line a command
// such as rev-parse prints.
func Line(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(Out(t, dir, args...))
}

// Fsck runs git fsck --strict in the repository of dir: git failing fails
// the test at once, and an error or a warning in what it prints fails it.
func Fsck(t testing.TB, dir string) {
	t.Helper()
	fsck(t, dir, "fsck", "--strict", "--no-progress")
}

// FsckBare is Fsck of the bare repository bare.
func FsckBare(t testing.TB, bare string) {
	t.Helper()
	fsck(t, filepath.Dir(bare), "--git-dir", bare, "fsck", "--strict", "--no-progress")
}

// fsck runs the fsck of args in dir and judges it as Fsck says.
func fsck(t testing.TB, dir string, args ...string) {
	t.Helper()
	out, err := Try(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, bad := range []string{"error", "warning"} {
		if strings.Contains(out, bad) {
			t.Errorf("git %s reports %q:\n%s", strings.Join(args, " "), bad, out)
		}
	}
}

// Status is git status --porcelain in dir with every untracked file
// listed: "" when the working tree and the index are as HEAD has them.
func Status(t testing.TB, dir string) string {
	t.Helper()
	return Out(t, dir, "status", "--porcelain", "--untracked-files=all")
}

// Check requires what every itr command leaves in the repository of dir:
// git fsck --strict clean (Fsck) and git status --porcelain empty.
func Check(t testing.TB, dir string) {
	t.Helper()
	Fsck(t, dir)
	if st := Status(t, dir); st != "" {
		t.Errorf("git status --porcelain is not empty:\n%s", st)
	}
}

// NewBare makes an empty bare repository, remote.git in a new temporary
// folder, and returns its path.
func NewBare(t testing.TB) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "remote.git")
	Out(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	return bare
}

// Bare makes a bare repository (NewBare) the origin of the repository of
// dir and pushes dir's main to it, with main tracking origin/main. It
// returns the bare repository.
func Bare(t testing.TB, dir string) string {
	t.Helper()
	bare := NewBare(t)
	Out(t, dir, "remote", "add", "origin", bare)
	Out(t, dir, "push", "-q", "-u", "origin", "main")
	return bare
}

// Clone clones the repository at from (a bare one, most often) into
// clone in a new temporary folder and returns the clone's path.
func Clone(t testing.TB, from string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	Out(t, filepath.Dir(dir), "clone", "-q", from, dir)
	return dir
}

// BareGit is Out of git run on the bare repository bare.
func BareGit(t testing.TB, bare string, args ...string) string {
	t.Helper()
	return Out(t, filepath.Dir(bare), append([]string{"--git-dir", bare}, args...)...)
}

// Refs is git for-each-ref of the refs under prefix (every ref when
// prefix is ""): "name objectname" a line, "" when there are none.
func Refs(t testing.TB, dir, prefix string) string {
	t.Helper()
	args := []string{"for-each-ref", "--format=%(refname) %(objectname)"}
	if prefix != "" {
		args = append(args, prefix)
	}
	return Out(t, dir, args...)
}

// LsTree lists the files under path committed at rev, as git ls-tree
// sees them, sorted.
func LsTree(t testing.TB, dir, rev, path string) []string {
	t.Helper()
	files := strings.Fields(Out(t, dir, "ls-tree", "-r", "--name-only", rev, "--", path))
	sort.Strings(files)
	return files
}

// AppendOnly requires, with git, that the file at path only ever grew
// along the history of rev: in every commit that has it and whose first
// parent has it, it starts with the bytes of the parent's. It returns how
// many such steps it checked.
func AppendOnly(t testing.TB, dir, rev, path string) int {
	t.Helper()
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(Out(t, dir, "rev-list", "--parents", rev)), "\n") {
		ids := strings.Fields(line)
		if len(ids) < 2 {
			continue
		}
		now, err := Run(dir, "show", ids[0]+":"+path)
		if err != nil {
			continue
		}
		before, err := Run(dir, "show", ids[1]+":"+path)
		if err != nil {
			continue
		}
		checked++
		if !strings.HasPrefix(now, before) {
			t.Errorf("%s in %s does not extend its first parent %s", path, ids[0][:7], ids[1][:7])
		}
	}
	return checked
}

// Write puts a file, rel a slash path from dir, in the working tree only
// (its folders made as needed).
func Write(t testing.TB, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Read is a file of the working tree, rel a slash path from dir.
func Read(t testing.TB, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Failures runs fn with a testing.TB that keeps the failures fn reports
// instead of failing t, and returns them, one a report: the tests of
// helpers such as these use it to see them fail. A Fatal ends fn where it
// is called, as it ends a test; everything else goes to t.
func Failures(t testing.TB, fn func(tb testing.TB)) []string {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures
}

// recorder is the testing.TB of Failures.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failures []string
}

func (r *recorder) fail(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, s)
}

func (r *recorder) Error(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) Fail()                             { r.fail("Fail") }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.failures) > 0
}
