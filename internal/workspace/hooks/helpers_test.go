package hooks

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

// The tests run the hooks over gitstate/gitfake: task folders are committed
// through the fake as itr commits them (progress.md built with progresslog,
// state.json the fold of it, messages with itr's trailers), the index is
// changed with Stage and SetConflict, and failures are injected with Fail.

const taskRoot = ".claude/iterative"

// t0 is the time of the first commit; each event moves one minute on.
var t0 = time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)

// fixedClock is 10:30:45.987654321Z seen from UTC+1: LogAgentEvent must
// write it in UTC, to the second.
func fixedClock() time.Time {
	return time.Date(2026, 1, 14, 11, 30, 45, 987654321, time.FixedZone("CET", 3600))
}

const fixedStamp = "2026-01-14T10:30:45Z"

var errBoom = errors.New("boom")

// twoUnits is the plan the tasks use: two independent units.
const twoUnits = `# Small - Tasks

## Tasks

- [ ] **T1**: First
  - Completion: ` + "`<signal>T1_DONE</signal>`" + `
  - Max iterations: 5
- [ ] **T2**: Second
  - Max iterations: 5
`

// fixture is a fake repository and a store over it.
type fixture struct {
	t    *testing.T
	fake *gitfake.Repo
	st   *store.Store
	now  time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fake := gitfake.New(filepath.Join(t.TempDir(), "repo"))
	st, err := store.New(fake, taskRoot, store.Config{}, "", fixedClock)
	require.NoError(t, err)
	return &fixture{t: t, fake: fake, st: st, now: t0}
}

// tick moves the commit clock one minute on and returns the entry stamp.
func (f *fixture) tick() string {
	f.now = f.now.Add(time.Minute)
	return f.now.Format(time.RFC3339)
}

// writeDisk writes a file in the working tree only.
func (f *fixture) writeDisk(rel, data string) {
	f.t.Helper()
	testgit.Write(f.t, f.fake.Root(), rel, data)
}

// workCommit commits one file as a person would, with no itr trailers.
func (f *fixture) workCommit(subject string) gitstate.Commit {
	f.t.Helper()
	f.tick()
	c, err := f.fake.CommitFiles(gitstate.CommitRequest{
		Changes: []gitstate.FileChange{{Path: "src/" + store.Slugify(subject) + ".go", Data: []byte("package src // " + subject + "\n")}},
		Message: subject + "\n", When: f.now, Worktree: true})
	require.NoError(f.t, err)
	return c
}

// stage puts data for rel in the working tree and the index, uncommitted.
func (f *fixture) stage(rel string, data []byte) {
	f.t.Helper()
	require.NoError(f.t, f.fake.Stage([]gitstate.FileChange{{Path: rel, Data: data}}))
}

// task is one task as itr writes it.
type task struct {
	f        *fixture
	slug     string
	progress []byte // progress.md as committed
	guards   []byte // guardrails.md as committed
	state    *state.State
	plan     *plan.Plan
	last     gitstate.Commit
}

func (b *task) rel(name string) string { return b.f.st.Rel(b.slug, name) }

// newTask commits what `itr init` writes: the templates, a Created entry in
// progress.md and its fold as state.json.
func (f *fixture) newTask(slug string) *task {
	f.t.Helper()
	created := f.tick()
	b := &task{f: f, slug: slug}
	nt := testrepo.NewTask(f.t, f.st.TaskDir(slug), templates.Data{Name: "Task " + slug, Slug: slug, Created: created, Mode: string(state.Development)})
	b.progress, b.guards, b.state = nt.Files[store.ProgressFile], nt.Files[store.GuardrailsFile], nt.State
	b.commit(&nt.Entry, store.EventCreated, "start task "+slug, nt.Changes)
	return b
}

// commit writes one itr commit with the trailers workspace.commit writes.
func (b *task) commit(e *progresslog.Entry, event, subject string, changes []gitstate.FileChange) {
	f := b.f
	f.t.Helper()
	msg := testrepo.Message(b.slug, subject, testrepo.Trailers(b.slug, event, e, b.state))
	c, err := f.fake.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: f.now, Worktree: true})
	require.NoError(f.t, err)
	b.last = c
}

// record appends e to progress.md, folds the log into state.json and
// commits both (and extra changes).
func (b *task) record(e progresslog.Entry, event, subject string, extra ...gitstate.FileChange) *task {
	f := b.f
	f.t.Helper()
	b.progress = testrepo.Append(f.t, b.progress, e)
	s := testrepo.Fold(f.t, b.slug, b.state, b.plan, b.progress)
	b.state = s
	changes := append([]gitstate.FileChange{
		{Path: b.rel(store.ProgressFile), Data: b.progress},
		{Path: b.rel(store.StateFile), Data: s.Encode()},
	}, extra...)
	b.commit(&e, event, subject, changes)
	return b
}

// planned writes tasks.md and records the Planned entry with it.
func (b *task) planned() *task {
	f := b.f
	f.t.Helper()
	p, err := plan.Parse(b.rel(store.TasksFile), []byte(twoUnits))
	require.NoError(f.t, err)
	b.plan = p
	e := progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: f.tick(),
		Fields: []progresslog.Field{{Name: "Added", Value: strings.Join(p.IDs(), ", ")}}}
	return b.record(e, store.EventPlanned, "plan 2 units", gitstate.FileChange{Path: b.rel(store.TasksFile), Data: []byte(twoUnits)})
}

// checkpoint records one iteration of unit, with a signal or a verification.
func (b *task) checkpoint(unit, did string, signal bool, verification string) *task {
	f := b.f
	f.t.Helper()
	var extra []string
	if signal {
		extra = append(extra, "Signal", b.plan.Unit(unit).Signal())
	}
	if verification != "" {
		extra = append(extra, "Verification", verification)
	}
	e := testrepo.Iteration(b.state, unit, f.tick(), did, extra...)
	return b.record(e, store.EventIteration, unit+" iteration "+strconv.Itoa(e.Iteration)+": "+did)
}

// block records a Blocked entry.
func (b *task) block(unit, reason string) *task {
	b.f.t.Helper()
	e := progresslog.Entry{Kind: progresslog.KindBlocked, Unit: unit, Stamp: b.f.tick(),
		Fields: []progresslog.Field{{Name: "Reason", Value: reason}}}
	return b.record(e, store.EventBlocked, "block "+unit+": "+reason)
}

// guardrail commits a lesson appended to guardrails.md.
func (b *task) guardrail(name string) *task {
	f := b.f
	f.t.Helper()
	f.tick()
	var err error
	b.guards, err = progresslog.AppendGuardrail(b.guards, lesson(name))
	require.NoError(f.t, err)
	b.commit(nil, store.EventGuardrail, "guardrail: "+name, []gitstate.FileChange{{Path: b.rel(store.GuardrailsFile), Data: b.guards}})
	return b
}

// breakState commits a state.json that does not parse.
func (b *task) breakState() *task {
	b.f.t.Helper()
	b.f.tick()
	b.commit(nil, store.EventReconciled, "break", []gitstate.FileChange{{Path: b.rel(store.StateFile), Data: []byte("not json\n")}})
	return b
}

func lesson(name string) progresslog.Guardrail {
	return progresslog.Guardrail{Name: name, When: "always", Problem: "it broke", Solution: "do not", Learned: "T1 iteration 1"}
}

// iteration is an entry as a later checkpoint would append it.
func iteration(unit string, n int, did, stamp string) progresslog.Entry {
	return progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: n, Stamp: stamp,
		Fields: []progresslog.Field{{Name: "Did", Value: did}, {Name: "Remaining", Value: "None"},
			{Name: "Blockers", Value: "None"}, {Name: "Commit", Value: "None"}}}
}

// wrapped is the fake with HooksDir and WorktreeItrPath redirected, where
// gitfake's Fail cannot reach (WorktreeItrPath returns no error).
type wrapped struct {
	*gitfake.Repo
	hooksDir string
	itrPath  string
}

func (w *wrapped) HooksDir() (string, error) {
	if w.hooksDir != "" {
		return w.hooksDir, nil
	}
	return w.Repo.HooksDir()
}

func (w *wrapped) WorktreeItrPath(elem ...string) string {
	if w.itrPath != "" {
		return w.itrPath
	}
	return w.Repo.WorktreeItrPath(elem...)
}

// wrap returns a store over f's fake as w redirects it.
func (f *fixture) wrap(w *wrapped) *store.Store {
	f.t.Helper()
	w.Repo = f.fake
	st, err := store.New(w, taskRoot, store.Config{}, "", fixedClock)
	require.NoError(f.t, err)
	return st
}
