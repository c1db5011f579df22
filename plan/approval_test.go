package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApprovalRequired(t *testing.T) {
	for _, c := range []struct {
		header string
		want   bool
	}{
		{"**Approval:** required", true},
		{"**Approval:** Required", true},
		{"**Approval**: yes", true},
		{"**Approval:** none", false},
		{"**Approval:** not required", false},
		{"", false},
	} {
		p, err := Parse("plan.md", []byte("# R\n\n"+c.header+"\n\n## Phases\n\n- [ ] **R1**: a\n"))
		require.NoError(t, err, c.header)
		assert.Equal(t, c.want, p.ApprovalRequired(), c.header)
	}
	var nilPlan *Plan
	assert.False(t, nilPlan.ApprovalRequired())
	_, err := Parse("plan.md", []byte("# R\n\n**Approval:** maybe\n\n## Phases\n\n- [ ] **R1**: a\n"))
	assert.EqualError(t, err, `plan.md:3: Approval "maybe" is not a value itr reads; write "**Approval:** required" (no unit work before `+"`itr approve --by WHO`"+`) or "**Approval:** none", or delete the line`)
}
