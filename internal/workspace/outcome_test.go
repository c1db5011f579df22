package workspace

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// TestConclude: each outcome is one Concluded entry and one commit, folded
// into state.json as reconcile would fold it; a concluded task takes no
// work until resume.
func TestConclude(t *testing.T) {
	for _, c := range []struct {
		name string
		do   func(ws *Workspace) (*Outcome, error)
		want state.Outcome
		// phase after the outcome, and the subject of its commit
		phase   state.Phase
		subject string
	}{
		{name: "done with limitations", do: func(ws *Workspace) (*Outcome, error) { return ws.Deliver(demo, "the docs are missing") },
			want:  state.Outcome{Result: state.ResultLimited, Missing: []string{"T1", "T2", "T3"}, Limitations: "the docs are missing"},
			phase: state.Deliver, subject: "itr(demo): deliver, done with limitations: the docs are missing"},
		{name: "abandoned", do: func(ws *Workspace) (*Outcome, error) { return ws.Abandon(demo, "superseded") },
			want:  state.Outcome{Result: state.ResultAbandoned, Reason: "superseded", Missing: []string{"T1", "T2", "T3"}},
			phase: state.Execute, subject: "itr(demo): abandon: superseded"},
		{name: "failed", do: func(ws *Workspace) (*Outcome, error) {
			return ws.FailTask(demo, "the API is gone", state.KindToolError)
		},
			want:  state.Outcome{Result: state.ResultFailed, Reason: "the API is gone", Kind: state.KindToolError, Missing: []string{"T1", "T2", "T3"}},
			phase: state.Execute, subject: "itr(demo): fail the task: the API is gone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			engines(t, func(t *testing.T, _ gitstate.Engine) {
				r := newTask(t)
				r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
				base := r.head()
				out, err := c.do(r.open())
				require.NoError(t, err)
				assert.Len(t, r.commitsSince(base), 1, "one commit")
				assert.Equal(t, c.subject, r.subject("HEAD"))
				assert.Equal(t, store.EventConcluded, r.trailers("HEAD")[store.TrailerEvent])
				got := *out.After.Outcome
				assert.NotEmpty(t, got.At)
				got.At = ""
				assert.Equal(t, c.want, got)
				assert.Equal(t, c.phase, out.After.Phase)
				check, err := r.open().Reconcile(ReconcileOptions{Slug: demo, Check: true})
				require.NoError(t, err)
				assert.True(t, check.Clean(), "the fold agrees: %+v", check)
				r.checkGit()

				// No work, no pause, no second outcome; resume takes it back.
				before := r.snap()
				_, err = r.open().Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "more"})
				assertCode(t, err, reconcile.Concluded)
				_, err = r.open().Pause(demo, "")
				assertCode(t, err, reconcile.Concluded)
				_, err = r.open().Abandon(demo, "again")
				assertCode(t, err, reconcile.AlreadyConcluded)
				r.unchanged(before)
				back, err := r.open().Resume(demo)
				require.NoError(t, err)
				assert.Nil(t, back.After.Outcome)
				assert.Equal(t, state.Execute, back.After.Phase)
				r.checkpoint(CheckpointRequest{Unit: "T1", Did: "back at it"})
				r.checkGit()
			})
		})
	}
}

func assertCode(t *testing.T, err error, code reconcile.Code) {
	t.Helper()
	var r *reconcile.Refusal
	if assert.ErrorAs(t, err, &r) {
		assert.Equal(t, code, r.Code, r.Error())
	}
}

// TestConcludeRefused: bad requests name the field or the rule and the
// fix, and change nothing.
func TestConcludeRefused(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		name  string
		do    func(ws *Workspace) error
		field string
		code  reconcile.Code
		want  string
	}{
		{name: "abandon without a reason", do: func(ws *Workspace) error { _, err := ws.Abandon(demo, " "); return err },
			field: "reason", want: "reason is required: say why the task is abandoned"},
		{name: "fail without a reason", do: func(ws *Workspace) error { _, err := ws.FailTask(demo, "", ""); return err },
			field: "reason", want: "reason is required: say why the task cannot go on"},
		{name: "a failure kind it does not take", do: func(ws *Workspace) error { _, err := ws.FailTask(demo, "x", state.KindExternal); return err },
			field: "kind", want: `"external" is not a failure kind`},
		{name: "a kind on an abandoned task", do: func(ws *Workspace) error {
			_, err := ws.Conclude(ConcludeRequest{Slug: demo, Result: state.ResultAbandoned, Reason: "x", Kind: state.KindToolError})
			return err
		}, field: "kind", want: "only a failed task has a kind"},
		{name: "an outcome that is none", do: func(ws *Workspace) error {
			_, err := ws.Conclude(ConcludeRequest{Slug: demo, Result: "finished"})
			return err
		}, field: "result", want: `"finished" is not an outcome`},
		{name: "NUL in the limitations", do: func(ws *Workspace) error { _, err := ws.Deliver(demo, "half\x00"); return err },
			field: "limitations", want: "limitations holds a NUL byte"},
		{name: "deliver with units open", do: func(ws *Workspace) error { _, err := ws.Deliver(demo, ""); return err },
			code: reconcile.NeedsLimitations, want: "3 units are unfinished (T1 (pending), T2 (pending), T3 (pending)): say what the delivery lacks with limitations TEXT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newTask(t)
			before := r.snap()
			err := c.do(r.open())
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			if c.field != "" {
				var fe *FieldError
				if assert.ErrorAs(t, err, &fe) {
					assert.Equal(t, c.field, fe.Field)
				}
			}
			if c.code != "" {
				assertCode(t, err, c.code)
			}
			r.unchanged(before)
			r.checkGit()
		})
	}
}

// TestDeliverComplete: with every unit settled, deliver records complete;
// the archive keeps it.
func TestDeliverComplete(t *testing.T) {
	isolate(t)
	r := newTask(t)
	for _, id := range []string{"T1", "T2", "T3"} {
		_, err := r.open().Skip(demo, id, "not needed")
		require.NoError(t, err)
	}
	out, err := r.open().Deliver(demo, "")
	require.NoError(t, err)
	assert.Equal(t, state.ResultComplete, out.After.Outcome.Result)
	assert.Empty(t, out.After.Outcome.Missing)
	rep, err := r.open().Archive(ArchiveRequest{Slug: demo})
	require.NoError(t, err)
	require.NotNil(t, rep.Outcome)
	assert.Equal(t, state.ResultComplete, rep.Outcome.Result)
	assert.Contains(t, r.show(rep.Tag, demoDir+"/progress.md"), "**Outcome:** complete")
	r.checkGit()
}

// TestInitAfterAbandon: a forced archive records abandoned; the slug then
// starts a new task, naming the earlier one; a complete archive's slug is
// still refused.
func TestInitAfterAbandon(t *testing.T) {
	engines(t, func(t *testing.T, _ gitstate.Engine) {
		r := newTask(t)
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
		rep, err := r.open().Archive(ArchiveRequest{Slug: demo, Force: true, Reason: "superseded"})
		require.NoError(t, err)
		require.NotNil(t, rep.Outcome)
		assert.Equal(t, state.ResultAbandoned, rep.Outcome.Result)
		assert.Equal(t, "superseded", rep.Outcome.Reason)
		assert.Contains(t, rep.Summary, "Outcome: abandoned (missing T1, T2, T3): superseded")
		tag := rep.Tag

		out, err := r.open().Init(InitRequest{Name: "Demo again", Slug: demo})
		require.NoError(t, err)
		earlier, ok := out.Entry.Field(FieldEarlierTask)
		require.True(t, ok)
		assert.Equal(t, "itr/archive/demo/2026-01-14, abandoned (missing T1, T2, T3): superseded", earlier)
		assert.Nil(t, out.After.Outcome)
		assert.Empty(t, out.After.Units, "the new task starts fresh")
		assert.Contains(t, r.show(tag, demoDir+"/progress.md"), "**Outcome:** abandoned", "the old task stays in its tag")
		r.checkGit()

		// Delivered and archived: its slug is refused again.
		r.write(demoDir+"/tasks.md", tasksMD)
		_, err = r.open().Plan(PlanRequest{Slug: demo})
		require.NoError(t, err)
		_, err = r.open().Deliver(demo, "only a start")
		require.NoError(t, err)
		_, err = r.open().Archive(ArchiveRequest{Slug: demo})
		require.NoError(t, err, "a task with an outcome archives without --force")
		before := r.snap()
		_, err = r.open().Init(InitRequest{Name: "Third", Slug: demo})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `task "demo" is archived done with limitations (refs/tags/itr/archive/demo/2026-01-14-2): continue it with `+"`itr restore demo`")
		r.unchanged(before)
		r.checkGit()
	})
}
