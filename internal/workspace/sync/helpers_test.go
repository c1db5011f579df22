package syncer

// Helpers of the room's tests. The tests build real repositories with the
// real git in t.TempDir(), with bare remotes on disk; they make task
// history through the write path (package record) as itr's commands do,
// run Sync on a store opened as one itr command opens it, and judge the
// result with git itself (fsck --strict, status --porcelain, log).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

// slug is the task every test works on.
const slug = testrepo.Slug

// tasksMD is its plan: T1 and T2 are independent, T3 waits for T1.
const tasksMD = testrepo.ThreeUnits

// t0 is when the tests start: 2026-01-14 09:00 UTC.
var t0 = testrepo.T0

// clock is a clock the test sets; a store reads it through its Clock.
// (Not testrepo.Clock: the tests make it as &clock{now: t0}.)
type clock struct{ now time.Time }

// Now is the clock's time.
func (c *clock) Now() time.Time { return c.now }

// Set moves the clock to at.
func (c *clock) Set(at time.Time) { c.now = at }

// isolate points git's configuration at an empty home with an identity,
// main as the first branch and no hint about detached heads; clears what
// would make git or itr look elsewhere; and keeps itr from starting git's
// background maintenance after its commits (testgit.Isolate).
func isolate(t *testing.T) { testgit.Isolate(t) }

// engines runs fn once with each gitstate engine: the native one (what
// itr picks for a plain repository) and git's own plumbing
// (ITR_ENGINE=git). The environment is isolated first.
func engines(t *testing.T, fn func(t *testing.T)) {
	for _, e := range []gitstate.Engine{gitstate.EngineNative, gitstate.EngineGit} {
		t.Run(string(e), func(t *testing.T) {
			isolate(t)
			if e == gitstate.EngineGit {
				t.Setenv("ITR_ENGINE", "git")
			}
			fn(t)
		})
	}
}

// gitRun runs the real git in dir and returns its stdout and its error
// (with stderr in it).
func gitRun(dir string, args ...string) (string, error) { return testgit.Run(dir, args...) }

// git runs the real git in dir and returns its stdout; a failure fails
// the test.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testgit.Out(t, dir, args...)
}

// open opens the store of dir as one itr command does (the repository
// found around dir, .itr.yaml read, the engine chosen), for agent, on
// clk. The repository is closed when the test ends.
func open(t *testing.T, dir, agent string, clk *clock) *store.Store {
	t.Helper()
	return testrepo.Open(t, dir, agent, clk.Now)
}

// runSync runs Sync in dir as agent on a store of its own, as `itr sync`
// does.
func runSync(t *testing.T, dir, agent string, clk *clock, req Request) (*Report, error) {
	t.Helper()
	return Sync(open(t, dir, agent, clk), req)
}

// newRepo makes a repository with one empty commit; the caller has
// isolated the environment.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	return dir
}

// seeded isolates git and seeds the task on the clock clk (at t0), pushed
// to the bare repository remote.
func seeded(t *testing.T) (clk *clock, remote string) {
	t.Helper()
	isolate(t)
	clk = &clock{now: t0}
	return clk, remoteOf(t, seed(t, clk))
}

// twoClones is seeded with two clones of the remote, a and b.
func twoClones(t *testing.T) (clk *clock, remote, a, b string) {
	t.Helper()
	clk, remote = seeded(t)
	return clk, remote, cloneOf(t, remote), cloneOf(t, remote)
}

// forkOf makes an empty bare repository and adds it to dir as the remote
// fork.
func forkOf(t *testing.T, dir string) string {
	t.Helper()
	fork := newBare(t)
	git(t, dir, "remote", "add", "fork", fork)
	return fork
}

// seed makes a repository with one commit and the task demo started and
// planned from tasksMD, as `itr init Demo --slug demo` and `itr plan` do,
// judged clean by git, and returns its folder.
func seed(t *testing.T, clk *clock) string {
	t.Helper()
	dir := newRepo(t)
	st := open(t, dir, "seed", clk)
	initTask(t, st)
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(taskFile(store.TasksFile))), []byte(tasksMD), 0o644))
	_, err := record.Record(st, slug, func(tk *store.Task) (*record.Change, error) {
		require.NotNil(t, tk.Plan, "the plan reads")
		e := &progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: st.Stamp(),
			Fields: []progresslog.Field{{Name: "Added", Value: strings.Join(tk.Plan.IDs(), ", ")}}}
		return &record.Change{Entry: e, Event: store.EventPlanned, Subject: fmt.Sprintf("plan %d units", len(tk.Plan.Units))}, nil
	})
	require.NoError(t, err)
	testgit.Check(t, dir)
	return dir
}

// initTask commits the task demo as `itr init` does: the templates, a
// Created entry, state.json as the fold of it and itr's merge lines of
// .gitattributes, as one commit; then itr's merge driver is registered.
func initTask(t *testing.T, st *store.Store) {
	t.Helper()
	task := testrepo.NewTask(t, st.TaskDir(slug), templates.Data{Name: "Demo", Slug: slug, Created: st.Stamp()})
	attrs, changed, err := merge.Attributes(st)
	require.NoError(t, err)
	require.True(t, changed, "a new repository lacks itr's merge lines")
	changes := append(task.Changes, gitstate.FileChange{Path: st.Root + "/.gitattributes", Data: attrs})
	head, err := st.Repo.Head()
	require.NoError(t, err)
	c := &record.Change{Entry: &task.Entry, Event: store.EventCreated, Subject: "start task Demo"}
	_, err = record.Commit(st, head.Hash, slug, c, task.State, changes)
	require.NoError(t, err)
	require.NoError(t, merge.Register(st))
}

// checkpoint records one iteration of unit in dir as agent, as `itr
// checkpoint UNIT --did DID` does: the rule book decides the entry, the
// write path commits it.
func checkpoint(t *testing.T, dir, agent string, clk *clock, unit, did string) {
	t.Helper()
	st := open(t, dir, agent, clk)
	_, err := record.Record(st, slug, func(tk *store.Task) (*record.Change, error) {
		ev, err := reconcile.Decide(tk.State, tk.Plan, reconcile.Intent{Action: reconcile.Work, Unit: unit})
		if err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: progresslog.KindIteration, Unit: ev.Unit, Iteration: ev.Iteration, Stamp: st.Stamp(),
			Fields: []progresslog.Field{{Name: "Did", Value: did}, {Name: "Remaining", Value: "none"}, {Name: "Blockers", Value: "none"}}}
		return &record.Change{Entry: e, Event: store.EventIteration, Subject: fmt.Sprintf("%s iteration %d: %s", ev.Unit, ev.Iteration, did)}, nil
	})
	require.NoError(t, err)
}

// taskDir is the task's folder, relative to the repository top.
func taskDir() string { return store.DefaultRoot + "/" + slug }

// taskFile is a file of the task, relative to the repository top.
func taskFile(name string) string { return testrepo.TaskFile(slug, name) }

// remoteOf makes a bare repository, makes it dir's origin and pushes
// dir's main to it with upstream tracking. It returns the bare repository.
func remoteOf(t *testing.T, dir string) string {
	t.Helper()
	return testgit.Bare(t, dir)
}

// newBare makes an empty bare repository.
func newBare(t *testing.T) string {
	t.Helper()
	return testgit.NewBare(t)
}

// cloneOf clones the bare repository into a new folder.
func cloneOf(t *testing.T, b string) string {
	t.Helper()
	return testgit.Clone(t, b)
}

// bareGit runs git on the bare repository.
func bareGit(t *testing.T, b string, args ...string) string {
	t.Helper()
	return testgit.BareGit(t, b, args...)
}

// remoteRef is the commit a ref of the bare repository names.
func remoteRef(t *testing.T, b, ref string) string {
	t.Helper()
	return strings.TrimSpace(bareGit(t, b, "rev-parse", ref))
}

// stateAt decodes the task's state.json as committed at rev.
func stateAt(t *testing.T, dir, rev string) *state.State {
	t.Helper()
	return testrepo.StateAt(t, dir, rev, slug)
}

// refs is `git for-each-ref` of the refs under prefix (all refs when it
// is ""): "name objectname" a line, "" when there are none.
func refs(t *testing.T, dir, prefix string) string {
	t.Helper()
	return testgit.Refs(t, dir, prefix)
}

// appendOnly asserts with git that the file at path only ever grew along
// the history of rev: in every commit that has it, it starts with the
// bytes its first parent had. It returns how many steps it checked.
func appendOnly(t *testing.T, dir, rev, path string) int {
	t.Helper()
	return testgit.AppendOnly(t, dir, rev, path)
}

// lsTree lists the files under path at rev, as git sees them, sorted.
func lsTree(t *testing.T, dir, rev, path string) []string {
	t.Helper()
	return testgit.LsTree(t, dir, rev, path)
}

// snapshot is what a refused sync must leave byte for byte: HEAD, every
// ref, the index file and the index as git lists it, git's configuration,
// the operation in progress, and every file of the working tree outside
// git's directory.
type snapshot = testgit.Snapshot

// snap takes a snapshot of dir with commands that only read (git status
// would refresh the index).
func snap(t *testing.T, dir string) snapshot {
	t.Helper()
	return testgit.Snap(t, dir)
}
