package reconcile

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

const budgetPlan = `# Deep research - Phases

**Max total iterations:** 4

## Phases

- [ ] **S1**: Search
- [ ] **S2**: Second search
- [ ] **R1**: Read
  - Depends: S1, S2
`

// stepIn decides and folds one intent, failing the test on a refusal.
func stepIn(t *testing.T, s *state.State, p *plan.Plan, in Intent) *state.State {
	t.Helper()
	ev, err := Decide(s, p, in)
	require.NoError(t, err)
	ev.Time = "2026-01-16T10:00:00Z"
	next, err := Step(s, p, ev)
	require.NoError(t, err)
	return next
}

func refusalOf(t *testing.T, err error) *Refusal {
	t.Helper()
	var r *Refusal
	require.True(t, errors.As(err, &r), "a refusal, not %v", err)
	return r
}

func TestDecideOutcome(t *testing.T) {
	p := mustPlan(t, budgetPlan)
	fresh := Seed(nil, "dr", p)
	settled := fresh
	for _, id := range []string{"S1", "S2", "R1"} {
		settled = stepIn(t, settled, p, Intent{Action: Skip, Unit: id, Reason: "not needed"})
	}
	concluded := fresh.Clone()
	concluded.Outcome = &state.Outcome{Result: state.ResultAbandoned, Reason: "gone", At: "2026-01-16T11:00:00Z"}
	for _, tc := range []struct {
		name     string
		s        *state.State
		c        Conclusion
		code     Code
		result   state.Result
		missing  []string
		kind     string
		reason   string
		limitsTo string
	}{
		{name: "complete when every unit is settled", s: settled, c: Conclusion{Result: state.ResultComplete}, result: state.ResultComplete},
		{name: "complete with units open needs limitations", s: fresh, c: Conclusion{Result: state.ResultComplete}, code: NeedsLimitations},
		{name: "limitations name the open units", s: fresh, c: Conclusion{Result: state.ResultLimited, Limitations: " one source only "},
			result: state.ResultLimited, missing: []string{"R1", "S1", "S2"}, limitsTo: "one source only"},
		{name: "limitations given make a settled task limited", s: settled, c: Conclusion{Result: state.ResultComplete, Limitations: "no charts"},
			result: state.ResultLimited, limitsTo: "no charts"},
		{name: "limited without saying what is missing", s: fresh, c: Conclusion{Result: state.ResultLimited}, code: NeedsLimitations},
		{name: "abandoned", s: fresh, c: Conclusion{Result: state.ResultAbandoned, Reason: "superseded"},
			result: state.ResultAbandoned, reason: "superseded", missing: []string{"R1", "S1", "S2"}},
		{name: "failed with its kind", s: fresh, c: Conclusion{Result: state.ResultFailed, Reason: "API gone", Kind: state.KindToolError},
			result: state.ResultFailed, reason: "API gone", kind: state.KindToolError, missing: []string{"R1", "S1", "S2"}},
		{name: "a failure kind it does not take", s: fresh, c: Conclusion{Result: state.ResultFailed, Reason: "x", Kind: state.KindExternal}, code: BadKind},
		{name: "already concluded", s: concluded, c: Conclusion{Result: state.ResultFailed, Reason: "x"}, code: AlreadyConcluded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := string(tc.s.Encode())
			ev, err := DecideOutcome(tc.s, p, tc.c)
			assert.Equal(t, before, string(tc.s.Encode()), "the view is not changed")
			if tc.code != "" {
				assert.Equal(t, tc.code, refusalOf(t, err).Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, progresslog.KindConcluded, ev.Kind)
			assert.Equal(t, tc.result, ev.Result)
			assert.Equal(t, tc.missing, ev.Missing)
			assert.Equal(t, tc.kind, ev.ReasonKind)
			assert.Equal(t, tc.reason, ev.Reason)
			assert.Equal(t, tc.limitsTo, ev.Limitations)
		})
	}
}

// TestOutcomeRules: a concluded task takes no unit event and no pause;
// resume takes it back to work, and a delivered one's phase with it.
func TestOutcomeRules(t *testing.T) {
	p := mustPlan(t, budgetPlan)
	s := stepIn(t, Seed(nil, "dr", p), p, Intent{Action: Work, Unit: "S1"})
	ev, err := DecideOutcome(s, p, Conclusion{Result: state.ResultLimited, Limitations: "one source"})
	require.NoError(t, err)
	ev.Time = "2026-01-16T11:00:00Z"
	s, err = Step(s, p, ev)
	require.NoError(t, err)
	assert.Equal(t, state.Deliver, s.Phase)
	assert.Equal(t, &state.Outcome{Result: state.ResultLimited, At: "2026-01-16T11:00:00Z", Missing: []string{"R1", "S1", "S2"}, Limitations: "one source"}, s.Outcome)

	for _, in := range []Intent{
		{Action: Work, Unit: "S1"}, {Action: Work}, {Action: Start, Unit: "S2"}, {Action: Finish, Unit: "S1"},
		{Action: Block, Unit: "S2", Reason: "x"}, {Action: Fail, Unit: "S2", Reason: "x"}, {Action: Skip, Unit: "S2", Reason: "x"},
		{Action: Reopen, Unit: "S1", Reason: "x"}, {Action: Unblock, Unit: "S2"},
	} {
		_, err := Decide(s, p, in)
		r := refusalOf(t, err)
		assert.Equal(t, Concluded, r.Code, "%+v", in)
		assert.Contains(t, r.Error(), "the task is concluded, done with limitations (missing R1, S1, S2) since 2026-01-16T11:00:00Z: one source; nothing was recorded")
		assert.Contains(t, r.Error(), "`itr resume`")
	}
	assert.Empty(t, Accepted(s, p, Situation{}, Work))
	_, err = DecidePause(s, true, "review")
	assert.Equal(t, Concluded, refusalOf(t, err).Code)

	resume, err := DecidePause(s, false, "")
	require.NoError(t, err)
	assert.Equal(t, progresslog.KindResumed, resume.Kind)
	back, err := Step(s, p, resume)
	require.NoError(t, err)
	assert.Nil(t, back.Outcome)
	assert.Equal(t, state.Execute, back.Phase, "a delivered task goes back to execute")
	_, err = DecidePause(back, false, "")
	assert.Equal(t, NotPaused, refusalOf(t, err).Code)
	assert.Contains(t, refusalOf(t, err).Error(), "neither paused nor concluded")

	// Concluding ends a pause: the task is over.
	paused, err := DecidePause(back, true, "review")
	require.NoError(t, err)
	back, err = Step(back, p, paused)
	require.NoError(t, err)
	ev, err = DecideOutcome(back, p, Conclusion{Result: state.ResultAbandoned, Reason: "superseded"})
	require.NoError(t, err)
	back, err = Step(back, p, ev)
	require.NoError(t, err)
	assert.Nil(t, back.Paused)
	assert.Equal(t, state.Execute, back.Phase, "abandoning leaves the phase where the work stood")
}

// TestBudgetRefusal: every work request at the budget is refused for the
// budget, naming where it is written and both ways out.
func TestBudgetRefusal(t *testing.T) {
	p, err := plan.Parse(".claude/iterative/dr/plan.md", []byte(budgetPlan))
	require.NoError(t, err)
	s := Seed(nil, "dr", p)
	for i := 0; i < 3; i++ {
		s = stepIn(t, s, p, Intent{Action: Work, Unit: "S1", Signal: i < 2, Verified: i == 2, VerifiedBy: "review"})
	}
	s = stepIn(t, s, p, Intent{Action: Work, Unit: "S2"})
	for _, in := range []Intent{{Action: Work, Unit: "S2"}, {Action: Work}, {Action: Start, Unit: "R1"}, {Action: Work, Unit: "S1"}, {Action: Finish, Unit: "S2"}} {
		_, err := Decide(s, p, in)
		r := refusalOf(t, err)
		require.Equal(t, BudgetSpent, r.Code, "%+v", in)
		assert.Equal(t, `the task used all 4 of its iterations ("**Max total iterations:** 4" at .claude/iterative/dr/plan.md:3); nothing was recorded: `+
			"a person raises it at .claude/iterative/dr/plan.md:3 to go on (it counts at once; `itr plan` records it), or wraps up what exists with "+
			"`itr deliver limitations TEXT` (the outcome done with limitations: the unfinished units (R1, S2), and what TEXT says is missing)", r.Error())
		assert.Contains(t, r.Worded(func(f string) string { return "--" + f }), "`itr deliver --limitations TEXT`")
	}
	// Setting units aside stays possible: the budget holds work only.
	_, err = Decide(s, p, Intent{Action: Block, Unit: "S2", Reason: "x"})
	assert.NoError(t, err)

	a := AdviseIn(s, p, Situation{})
	require.NotNil(t, a.Hold)
	assert.Equal(t, BudgetSpent, a.Hold.Code)
	assert.Equal(t, MoveRaiseBudget, a.Move)
	ev, err := DecideOutcome(s, p, Conclusion{Result: state.ResultLimited, Limitations: "one source only"})
	require.NoError(t, err, "the offered deliver is accepted")
	s, err = Step(s, p, ev)
	require.NoError(t, err)
	a = AdviseIn(s, p, Situation{})
	require.NotNil(t, a.Hold)
	assert.Equal(t, Concluded, a.Hold.Code, "delivered: held as concluded, not as spent")
	assert.Equal(t, MoveArchive, a.Move)
	assert.Equal(t, []Offer{{Op: OpArchive, For: MoveArchive}, {Op: OpResume, For: MoveResume, Person: true}}, a.Offers)
}

// TestArchivedOutcome: an Archived entry gives a task without an outcome
// the one it says, complete, or abandoned when forced; a task with one
// keeps it; a restore takes it away.
func TestArchivedOutcome(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before *state.Outcome
		fields []string
		want   *state.Outcome
	}{
		{name: "plain", want: &state.Outcome{Result: state.ResultComplete, At: "2026-01-16T12:00:00Z"}},
		{name: "forced, before itr had outcomes", fields: []string{"Forced", "no longer needed", "Unfinished", "T2 (pending), T3 (failed: x)"},
			want: &state.Outcome{Result: state.ResultAbandoned, At: "2026-01-16T12:00:00Z", Reason: "no longer needed", Missing: []string{"T2", "T3"}}},
		{name: "its outcome field", fields: []string{"Outcome", "complete"}, want: &state.Outcome{Result: state.ResultComplete, At: "2026-01-16T12:00:00Z"}},
		{name: "an outcome before wins", before: &state.Outcome{Result: state.ResultFailed, Reason: "gone"}, fields: []string{"Outcome", "failed", "Forced", "x"},
			want: &state.Outcome{Result: state.ResultFailed, Reason: "gone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Seed(nil, "t", nil)
			s.Outcome = tc.before
			ev, err := EventFrom(entry(progresslog.KindArchived, "", 0, "2026-01-16T12:00:00Z", tc.fields...), nil)
			require.NoError(t, err)
			s, err = Step(s, nil, ev)
			require.NoError(t, err)
			assert.Equal(t, state.Complete, s.Phase)
			assert.Equal(t, tc.want, s.Outcome)
			restored, err := EventFrom(entry(progresslog.KindRestored, "", 0, "2026-01-17T12:00:00Z"), nil)
			require.NoError(t, err)
			s, err = Step(s, nil, restored)
			require.NoError(t, err)
			assert.Nil(t, s.Outcome)
			assert.Equal(t, state.Execute, s.Phase)
		})
	}
}

// TestConcludedEntries: what a Concluded entry says, read; what it gets
// wrong, named.
func TestConcludedEntries(t *testing.T) {
	ev, err := EventFrom(entry(progresslog.KindConcluded, "", 0, "2026-01-16T12:00:00Z",
		"Outcome", "Done with limitations", "Missing", "S2 (pending), R1 (failed: gone), not an id", "Limitations", "one source"), nil)
	require.NoError(t, err)
	assert.Equal(t, state.ResultLimited, ev.Result)
	assert.Equal(t, []string{"S2", "R1"}, ev.Missing)
	assert.Equal(t, "one source", ev.Limitations)

	ev, err = EventFrom(entry(progresslog.KindConcluded, "", 0, "2026-01-16T12:00:00Z", "Outcome", "failed", "Kind", "weather", "Reason", "x"), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"weather" is not a failure kind`)
	assert.Equal(t, progresslog.KindConcluded, ev.Kind, "the outcome still counts")

	ev, err = EventFrom(entry(progresslog.KindConcluded, "", 0, "2026-01-16T12:00:00Z"), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `**Outcome:** "" is not an outcome (one of complete, done with limitations, abandoned, failed)`)
	assert.Equal(t, progresslog.KindOther, ev.Kind, "not applied")
}

func TestDiffOutcome(t *testing.T) {
	a := Seed(nil, "t", nil)
	b := a.Clone()
	b.Outcome = &state.Outcome{Result: state.ResultAbandoned, Reason: "x"}
	d := Diff(a, b, nil)
	require.Len(t, d, 1)
	assert.Equal(t, "outcome", d[0].Field)
	assert.Equal(t, "absent", d[0].Recorded)
	assert.Empty(t, Diff(b, b.Clone(), nil))
}

func TestConcludedEntryRoundTrip(t *testing.T) {
	p := mustPlan(t, budgetPlan)
	s := Seed(nil, "dr", p)
	for _, c := range []Conclusion{
		{Result: state.ResultLimited, Limitations: "one source only\nno charts"},
		{Result: state.ResultFailed, Reason: "the API is gone", Kind: state.KindToolError},
		{Result: state.ResultAbandoned, Reason: "superseded"},
	} {
		ev, err := DecideOutcome(s, p, c)
		require.NoError(t, err)
		e := ConcludedEntry(ev, MissingText(s, p), "2026-01-16T12:00:00Z")
		data, err := progresslog.Append(nil, e)
		require.NoError(t, err)
		back := progresslog.Parse(data).Entries
		require.Len(t, back, 1)
		got, err := EventFrom(back[0], nil)
		require.NoError(t, err)
		ev.Time, ev.Line = "2026-01-16T12:00:00Z", got.Line
		assert.Equal(t, ev, got, "the entry reads back as the event: %s", data)
		assert.Contains(t, string(data), "**Missing:** R1 (pending), S1 (pending), S2 (pending)")
	}
}

func TestOutcomeOf(t *testing.T) {
	s := Seed(nil, "t", nil)
	assert.Nil(t, OutcomeOf(nil, nil))
	assert.Nil(t, OutcomeOf(s, func() []progresslog.Entry { panic("not read while running") }), "running")
	s.Phase = state.Complete
	old := []progresslog.Entry{entry(progresslog.KindArchived, "", 0, "2026-01-16T12:00:00Z", "Forced", "gone", "Unfinished", "T2 (pending)")}
	assert.Equal(t, &state.Outcome{Result: state.ResultAbandoned, At: "2026-01-16T12:00:00Z", Reason: "gone", Missing: []string{"T2"}}, OutcomeOf(s, func() []progresslog.Entry { return old }),
		"archived before itr had outcomes: its Archived entry says")
	s.Outcome = &state.Outcome{Result: state.ResultFailed}
	assert.Equal(t, s.Outcome, OutcomeOf(s, func() []progresslog.Entry { return old }))
}
