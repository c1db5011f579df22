package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMetaLine(t *testing.T) {
	p, err := Parse("plan.md", []byte("# Research - Phases\n\n**Domain:** research\n**Max total iterations:** 4\n\n## Phases\n\n- [ ] **S1**: search\n"))
	require.NoError(t, err)
	n, ok := p.MetaCount(MetaMaxTotal)
	assert.True(t, ok)
	assert.Equal(t, 4, n)
	assert.Equal(t, 4, p.MetaLine(MetaMaxTotal))
	assert.Equal(t, 4, p.MetaLine("max total iterations"), "keys compare without case")
	assert.Equal(t, 0, p.MetaLine(MetaCheckIn), "absent")
	var none *Plan
	assert.Equal(t, 0, none.MetaLine(MetaMaxTotal))
	assert.Equal(t, 0, (&Plan{Meta: []Field{{Key: MetaMaxTotal, Value: "4"}}}).MetaLine(MetaMaxTotal), "built in code: no line")
}
