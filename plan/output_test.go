package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutputKeys(t *testing.T) {
	p, err := Parse("plan.md", doc("## Phases",
		"- [ ] **R1**: review", "  - Output: `outputs/review.md` (the review), `outputs/notes.md`", "  - Min words: `300`", "  - Complete: Sentences",
		"- [ ] **R2**: memos", "  - Output: outputs/a.md, outputs/b.md,outputs/a.md", "- [ ] **R3**: sources", "  - Output: `sources/`"))
	require.NoError(t, err)
	r1, r2, r3 := p.Unit("R1"), p.Unit("R2"), p.Unit("R3")
	assert.Equal(t, []string{"outputs/review.md", "outputs/notes.md"}, r1.Outputs())
	assert.Equal(t, 300, r1.MinWords)
	assert.Equal(t, "sentences", r1.Complete)
	assert.Equal(t, []string{"outputs/a.md", "outputs/b.md"}, r2.OutputFiles())
	assert.Equal(t, 0, r2.MinWords)
	assert.Equal(t, []string{"sources/"}, r3.Outputs())
	assert.Empty(t, r3.OutputFiles())
	assert.Contains(t, string(p.Render()), "  - Min words: 300\n  - Complete: sentences\n")
}

func TestOutputKeyErrors(t *testing.T) {
	tests := []struct {
		item, want string
	}{
		{"  - Min words: 0", `plan.md:3: R1: min words "0" is not a positive whole number`},
		{"  - Min words: many", `plan.md:3: R1: min words "many" is not a positive whole number`},
		{"  - Complete: words", `plan.md:3: R1: Complete "words" is not known`},
		{"  - Output: `../secret.md`", `plan.md:3: R1: Output names "../secret.md"; write a relative path without`},
		{"  - Output: /etc/passwd", `plan.md:3: R1: Output names "/etc/passwd"`},
		{"  - Min words: {N}", `plan.md:3: R1: "{N}" is still template text`},
	}
	for _, tt := range tests {
		_, err := Parse("plan.md", doc("## Phases", "- [ ] **R1**: review", tt.item))
		require.Error(t, err, tt.item)
		assert.Contains(t, err.Error(), tt.want)
	}
}
