package workspace

// Helpers of the use-case tests (claims_test.go, archive_test.go,
// sync_test.go). Every name starts with uc, so they never clash with the
// helpers of the package's other tests. The tests build real repositories
// with the real git in t.TempDir(), drive the use cases in-process with an
// injected clock and agent, and judge the result with git itself.

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// ucSlug is the task every use-case test works on.
const ucSlug = testrepo.Slug

// ucTasks is its plan: T1 and T2 are independent, T3 waits for T1.
const ucTasks = testrepo.ThreeUnits

// ucT0 is when the use-case tests start: 2026-01-14 09:00 UTC.
var ucT0 = testrepo.T0

// ucStamp formats a time as claims and entries carry it.
func ucStamp(t time.Time) string { return testrepo.Stamp(t) }

// ucClock is a clock the test sets; a workspace reads it through
// Options.Now.
type ucClock = testrepo.Clock

func ucNewClock(at time.Time) *ucClock { return testrepo.NewClock(at) }

// ucGit runs the real git in dir and returns its stdout; a failure fails
// the test.
func ucGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testgit.Out(t, dir, args...)
}

// ucGitLine is ucGit's output without its line end.
func ucGitLine(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testgit.Line(t, dir, args...)
}

// ucCheckGit asserts what every itr command leaves: git fsck --strict
// clean and git status --porcelain empty.
func ucCheckGit(t *testing.T, dir string) {
	t.Helper()
	testgit.Check(t, dir)
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
	isolate(t)
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

// ucRefs is `git for-each-ref` of the refs under prefix (all refs when
// it is ""): "name objectname" a line, "" when there are none.
func ucRefs(t *testing.T, dir, prefix string) string {
	t.Helper()
	return testgit.Refs(t, dir, prefix)
}

// ucClaimBlob is the claim a ref holds, as git reads the blob.
func ucClaimBlob(t *testing.T, dir, ref string) store.Claim {
	t.Helper()
	return testrepo.ClaimBlob(t, dir, ref)
}

// ucStateAt is the task's state.json as committed at rev.
func ucStateAt(t *testing.T, dir, rev string) *state.State {
	t.Helper()
	return testrepo.StateAt(t, dir, rev, ucSlug)
}

// ucAppendOnly checks that path only grew in every commit up to rev and
// returns the number of its lines at rev.
func ucAppendOnly(t *testing.T, dir, rev, path string) int {
	t.Helper()
	return testgit.AppendOnly(t, dir, rev, path)
}
