package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutputRules(t *testing.T) {
	p, err := Parse("plan.md", doc("# Memos",
		"**Truncation markers:** [DRAFT]",
		"**Max size:** 1 MB",
		"## Phases",
		"- [ ] **L1**: memo",
		"  - Output: `outputs/memo.md`",
		"  - Truncation markers: `[cut`, WIP",
		"  - Must end with:",
		"    ---",
		"    END OF MEMORANDUM",
		"  - Sections: Summary, Risks, `Findings, open`",
		"  - Max size: 40 KB",
		"- [ ] **L2**: section",
		"  - Output: `outputs/s.md`",
		"  - Truncation markers: only [continue, [TBD]",
		"  - Must end with: `---` or `## Footnotes`",
		"- [ ] **L3**: plain",
		"  - Output: `outputs/p.md`",
		"  - Truncation markers: none",
		"  - Max size: none",
	))
	require.NoError(t, err)
	l1, l2, l3 := p.Unit("L1"), p.Unit("L2"), p.Unit("L3")

	assert.Equal(t, []string{"---\nEND OF MEMORANDUM"}, l1.Footers())
	assert.Equal(t, []string{"---", "## Footnotes"}, l2.Footers())
	assert.Nil(t, l3.Footers())
	assert.Equal(t, []string{"Summary", "Risks", "Findings, open"}, l1.SectionNames())

	base := []string{"...", "TODO"}
	apply := func(id string) []string {
		ms := base
		for _, l := range p.MarkerLists(id) {
			ms = l.Apply(ms)
		}
		return ms
	}
	assert.Equal(t, []string{"...", "TODO", "[DRAFT]", "[cut", "WIP"}, apply("L1"), "the header's, then the unit's, added to the defaults")
	assert.Equal(t, []string{"[continue", "[TBD]"}, apply("L2"), "only replaces")
	assert.Equal(t, []string{}, apply("L3"), "none leaves none")
	assert.Equal(t, []string{"...", "TODO"}, base, "Apply changes nothing it is given")

	s, ok := p.MaxSizeOf("L1")
	assert.True(t, ok)
	assert.Equal(t, Size{Bytes: 40 << 10, Text: "40 KB"}, s)
	s, ok = p.MaxSizeOf("L2")
	assert.True(t, ok)
	assert.Equal(t, Size{Bytes: 1 << 20, Text: "1 MB"}, s, "the header's")
	s, ok = p.MaxSizeOf("L3")
	assert.True(t, ok)
	assert.True(t, s.None)

	// Round trip.
	q, err := Parse("plan.md", p.Render())
	require.NoError(t, err)
	assert.Equal(t, shape(p), shape(q))
	assert.Equal(t, string(p.Render()), string(q.Render()))

	var none *Plan
	assert.Nil(t, none.MarkerLists("L1"))
	_, ok = none.MaxSizeOf("L1")
	assert.False(t, ok)
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in    string
		bytes int64
		ok    bool
	}{
		{"40 KB", 40 * 1024, true},
		{"40kb", 40 * 1024, true},
		{"`40 KiB`", 40 * 1024, true},
		{"1.5 MB", 3 << 19, true},
		{"512 B", 512, true},
		{"1 byte", 1, true},
		{"25000 tokens", 100000, true},
		{"25,000 tokens", 100000, true},
		{"25k tokens", 100000, true},
		{"1 token", 4, true},
		{"none", 0, true},
		{"40000", 0, false},
		{"40 KBs", 0, false},
		{"40 k", 0, false},
		{"25k KB", 0, false},
		{"0 KB", 0, false},
		{"0.1 B", 0, false},
		{"-3 KB", 0, false},
		{"2000000 MB", 0, false},
		{"1,00 KB", 0, false},
		{"", 0, false},
		{"40\nKB", 0, false},
	}
	for _, tt := range tests {
		s, ok := ParseSize(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.bytes, s.Bytes, tt.in)
	}
}

func TestParseMarkers(t *testing.T) {
	l, ok := ParseMarkers("[DRAFT], [cut")
	assert.True(t, ok)
	assert.Equal(t, MarkerList{Markers: []string{"[DRAFT]", "[cut"}}, l)
	l, ok = ParseMarkers("only: `...`, `[TBD]`")
	assert.True(t, ok)
	assert.Equal(t, MarkerList{Replace: true, Markers: []string{"...", "[TBD]"}}, l)
	l, ok = ParseMarkers("onlyness")
	assert.True(t, ok)
	assert.Equal(t, MarkerList{Markers: []string{"onlyness"}}, l)
	_, ok = ParseMarkers("only")
	assert.False(t, ok)
	_, ok = ParseMarkers(" , ")
	assert.False(t, ok)
}

func TestOutputRuleErrors(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"bad unit", []string{"  - Max size: 40 KBs"}, `plan.md:3: L1: Max size "40 KBs" is not a size; write a number and a unit, such as "Max size: 40 KB" (B, KB or MB; a KB is 1,024 bytes) or "Max size: 25000 tokens" (a token is taken as 4 bytes), or "Max size: none" for no limit`},
		{"no unit", []string{"  - Max size: 40000"}, `plan.md:3: L1: Max size "40000" is not a size`},
		{"no markers", []string{"  - Truncation markers: only"}, `plan.md:3: L1: Truncation markers "only" declares no marker; write the endings`},
		{"empty footer", []string{"  - Must end with:"}, `plan.md:3: L1: Must end with is empty; write the text each output ends with`},
		{"no sections", []string{"  - Sections: #, ##"}, `plan.md:3: L1: Sections "#, ##" names no heading; write the headings`},
		{"twice", []string{"  - Max size: 4 KB", "  - max size: 5 KB"}, `plan.md:4: L1: "Max size" is given twice (first on line 3); keep one`},
		{"template", []string{"  - Max size: {size}"}, `plan.md:3: L1: "{size}" is still template text; write a number and a unit`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := append([]string{"## Phases", "- [ ] **L1**: memo"}, tt.lines...)
			_, err := Parse("plan.md", doc(lines...))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Parse("plan.md", doc("**Max size:** huge", "## Phases", "- [ ] **L1**: memo"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `plan.md:1: Max size "huge" is not a size; write a number and a unit, such as "**Max size:** 40 KB"`)
	_, err = Parse("plan.md", doc("**Truncation markers:** only", "## Phases", "- [ ] **L1**: memo"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `plan.md:1: Truncation markers "only" declares no marker; write the endings that mean the text breaks off, separated by commas, such as "**Truncation markers:** [DRAFT], [cut"`)
}
