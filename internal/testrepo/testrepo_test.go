package testrepo_test

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

var t0 = time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)

const tasksMD = "# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: One\n- [ ] **T2**: Two\n  - Depends: T1\n"

// The clock reads what it was set to, from any goroutine; Stamp is UTC.
func TestClock(t *testing.T) {
	c := testrepo.NewClock(t0)
	assert.Equal(t, t0, c.Now())
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Set(t0.Add(time.Duration(i) * time.Minute))
			_ = c.Now()
		}()
	}
	wg.Wait()
	c.Set(t0.Add(time.Hour))
	assert.Equal(t, t0.Add(time.Hour), c.Now())
	assert.Equal(t, "2026-01-14T08:00:00Z", testrepo.Stamp(t0.In(time.FixedZone("CET", 3600)).Add(-time.Hour)))
	assert.Equal(t, ".claude/iterative/demo/state.json", testrepo.TaskFile("demo", store.StateFile))
}

// NewTask is what itr init writes: the templates, the Created entry in
// progress.md, state.json its fold, every file under the folder.
func TestNewTask(t *testing.T) {
	task := testrepo.NewTask(t, "root/demo", templates.Data{Name: "Demo", Slug: "demo", Created: testrepo.Stamp(t0)})
	assert.Equal(t, progresslog.KindCreated, task.Entry.Kind)
	assert.Equal(t, "2026-01-14T09:00:00Z", task.Entry.Stamp)
	entries := progresslog.Parse(task.Files[store.ProgressFile]).Entries
	require.Len(t, entries, 1)
	assert.Equal(t, progresslog.KindCreated, entries[0].Kind)
	assert.Equal(t, "Demo", task.State.Task)
	assert.Equal(t, state.Development, task.State.Mode)
	assert.Equal(t, task.State.Encode(), task.Files[store.StateFile])
	files, err := templates.Task(templates.Data{Name: "Demo", Slug: "demo", Created: testrepo.Stamp(t0), Mode: "development"})
	require.NoError(t, err)
	require.Len(t, task.Changes, len(files))
	for i, f := range files {
		assert.Equal(t, "root/demo/"+f.Name, task.Changes[i].Path)
		assert.Equal(t, task.Files[f.Name], task.Changes[i].Data)
		if f.Name != store.ProgressFile && f.Name != store.StateFile {
			assert.Equal(t, f.Data, task.Files[f.Name], f.Name)
		}
	}

	knowledge := testrepo.NewTask(t, "root/survey", templates.Data{Name: "Survey", Slug: "survey", Created: testrepo.Stamp(t0), Mode: string(state.Knowledge)})
	assert.Equal(t, state.Knowledge, knowledge.State.Mode)
}

// Append and Fold keep the log and its view as itr does; a fold problem
// that is not a note fails.
func TestAppendFold(t *testing.T) {
	task := testrepo.NewTask(t, "root/demo", templates.Data{Name: "Demo", Slug: "demo", Created: testrepo.Stamp(t0)})
	p, err := plan.Parse("root/demo/tasks.md", []byte(tasksMD))
	require.NoError(t, err)
	progress := testrepo.Append(t, task.Files[store.ProgressFile], progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: testrepo.Stamp(t0),
		Fields: []progresslog.Field{{Name: "Added", Value: "T1, T2"}}})
	progress = testrepo.Append(t, progress, progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 1, Stamp: testrepo.Stamp(t0),
		Fields: []progresslog.Field{{Name: "Did", Value: "work"}, {Name: "Remaining", Value: "None"}, {Name: "Blockers", Value: "None"}}})
	s := testrepo.Fold(t, "demo", task.State, p, progress)
	require.Contains(t, s.Units, "T1")
	assert.Equal(t, state.InProgress, s.Units["T1"].Status)
	assert.Equal(t, 1, state.Val(s.Units["T1"].IterationsUsed))

	// An iteration of a unit the plan does not have is a problem.
	bad := testrepo.Append(t, progress, progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T9", Iteration: 1, Stamp: testrepo.Stamp(t0),
		Fields: []progresslog.Field{{Name: "Did", Value: "work"}, {Name: "Remaining", Value: "None"}, {Name: "Blockers", Value: "None"}}})
	f := testgit.Failures(t, func(tb testing.TB) { testrepo.Fold(tb, "demo", s, p, bad) })
	assert.Len(t, f, 1, "a fold problem fails")
	f = testgit.Failures(t, func(tb testing.TB) {
		testrepo.Append(tb, progress, progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Stamp: "not a time"})
	})
	assert.Len(t, f, 1, "an entry progresslog refuses fails")
}

// Iteration numbers the unit's next iteration from the state and orders
// its fields as checkpoint does; a Remaining or Blockers given replaces
// its None.
func TestIteration(t *testing.T) {
	s := &state.State{Units: map[string]*state.Unit{"T1": {Status: state.InProgress, IterationsUsed: state.Ptr(2)}}}
	field := func(name, value string) progresslog.Field { return progresslog.Field{Name: name, Value: value} }
	assert.Equal(t, progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 3, Stamp: "ts",
		Fields: []progresslog.Field{field("Did", "work"), field("Remaining", "None"), field("Blockers", "None"), field("Commit", "None")}},
		testrepo.Iteration(s, "T1", "ts", "work"))
	assert.Equal(t, progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T2", Iteration: 1, Stamp: "ts",
		Fields: []progresslog.Field{field("Did", "start"), field("Remaining", "the tests"), field("Blockers", "None"),
			field("Signal", "T2_DONE"), field("Commit", "None")}},
		testrepo.Iteration(s, "T2", "ts", "start", "Remaining", "the tests", "Signal", "T2_DONE"))
}

// Trailers and Message are those of an itr commit, as git reads them.
func TestTrailersMessage(t *testing.T) {
	s := &state.State{Units: map[string]*state.Unit{"T1": {Status: state.InProgress}}}
	e := &progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2}
	msg := testrepo.Message("demo", "T1 iteration 2: work", testrepo.Trailers("demo", store.EventIteration, e, s))
	assert.True(t, strings.HasPrefix(msg, "itr(demo): T1 iteration 2: work\n\n"), msg)
	got := map[string]string{}
	for _, tr := range gitstate.ParseTrailers(msg) {
		got[tr.Key] = tr.Value
	}
	assert.Equal(t, map[string]string{store.TrailerTask: "demo", store.TrailerEvent: store.EventIteration,
		store.TrailerUnit: "T1", store.TrailerIteration: "2", store.TrailerStatus: string(state.InProgress)}, got)

	assert.Equal(t, []gitstate.Trailer{{Key: store.TrailerTask, Value: "demo"}, {Key: store.TrailerEvent, Value: store.EventCreated}},
		testrepo.Trailers("demo", store.EventCreated, nil, s))
	blocked := &progresslog.Entry{Kind: progresslog.KindBlocked, Unit: "T3"}
	assert.Equal(t, []gitstate.Trailer{{Key: store.TrailerTask, Value: "demo"}, {Key: store.TrailerEvent, Value: store.EventBlocked}, {Key: store.TrailerUnit, Value: "T3"}},
		testrepo.Trailers("demo", store.EventBlocked, blocked, s), "no status for a unit the state does not have")
}

// Open opens a real repository as a command does; the task NewTask
// renders, committed through the write path, is one verify accepts and
// StateAt reads back; ClaimBlob reads a claim ref and refuses what is
// not a claim.
func TestOpenStateAtClaimBlob(t *testing.T) {
	testgit.Isolate(t)
	dir := t.TempDir()
	testgit.Git(t, dir, "init", "-q")
	testgit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	clock := testrepo.NewClock(t0)
	st := testrepo.Open(t, dir, "alice", clock.Now)
	assert.Equal(t, "alice", st.Agent)
	assert.Equal(t, gitstate.EngineNative, st.Engine.Engine)
	assert.Equal(t, store.DefaultRoot, st.Root)

	task := testrepo.NewTask(t, st.TaskDir("demo"), templates.Data{Name: "Demo", Slug: "demo", Created: st.Stamp()})
	head, err := st.Repo.Head()
	require.NoError(t, err)
	_, err = record.Commit(st, head.Hash, "demo", &record.Change{Entry: &task.Entry, Event: store.EventCreated, Subject: "start task Demo"}, task.State, task.Changes)
	require.NoError(t, err)
	testgit.Check(t, dir)
	rep, err := verify.Task(testrepo.Open(t, dir, "alice", clock.Now), "demo")
	require.NoError(t, err)
	assert.Empty(t, rep.Findings)
	assert.Equal(t, task.State.Encode(), testrepo.StateAt(t, dir, "HEAD", "demo").Encode())
	assert.NotEmpty(t, testgit.Failures(t, func(tb testing.TB) { testrepo.StateAt(tb, dir, "HEAD~1", "demo") }), "no state.json before the task")

	c := store.Claim{Unit: "T1", Agent: "alice", Since: testrepo.Stamp(t0), Until: testrepo.Stamp(t0.Add(time.Hour)), For: "1h0m0s"}
	ref := store.ClaimRef("demo", "T1")
	testgit.Git(t, dir, "update-ref", ref, hashBlob(t, dir, string(c.Encode())))
	assert.Equal(t, c, testrepo.ClaimBlob(t, dir, ref))
	testgit.Git(t, dir, "update-ref", ref, hashBlob(t, dir, `{"unit":"T1","agent":"alice","extra":1}`))
	assert.Len(t, testgit.Failures(t, func(tb testing.TB) { testrepo.ClaimBlob(tb, dir, ref) }), 1, "an unknown field")
	testgit.Git(t, dir, "update-ref", ref, "HEAD")
	assert.Len(t, testgit.Failures(t, func(tb testing.TB) { testrepo.ClaimBlob(tb, dir, ref) }), 1, "a commit")
}

// hashBlob writes a blob of text with git and returns its id.
func hashBlob(t *testing.T, dir, text string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}
