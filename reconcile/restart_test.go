package reconcile

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// restartLog takes T1 of tasksMD to confirming over three iterations (the
// second with 50% progress), restarts it, and records one iteration of the
// new attempt.
func restartLog() []progresslog.Entry {
	return []progresslog.Entry{
		entry(progresslog.KindCreated, "", 0, "2026-02-03T14:00:00Z", "Name", "Demo", "Mode", "development"),
		entry(progresslog.KindPlanned, "", 0, "2026-02-03T14:00:30Z", "Added", "T1, T2, T3, T4, T5"),
		entry(progresslog.KindIteration, "T1", 1, "2026-02-03T14:01:00Z", "Did", "sections 1-2", "Agent", "researcher"),
		entry(progresslog.KindIteration, "T1", 2, "2026-02-03T14:30:00Z", "Did", "sections 3", "Progress", "50%", "Agent", "researcher"),
		entry(progresslog.KindIteration, "T1", 3, "2026-02-03T14:40:00Z", "Did", "all", "Signal", "T1_DONE"),
		entry(progresslog.KindRestarted, "T1", 0, "2026-02-03T15:00:00Z", "Reason", "the draft went the wrong way", "Agent", "technical-pm"),
		entry(progresslog.KindIteration, "T1", 4, "2026-02-03T15:10:00Z", "Did", "a new outline"),
	}
}

// TestFoldRestarted: a restart puts the unit back to pending with its
// attempt's results gone and its spending kept; the next iteration starts a
// new attempt (started_at), numbered after the last; Step on the view
// before each entry gives the fold's bytes.
func TestFoldRestarted(t *testing.T) {
	p := mustPlan(t, tasksMD)
	entries := restartLog()
	before, problems := Fold(Input{Slug: "demo", Plan: p, Entries: entries[:5]})
	require.Empty(t, problems)
	t1 := before.Units["T1"]
	require.Equal(t, state.Confirming, t1.Status)
	assert.Equal(t, "2026-02-03T14:01:00Z", state.Val(t1.StartedAt), "started_at is the first iteration's time")
	assert.Equal(t, "50%", state.Val(t1.Progress))

	restarted, problems := Fold(Input{Slug: "demo", Plan: p, Entries: entries[:6]})
	require.Empty(t, problems)
	t1 = restarted.Units["T1"]
	assert.Equal(t, state.Pending, t1.Status)
	assert.Equal(t, 3, state.Val(t1.IterationsUsed), "the iterations stay spent")
	assert.Equal(t, 0, state.Val(t1.ConfirmationsUsed))
	assert.Equal(t, 1, state.Val(t1.Restarts))
	assert.Nil(t, t1.StartedAt, "the new attempt has not started")
	assert.Nil(t, t1.Progress, "restart from 0%")
	assert.Nil(t, restarted.Current, "a pending unit is not current")
	assert.Equal(t, "2026-02-03T15:00:00Z", state.Val(restarted.Updated))

	again, problems := Fold(Input{Slug: "demo", Plan: p, Entries: entries})
	require.Empty(t, problems, "iteration 4 follows iteration 3: no renumbering")
	t1 = again.Units["T1"]
	assert.Equal(t, state.InProgress, t1.Status)
	assert.Equal(t, 4, state.Val(t1.IterationsUsed))
	assert.Equal(t, "2026-02-03T15:10:00Z", state.Val(t1.StartedAt), "the new attempt's start")
	assert.Equal(t, 1, state.Val(t1.Restarts))
	assert.Equal(t, "T1", state.Val(again.Current))

	// Step, entry by entry, gives the fold's bytes: reconcile after itr
	// restart changes nothing.
	s := Seed(nil, "demo", p)
	for _, e := range entries {
		ev, err := EventFrom(e, nil)
		require.NoError(t, err)
		s, err = Step(s, p, ev)
		require.NoError(t, err, e.Title())
	}
	assert.Equal(t, string(again.Encode()), string(s.Encode()))
	assert.Empty(t, Diff(s, again, p))

	// The rule book gives the same event.
	dec, err := Decide(before, p, Intent{Action: Restart, Unit: "T1", Reason: "the draft went the wrong way"})
	require.NoError(t, err)
	assert.Equal(t, progresslog.KindRestarted, dec.Kind)
	assert.Equal(t, "the draft went the wrong way", dec.Reason)
}

// TestDecideRestart: which units restart, and how each refusal is worded.
func TestDecideRestart(t *testing.T) {
	p := mustPlan(t, tasksMD)
	base, problems := Fold(Input{Slug: "demo", Plan: p, Entries: restartLog()[:4]})
	require.Empty(t, problems)
	cases := []struct {
		status state.Status
		set    func(u *state.Unit)
		want   Code
		text   string
	}{
		{status: state.InProgress},
		{status: state.Confirming},
		{status: state.Verifying},
		{status: state.Failed, set: func(u *state.Unit) { u.Reason = state.Ptr("the API is gone") }},
		{status: state.Pending, set: func(u *state.Unit) { u.IterationsUsed = nil }, want: NotRestartable,
			text: "unit T1 is pending: it has no work to restart (its next checkpoint starts it); nothing was recorded"},
		{status: state.Blocked, set: func(u *state.Unit) { u.Reason = state.Ptr("no key") }, want: NotRestartable,
			text: "unit T1 is blocked (no key); nothing was recorded: a restart does not clear a block: run `itr unblock T1` first, then restart it"},
		{status: state.Timeout, set: func(u *state.Unit) { u.IterationsUsed = state.Ptr(5) }, want: NotRestartable,
			text: "unit T1 used all 5 of its iterations; nothing was recorded: a restart gives it no more (they stay spent): raise its Max iterations in the plan and run `itr plan`, then restart it"},
		{status: state.Done, want: NotRestartable,
			text: "unit T1 is done; nothing was recorded: a finished unit found wrong is reopened, not restarted (`itr reopen T1 reason TEXT`)"},
		{status: state.Skipped, set: func(u *state.Unit) { u.Reason = state.Ptr("out of scope") }, want: NotRestartable,
			text: "unit T1 was skipped (out of scope); nothing was recorded: to work on it after all, reopen it (`itr reopen T1 reason TEXT`)"},
	}
	for _, c := range cases {
		t.Run(string(c.status), func(t *testing.T) {
			s := base.Clone()
			u := s.Units["T1"]
			u.Status = c.status
			if c.set != nil {
				c.set(u)
			}
			ev, err := Decide(s, p, Intent{Action: Restart, Unit: "T1", Reason: "start over"})
			if c.want == "" {
				require.NoError(t, err)
				next, err := Step(s, p, ev)
				require.NoError(t, err)
				assert.Equal(t, state.Pending, next.Units["T1"].Status)
				assert.Nil(t, next.Units["T1"].Reason)
				return
			}
			var r *Refusal
			require.True(t, errors.As(err, &r), "%v", err)
			assert.Equal(t, c.want, r.Code)
			assert.Equal(t, c.text, r.Error())
			// The reducer refuses the same entry: a Restarted entry written
			// by hand is reported, not applied.
			_, err = Step(s, p, Event{Kind: progresslog.KindRestarted, Unit: "T1", Reason: "by hand"})
			assert.Error(t, err)
		})
	}

	// Another agent's unit is not started over.
	_, err := Decide(base, p, Intent{Action: Restart, Unit: "T1", Held: Held{"T1": "bob until 2099-01-01T00:00:00Z"}})
	var r *Refusal
	require.True(t, errors.As(err, &r))
	assert.Equal(t, HeldElsewhere, r.Code)
	// A unit the plan does not have.
	_, err = Decide(base, p, Intent{Action: Restart, Unit: "T9"})
	require.True(t, errors.As(err, &r))
	assert.Equal(t, UnknownUnit, r.Code)
}

// TestRestartCountsIterationsOnce: the iterations before a restart count
// for the unit's limit and for the task's budget exactly once.
func TestRestartCountsIterationsOnce(t *testing.T) {
	p := mustPlan(t, "# Budget - Tasks\n\n**Max total iterations:** 4\n\n## Tasks\n\n- [ ] **T1**: a\n  - Max iterations: 3\n- [ ] **T2**: b\n")
	s := Seed(nil, "demo", p)
	step := func(in Intent) {
		t.Helper()
		ev, err := Decide(s, p, in)
		require.NoError(t, err)
		ev.Time = "2026-02-03T14:00:00Z"
		s, err = Step(s, p, ev)
		require.NoError(t, err)
	}
	step(Intent{Action: Work, Unit: "T1"})
	step(Intent{Action: Work, Unit: "T1"})
	step(Intent{Action: Restart, Unit: "T1", Reason: "start over"})
	assert.Equal(t, 2, TotalIterations(s))
	step(Intent{Action: Work, Unit: "T1"})
	assert.Equal(t, state.Timeout, s.Units["T1"].Status, "3 iterations in all reach the limit of 3")
	assert.Equal(t, 3, TotalIterations(s))
	step(Intent{Action: Work, Unit: "T2"})
	_, err := Decide(s, p, Intent{Action: Work, Unit: "T2"})
	var r *Refusal
	require.True(t, errors.As(err, &r))
	assert.Equal(t, BudgetSpent, r.Code, "4 iterations in all spend the budget of 4")
}

// TestStartedAtUnknownInOlderView: a view written before itr knew
// started_at keeps it absent (unknown) through the fold and through Step,
// so reconcile changes nothing; a restart's new attempt gets one.
func TestStartedAtUnknownInOlderView(t *testing.T) {
	p := mustPlan(t, tasksMD)
	entries := restartLog()[:4]
	older, problems := Fold(Input{Slug: "demo", Plan: p, Entries: entries})
	require.Empty(t, problems)
	older.Units["T1"].StartedAt = nil // as an older itr wrote it

	folded, problems := Fold(Input{Slug: "demo", Base: older, Plan: p, Entries: entries})
	require.Empty(t, problems)
	assert.Nil(t, folded.Units["T1"].StartedAt)
	assert.Empty(t, Diff(older, folded, p))
	assert.Equal(t, string(older.Encode()), string(folded.Encode()))

	more := append(entries[:4:4], restartLog()[4:]...)
	stepped := older
	for _, e := range restartLog()[4:] {
		ev, err := EventFrom(e, nil)
		require.NoError(t, err)
		stepped, err = Step(stepped, p, ev)
		require.NoError(t, err)
	}
	refolded, problems := Fold(Input{Slug: "demo", Base: older, Plan: p, Entries: more})
	require.Empty(t, problems)
	assert.Equal(t, "2026-02-03T15:10:00Z", state.Val(refolded.Units["T1"].StartedAt))
	assert.Equal(t, string(stepped.Encode()), string(refolded.Encode()))

	// Without a view (state.json lost), the log says it all.
	fresh, _ := Fold(Input{Slug: "demo", Plan: p, Entries: entries})
	assert.Equal(t, "2026-02-03T14:01:00Z", state.Val(fresh.Units["T1"].StartedAt))
}

// TestAdviceOffersRestart: restart is offered for a unit whose outputs an
// interrupted iteration left partial, and for a failed unit beside reopen
// and skip; never where the rule book refuses it.
func TestAdviceOffersRestart(t *testing.T) {
	p := mustPlan(t, tasksMD)
	s, problems := Fold(Input{Slug: "demo", Plan: p, Entries: restartLog()[:4]})
	require.Empty(t, problems)
	restarts := func(a Advice) []Offer {
		var out []Offer
		for _, o := range a.Offers {
			if o.Op == OpRestart {
				out = append(out, o)
			}
		}
		return out
	}

	a := AdviseIn(s, p, Situation{})
	assert.Empty(t, restarts(a), "nothing partial: no restart offered")

	a = AdviseIn(s, p, Situation{Partial: map[string][]string{"T1": {"outputs/draft.md"}}})
	got := restarts(a)
	require.Len(t, got, 1)
	assert.Equal(t, "T1", got[0].Unit)
	assert.Equal(t, MoveRestart, got[0].For)
	assert.Equal(t, OpCheckpoint, a.Offers[0].Op, "finishing the outputs comes first")
	assert.Equal(t, MoveContinue, a.Move)

	a = AdviseIn(s, p, Situation{Partial: map[string][]string{"T1": {"outputs/draft.md"}}, Held: Held{"T1": "bob until 2099-01-01T00:00:00Z"}})
	assert.Empty(t, restarts(a), "another agent's unit is never offered for restart")

	blocked := s.Clone()
	blocked.Units["T1"].Status, blocked.Units["T1"].Reason = state.Blocked, state.Ptr("no key")
	a = AdviseIn(blocked, p, Situation{Partial: map[string][]string{"T1": {"outputs/draft.md"}}})
	assert.Empty(t, restarts(a), "a blocked unit is unblocked before it restarts")

	failed := s.Clone()
	failed.Units["T1"].Status, failed.Units["T1"].Reason = state.Failed, state.Ptr("the API is gone")
	failed.Current = nil
	failed.Units["T4"].Status, failed.Units["T4"].Reason = state.Skipped, state.Ptr("later") // every other unit waits on T1
	a = AdviseIn(failed, p, Situation{})
	got = restarts(a)
	require.Len(t, got, 1)
	assert.Equal(t, MoveResolve, got[0].For)
	assert.True(t, got[0].Person)
}
