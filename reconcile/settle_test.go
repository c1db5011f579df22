package reconcile

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// replacePlan is T1 → T2 → T3, with T4 replacing T2.
const replacePlan = `## Tasks

- [ ] **T1**: base
- [ ] **T2**: fragile
  - Depends: T1
- [ ] **T3**: after
  - Depends: T2
- [ ] **T4**: compensate
  - Depends: T1
  - Replaces: T2
`

func entry(kind progresslog.Kind, unit string, n int, stamp string, fields ...string) progresslog.Entry {
	out := progresslog.Entry{Kind: kind, Unit: unit, Iteration: n, Stamp: stamp}
	for i := 0; i+1 < len(fields); i += 2 {
		out.Fields = append(out.Fields, progresslog.Field{Name: fields[i], Value: fields[i+1]})
	}
	return out
}

// doneIn are the three iterations that take unit to done.
func doneIn(unit, from string) []progresslog.Entry {
	return []progresslog.Entry{
		entry(progresslog.KindIteration, unit, 1, from, "Did", "work", "Signal", unit+"_DONE"),
		entry(progresslog.KindIteration, unit, 2, from, "Did", "confirm", "Signal", unit+"_DONE"),
		entry(progresslog.KindIteration, unit, 3, from, "Did", "verify", "Verification", "passed"),
	}
}

func TestFailAndReplace(t *testing.T) {
	p := mustPlan(t, replacePlan)
	log := []progresslog.Entry{entry(progresslog.KindCreated, "", 0, "2026-01-14T10:00:00Z", "Name", "R", "Mode", "development")}
	log = append(log, doneIn("T1", "2026-01-14T10:01:00Z")...)
	log = append(log, entry(progresslog.KindIteration, "T2", 1, "2026-01-14T10:02:00Z", "Did", "tried"))
	failed := entry(progresslog.KindFailed, "T2", 0, "2026-01-14T10:03:00Z", "Reason", "the API is gone", "Kind", "needs-human")

	before, problems := Fold(Input{Slug: "r", Plan: p, Entries: log})
	require.Empty(t, problems)
	require.Equal(t, "T2", state.Val(before.Current))

	// The rule book gives the event the log records.
	ev, err := Decide(before, p, Intent{Action: Fail, Unit: "T2", Reason: "the API is gone", ReasonKind: "needs-human"})
	require.NoError(t, err)
	fromLog, err := EventFrom(failed, nil)
	require.NoError(t, err)
	assert.Equal(t, ev.Kind, fromLog.Kind)
	assert.Equal(t, ev.Reason, fromLog.Reason)
	assert.Equal(t, ev.ReasonKind, fromLog.ReasonKind)

	log = append(log, failed)
	s, problems := Fold(Input{Slug: "r", Plan: p, Entries: log})
	require.Empty(t, problems)
	t2 := s.Units["T2"]
	assert.Equal(t, state.Failed, t2.Status)
	assert.Equal(t, "the API is gone", state.Val(t2.Reason))
	assert.Equal(t, "needs-human", state.Val(t2.ReasonKind))
	assert.Equal(t, 1, state.Val(t2.IterationsUsed), "iterations are kept")
	assert.Nil(t, s.Current, "a failed unit is not current")
	stepped, err := Step(before, p, fromLog)
	require.NoError(t, err)
	assert.Equal(t, string(s.Encode()), string(stepped.Encode()), "checkpoint and reconcile agree")

	// T3 waits; T4 (the replacement) is ready; T2 needs someone.
	adv := Advise(s, p, nil)
	assert.Equal(t, []string{"T4"}, adv.Ready)
	assert.Equal(t, []string{"T2"}, adv.Failed)
	assert.Equal(t, []Dep{{ID: "T2", Status: state.Failed}}, adv.Waiting["T3"])
	assert.False(t, Settled(s, p, "T2"))
	assert.Equal(t, []string{"T2 (failed: needs-human: the API is gone)", "T3 (pending)", "T4 (pending)"}, Unsettled(s, p))
	require.Len(t, adv.Stuck, 2)
	assert.Equal(t, UnitFailed, adv.Stuck[0].Code)

	// Work on the failed unit is refused, naming the fixes.
	_, err = Decide(s, p, Intent{Action: Work, Unit: "T2"})
	var r *Refusal
	require.True(t, errors.As(err, &r))
	assert.Equal(t, UnitFailed, r.Code)
	assert.Equal(t, "unit T2 failed (needs-human: the API is gone); nothing was recorded: a failed unit takes no work until it is reopened: reopen it once the cause is fixed (`itr reopen T2 --reason TEXT`), skip it (`itr skip T2 --reason TEXT`), or add a unit with \"Replaces: T2\" to tasks.md and run `itr plan`",
		r.Worded(func(f string) string { return "--" + f }))
	// Failing it again is refused; so is a block.
	_, err = Decide(s, p, Intent{Action: Fail, Unit: "T2", Reason: "x"})
	assert.ErrorContains(t, err, "unit T2 already failed (needs-human: the API is gone)")
	_, err = Decide(s, p, Intent{Action: Block, Unit: "T2", Reason: "x"})
	assert.ErrorContains(t, err, "cannot move from failed to blocked")

	// Once the replacement is done, T2 is settled and T3 ready.
	log = append(log, doneIn("T4", "2026-01-14T10:04:00Z")...)
	s, problems = Fold(Input{Slug: "r", Plan: p, Entries: log})
	require.Empty(t, problems)
	adv = Advise(s, p, nil)
	assert.Equal(t, []string{"T3"}, adv.Ready)
	assert.Empty(t, adv.Failed)
	assert.Equal(t, []string{"T2"}, adv.Replaced)
	assert.True(t, Settled(s, p, "T2"))
	assert.Equal(t, []string{"T3 (pending)"}, Unsettled(s, p))
	assert.Equal(t, state.Failed, s.Units["T2"].Status, "the failure stays in the view and the history")

	// Reconcile of the healthy view changes nothing; without it, the same.
	again, _ := Fold(Input{Slug: "r", Base: s, Plan: p, Entries: log})
	assert.Equal(t, string(s.Encode()), string(again.Encode()))
	assert.Empty(t, Diff(s, again, p))
}

func TestSkipLetsDependantsProceed(t *testing.T) {
	p := mustPlan(t, replacePlan)
	s := view(t, map[string]state.Status{"T1": state.Done}, "")
	s, err := Step(s, p, Event{Kind: progresslog.KindSkipped, Unit: "T2", Reason: "not needed"})
	require.NoError(t, err)
	assert.Equal(t, state.Skipped, s.Units["T2"].Status)
	assert.Equal(t, "not needed", state.Val(s.Units["T2"].Reason))
	adv := Advise(s, p, nil)
	assert.Equal(t, []string{"T3", "T4"}, adv.Ready)
	assert.Equal(t, []string{"T2"}, adv.Skipped)
	assert.Equal(t, 2, adv.Settled)

	_, err = Decide(s, p, Intent{Action: Work, Unit: "T2"})
	assert.EqualError(t, err, "unit T2 was skipped (not needed); nothing was recorded: to work on it after all, reopen it with `itr reopen T2 reason TEXT`")
	_, err = Decide(s, p, Intent{Action: Skip, Unit: "T2", Reason: "x"})
	assert.EqualError(t, err, "unit T2 is already skipped (not needed); nothing was recorded")
	_, err = Decide(s, p, Intent{Action: Fail, Unit: "T2", Reason: "x"})
	assert.EqualError(t, err, "unit T2: cannot move from skipped to failed (from skipped it can move to pending, in_progress)")
	_, err = Decide(s, p, Intent{Action: Skip, Unit: "T1", Reason: "x"})
	assert.EqualError(t, err, "unit T1 is done, so it cannot become skipped; nothing was recorded: if its work was found wrong, reopen it first (`itr reopen T1 reason TEXT`)")

	// Verify and deliver do not wait for a skipped unit.
	assert.Error(t, CheckPhaseIn(s, p, state.Verify, false))
	for _, id := range []string{"T3", "T4"} {
		s.Units[id].Status = state.Done
	}
	assert.NoError(t, CheckPhaseIn(s, p, state.Verify, false))
	assert.Equal(t, MoveVerifyTask, Advise(s, p, nil).Move)
}

func TestFailKindsAndFixes(t *testing.T) {
	p := mustPlan(t, replacePlan)
	s := view(t, map[string]state.Status{"T1": state.Done, "T2": state.InProgress}, "T2")
	_, err := Decide(s, p, Intent{Action: Fail, Unit: "T2", Reason: "x", ReasonKind: "external"})
	assert.EqualError(t, err, `"external" is not a failure kind (one of needs-human, tool-error, missing-input); nothing was recorded`)
	_, err = Decide(s, p, Intent{Action: Block, Unit: "T2", Reason: "x", ReasonKind: "later"})
	assert.EqualError(t, err, `"later" is not a block kind (one of needs-human, tool-error, missing-input, external, decision); nothing was recorded`)
	_, err = Decide(s, p, Intent{Action: Fail, Unit: "T1", Reason: "x"})
	assert.ErrorContains(t, err, "unit T1 is done, so it cannot become failed")

	// Nothing else can move: the move is resolve, about the failed unit.
	s, err = Step(s, p, Event{Kind: progresslog.KindFailed, Unit: "T2", Reason: "x", ReasonKind: "tool-error"})
	require.NoError(t, err)
	s.Units["T4"].Status = state.Blocked
	adv := Advise(s, p, nil)
	assert.Equal(t, MoveUnblock, adv.Move)
	s.Units["T4"].Status = state.Failed
	adv = Advise(s, p, nil)
	assert.Equal(t, MoveResolve, adv.Move)
	assert.Equal(t, "T2", adv.MoveUnit)
}

func TestReopenFailedOrSkipped(t *testing.T) {
	p := mustPlan(t, replacePlan)
	s := view(t, map[string]state.Status{"T1": state.Done, "T2": state.InProgress}, "T2")
	s.Units["T2"].IterationsUsed = state.Ptr(2)
	s.Phase = state.Verify
	s, err := Step(s, p, Event{Kind: progresslog.KindFailed, Unit: "T2", Reason: "x", ReasonKind: "tool-error"})
	require.NoError(t, err)
	ev, err := Decide(s, p, Intent{Action: Reopen, Unit: "T2", Reason: "tool fixed"})
	require.NoError(t, err)
	s, err = Step(s, p, ev)
	require.NoError(t, err)
	t2 := s.Units["T2"]
	assert.Equal(t, state.InProgress, t2.Status, "a unit with iterations comes back in progress")
	assert.Nil(t, t2.Reason)
	assert.Nil(t, t2.ReasonKind)
	assert.Equal(t, "T2", state.Val(s.Current))
	assert.Equal(t, state.Execute, s.Phase)

	// A skipped unit that never started comes back pending.
	s, err = Step(s, p, Event{Kind: progresslog.KindSkipped, Unit: "T4", Reason: "later"})
	require.NoError(t, err)
	s, err = Step(s, p, Event{Kind: progresslog.KindReopened, Unit: "T4", Reason: "needed after all"})
	require.NoError(t, err)
	assert.Equal(t, state.Pending, s.Units["T4"].Status)
	assert.Equal(t, "T2", state.Val(s.Current))
}

func TestTypedBlockFolds(t *testing.T) {
	p := mustPlan(t, replacePlan)
	blocked := entry(progresslog.KindBlocked, "T1", 0, "2026-01-14T10:01:00Z", "Reason", "no key", "Kind", "missing-input", "Clear when", "the key is in .env")
	s, problems := Fold(Input{Slug: "r", Plan: p, Entries: []progresslog.Entry{blocked}})
	require.Empty(t, problems)
	t1 := s.Units["T1"]
	assert.Equal(t, "missing-input", state.Val(t1.ReasonKind))
	assert.Equal(t, "the key is in .env", state.Val(t1.ClearWhen))
	_, err := Decide(s, p, Intent{Action: Work, Unit: "T1"})
	assert.EqualError(t, err, "unit T1 is blocked (missing-input: no key; clear when: the key is in .env); run `itr unblock T1` first")
	s, err = Step(s, p, Event{Kind: progresslog.KindUnblocked, Unit: "T1"})
	require.NoError(t, err)
	assert.Nil(t, s.Units["T1"].ReasonKind)
	assert.Nil(t, s.Units["T1"].ClearWhen)

	// A hand-written kind that is not one is reported and left out.
	bad := entry(progresslog.KindBlocked, "T1", 0, "2026-01-14T10:02:00Z", "Reason", "r", "Kind", "someday")
	bad.Line = 9
	s, problems = Fold(Input{Slug: "r", Plan: p, Entries: []progresslog.Entry{bad}})
	require.Len(t, problems, 1)
	assert.Equal(t, 9, problems[0].Line)
	assert.Contains(t, problems[0].Msg, `"someday" is not a block kind (one of needs-human, tool-error, missing-input, external, decision)`)
	assert.Equal(t, state.Blocked, s.Units["T1"].Status)
	assert.Nil(t, s.Units["T1"].ReasonKind)

	// Seed forgets them: a rebuild takes them from the log alone.
	base := s.Clone()
	base.Units["T1"].ReasonKind, base.Units["T1"].ClearWhen = state.Ptr("decision"), state.Ptr("x")
	seeded := Seed(base, "r", p)
	assert.Nil(t, seeded.Units["T1"].ReasonKind)
	assert.Nil(t, seeded.Units["T1"].ClearWhen)
}
