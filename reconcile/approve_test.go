package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

const approvalPlan = "# M\n\n**Approval:** required\n\n## Tasks\n\n- [ ] **R1**: a\n  - Output: outputs/a.md\n- [ ] **R2**: b\n  - Depends: R1\n  - Inputs: R1.output\n- [ ] **R3**: c\n"

// TestApprovalGate: a plan that asks for approval takes no unit work until
// it has one; setting a unit aside stays open; the advice holds the task
// and offers approve, a person's act; a second approval is refused.
func TestApprovalGate(t *testing.T) {
	p := mustPlan(t, approvalPlan)
	s := Seed(nil, "m", p)

	for _, a := range []Action{Work, Start, Finish} {
		_, err := Decide(s, p, Intent{Action: a, Unit: "R1"})
		var r *Refusal
		require.ErrorAs(t, err, &r)
		assert.Equal(t, NeedsApproval, r.Code)
		assert.Equal(t, 3, r.Line, "the Approval line of the plan")
	}
	_, err := Decide(s, p, Intent{Action: Work, Unit: "R1"})
	assert.EqualError(t, err, "the plan asks for approval before any unit work (\"**Approval:** required\" at tasks.md:3) and nobody has approved it; nothing was recorded: a person reads tasks.md and approves it with `itr approve by WHO`")
	_, err = Decide(s, p, Intent{Action: Block, Unit: "R3", Reason: "later"})
	assert.NoError(t, err, "a block is not work")

	a := AdviseIn(s, p, Situation{})
	require.NotNil(t, a.Hold)
	assert.Equal(t, NeedsApproval, a.Hold.Code)
	assert.True(t, a.Hold.Person)
	assert.Equal(t, OpApprove, a.Hold.Clear)
	assert.Equal(t, MoveApprove, a.Move)
	assert.Equal(t, []Offer{{Op: OpApprove, For: MoveApprove, Person: true}}, a.Offers)
	assert.Empty(t, Accepted(s, p, Situation{}, Work))

	ev, err := DecideApprove(s, p, "maria", "scope looks right")
	require.NoError(t, err)
	assert.Equal(t, progresslog.KindApproved, ev.Kind)
	ev.Time = "2026-01-14T10:30:00Z"
	s, err = Step(s, p, ev)
	require.NoError(t, err)
	assert.Equal(t, &state.Approval{By: "maria", At: "2026-01-14T10:30:00Z", Note: "scope looks right"}, s.Approval)

	_, err = Decide(s, p, Intent{Action: Work, Unit: "R1"})
	assert.NoError(t, err, "approved: work goes on")
	a = AdviseIn(s, p, Situation{})
	assert.Nil(t, a.Hold)
	assert.Equal(t, MoveStart, a.Move)

	_, err = DecideApprove(s, p, "bob", "")
	assert.EqualError(t, err, "the plan was already approved by maria (2026-01-14T10:30:00Z); nothing was recorded")
	_, err = DecideApprove(Seed(nil, "m", mustPlan(t, "# M\n\n## Tasks\n\n- [ ] **R1**: a\n")), mustPlan(t, "# M\n\n## Tasks\n\n- [ ] **R1**: a\n"), "bob", "")
	assert.EqualError(t, err, "tasks.md asks for no approval; nothing was recorded: to gate the work on one, add \"**Approval:** required\" to its header")

	// The approval stays when the plan changes, and without the line
	// there is no gate at all.
	_, err = Decide(Seed(nil, "m", p), mustPlan(t, "# M\n\n**Approval:** none\n\n## Tasks\n\n- [ ] **R1**: a\n"), Intent{Action: Work, Unit: "R1"})
	assert.NoError(t, err)
}

// TestRecheck: only a done unit is re-checked; it stays done; a stale
// input is offered a re-check and a reopen, the re-check first.
func TestRecheck(t *testing.T) {
	p := mustPlan(t, "# M\n\n## Tasks\n\n- [ ] **R1**: a\n  - Output: outputs/a.md\n- [ ] **R2**: b\n  - Depends: R1\n  - Inputs: R1.output\n- [ ] **R3**: c\n")
	s := withStatus(Seed(nil, "m", p), map[string]state.Status{"R1": state.Done, "R2": state.Done})
	ev, err := Decide(s, p, Intent{Action: Recheck, Unit: "R2", Reason: "read the new survey"})
	require.NoError(t, err)
	assert.Equal(t, progresslog.KindRechecked, ev.Kind)
	next, err := Step(s, p, ev)
	require.NoError(t, err)
	assert.Equal(t, state.Done, next.Units["R2"].Status)

	_, err = Decide(s, p, Intent{Action: Recheck, Unit: "R3"})
	assert.EqualError(t, err, "unit R3 is pending, not done: only a done unit is re-checked; nothing was recorded (a unit under way records its work with `itr checkpoint R3`)")

	a := AdviseIn(s, p, Situation{StaleInputs: map[string][]string{"R2": {"outputs/a.md"}}})
	require.GreaterOrEqual(t, len(a.Offers), 2)
	assert.Equal(t, Offer{Op: OpRecheck, Unit: "R2", Intent: Intent{Action: Recheck, Unit: "R2"}, For: MoveRecheck}, a.Offers[0])
	assert.Equal(t, OpReopen, a.Offers[1].Op)
	assert.Equal(t, MoveRecheck, a.Move)
	assert.Equal(t, "R2", a.MoveUnit)
}

// TestVerifyPhaseOffered: with every unit settled in execute, the move is
// to verify, one command the rule book accepts; in verify it is archive.
func TestVerifyPhaseOffered(t *testing.T) {
	p := mustPlan(t, "# M\n\n## Tasks\n\n- [ ] **R1**: a\n- [ ] **R2**: b\n")
	s := withStatus(Seed(nil, "m", p), map[string]state.Status{"R1": state.Done, "R2": state.Skipped})
	s.Phase = state.Execute
	a := AdviseIn(s, p, Situation{})
	assert.Equal(t, MoveVerifyTask, a.Move)
	require.NotEmpty(t, a.Offers)
	assert.Equal(t, Offer{Op: OpPhase, Phase: state.Verify, For: MoveVerifyTask}, a.Offers[0])
	assert.True(t, hasOp(a.Offers, OpArchive), "archive stays on offer")

	s.Phase = state.Verify
	a = AdviseIn(s, p, Situation{})
	assert.Equal(t, MoveArchive, a.Move)
	assert.False(t, hasOp(a.Offers, OpPhase))
}

// withStatus sets the units' statuses in s.
func withStatus(s *state.State, st map[string]state.Status) *state.State {
	for id, v := range st {
		s.Units[id].Status = v
	}
	return s
}
