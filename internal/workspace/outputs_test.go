package workspace

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/reconcile"
)

// rulesTasks is a plan whose T1 declares output rules and whose T2 has an
// output with no Max size.
const rulesTasks = `# Demo - Tasks

## Tasks

- [ ] **T1**: Write the memo
  - Output: ` + "`outputs/memo.md`" + `
  - Truncation markers: [DRAFT
  - Must end with: END OF MEMORANDUM
  - Sections: Summary, Risks
  - Max size: 1 KB
- [ ] **T2**: Write the survey
  - Output: ` + "`outputs/survey.md`" + `
`

// TestGateOutputRules: the gate refuses each output that breaks a rule
// its plan declares, naming the file, the rule and the fix, and changes
// nothing; an output over what an agent reads whole passes, and the
// record says so.
func TestGateOutputRules(t *testing.T) {
	isolate(t)
	r := newRepo(t)
	r.initPlan(rulesTasks)
	memo, survey := demoDir+"/outputs/memo.md", demoDir+"/outputs/survey.md"
	good := "## Summary\n\nThe deal holds.\n\n## Risks\n\nNone that matter.\n\nEND OF MEMORANDUM\n"
	tests := []struct {
		name, text string
		rule       evidence.Rule
	}{
		{"custom marker", "## Summary\n\nx\n\n## Risks\n\nThe deal [DRAFT: finish\n\nEND OF MEMORANDUM\n", evidence.Truncated},
		{"no footer", "## Summary\n\nThe deal holds.\n\n## Risks\n\nNone.\n", evidence.NoFooter},
		{"no section", "## Summary\n\nThe deal holds.\n\nEND OF MEMORANDUM\n", evidence.NoSections},
		{"too big", good[:len(good)-18] + strings.Repeat("More words here. ", 80) + "\n\nEND OF MEMORANDUM\n", evidence.TooBig},
	}
	for _, tt := range tests {
		r.write(memo, tt.text)
		before := r.snap()
		_, err := r.open().Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "memo", Signal: true})
		var ref *reconcile.Refusal
		require.True(t, errors.As(err, &ref), "%s: %v", tt.name, err)
		assert.Equal(t, reconcile.OutputBad, ref.Code, tt.name)
		require.Len(t, ref.Outputs, 1, "%s: %v", tt.name, ref.Outputs)
		assert.Equal(t, tt.rule, ref.Outputs[0].Rule, tt.name)
		assert.Contains(t, err.Error(), "outputs/memo.md: "+string(tt.rule), tt.name)
		assert.Contains(t, err.Error(), ref.Outputs[0].Fix(), tt.name)
		r.unchanged(before)
	}
	r.write(memo, good)
	out := r.checkpoint(CheckpointRequest{Unit: "T1", Did: "memo", Signal: true})
	assert.Empty(t, out.Warnings)

	r.write(survey, strings.Repeat("A line of the survey.\n", evidence.DefaultWarnBytes/20))
	out = r.checkpoint(CheckpointRequest{Unit: "T2", Did: "survey", Signal: true})
	require.Len(t, out.Warnings, 1, "%v", out.Warnings)
	assert.Contains(t, out.Warnings[0], "T2: outputs/survey.md: large (")
	assert.Contains(t, out.Warnings[0], "an agent cannot read it whole")
	r.checkGit()
}
