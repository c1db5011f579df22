package merge

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// taskRoot is the task root every fixture uses.
const taskRoot = ".claude/iterative"

// slug is the task every fixture works on.
const slug = "demo"

// twoUnits is the plan on disk: T1 and T2, independent.
const twoUnits = `# Demo - Tasks

## Tasks

- [ ] **T1**: First
  - Max iterations: 50
- [ ] **T2**: Second
  - Max iterations: 50
`

// t0 is the fixed time a fixture's clock starts at.
var t0 = time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)

// fixture is a fake repository with a store on it, a clock the test moves,
// and a folder outside the repository for the driver's three temp files.
type fixture struct {
	t    *testing.T
	repo *gitfake.Repo
	st   *store.Store
	now  time.Time
	tmp  string // where %O %A %B live
	plan *plan.Plan
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, now: t0, tmp: filepath.Join(dir, "tmp")}
	require.NoError(t, os.MkdirAll(f.tmp, 0o755))
	f.repo = gitfake.New(filepath.Join(dir, "repo"))
	st, err := store.New(f.repo, taskRoot, store.Config{}, "", func() time.Time { return f.now })
	require.NoError(t, err)
	f.st = st
	return f
}

// rel is the repository-relative path of a file of the task.
func rel(name string) string { return taskRoot + "/" + slug + "/" + name }

// tick moves the clock one minute on and returns the entry stamp of then.
func (f *fixture) tick() string {
	f.now = f.now.Add(time.Minute)
	return f.now.Format(time.RFC3339)
}

// temp writes one of the driver's temporary files and returns its path.
func (f *fixture) temp(name string, data []byte) string {
	f.t.Helper()
	p := filepath.Join(f.tmp, name)
	require.NoError(f.t, os.WriteFile(p, data, 0o644))
	return p
}

// read reads a file, failing the test when it cannot.
func (f *fixture) read(p string) []byte {
	f.t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(f.t, err)
	return data
}

// line is one line of history of the task, as itr writes it: the log as
// committed, the fold of it, the lessons, and the last commit.
type line struct {
	f          *fixture
	progress   []byte
	state      *state.State
	guardrails []byte
	last       gitstate.Commit
}

// newTask commits what `itr init` then `itr plan` leave: progress.md with a
// Created and a Planned entry, guardrails.md with its title, state.json the
// fold of the log, and the plan (also on disk, where the driver reads it).
func (f *fixture) newTask() *line {
	f.t.Helper()
	p, err := plan.Parse(rel(store.TasksFile), []byte(twoUnits))
	require.NoError(f.t, err)
	f.plan = p
	l := &line{f: f, guardrails: []byte("# Guardrails\n\nRead before starting any iteration.\n")}
	l.append(progresslog.Entry{Kind: progresslog.KindCreated, Stamp: f.tick(),
		Fields: []progresslog.Field{{Name: "Name", Value: "Demo"}, {Name: "Mode", Value: "development"}}})
	l.append(progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: f.tick(),
		Fields: []progresslog.Field{{Name: "Added", Value: "T1, T2"}}})
	l.commit("start task Demo", store.EventPlanned,
		gitstate.FileChange{Path: rel(store.TasksFile), Data: []byte(twoUnits)},
		gitstate.FileChange{Path: rel(store.GuardrailsFile), Data: l.guardrails})
	return l
}

// append appends an entry to the log and folds it.
func (l *line) append(e progresslog.Entry) {
	f := l.f
	f.t.Helper()
	l.progress = testrepo.Append(f.t, l.progress, e)
	l.state = testrepo.Fold(f.t, slug, l.state, f.plan, l.progress)
}

// commit commits progress.md and state.json (and more) on the current
// branch with itr's trailers.
func (l *line) commit(subject, event string, more ...gitstate.FileChange) gitstate.Commit {
	f := l.f
	f.t.Helper()
	changes := append([]gitstate.FileChange{
		{Path: rel(store.ProgressFile), Data: l.progress},
		{Path: rel(store.StateFile), Data: l.state.Encode()},
	}, more...)
	tr := []gitstate.Trailer{{Key: store.TrailerTask, Value: slug}, {Key: store.TrailerEvent, Value: event},
		{Key: store.TrailerLog, Value: store.LogDigest(l.progress)}}
	msg := testrepo.Message(slug, subject, tr)
	c, err := f.repo.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: f.now, Worktree: len(more) > 0})
	require.NoError(f.t, err)
	l.last = c
	return c
}

// checkpoint records an iteration of unit, as `itr checkpoint unit --did did`.
func (l *line) checkpoint(unit, did string) *line {
	l.f.t.Helper()
	n := 1
	if u := l.state.Units[unit]; u != nil {
		n = state.Val(u.IterationsUsed) + 1
	}
	l.append(progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: n, Stamp: l.f.tick(),
		Fields: []progresslog.Field{{Name: "Did", Value: did}, {Name: "Remaining", Value: "None"},
			{Name: "Blockers", Value: "None"}, {Name: "Commit", Value: "None"}}})
	l.commit(unit+" iteration "+strconv.Itoa(n)+": "+did, store.EventIteration)
	return l
}

// guardrail appends a lesson and commits guardrails.md.
func (l *line) guardrail(name string) *line {
	f := l.f
	f.t.Helper()
	f.tick()
	var err error
	l.guardrails, err = progresslog.AppendGuardrail(l.guardrails, progresslog.Guardrail{Name: name, When: "always", Problem: "it broke", Solution: "do not"})
	require.NoError(f.t, err)
	l.commit("guardrail: "+name, store.EventGuardrail, gitstate.FileChange{Path: rel(store.GuardrailsFile), Data: l.guardrails})
	return l
}

// fork starts branch name at the line's last commit and switches to it; the
// returned line goes on there. The receiver stays as it was.
func (l *line) fork(name string) *line {
	f := l.f
	f.t.Helper()
	who := gitstate.Signature{Name: gitfake.DefaultName, Email: gitfake.DefaultEmail, When: f.now}
	require.NoError(f.t, f.repo.SetBranch("refs/heads/"+name, l.last.Hash, who, "branch: Created"))
	f.switchTo(name)
	c := *l
	c.progress = append([]byte(nil), l.progress...)
	c.guardrails = append([]byte(nil), l.guardrails...)
	s, err := state.Decode(l.state.Encode())
	require.NoError(f.t, err)
	c.state = s
	return &c
}

// switchTo points HEAD at branch name.
func (f *fixture) switchTo(name string) {
	f.t.Helper()
	require.NoError(f.t, f.repo.SetHead("refs/heads/"+name))
}

// diverged builds the usual merge: a task with T1 iteration 1 (the base),
// then branch "other" works on T2 while main works on T1 again; HEAD is
// main. It returns base, ours (main) and theirs (other).
func (f *fixture) diverged() (base, ours, theirs *line) {
	f.t.Helper()
	base = f.newTask().checkpoint("T1", "one")
	theirs = base.fork("other").checkpoint("T2", "theirs works on T2")
	ours = base.fork("main").checkpoint("T1", "ours goes on")
	return base, ours, theirs
}

// request writes the three versions of name and returns the driver's
// request for it.
func (f *fixture) request(name string, base, ours, theirs []byte) Request {
	f.t.Helper()
	req := Request{Path: rel(name), Ours: f.temp("ours", ours), Theirs: f.temp("theirs", theirs)}
	if base != nil {
		req.Base = f.temp("base", base)
	}
	return req
}

// stateRequest is the driver's request for state.json of three lines.
func (f *fixture) stateRequest(base, ours, theirs *line) Request {
	return f.request(store.StateFile, base.state.Encode(), ours.state.Encode(), theirs.state.Encode())
}

// expectedState is the fold of the union of both logs, as the driver must
// build it: ours' log, then the entries only theirs has.
func (f *fixture) expectedState(ours, theirs *line) []byte {
	f.t.Helper()
	merged, _, err := progresslog.Union(nil, ours.progress, theirs.progress)
	require.NoError(f.t, err)
	s, _ := reconcile.Fold(reconcile.Input{Slug: slug, Base: ours.state, Plan: f.plan, Entries: progresslog.Parse(merged).Entries})
	return s.Encode()
}
