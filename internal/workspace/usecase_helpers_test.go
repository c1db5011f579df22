package workspace

// Helpers of the use-case tests (claims_test.go, archive_test.go,
// sync_test.go). Every name starts with uc, so they never clash with the
// helpers of the package's other tests. The tests build real repositories
// with the real git in t.TempDir(), drive the use cases in-process with an
// injected clock and agent, and judge the result with git itself.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// ucSlug is the task every use-case test works on.
const ucSlug = "demo"

// ucTasks is its plan: T1 and T2 are independent, T3 waits for T1.
const ucTasks = `# Demo - Tasks

## Tasks

- [ ] **T1**: Add the model
- [ ] **T2**: Write the docs
- [ ] **T3**: Use the model
  - Depends: T1
`

// ucT0 is when the use-case tests start: 2026-01-14 09:00 UTC.
var ucT0 = time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)

// ucStamp formats a time as claims and entries carry it.
func ucStamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ucClock is a clock the test sets; a workspace reads it through
// Options.Now.
type ucClock struct {
	mu  sync.Mutex
	now time.Time
}

func ucNewClock(at time.Time) *ucClock { return &ucClock{now: at} }

// Now is the clock's time.
func (c *ucClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to at.
func (c *ucClock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = at
}

// ucIsolate is isolate, with no ITR_NOW or global git config file from
// the machine, git's author and committer named, and git quiet about
// detached heads (the sync tests check out remotes' commits).
func ucIsolate(t *testing.T) {
	t.Helper()
	isolate(t)
	for _, v := range []string{"GIT_CONFIG_GLOBAL", "ITR_NOW"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Setenv("GIT_AUTHOR_NAME", "Test Agent")
	t.Setenv("GIT_AUTHOR_EMAIL", "agent@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test Agent")
	t.Setenv("GIT_COMMITTER_EMAIL", "agent@example.com")
	home := os.Getenv("HOME")
	f, err := os.OpenFile(filepath.Join(home, ".gitconfig"), os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString("[advice]\n\tdetachedHead = false\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// ucGitRun runs the real git in dir and returns its stdout and its error
// (with stderr in it).
func ucGitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = errors.New("git " + strings.Join(args, " ") + ": " + err.Error() + ": " + stderr.String())
	}
	return stdout.String(), err
}

// ucGit runs the real git in dir and returns its stdout; a failure fails
// the test.
func ucGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := ucGitRun(dir, args...)
	require.NoError(t, err)
	return out
}

// ucGitLine is ucGit's output without its line end.
func ucGitLine(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(ucGit(t, dir, args...))
}

// ucCheckGit asserts what every itr command leaves: git fsck --strict
// clean and git status --porcelain empty.
func ucCheckGit(t *testing.T, dir string) {
	t.Helper()
	fsck := exec.Command("git", "fsck", "--strict", "--no-progress")
	fsck.Dir = dir
	out, err := fsck.CombinedOutput()
	require.NoError(t, err, "git fsck --strict: %s", out)
	assert.NotContains(t, string(out), "error", "git fsck --strict")
	assert.NotContains(t, string(out), "warning", "git fsck --strict")
	assert.Empty(t, ucGit(t, dir, "status", "--porcelain", "--untracked-files=all"), "git status --porcelain")
}

// ucFsckBare asserts that a bare repository is valid for git fsck --strict.
func ucFsckBare(t *testing.T, bare string) {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "fsck", "--strict", "--no-progress").CombinedOutput()
	require.NoError(t, err, "git fsck --strict %s: %s", bare, out)
	assert.NotContains(t, string(out), "error")
}

// ucOpen opens the workspace of dir as one itr command would: for agent,
// on clock. It is closed when the test ends.
func ucOpen(t *testing.T, dir, agent string, clock *ucClock) *Workspace {
	t.Helper()
	w, err := Open(Options{Dir: dir, Agent: agent, Now: clock.Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// ucRepo makes a repository with one commit and the task demo planned
// from tasks, judged clean by git, and returns its folder.
func ucRepo(t *testing.T, clock *ucClock, tasks string) string {
	t.Helper()
	ucIsolate(t)
	dir := t.TempDir()
	ucGit(t, dir, "init", "-q")
	ucGit(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	w := ucOpen(t, dir, "seed", clock)
	_, err := w.Init(InitRequest{Name: "Demo", Slug: ucSlug})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ucTaskDir(), store.TasksFile), []byte(tasks), 0o644))
	_, err = w.Plan(PlanRequest{Slug: ucSlug})
	require.NoError(t, err)
	ucCheckGit(t, dir)
	return dir
}

// ucTaskDir is the task's folder, relative to the repository top.
func ucTaskDir() string { return store.DefaultRoot + "/" + ucSlug }

// ucTaskFile is a file of the task, relative to the repository top.
func ucTaskFile(name string) string { return ucTaskDir() + "/" + name }

// ucBare makes a bare repository, makes it dir's origin and pushes dir's
// main to it with upstream tracking. It returns the bare repository.
func ucBare(t *testing.T, dir string) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "remote.git")
	ucGit(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	ucGit(t, dir, "remote", "add", "origin", bare)
	ucGit(t, dir, "push", "-q", "-u", "origin", "main")
	return bare
}

// ucClone clones the bare repository into a new folder.
func ucClone(t *testing.T, bare string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	ucGit(t, filepath.Dir(dir), "clone", "-q", bare, dir)
	return dir
}

// ucBareGit runs git on the bare repository.
func ucBareGit(t *testing.T, bare string, args ...string) string {
	t.Helper()
	return ucGit(t, filepath.Dir(bare), append([]string{"--git-dir", bare}, args...)...)
}

// ucDone takes unit through the closing path to done with three
// checkpoints: work signalled, confirmed, verified by a reviewer.
func ucDone(t *testing.T, w *Workspace, unit string) {
	t.Helper()
	_, err := w.Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: unit, Did: "built " + unit, Signal: true})
	require.NoError(t, err)
	_, err = w.Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: unit, Did: "confirmed " + unit, Signal: true})
	require.NoError(t, err)
	_, err = w.Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: unit, Did: "reviewed " + unit, VerifiedBy: "the reviewer"})
	require.NoError(t, err)
}

// ucStateAt decodes the task's state.json as committed at rev.
func ucStateAt(t *testing.T, dir, rev string) *state.State {
	t.Helper()
	s, err := state.Decode([]byte(ucGit(t, dir, "show", rev+":"+ucTaskFile(store.StateFile))))
	require.NoError(t, err)
	return s
}

// ucRefs is `git for-each-ref` of the refs under prefix (all refs when
// it is ""): "name objectname" a line, "" when there are none.
func ucRefs(t *testing.T, dir, prefix string) string {
	t.Helper()
	args := []string{"for-each-ref", "--format=%(refname) %(objectname)"}
	if prefix != "" {
		args = append(args, prefix)
	}
	return ucGit(t, dir, args...)
}

// ucClaimBlob is the claim a ref holds, as git reads the blob.
func ucClaimBlob(t *testing.T, dir, ref string) store.Claim {
	t.Helper()
	require.Equal(t, "blob", ucGitLine(t, dir, "cat-file", "-t", ref), "%s holds a blob", ref)
	dec := json.NewDecoder(strings.NewReader(ucGit(t, dir, "cat-file", "blob", ref)))
	dec.DisallowUnknownFields()
	var c store.Claim
	require.NoError(t, dec.Decode(&c), "%s holds a claim", ref)
	return c
}

// ucAppendOnly asserts with git that the file at path only ever grew
// along the history of rev: in every commit that has it, it starts with
// the bytes its first parent had. It returns how many steps it checked.
func ucAppendOnly(t *testing.T, dir, rev, path string) int {
	t.Helper()
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(ucGit(t, dir, "rev-list", "--parents", rev)), "\n") {
		ids := strings.Fields(line)
		if len(ids) < 2 {
			continue
		}
		now, err := ucGitRun(dir, "show", ids[0]+":"+path)
		if err != nil {
			continue
		}
		before, err := ucGitRun(dir, "show", ids[1]+":"+path)
		if err != nil {
			continue
		}
		checked++
		assert.True(t, strings.HasPrefix(now, before), "%s in %s does not extend its first parent %s", path, ids[0][:7], ids[1][:7])
	}
	return checked
}

// ucLsTree lists the files under path at rev, as git sees them, sorted.
func ucLsTree(t *testing.T, dir, rev, path string) []string {
	t.Helper()
	files := strings.Fields(ucGit(t, dir, "ls-tree", "-r", "--name-only", rev, "--", path))
	sort.Strings(files)
	return files
}
