package reconcile

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

// TestMissingInputs: a pending unit whose inputs are missing is not ready,
// is stuck with InputsMissing, and its start is refused by every action
// that would start it; a unit under way keeps going; without missing
// inputs the answers are those of AdviseHeld.
func TestMissingInputs(t *testing.T) {
	p := mustPlan(t, tasksMD)
	type St = map[string]state.Status
	s := view(t, nil, "")
	missing := Missing{"T1": {"sources/a.md", "outputs/b.md (T9.output)"}}

	assert.Equal(t, AdviseHeld(s, p, nil, nil), AdviseFor(s, p, nil, nil, nil))
	adv := AdviseFor(s, p, nil, nil, missing)
	assert.Equal(t, []string{"T4"}, adv.Ready)
	assert.Equal(t, "T4", adv.Unit)
	assert.Contains(t, stuckCodes(adv.Stuck), "T1 inputs-missing")

	for _, in := range []Intent{
		{Action: Work, Unit: "T1", Missing: missing},
		{Action: Start, Unit: "T1", Missing: missing},
	} {
		_, err := Decide(s, p, in)
		var r *Refusal
		require.True(t, errors.As(err, &r), "%v", err)
		assert.Equal(t, InputsMissing, r.Code)
		assert.Equal(t, "unit T1 cannot start: 2 of its inputs are missing (sources/a.md, outputs/b.md (T9.output)); finish the unit that writes them or add them, or change the unit's Inputs line in the plan", err.Error())
	}
	// With no unit named, the rule book picks one whose inputs are there.
	ev, err := Decide(s, p, Intent{Action: Work, Missing: missing})
	require.NoError(t, err)
	assert.Equal(t, "T4", ev.Unit)
	// Started before its inputs went missing: it goes on.
	s = view(t, St{"T1": state.InProgress}, "T1")
	_, err = Decide(s, p, Intent{Action: Work, Unit: "T1", Missing: missing})
	require.NoError(t, err)
	// Waiting on a dependency is said first: that is the step to take.
	s = view(t, nil, "")
	_, err = Decide(s, p, Intent{Action: Work, Unit: "T2", Missing: Missing{"T2": {"x.md"}}})
	var r *Refusal
	require.True(t, errors.As(err, &r))
	assert.Equal(t, WaitsFor, r.Code)
}
