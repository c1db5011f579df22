package reconcile

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// reopenLog is a log that takes T1 of tasksMD to done in three iterations,
// starts T2, and reopens T1.
func reopenLog() []progresslog.Entry {
	e := func(kind progresslog.Kind, unit string, n int, stamp string, fields ...string) progresslog.Entry {
		out := progresslog.Entry{Kind: kind, Unit: unit, Iteration: n, Stamp: stamp}
		for i := 0; i+1 < len(fields); i += 2 {
			out.Fields = append(out.Fields, progresslog.Field{Name: fields[i], Value: fields[i+1]})
		}
		return out
	}
	return []progresslog.Entry{
		e(progresslog.KindCreated, "", 0, "2026-01-14T10:00:00Z", "Name", "Demo", "Mode", "development"),
		e(progresslog.KindPlanned, "", 0, "2026-01-14T10:01:00Z", "Added", "T1, T2, T3, T4, T5"),
		e(progresslog.KindIteration, "T1", 1, "2026-01-14T10:02:00Z", "Did", "model", "Signal", "T1_DONE"),
		e(progresslog.KindIteration, "T1", 2, "2026-01-14T10:03:00Z", "Did", "confirmed", "Signal", "T1_DONE"),
		e(progresslog.KindIteration, "T1", 3, "2026-01-14T10:04:00Z", "Did", "verified", "Verification", "passed"),
		e(progresslog.KindIteration, "T2", 1, "2026-01-14T10:05:00Z", "Did", "service"),
		e(progresslog.KindReopened, "T1", 0, "2026-01-14T10:06:00Z", "Reason", "the model drops emails"),
	}
}

func TestFoldReopened(t *testing.T) {
	p := mustPlan(t, tasksMD)
	entries := reopenLog()
	before, problems := Fold(Input{Slug: "demo", Plan: p, Entries: entries[:len(entries)-1]})
	require.Empty(t, problems)
	require.Equal(t, state.Done, before.Units["T1"].Status)
	require.Equal(t, "T2", state.Val(before.Current))

	s, problems := Fold(Input{Slug: "demo", Plan: p, Entries: entries})
	require.Empty(t, problems)
	t1 := s.Units["T1"]
	assert.Equal(t, state.InProgress, t1.Status)
	assert.Equal(t, 3, state.Val(t1.IterationsUsed), "iterations are kept")
	assert.Equal(t, 1, state.Val(t1.ConfirmationsUsed), "confirmations are kept")
	assert.Equal(t, 5, state.Val(t1.MaxIterations), "the limit is the plan's")
	require.NotNil(t, t1.VerificationPassed)
	assert.False(t, *t1.VerificationPassed, "the verification no longer holds")
	assert.Nil(t, t1.CompletedAt)
	assert.Nil(t, t1.Reason)
	assert.Equal(t, "T1", state.Val(s.Current))
	assert.Equal(t, 3, state.Val(s.CurrentIteration))
	assert.Equal(t, "2026-01-14T10:06:00Z", state.Val(s.Updated))
	// The dependant is named elsewhere, never changed here.
	assert.Equal(t, before.Units["T2"], s.Units["T2"])

	// Step on the view before gives the same bytes as the fold: reconcile
	// after itr reopen changes nothing.
	ev, err := EventFrom(entries[len(entries)-1], nil)
	require.NoError(t, err)
	assert.Equal(t, "the model drops emails", ev.Reason)
	stepped, err := Step(before, p, ev)
	require.NoError(t, err)
	assert.Equal(t, string(s.Encode()), string(stepped.Encode()))

	// The rule book gives the same event.
	dec, err := Decide(before, p, Intent{Action: Reopen, Unit: "T1", Reason: "the model drops emails"})
	require.NoError(t, err)
	assert.Equal(t, progresslog.KindReopened, dec.Kind)
	assert.Equal(t, "the model drops emails", dec.Reason)

	// The reopened unit is the one to work on; T2 stays under way.
	adv := Advise(s, p, ActivityOf(entries))
	assert.Equal(t, "T1", adv.Unit)
	assert.Equal(t, MoveContinue, adv.Move)
	assert.Equal(t, []string{"T1", "T2"}, adv.Started)

	// The next iteration of T1 is its fourth.
	next, err := Decide(s, p, Intent{Action: Work})
	require.NoError(t, err)
	assert.Equal(t, "T1", next.Unit)
	assert.Equal(t, 4, next.Iteration)
}

func TestFoldReopenedRefused(t *testing.T) {
	p := mustPlan(t, tasksMD)
	entries := reopenLog()
	// A second reopen of T1, now in_progress, is not applied.
	again := entries[len(entries)-1]
	again.Line = 40
	s, problems := Fold(Input{Slug: "demo", Plan: p, Entries: append(entries, again)})
	require.Len(t, problems, 1)
	assert.Equal(t, 40, problems[0].Line)
	assert.Contains(t, problems[0].Msg, "unit T1 is in_progress, not done: only a done, failed or skipped unit can be reopened")
	assert.Equal(t, state.InProgress, s.Units["T1"].Status)

	// Reopening T2, under way, is not applied either.
	t2 := progresslog.Entry{Kind: progresslog.KindReopened, Unit: "T2", Stamp: "2026-01-14T10:07:00Z", Line: 41}
	_, problems = Fold(Input{Slug: "demo", Plan: p, Entries: append(entries[:6:6], t2)})
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Msg, "unit T2 is in_progress, not done")
}

func TestReopenKeepsTheLimit(t *testing.T) {
	p := mustPlan(t, tasksMD)
	s := view(t, map[string]state.Status{"T1": state.Done}, "")
	s.Units["T1"].IterationsUsed = state.Ptr(5) // all of its 5
	s.Phase = state.Verify
	next, err := Step(s, p, Event{Kind: progresslog.KindReopened, Unit: "T1", Reason: "x"})
	require.NoError(t, err)
	assert.Equal(t, state.Timeout, next.Units["T1"].Status, "a unit that used its iterations comes back timed out")
	assert.Equal(t, 5, state.Val(next.Units["T1"].MaxIterations))
	assert.Equal(t, state.Execute, next.Phase, "a task with an unfinished unit is back in execute")
}

func TestNotDoneWording(t *testing.T) {
	flag := func(f string) string { return "--" + f }
	for _, c := range []struct {
		status state.Status
		want   string
	}{
		{state.Confirming, "unit T1 is confirming, not done: it is still open, so there is nothing to reopen; record its next checkpoint without --signal to send it back to in_progress"},
		{state.Verifying, "unit T1 is verifying, not done: it is still open, so there is nothing to reopen; record its next checkpoint without --verified to send it back to in_progress"},
		{state.Pending, "unit T1 is pending, not done: only a done, failed or skipped unit can be reopened"},
	} {
		_, err := Decide(view(t, map[string]state.Status{"T1": c.status}, ""), mustPlan(t, tasksMD), Intent{Action: Reopen, Unit: "T1", Reason: "x"})
		var r *Refusal
		require.True(t, errors.As(err, &r), "%v", err)
		assert.Equal(t, c.want, r.Worded(flag))
	}
}

func TestDependants(t *testing.T) {
	p := mustPlan(t, tasksMD)
	// T1 → T2 → T3 → T5; T4 independent.
	s := view(t, map[string]state.Status{"T1": state.Done, "T2": state.Done, "T3": state.InProgress, "T4": state.InProgress}, "T3")
	assert.Equal(t, []Dep{{ID: "T2", Status: state.Done}, {ID: "T3", Status: state.InProgress}}, Dependants(s, p, "T1"))
	// Blocked after iterations counts as started; blocked before does not.
	s = view(t, map[string]state.Status{"T1": state.Done, "T2": state.Blocked, "T3": state.Blocked}, "")
	s.Units["T2"].IterationsUsed = state.Ptr(2)
	assert.Equal(t, []Dep{{ID: "T2", Status: state.Blocked}}, Dependants(s, p, "T1"))
	assert.Empty(t, Dependants(s, p, "T4"))
	assert.Empty(t, Dependants(s, nil, "T1"))
}
