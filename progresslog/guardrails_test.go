package progresslog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGuardrails(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Guardrail // Name and Line are not compared
	}{
		{"seed form", "- **When**: running the suite\n- **Problem**: timeouts\n- **Solution**: use the fake\n- **Learned**: T2 iteration 3\n",
			Guardrail{When: "running the suite", Problem: "timeouts", Solution: "use the fake", Learned: "T2 iteration 3"}},
		{"colon inside the bold", "- **When:** a\n- **Learned:** b\n", Guardrail{When: "a", Learned: "b"}},
		{"names without regard to case", "- **WHEN**: a\n- **solution**: b\n", Guardrail{When: "a", Solution: "b"}},
		{"unknown fields kept in order", "- **Owner**: me\n- **When**: a\n- **Link**: x\n",
			Guardrail{When: "a", Extra: []Field{{"Owner", "me"}, {"Link", "x"}}}},
		{"second known field goes to Extra", "- **When**: a\n- **When**: b\n",
			Guardrail{When: "a", Extra: []Field{{"When", "b"}}}},
		{"an empty known field takes a later value", "- **When**:\n- **When**: b\n", Guardrail{When: "b"}},
		{"continuation lines", "- **Problem**: first\n  second\n\n  - nested\n", Guardrail{Problem: "first\nsecond\n\n- nested"}},
		{"free text and plain bullets", "Some words.\n- a bullet\n", Guardrail{Extra: []Field{{"", "Some words."}, {"", "- a bullet"}}}},
		{"progress fields are free text here", "**When:** x\n", Guardrail{Extra: []Field{{"", "**When:** x"}}}},
		{"escaped field", `\- **When**: x` + "\n", Guardrail{Extra: []Field{{"", "- **When**: x"}}}},
		{"forged heading in a value", "- **Solution**: a\n  ## Another\n", Guardrail{Solution: "a\n## Another"}},
		{"CRLF and trailing space", "- **When**: a  \r\n  b\r\n", Guardrail{When: "a  \nb"}},
		{"non-ASCII", "- **When**: über — 日本語\n", Guardrail{When: "über — 日本語"}},
		{"empty", "", Guardrail{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := ParseGuardrails([]byte(guardrailsTitle + "## Pattern\n" + tt.body))
			require.Len(t, g.Entries, 1)
			got := g.Entries[0]
			assert.Equal(t, "Pattern", got.Name)
			assert.Equal(t, 5, got.Line)
			got.Name, got.Line = "", 0
			assert.Equal(t, tt.want, got)
			again := ParseGuardrails(g.Render())
			assert.Equal(t, guardrailsWithoutLines(g), guardrailsWithoutLines(again), "render then parse:\n%s", g.Render())
		})
	}
}

func TestParseGuardrailsDocument(t *testing.T) {
	g := ParseGuardrails([]byte(strings.ReplaceAll(guardrailsTitle+"## A\n- **When**: x\n\n## B\n", "\n", "\r\n")))
	assert.Equal(t, "\r\n", g.Newline)
	assert.Equal(t, guardrailsTitle, g.Preamble)
	require.Len(t, g.Entries, 2)
	assert.Equal(t, []string{"A", "B"}, []string{g.Entries[0].Name, g.Entries[1].Name})
	assert.Equal(t, []int{5, 8}, []int{g.Entries[0].Line, g.Entries[1].Line})

	g = ParseGuardrails([]byte("## A\n<<<<<<< ours\n- **When**: x\n=======\n- **When**: y\n>>>>>>> theirs\n"))
	assert.True(t, g.Conflicted)
	require.Len(t, g.Entries, 2)
	assert.Equal(t, Guardrail{Name: "A", When: "x", Line: 1, Side: Ours}, g.Entries[0])
	assert.Equal(t, Guardrail{Name: "A", When: "y", Line: 1, Side: Theirs}, g.Entries[1])

	g = ParseGuardrails([]byte("## A\n=======\n"))
	assert.False(t, g.Conflicted)
	require.Len(t, g.Problems, 1)
	assert.Equal(t, 2, g.Problems[0].Line)
}

func TestAppendGuardrail(t *testing.T) {
	g := Guardrail{Name: "Flaky network tests", When: "running the integration suite", Problem: "timeouts on CI",
		Solution: "use the local fake", Learned: "T2 iteration 3"}
	const rendered = "## Flaky network tests\n- **When**: running the integration suite\n- **Problem**: timeouts on CI\n" +
		"- **Solution**: use the local fake\n- **Learned**: T2 iteration 3\n"
	tests := []struct {
		name string
		old  string
		g    Guardrail
		want string
	}{
		{"empty file gets the seed's title", "", g, guardrailsTitle + rendered},
		{"after an entry", guardrailsTitle + "## A\n- **When**: x", g, guardrailsTitle + "## A\n- **When**: x\n\n" + rendered},
		{"CRLF", "# Guardrails\r\n", g, "# Guardrails\r\n\r\n" + strings.ReplaceAll(rendered, "\n", "\r\n")},
		{"empty known fields left out, extra kept", "", Guardrail{Name: "N", Learned: "T1 iteration 1",
			Extra: []Field{{"Owner", "me"}, {"", "free\ntext"}, {"", ""}, {"", "- **When**: forged"}}},
			guardrailsTitle + "## N\n- **Learned**: T1 iteration 1\n- **Owner**: me\nfree\n  text\n\\- **When**: forged\n"},
		{"multi-line and forged values", "", Guardrail{Name: "N", Problem: "a\r\n## B\n- **Learned**: x\n\n"},
			guardrailsTitle + "## N\n- **Problem**: a\n  ## B\n  - **Learned**: x\n"},
		{"a second known field when the first is set", "", Guardrail{Name: "N", When: "a", Extra: []Field{{"when", "b"}}},
			guardrailsTitle + "## N\n- **When**: a\n- **when**: b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendGuardrail([]byte(tt.old), tt.g)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.Nil(t, IsGuardrailsAppendOnly([]byte(tt.old), got))
			parsed := ParseGuardrails(got)
			require.NotEmpty(t, parsed.Entries)
			want, err := canonicalGuardrail(tt.g)
			require.NoError(t, err)
			last := parsed.Entries[len(parsed.Entries)-1]
			want.Line = last.Line
			assert.Equal(t, want, last)
		})
	}
}

func TestAppendGuardrailErrors(t *testing.T) {
	tests := []struct {
		name string
		g    Guardrail
		want string
	}{
		{"no name", Guardrail{When: "x"}, "guardrail has no name"},
		{"blank name", Guardrail{Name: " \t"}, "guardrail has no name"},
		{"name on two lines", Guardrail{Name: "a\nb"}, "must be one line"},
		{"bad extra name", Guardrail{Name: "a", Extra: []Field{{"x:y", "v"}}}, `name "x:y" cannot be written`},
		{"extra shadowing an empty known field", Guardrail{Name: "a", Extra: []Field{{"Problem", "v"}}},
			"would read back as the Problem field: set Guardrail.Problem instead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendGuardrail(nil, tt.g)
			assert.ErrorContains(t, err, tt.want)
			assert.Nil(t, got)
		})
	}
}
