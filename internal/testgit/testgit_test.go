package testgit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/itr-dev/itr/gitstate"
)

// The name of the maintenance switch is gitstate's.
func TestNoMaintenanceIsGitstates(t *testing.T) {
	if noMaintenance != gitstate.NoMaintenanceEnv {
		t.Fatalf("noMaintenance is %q, gitstate reads %q", noMaintenance, gitstate.NoMaintenanceEnv)
	}
}

// An isolated git commits as the test identity on main, reads nothing of
// the caller's environment, and Git fails on git's errors.
func TestIsolate(t *testing.T) {
	t.Setenv("GIT_AUTHOR_NAME", "Someone Else")
	t.Setenv("ITR_TASK", "other")
	home := Isolate(t)
	if os.Getenv("HOME") != home {
		t.Fatalf("HOME is %q, not %q", os.Getenv("HOME"), home)
	}
	if _, set := os.LookupEnv("GIT_AUTHOR_NAME"); set {
		t.Error("GIT_AUTHOR_NAME is still set")
	}
	if _, set := os.LookupEnv("ITR_TASK"); set {
		t.Error("ITR_TASK is still set")
	}
	dir := t.TempDir()
	Git(t, dir, "init", "-q")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	if got := strings.TrimSpace(Git(t, dir, "log", "-1", "--format=%an <%ae>")); got != Name+" <"+Email+">" {
		t.Errorf("author %q", got)
	}
	if got := strings.TrimSpace(Git(t, dir, "symbolic-ref", "--short", "HEAD")); got != "main" {
		t.Errorf("branch %q", got)
	}
	if out, err := Try(dir, "rev-parse", "--verify", "no-such-ref"); err == nil {
		t.Errorf("Try of a failing git returned no error: %q", out)
	}
}

// repo makes an isolated repository with one commit of a.txt.
func repo(t *testing.T) string {
	t.Helper()
	Isolate(t)
	dir := t.TempDir()
	Git(t, dir, "init", "-q")
	Write(t, dir, "a.txt", "one\n")
	Git(t, dir, "add", "a.txt")
	Git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// Run gives stdout alone; its error names the command and holds stderr.
// Out and Line fail the test on git's errors.
func TestRunOutLine(t *testing.T) {
	dir := repo(t)
	out, err := Run(dir, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil || out != "main\n" {
		t.Fatalf("Run: %q, %v", out, err)
	}
	if got := Line(t, dir, "rev-parse", "--abbrev-ref", "HEAD"); got != "main" {
		t.Errorf("Line: %q", got)
	}
	out, err = Run(dir, "log", "no-such-rev")
	if err == nil || out != "" {
		t.Fatalf("Run of a failing git: %q, %v", out, err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "git log no-such-rev: ") || !strings.Contains(msg, "no-such-rev") || !strings.Contains(msg, "fatal") {
		t.Errorf("the error does not name the command and hold stderr: %q", msg)
	}
	if f := Failures(t, func(tb testing.TB) { Out(tb, dir, "log", "no-such-rev") }); len(f) != 1 {
		t.Errorf("Out of a failing git: %q", f)
	}
	if f := Failures(t, func(tb testing.TB) { Line(tb, dir, "rev-parse", "--verify", "no-such-ref") }); len(f) != 1 {
		t.Errorf("Line of a failing git: %q", f)
	}
}

// Check passes a clean repository and fails one with an untracked file,
// a staged change or a damaged commit; FsckBare judges a bare one.
func TestCheck(t *testing.T) {
	dir := repo(t)
	if f := Failures(t, func(tb testing.TB) { Check(tb, dir) }); len(f) != 0 {
		t.Fatalf("a clean repository: %q", f)
	}
	Write(t, dir, "new.txt", "new\n")
	if got := Status(t, dir); got != "?? new.txt\n" {
		t.Errorf("Status: %q", got)
	}
	if f := Failures(t, func(tb testing.TB) { Check(tb, dir) }); len(f) != 1 || !strings.Contains(f[0], "new.txt") {
		t.Errorf("an untracked file: %q", f)
	}
	Git(t, dir, "add", "new.txt")
	if f := Failures(t, func(tb testing.TB) { Check(tb, dir) }); len(f) != 1 || !strings.Contains(f[0], "A  new.txt") {
		t.Errorf("a staged file: %q", f)
	}
	Git(t, dir, "commit", "-q", "-m", "second")

	bare := Bare(t, dir)
	if f := Failures(t, func(tb testing.TB) { FsckBare(tb, bare) }); len(f) != 0 {
		t.Fatalf("a clean bare repository: %q", f)
	}

	// A commit with no author, made with --literally, on a branch: fsck
	// --strict finds it.
	tree := Line(t, dir, "rev-parse", "HEAD^{tree}")
	bad := hashLiterally(t, dir, "tree "+tree+"\ncommitter X <x@example.com> 1 +0000\n\nno author\n")
	Git(t, dir, "update-ref", "refs/heads/bad", bad)
	if f := Failures(t, func(tb testing.TB) { Check(tb, dir) }); len(f) == 0 {
		t.Error("Check passed a commit with no author")
	}
	if f := Failures(t, func(tb testing.TB) { Fsck(tb, dir) }); len(f) == 0 {
		t.Error("Fsck passed a commit with no author")
	}
	Git(t, dir, "push", "-q", "origin", "bad")
	if f := Failures(t, func(tb testing.TB) { FsckBare(tb, bare) }); len(f) == 0 {
		t.Error("FsckBare passed a commit with no author")
	}

	// Told to only warn of it, git fsck succeeds: the warning still fails.
	Git(t, dir, "config", "fsck.missingAuthor", "warn")
	if out, err := Try(dir, "fsck", "--strict", "--no-progress"); err != nil || !strings.Contains(out, "warning") {
		t.Fatalf("git fsck does not only warn: %v\n%s", err, out)
	}
	if f := Failures(t, func(tb testing.TB) { Fsck(tb, dir) }); len(f) != 1 || !strings.Contains(f[0], `"warning"`) {
		t.Errorf("Fsck of a warning: %q", f)
	}
}

// hashLiterally writes a commit object of the text as it is, unchecked.
func hashLiterally(t *testing.T, dir, text string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// Bare makes the repository's origin with main tracking it; Clone and
// BareGit see what was pushed; Refs lists refs under a prefix.
func TestBareCloneRefs(t *testing.T) {
	dir := repo(t)
	head := Line(t, dir, "rev-parse", "HEAD")
	bare := Bare(t, dir)
	if got := Line(t, dir, "rev-parse", "--is-bare-repository"); got != "false" {
		t.Errorf("the repository became bare: %q", got)
	}
	if got := BareGit(t, bare, "rev-parse", "--is-bare-repository"); got != "true\n" {
		t.Errorf("Bare made no bare repository: %q", got)
	}
	if got := BareGit(t, bare, "rev-parse", "main"); got != head+"\n" {
		t.Errorf("the remote's main is %q, not %s", got, head)
	}
	if got := Line(t, dir, "rev-parse", "--abbrev-ref", "main@{upstream}"); got != "origin/main" {
		t.Errorf("main tracks %q", got)
	}
	if got := Refs(t, dir, "refs/remotes/"); got != "refs/remotes/origin/main "+head+"\n" {
		t.Errorf("Refs under refs/remotes/: %q", got)
	}
	if got := Refs(t, dir, "refs/tags/"); got != "" {
		t.Errorf("Refs of no refs: %q", got)
	}
	if got := Refs(t, dir, ""); !strings.Contains(got, "refs/heads/main "+head+"\n") || !strings.Contains(got, "refs/remotes/origin/main ") {
		t.Errorf("every ref: %q", got)
	}
	clone := Clone(t, bare)
	if got := Line(t, clone, "rev-parse", "HEAD"); got != head {
		t.Errorf("the clone's HEAD is %q, not %s", got, head)
	}
	if got := Read(t, clone, "a.txt"); got != "one\n" {
		t.Errorf("the clone's a.txt: %q", got)
	}
	if a, b := NewBare(t), NewBare(t); a == b || BareGit(t, a, "rev-parse", "--is-bare-repository") != "true\n" {
		t.Errorf("NewBare made %s, then %s", a, b)
	}
}

// LsTree lists the files under a path at a revision, sorted.
func TestLsTree(t *testing.T) {
	dir := repo(t)
	Write(t, dir, "d/z.txt", "z")
	Write(t, dir, "d/e/b.txt", "b")
	Write(t, dir, "d/a.txt", "a")
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "d")
	got := strings.Join(LsTree(t, dir, "HEAD", "d"), " ")
	if got != "d/a.txt d/e/b.txt d/z.txt" {
		t.Errorf("LsTree: %q", got)
	}
	if got := LsTree(t, dir, "HEAD~1", "d"); len(got) != 0 {
		t.Errorf("LsTree before d was committed: %q", got)
	}
}

// AppendOnly counts the steps of a file that only grows and fails on one
// that rewrites it.
func TestAppendOnly(t *testing.T) {
	dir := repo(t)
	for _, text := range []string{"one\ntwo\n", "one\ntwo\nthree\n"} {
		Write(t, dir, "a.txt", text)
		Git(t, dir, "commit", "-q", "-am", "grow")
	}
	Write(t, dir, "b.txt", "other\n")
	Git(t, dir, "add", "b.txt")
	Git(t, dir, "commit", "-q", "-m", "b")
	var n int
	if f := Failures(t, func(tb testing.TB) { n = AppendOnly(tb, dir, "HEAD", "a.txt") }); len(f) != 0 || n != 3 {
		t.Fatalf("a file that only grows: %d steps, %q", n, f)
	}
	Write(t, dir, "a.txt", "rewritten\n")
	Git(t, dir, "commit", "-q", "-am", "rewrite")
	f := Failures(t, func(tb testing.TB) { n = AppendOnly(tb, dir, "HEAD", "a.txt") })
	if len(f) != 1 || !strings.Contains(f[0], "a.txt in ") || n != 4 {
		t.Errorf("a rewritten file: %d steps, %q", n, f)
	}
	if f := Failures(t, func(tb testing.TB) { n = AppendOnly(tb, dir, "HEAD~1", "a.txt") }); len(f) != 0 || n != 3 {
		t.Errorf("the history before the rewrite: %d steps, %q", n, f)
	}
}

// Snap sees every part of the repository a refused command must leave
// alone, and Unchanged fails when one changed.
func TestSnapshot(t *testing.T) {
	dir := repo(t)
	Git(t, dir, "branch", "other")
	before := Snap(t, dir)
	if before.Head != Line(t, dir, "rev-parse", "HEAD")+"\n" || before.Branch != "refs/heads/main\n" || before.Operation != "" {
		t.Fatalf("the snapshot: %+v", before)
	}
	if _, ok := before.Files["a.txt"]; !ok || len(before.Files) != 1 {
		t.Fatalf("the files of the snapshot: %v", before.Files)
	}
	if f := Failures(t, func(tb testing.TB) { Unchanged(tb, dir, before) }); len(f) != 0 {
		t.Fatalf("nothing changed: %q", f)
	}
	for _, c := range []struct {
		what   string
		change func()
		undo   func()
	}{
		{"file a.txt: changed", func() { Write(t, dir, "a.txt", "two\n") }, func() { Write(t, dir, "a.txt", "one\n") }},
		{"file b.txt: added", func() { Write(t, dir, "b.txt", "b\n") }, func() { _ = os.Remove(filepath.Join(dir, "b.txt")) }},
		{"the refs", func() { Git(t, dir, "branch", "third") }, func() { Git(t, dir, "branch", "-D", "third") }},
		{"the branch", func() { Git(t, dir, "symbolic-ref", "HEAD", "refs/heads/other") }, func() { Git(t, dir, "symbolic-ref", "HEAD", "refs/heads/main") }},
		{"git's configuration", func() { Git(t, dir, "config", "x.y", "z") }, func() { Git(t, dir, "config", "--unset", "x.y") }},
		{"the index file", func() { Git(t, dir, "update-index", "--chmod=+x", "a.txt") }, func() { Git(t, dir, "update-index", "--chmod=-x", "a.txt") }},
	} {
		c.change()
		f := Failures(t, func(tb testing.TB) { Unchanged(tb, dir, before) })
		if len(f) != 1 || !strings.Contains(f[0], c.what) {
			t.Errorf("%s: %q", c.what, f)
		}
		c.undo()
	}
	// Undone, only the index file may differ (git rewrote it).
	for _, d := range before.Diff(Snap(t, dir)) {
		if !strings.HasPrefix(d, "the index file") {
			t.Errorf("undone, the repository still differs: %s", d)
		}
	}

	// A merge that stops on a conflict is an operation in progress.
	Git(t, dir, "checkout", "-q", "other")
	Write(t, dir, "a.txt", "theirs\n")
	Git(t, dir, "commit", "-q", "-am", "theirs")
	Git(t, dir, "checkout", "-q", "main")
	Write(t, dir, "a.txt", "ours\n")
	Git(t, dir, "commit", "-q", "-am", "ours")
	if _, err := Try(dir, "merge", "-q", "other"); err == nil {
		t.Fatal("the merge did not stop")
	}
	if s := Snap(t, dir); s.Operation != "MERGE_HEAD " {
		t.Errorf("a merge in progress: %q", s.Operation)
	}
}

// Write and Read put and read a file of the working tree, its folders
// made.
func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	Write(t, dir, "a/b/c.txt", "text\n")
	if got := Read(t, dir, "a/b/c.txt"); got != "text\n" {
		t.Errorf("Read: %q", got)
	}
	if f := Failures(t, func(tb testing.TB) { Read(tb, dir, "none.txt") }); len(f) != 1 {
		t.Errorf("Read of no file: %q", f)
	}
}

// Failures keeps what fn reports, and a Fatal ends fn there.
func TestFailures(t *testing.T) {
	after := false
	f := Failures(t, func(tb testing.TB) {
		tb.Errorf("one %d", 1)
		tb.Error("two")
		tb.Fatal("three")
		after = true
	})
	if strings.Join(f, "|") != "one 1|two|three" || after {
		t.Errorf("failures %q, went on after Fatal: %v", f, after)
	}
	if f := Failures(t, func(tb testing.TB) { tb.Helper() }); len(f) != 0 {
		t.Errorf("no failure: %q", f)
	}
	if f := Failures(t, func(tb testing.TB) { tb.FailNow(); after = true }); len(f) != 1 || after {
		t.Errorf("FailNow: %q, went on: %v", f, after)
	}
}
