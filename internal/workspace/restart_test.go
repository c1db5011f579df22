package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Who did the work and when (seed 001's agent, seed 002's Model, seed 004's
// started_at), itr restart, and the partial outputs an interrupted
// iteration leaves, in real repositories judged by git.

// whoTasks is ucTasks with an output and a model for T1.
const whoTasks = `# Demo - Tasks

## Tasks

- [ ] **T1**: Add the model
  - Output: ` + "`outputs/T1.md`" + `
  - Model: opus
- [ ] **T2**: Write the docs
- [ ] **T3**: Use the model
  - Depends: T1
`

// whoOpen opens the workspace of dir for agent, model and session.
func whoOpen(t *testing.T, dir, agent, model, session string, clock *ucClock) *Workspace {
	t.Helper()
	w, err := Open(Options{Dir: dir, Agent: agent, Model: model, Session: session, Now: clock.Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// lastEntry is the newest entry of the task's log as committed at HEAD.
func lastEntry(t *testing.T, dir string) progresslog.Entry {
	t.Helper()
	l := progresslog.Parse([]byte(ucGit(t, dir, "show", "HEAD:"+ucTaskFile(store.ProgressFile))))
	require.NotEmpty(t, l.Entries)
	return l.Entries[len(l.Entries)-1]
}

// TestEntriesRecordWho: every entry itr appends names its agent, and its
// model and session where known; an iteration lists the files its work
// commits changed; a name that is not one line is refused before anything
// is opened.
func TestEntriesRecordWho(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, whoTasks)
	created := progresslog.Parse([]byte(ucGit(t, dir, "show", "HEAD:"+ucTaskFile(store.ProgressFile)))).Entries[0]
	assert.Equal(t, progresslog.Who{Agent: "seed"}, progresslog.WhoOf(created), "itr init records its agent too")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	for _, f := range []string{"src/a.go", "src/b.go"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("package src\n"), 0o644))
	}
	ucGit(t, dir, "add", "src")
	ucGit(t, dir, "commit", "-q", "-m", "work on the model")
	w := whoOpen(t, dir, "synthesizer", "sonnet", "s-1", clock)
	out, err := w.Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "the model"})
	require.NoError(t, err)
	e := lastEntry(t, dir)
	assert.Equal(t, progresslog.Who{Agent: "synthesizer", Model: "sonnet", Session: "s-1"}, progresslog.WhoOf(e))
	files, _ := e.Field(progresslog.FieldFiles)
	assert.Equal(t, "src/a.go\nsrc/b.go", files)
	assert.Equal(t, e.Fields, out.Entry.Fields, "the outcome is the entry as recorded")
	names := []string{}
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"Did", "Remaining", "Blockers", "Commit", "Files", "Agent", "Model", "Session"}, names, "the seed's fields first, who last")

	_, err = whoOpen(t, dir, "bob", "", "", clock).Block(ucSlug, "T2", "waits for the API")
	require.NoError(t, err)
	assert.Equal(t, progresslog.Who{Agent: "bob"}, progresslog.WhoOf(lastEntry(t, dir)), "an unknown model and session are left out")
	ucCheckGit(t, dir)

	head := ucGitLine(t, dir, "rev-parse", "HEAD")
	for _, o := range []Options{{Agent: "a\nb"}, {Model: strings.Repeat("m", 201)}, {Session: "s\x1b[2J"}} {
		o.Dir = dir
		_, err := Open(o)
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%v", err)
		assert.Contains(t, []string{"agent", "model", "session"}, fe.Field)
	}
	assert.Equal(t, head, ucGitLine(t, dir, "rev-parse", "HEAD"))
}

// TestRestart: one Restarted entry and one commit on top; the unit pending
// with its iterations spent and its attempt's results gone; reconcile
// after it changes nothing; the next iteration follows the last and
// starts the new attempt. Refusals change nothing.
func TestRestart(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, whoTasks)
	w := whoOpen(t, dir, "synthesizer", "sonnet", "s-1", clock)
	clock.Set(ucT0.Add(time.Minute))
	_, err := w.Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "sections 1-3", Progress: state.Ptr(50)})
	require.NoError(t, err)
	clock.Set(ucT0.Add(2 * time.Minute))
	_, err = w.Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "section 4"})
	require.NoError(t, err)
	require.Equal(t, ucStamp(ucT0.Add(time.Minute)), state.Val(ucStateAt(t, dir, "HEAD").Units["T1"].StartedAt))

	head := ucGitLine(t, dir, "rev-parse", "HEAD")
	_, err = ucOpen(t, dir, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	for _, c := range []struct {
		who string
		req RestartRequest
		msg string
	}{
		{"synthesizer", RestartRequest{Unit: "T1"}, "reason is required"},
		{"synthesizer", RestartRequest{Reason: "x"}, "unit is required"},
		{"synthesizer", RestartRequest{Unit: "T2", Reason: "x"}, "unit T2 is pending: it has no work to restart"},
		{"synthesizer", RestartRequest{Unit: "T9", Reason: "x"}, "unit T9 is not in"},
		{"synthesizer", RestartRequest{Unit: "T1", Reason: "x"}, "unit T1 is held by bob"},
	} {
		_, err := ucOpen(t, dir, c.who, clock).Restart(c.req)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.msg)
		assert.Equal(t, head, ucGitLine(t, dir, "rev-parse", "HEAD"), "%s changed nothing", c.msg)
	}
	_, err = ucOpen(t, dir, "bob", clock).Release(ucSlug, "T1", "", false)
	require.NoError(t, err)

	clock.Set(ucT0.Add(3 * time.Minute))
	rep, err := whoOpen(t, dir, "technical-pm", "opus", "s-2", clock).Restart(RestartRequest{Unit: "T1", Reason: "the draft went the wrong way"})
	require.NoError(t, err)
	assert.Equal(t, state.InProgress, rep.From)
	assert.Equal(t, 2, rep.Spent)
	assert.Equal(t, rep.Outcome.Commit, ucGitLine(t, dir, "rev-parse", "HEAD"))
	assert.Equal(t, head, ucGitLine(t, dir, "rev-parse", "HEAD^"))
	msg := ucGit(t, dir, "log", "-1", "--format=%B")
	for _, want := range []string{"itr(demo): restart T1: the draft went the wrong way", "Itr-Event: restarted", "Itr-Unit: T1", "Itr-Status: pending"} {
		assert.Contains(t, msg, want)
	}
	e := lastEntry(t, dir)
	assert.Equal(t, progresslog.KindRestarted, e.Kind)
	reason, _ := e.Field("Reason")
	assert.Equal(t, "the draft went the wrong way", reason)
	assert.Equal(t, "technical-pm", progresslog.WhoOf(e).Agent)
	t1 := ucStateAt(t, dir, "HEAD").Units["T1"]
	assert.Equal(t, state.Pending, t1.Status)
	assert.Equal(t, 2, state.Val(t1.IterationsUsed))
	assert.Equal(t, 1, state.Val(t1.Restarts))
	assert.Nil(t, t1.StartedAt)
	assert.Nil(t, t1.Progress)
	rec, err := ucOpen(t, dir, "seed", clock).Reconcile(ReconcileOptions{Slug: ucSlug})
	require.NoError(t, err)
	assert.True(t, rec.Clean(), "reconcile after restart changes nothing: %+v", rec)
	assert.Empty(t, rec.Commit)
	ucCheckGit(t, dir)

	clock.Set(ucT0.Add(4 * time.Minute))
	out, err := w.Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "the outline again"})
	require.NoError(t, err)
	assert.Equal(t, 3, out.Entry.Iteration, "numbered after the last")
	t1 = ucStateAt(t, dir, "HEAD").Units["T1"]
	assert.Equal(t, state.InProgress, t1.Status)
	assert.Equal(t, ucStamp(ucT0.Add(4*time.Minute)), state.Val(t1.StartedAt), "the new attempt's start")
	assert.Equal(t, 2, ucAppendOnly(t, dir, "HEAD", ucTaskFile(store.ProgressFile))-ucAppendOnly(t, dir, "HEAD~2", ucTaskFile(store.ProgressFile)))
	ucCheckGit(t, dir)
}

// TestPartialOutputs: an output changed since the last commit is partial
// on resume only where an iteration was interrupted (a new session, a check
// cut off), with the fix; the same session's work in hand is not; a
// restart is offered, and after it nothing is partial.
func TestPartialOutputs(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, whoTasks)
	_, err := whoOpen(t, dir, "synthesizer", "sonnet", "s-1", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "sections 1-3"})
	require.NoError(t, err)
	out := filepath.Join(dir, ucTaskFile("outputs/T1.md"))
	require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
	require.NoError(t, os.WriteFile(out, []byte("Sections one to three compare the\n"), 0o644))

	for _, c := range []struct {
		name, session string
		partial       bool
	}{
		{"the same session", "s-1", false},
		{"no session known", "", false},
		{"a new session", "s-2", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sum, err := whoOpen(t, dir, "synthesizer", "", c.session, clock).Status(ucSlug)
			require.NoError(t, err)
			if !c.partial {
				assert.Empty(t, sum.Partial)
				return
			}
			require.Len(t, sum.Partial, 1)
			p := sum.Partial[0]
			assert.Equal(t, "T1", p.Unit)
			assert.Equal(t, []string{"outputs/T1.md"}, p.Files)
			assert.Contains(t, p.Why, "recorded by session s-1, and this is session s-2")
			assert.Contains(t, p.Fix, "`itr restart T1 --reason \"...\"`")
			assert.Contains(t, sum.Warnings, p.String())
			assert.Contains(t, sum.NextAction, "an interrupted iteration left its outputs partial (outputs/T1.md)")
			var offered bool
			for _, a := range sum.Actions {
				offered = offered || a.Offer.Op == reconcile.OpRestart && a.Unit == "T1"
			}
			assert.True(t, offered, "restart is offered: %+v", sum.Actions)
			assert.Equal(t, "opus", sum.Current.PlanModel, "the plan's model beside the one recorded")
			assert.Equal(t, "sonnet", sum.Current.Model)
		})
	}

	// A check cut off (its itr gone) is an interruption without sessions.
	w := whoOpen(t, dir, "synthesizer", "", "", clock)
	_, err = w.MarkRun(store.RunMarker{Slug: ucSlug, Unit: "T1", Command: "go test ./...", Started: ucStamp(ucT0), Host: "gone", PID: 1})
	require.NoError(t, err)
	sum, err := w.Status(ucSlug)
	require.NoError(t, err)
	require.Len(t, sum.Partial, 1)
	assert.Contains(t, sum.Partial[0].Why, "its check (go test ./..., started "+ucStamp(ucT0)+") was cut off")
	w.ForgetRun(ucSlug, "T1")

	// Restarted: pending, nothing partial; the output, in the task folder,
	// is committed with the entry.
	rep, err := whoOpen(t, dir, "technical-pm", "", "s-2", clock).Restart(RestartRequest{Unit: "T1", Reason: "start over"})
	require.NoError(t, err)
	assert.Equal(t, []string{"outputs/T1.md"}, rep.Outputs)
	assert.Contains(t, rep.Outcome.Files, ucTaskFile("outputs/T1.md"))
	sum, err = whoOpen(t, dir, "synthesizer", "", "s-3", clock).Status(ucSlug)
	require.NoError(t, err)
	assert.Empty(t, sum.Partial)
	ucCheckGit(t, dir)
}
