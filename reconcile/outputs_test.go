package reconcile

import (
	"errors"
	"strings"
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
	assert.Equal(t, evidence.Spec{Files: []string{"outputs/review.md"}, MinWords: 3, WarnBytes: evidence.DefaultWarnBytes}, spec)
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

func TestOutputSpecRules(t *testing.T) {
	p, err := plan.Parse("plan.md", []byte(`**Truncation markers:** [DRAFT]

## Phases

- [ ] **L1**: memo
  - Output: `+"`outputs/memo.md`"+`
  - Truncation markers: [cut
  - Must end with: END OF MEMORANDUM
  - Sections: Summary, Risks
  - Max size: 1 KB
- [ ] **L2**: plain
  - Output: `+"`outputs/plain.md`"+`
  - Truncation markers: only [TBD]
  - Max size: none
`))
	require.NoError(t, err)
	spec, ok := OutputSpec(p, "L1")
	require.True(t, ok)
	assert.Equal(t, evidence.Spec{Files: []string{"outputs/memo.md"},
		Markers: append(append([]string{}, evidence.DefaultMarkers...), "[DRAFT]", "[cut"),
		Footers: []string{"END OF MEMORANDUM"}, Sections: []string{"Summary", "Risks"},
		MaxBytes: 1024, MaxText: "1 KB"}, spec)
	spec, ok = OutputSpec(p, "L2")
	require.True(t, ok)
	assert.Equal(t, evidence.Spec{Files: []string{"outputs/plain.md"}, Markers: []string{"[TBD]"}}, spec, "none: no limit and no warning")

	signal := Event{Kind: progresslog.KindIteration, Unit: "L1", Signal: "L1_DONE"}
	good := "## Summary\n\nIt holds.\n\n## Risks\n\nNone.\n\nEND OF MEMORANDUM\n"
	warns, err := GateOutputs(p, signal, state.InProgress, map[string][]byte{"outputs/memo.md": []byte(good)})
	require.NoError(t, err)
	assert.Empty(t, warns)

	_, err = GateOutputs(p, signal, state.InProgress, map[string][]byte{"outputs/memo.md": []byte("## Summary\n\nIt holds [cut here]\n")})
	var r *Refusal
	require.True(t, errors.As(err, &r))
	var rules []evidence.Rule
	for _, o := range r.Outputs {
		rules = append(rules, o.Rule)
	}
	assert.Equal(t, []evidence.Rule{evidence.Truncated, evidence.NoFooter, evidence.NoSections}, rules)
	assert.Contains(t, r.Error(), `outputs/memo.md: sections (no heading "Risks") — add each missing section`)

	// Without a Max size, a large output passes with a warning.
	q, err := plan.Parse("plan.md", []byte("## Phases\n- [ ] **R1**: survey\n  - Output: `outputs/survey.md`\n"))
	require.NoError(t, err)
	big := []byte(strings.Repeat("Words of the survey. ", evidence.DefaultWarnBytes/20))
	warns, err = GateOutputs(q, Event{Kind: progresslog.KindIteration, Unit: "R1", Signal: "R1_DONE"}, state.InProgress, map[string][]byte{"outputs/survey.md": big})
	require.NoError(t, err)
	require.Len(t, warns, 1)
	assert.Equal(t, evidence.Large, warns[0].Rule)
	assert.Contains(t, OutputWarning("R1", warns[0]), "R1: outputs/survey.md: large (105,000 bytes, about 26,250 tokens (bytes/4), over the 25,000 an agent reads whole) — an agent cannot read it whole")
}
