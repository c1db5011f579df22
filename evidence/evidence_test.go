package evidence

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	good := "The review covers twelve studies. It finds the effect holds.\n"
	tests := []struct {
		name string
		data string
		spec Spec
		want []Rule
	}{
		{"good", good, Spec{MinWords: 5, Sentences: true}, nil},
		{"zero bytes", "", Spec{MinWords: 5}, []Rule{Empty}},
		{"whitespace", " \n\t\n", Spec{}, []Rule{Empty}},
		{"ellipsis", "The review covers...\n", Spec{}, []Rule{Truncated}},
		{"unicode ellipsis", "The review covers…", Spec{}, []Rule{Truncated}},
		{"continued", "Part one.\n\n[Continued in the next message]\n", Spec{}, []Rule{Truncated}},
		{"tbd", "Findings: [TBD]\n", Spec{}, []Rule{Truncated}},
		{"todo", "## Conclusion\n\nTODO\n", Spec{}, []Rule{Truncated}},
		{"todo emphasised", "Conclusion: **TODO**", Spec{}, []Rule{Truncated}},
		{"word ending in todo", "We met in Toronto with Mr. Pitodo", Spec{}, nil},
		{"short", "Too short.", Spec{MinWords: 5}, []Rule{TooShort}},
		{"open fence", "Code:\n\n```go\nfunc main() {\n", Spec{}, []Rule{OpenFence}},
		{"closed fence", "Code:\n\n```go\nx\n```\n\nDone.", Spec{Sentences: true}, nil},
		{"tilde fence in backticks", "```\n~~~\n```\nEnd.", Spec{}, nil},
		{"unfinished sentence", "It finds the effect holds and", Spec{Sentences: true}, []Rule{OpenEnding}},
		{"quoted end", "He said \"it holds.\"", Spec{Sentences: true}, nil},
		{"bracketed end", "It holds (see table 2.)", Spec{Sentences: true}, nil},
		{"question", "Does it hold?", Spec{Sentences: true}, nil},
		{"sentences off", "It holds and", Spec{}, nil},
		{"several", "Short ...", Spec{MinWords: 3, Sentences: true}, []Rule{TooShort, Truncated}},
		{"cut mid-word", "It finds the eff", Spec{MinWords: 3, Sentences: true}, []Rule{OpenEnding}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Rule
			for _, p := range CheckFile("outputs/review.md", []byte(tt.data), tt.spec) {
				require.Equal(t, "outputs/review.md", p.File)
				got = append(got, p.Rule)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCheckMissingAndOrder(t *testing.T) {
	spec := Spec{Files: []string{"outputs/a.md", "outputs/b.md", "outputs/c.md"}, MinWords: 2}
	got := Check(spec, map[string][]byte{"outputs/a.md": []byte("fine words here."), "outputs/c.md": nil})
	require.Len(t, got, 2)
	assert.Equal(t, Problem{File: "outputs/b.md", Rule: Missing}, got[0])
	assert.Equal(t, Problem{File: "outputs/c.md", Rule: Empty, Detail: "0 bytes"}, got[1])
	assert.Equal(t, "outputs/c.md: empty (0 bytes)", got[1].String())
	assert.NotEmpty(t, got[0].Fix())
}

func TestWords(t *testing.T) {
	assert.Equal(t, 0, Words([]byte("# - * ---")))
	assert.Equal(t, 4, Words([]byte("# Title\n- one two, 3")))
}

// FuzzCheckFile checks that CheckFile never panics, names the file in every
// problem with a known rule and a fix, reports an empty file alone, and
// that a file passing every rule still passes with more words appended
// in front (the rules read only its end and its length).
func FuzzCheckFile(f *testing.F) {
	for _, s := range []string{"", " ", "Done.", "x...", "```\n", "```go\nx\n```\n", "TODO", "[continued", "a…", "He said \"so.\"", "\xff\xfe", "~~~\n```\n"} {
		f.Add([]byte(s), uint8(3), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, min uint8, sentences bool) {
		spec := Spec{MinWords: int(min), Sentences: sentences}
		ps := CheckFile("out.md", data, spec)
		for _, p := range ps {
			require.Equal(t, "out.md", p.File)
			require.NotEqual(t, "fix the output", p.Fix(), "unknown rule %q", p.Rule)
			require.True(t, utf8.ValidString(p.Detail) || !utf8.Valid(data), "detail %q", p.Detail)
			if p.Rule == Empty {
				require.Len(t, ps, 1)
				require.Empty(t, strings.TrimSpace(string(data)))
			}
		}
		if len(ps) == 0 && !strings.Contains(string(data), "```") && !strings.Contains(string(data), "~~~") {
			more := append([]byte("Word word.\n\n"), data...)
			require.Empty(t, CheckFile("out.md", more, spec), "%q", more)
		}
	})
}
