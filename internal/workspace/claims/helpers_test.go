package claims

// Helpers of the room's tests. A task is committed as itr commits it
// (the templates, progress.md built with progresslog, state.json its fold,
// messages with itr's trailers) through gitstate.Repository, so that one
// fixture runs on the fake (gitstate/gitfake) and on a real repository
// made with the real git, opened as itr opens it. Each command opens a
// store and a Room of its own, as itr does; the real repositories are
// judged with git itself.

import (
	"encoding/json"
	"os"
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

// stamp formats a time as claims carry it.
func stamp(t time.Time) string { return testrepo.Stamp(t) }

// clock is a clock the test sets; a store reads it.
type clock = testrepo.Clock

func newClock(at time.Time) *clock { return testrepo.NewClock(at) }

// isolate gives git a home of its own with an identity (testgit.Isolate).
func isolate(t *testing.T) { testgit.Isolate(t) }

// The repositories a fixture runs on.
const (
	onFake   = "fake"   // gitstate/gitfake, in memory
	onNative = "native" // a real repository made with git, opened as itr opens it
)

// backends runs fn once on each repository a fixture runs on: the fake
// and a real repository (gitstate's contract tests hold its engines to
// one behaviour).
func backends(t *testing.T, fn func(t *testing.T, on string)) {
	for _, on := range []string{onFake, onNative} {
		t.Run(on, func(t *testing.T) {
			isolate(t)
			fn(t, on)
		})
	}
}

// fixture is a repository with the task demo planned from tasksMD, the
// clock its commands read, and the notes its Rooms logged.
type fixture struct {
	t     *testing.T
	on    string
	dir   string        // the working tree
	fake  *gitfake.Repo // the repository, on the fake
	clock *clock
	when  time.Time // the time of the next commit of the fixture

	progress []byte
	state    *state.State
	plan     *plan.Plan

	notes    []string // the steals the Rooms logged, in order
	noteErr  error    // what logging a note returns, when set
	noteMade int      // how many notes were made
}

// newFixture makes the repository on on, with the task demo committed and
// planned. The caller has isolated the environment (backends or isolate).
func newFixture(t *testing.T, on string, c *clock) *fixture {
	t.Helper()
	f := &fixture{t: t, on: on, dir: filepath.Join(t.TempDir(), "repo"), clock: c, when: t0.Add(-time.Hour)}
	if on == onFake {
		f.fake = gitfake.New(f.dir)
	} else {
		require.NoError(t, os.MkdirAll(f.dir, 0o755))
		testgit.Out(t, f.dir, "init", "-q")
		testgit.Out(t, f.dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	}
	f.create()
	f.planned()
	return f
}

// repo opens the repository as one command does: the fake is the same
// repository each time; a real one is opened anew, with the engine the
// environment picks, and closed when the test ends.
func (f *fixture) repo() gitstate.Repository {
	f.t.Helper()
	if f.fake != nil {
		return f.fake
	}
	return openStore(f.t, f.dir, "", f.clock).Repo
}

// store is a store over the repository for agent, as one command opens
// it; on the fake, cfg is its configuration.
func (f *fixture) store(agent string, cfg store.Config) *store.Store {
	f.t.Helper()
	if f.fake == nil {
		return openStore(f.t, f.dir, agent, f.clock)
	}
	st, err := store.New(f.fake, store.DefaultRoot, cfg, "", f.clock.Now)
	require.NoError(f.t, err)
	st.Agent = agent
	return st
}

// room is the claims room of one command of agent; it logs steals in
// f.notes.
func (f *fixture) room(agent string) *Room {
	f.t.Helper()
	return New(f.store(agent, store.Config{}), f.note)
}

// note is the fixture's NoteFunc: it keeps the text and names a commit.
func (f *fixture) note(slug, text string) (string, error) {
	if f.noteErr != nil {
		return "", f.noteErr
	}
	f.noteMade++
	f.notes = append(f.notes, slug+": "+text)
	return "note-" + strconv.Itoa(f.noteMade), nil
}

// openStore opens a store on the real repository around dir for agent,
// with its .itr.yaml, as itr opens it.
func openStore(t *testing.T, dir, agent string, c *clock) *store.Store {
	t.Helper()
	return testrepo.Open(t, dir, agent, c.Now)
}

// roomAt is the claims room of one command of agent in the real
// repository around dir; steals are logged with note.
func roomAt(t *testing.T, dir, agent string, c *clock, note NoteFunc) *Room {
	t.Helper()
	return New(openStore(t, dir, agent, c), note)
}

// rel is a file of the task, relative to the repository top.
func rel(name string) string { return testrepo.TaskFile(slug, name) }

// commit commits changes as itr does, with the task's trailers.
func (f *fixture) commit(e *progresslog.Entry, event, subject string, changes []gitstate.FileChange) {
	f.t.Helper()
	tr := []gitstate.Trailer{{Key: store.TrailerTask, Value: slug}, {Key: store.TrailerEvent, Value: event}}
	if e != nil && e.Unit != "" {
		tr = append(tr, gitstate.Trailer{Key: store.TrailerUnit, Value: e.Unit})
	}
	f.when = f.when.Add(time.Minute)
	msg := testrepo.Message(slug, subject, tr)
	_, err := f.repo().CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: f.when, Worktree: true})
	require.NoError(f.t, err)
}

// create commits what `itr init Demo --slug demo` writes.
func (f *fixture) create() {
	f.t.Helper()
	task := testrepo.NewTask(f.t, store.DefaultRoot+"/"+slug, templates.Data{Name: "Demo", Slug: slug, Created: stamp(f.when)})
	f.progress, f.state = task.Files[store.ProgressFile], task.State
	f.commit(&task.Entry, store.EventCreated, "start task Demo", task.Changes)
}

// record appends e to progress.md, folds it and commits both (and extra).
func (f *fixture) record(e progresslog.Entry, event, subject string, extra ...gitstate.FileChange) {
	f.t.Helper()
	f.progress = testrepo.Append(f.t, f.progress, e)
	f.state = testrepo.Fold(f.t, slug, f.state, f.plan, f.progress)
	changes := append([]gitstate.FileChange{
		{Path: rel(store.ProgressFile), Data: f.progress},
		{Path: rel(store.StateFile), Data: f.state.Encode()},
	}, extra...)
	f.commit(&e, event, subject, changes)
}

// planned writes tasks.md and records the Planned entry with it.
func (f *fixture) planned() {
	f.t.Helper()
	p, err := plan.Parse(rel(store.TasksFile), []byte(tasksMD))
	require.NoError(f.t, err)
	f.plan = p
	e := progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: stamp(f.when),
		Fields: []progresslog.Field{{Name: "Added", Value: strings.Join(p.IDs(), ", ")}}}
	f.record(e, store.EventPlanned, "plan 3 units", gitstate.FileChange{Path: rel(store.TasksFile), Data: []byte(tasksMD)})
}

// iterate records one iteration of unit with the extra fields (name,
// value pairs).
func (f *fixture) iterate(unit string, fields ...string) {
	f.t.Helper()
	e := testrepo.Iteration(f.state, unit, stamp(f.when), "worked on "+unit, fields...)
	f.record(e, store.EventIteration, unit+" iteration "+strconv.Itoa(e.Iteration))
}

// done takes unit to done as itr's closing path does: work signalled,
// confirmed, verified by a reviewer.
func (f *fixture) done(unit string) {
	f.t.Helper()
	signal := f.plan.Unit(unit).Signal()
	f.iterate(unit, "Signal", signal)
	f.iterate(unit, "Signal", signal)
	f.iterate(unit, "Verification", "passed", reconcile.FieldVerifiedBy, "the reviewer")
	require.Equal(f.t, state.Done, f.state.Units[unit].Status, "the fixture took %s to done", unit)
}

// reopen records that unit, done, is open again.
func (f *fixture) reopen(unit string) {
	f.t.Helper()
	e := progresslog.Entry{Kind: progresslog.KindReopened, Unit: unit, Stamp: stamp(f.when),
		Fields: []progresslog.Field{{Name: "Reason", Value: "it broke"}}}
	f.record(e, store.EventReopened, "reopen "+unit)
	require.False(f.t, f.state.Units[unit].Status.Finished(), "the fixture reopened %s", unit)
}

// setClaim puts c as the claim of its unit, whatever the ref held, as
// another command would have left it; it returns the blob.
func (f *fixture) setClaim(c store.Claim) string {
	f.t.Helper()
	return f.setRaw(c.Unit, c.Encode())
}

// setRaw points the claim ref of unit at a blob of data.
func (f *fixture) setRaw(unit string, data []byte) string {
	f.t.Helper()
	repo := f.repo()
	id, err := repo.WriteBlob(data)
	require.NoError(f.t, err)
	ref := store.ClaimRef(slug, unit)
	old, err := repo.ReadRef(ref)
	if err != nil {
		old = ""
	}
	require.NoError(f.t, repo.UpdateRef(ref, id, old))
	return id
}

// claims are the claim refs of the task, read without the room: unit →
// the claim its blob holds (ID set).
func (f *fixture) claims() map[string]store.Claim {
	f.t.Helper()
	repo := f.repo()
	refs, err := repo.RawRefs(store.ClaimRefPrefix + slug + "/")
	require.NoError(f.t, err)
	out := map[string]store.Claim{}
	for name, id := range refs {
		data, err := repo.ReadBlob(id)
		require.NoError(f.t, err)
		var c store.Claim
		if json.Unmarshal(data, &c) != nil {
			c = store.Claim{Agent: "(not a claim)"}
		}
		c.ID = id
		out[name[strings.LastIndexByte(name, '/')+1:]] = c
	}
	return out
}

// head is HEAD's commit.
func (f *fixture) head() string {
	f.t.Helper()
	h, err := f.repo().Head()
	require.NoError(f.t, err)
	return h.Hash
}

// ---- git itself, in a real repository (package testgit) ----

// claimBlob is the claim a ref holds, as git reads the blob.
func claimBlob(t *testing.T, dir, ref string) store.Claim {
	t.Helper()
	return testrepo.ClaimBlob(t, dir, ref)
}
