package reconcile

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

func TestCheckOutputs(t *testing.T) {
	p, err := plan.Parse("plan.md", []byte("## Phases\n- [ ] **R1**: review\n  - Output: `outputs/review.md`, `sources/`\n  - Min words: 3\n- [ ] **R2**: no output\n"))
	require.NoError(t, err)
	signal := Event{Kind: progresslog.KindIteration, Unit: "R1", Signal: "R1_DONE"}
	verified := Event{Kind: progresslog.KindIteration, Unit: "R1", Verification: "passed"}
	work := Event{Kind: progresslog.KindIteration, Unit: "R1"}
	failed := Event{Kind: progresslog.KindIteration, Unit: "R1", Verification: "failed"}

	assert.True(t, Closing(signal))
	assert.True(t, Closing(verified))
	assert.False(t, Closing(work))
	assert.False(t, Closing(failed))

	spec, ok := OutputSpec(p, "R1")
	require.True(t, ok)
	assert.Equal(t, evidence.Spec{Files: []string{"outputs/review.md"}, MinWords: 3}, spec)
	_, ok = OutputSpec(p, "R2")
	assert.False(t, ok)

	for _, ev := range []Event{signal, verified} {
		err := CheckOutputs(p, ev, state.InProgress, nil)
		var r *Refusal
		require.True(t, errors.As(err, &r))
		assert.Equal(t, OutputBad, r.Code)
		assert.Equal(t, []evidence.Problem{{File: "outputs/review.md", Rule: evidence.Missing}}, r.Outputs)
		assert.Contains(t, r.Error(), "unit R1 cannot move toward done (nothing was recorded): 1 output problem:\n  outputs/review.md: missing — write the file")
	}
	assert.NoError(t, CheckOutputs(p, work, state.InProgress, nil), "work toward done is not checked")
	assert.NoError(t, CheckOutputs(p, failed, state.Verifying, nil), "a failed verification is always recorded")
	assert.NoError(t, CheckOutputs(p, signal, state.InProgress, map[string][]byte{"outputs/review.md": []byte("Three good words.")}))
	assert.NoError(t, CheckOutputs(p, Event{Kind: progresslog.KindIteration, Unit: "R2", Signal: "R2_DONE"}, state.InProgress, nil))
	assert.NoError(t, CheckOutputs(nil, signal, state.InProgress, nil))
}
