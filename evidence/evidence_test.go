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
		// The seed's own marker, "[continue", and the markers a plan declares.
		{"seed continue", "Section IV-B.\n\n[continue with IV-C]\n", Spec{}, []Rule{Truncated}},
		{"continue in prose", "We continue the review.", Spec{}, nil},
		{"custom marker", "Findings so far.\n\n[DRAFT", Spec{Markers: []string{"[DRAFT"}}, []Rule{Truncated}},
		{"custom marker replaces", "Findings so far...", Spec{Markers: []string{"[DRAFT"}}, nil},
		{"no markers", "Findings so far...", Spec{Markers: []string{}}, nil},
		{"custom word marker", "Findings: see WIP", Spec{Markers: []string{"wip"}}, []Rule{Truncated}},
		{"custom word marker in a word", "Findings: see SWIP", Spec{Markers: []string{"wip"}}, nil},
		// Must end with.
		{"footer", "The memo holds.\n\nEND OF MEMORANDUM\n", Spec{Footers: []string{"END OF MEMORANDUM"}, Sentences: true}, nil},
		{"footer emphasised", "The memo holds.\n\n**END OF MEMORANDUM**\n", Spec{Footers: []string{"END OF MEMORANDUM"}}, nil},
		{"footer missing", "The memo holds.\n", Spec{Footers: []string{"END OF MEMORANDUM"}}, []Rule{NoFooter}},
		{"footer alternative", "The memo holds.\n\n---\n", Spec{Footers: []string{"## Footnotes", "---"}}, nil},
		{"footer block", "The memo holds.\n\n---\nPrepared for the board.\n\nEND OF MEMORANDUM", Spec{Footers: []string{"---\nPrepared for the board.\nEND OF MEMORANDUM"}}, nil},
		{"footer block cut", "The memo holds.\n\n---\nPrepared for the", Spec{Footers: []string{"---\nPrepared for the board.\nEND OF MEMORANDUM"}}, []Rule{NoFooter}},
		{"truncated before the footer", "The memo holds...\n\nEND OF MEMORANDUM", Spec{Footers: []string{"END OF MEMORANDUM"}}, []Rule{Truncated}},
		{"unfinished before the footer", "The memo holds and\n\nEND OF MEMORANDUM", Spec{Footers: []string{"END OF MEMORANDUM"}, Sentences: true}, []Rule{OpenEnding}},
		{"footer ends a line", "The memo holds. END OF MEMORANDUM", Spec{Footers: []string{"END OF MEMORANDUM"}, Sentences: true}, nil},
		// Sections.
		{"sections", "# Memo\n\n## 1. Summary\n\nx\n\n## **Risks** ##\n\nRisk register\n-------------\n", Spec{Sections: []string{"Summary", "risks", "Risk register"}}, nil},
		{"section missing", "# Memo\n\n## Summary\n", Spec{Sections: []string{"Summary", "Risks"}}, []Rule{NoSections}},
		{"section in a fence", "# Memo\n\n```\n## Risks\n```\n", Spec{Sections: []string{"Risks"}}, []Rule{NoSections}},
		// Sizes.
		{"over max size", strings.Repeat("word ", 30), Spec{MaxBytes: 100, MaxText: "100 B"}, []Rule{TooBig}},
		{"at max size", strings.Repeat("word ", 20), Spec{MaxBytes: 100, MaxText: "100 B"}, nil},
		{"large", strings.Repeat("word ", 30), Spec{WarnBytes: 100}, []Rule{Large}},
		{"max size wins over the warning", strings.Repeat("word ", 30), Spec{MaxBytes: 1000, WarnBytes: 100}, nil},
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

func TestProblemWording(t *testing.T) {
	big := CheckFile("outputs/memo.md", []byte(strings.Repeat("word ", 30)), Spec{WarnBytes: 100})
	require.Len(t, big, 1)
	assert.True(t, big[0].IsWarning())
	assert.Equal(t, "outputs/memo.md: large (150 bytes, about 38 tokens (bytes/4), over the 25 an agent reads whole)", big[0].String())
	assert.Empty(t, Failures(big))
	assert.Equal(t, big, Warnings(big))

	over := CheckFile("outputs/memo.md", []byte(strings.Repeat("word ", 30)), Spec{MaxBytes: 100, MaxText: "100 B"})
	require.Len(t, over, 1)
	assert.False(t, over[0].IsWarning())
	assert.Equal(t, "outputs/memo.md: max-size (150 bytes, about 38 tokens, over the Max size of 100 B)", over[0].String())
	assert.Equal(t, over, Failures(over))

	foot := CheckFile("outputs/memo.md", []byte("The memo holds.\n"), Spec{Footers: []string{"END OF MEMORANDUM", "---"}})
	require.Len(t, foot, 1)
	assert.Equal(t, `outputs/memo.md: must-end-with (ends with "The memo holds.", not "END OF MEMORANDUM" or "---")`, foot[0].String())
	assert.Contains(t, foot[0].Fix(), "Must end with")

	secs := CheckFile("outputs/memo.md", []byte("## Summary\n"), Spec{Sections: []string{"Summary", "Risks", "Conclusion"}})
	require.Len(t, secs, 1)
	assert.Equal(t, `outputs/memo.md: sections (no heading "Risks", "Conclusion")`, secs[0].String())

	cont := CheckFile("outputs/memo.md", []byte("Part one.\n\n[Continued in the next message]\n"), Spec{})
	require.Len(t, cont, 1)
	assert.Equal(t, `outputs/memo.md: truncated (ends in "[Continued in the next message]")`, cont[0].String())
}

func TestHeadings(t *testing.T) {
	doc := "# Title #\n\nText\n===\n\n- item\n---\n\n    ## indented code\n#nospace\n####### seven\n## C# notes\n~~~\n## fenced\n~~~\n### Last ###\n"
	assert.Equal(t, []string{"Title", "Text", "C# notes", "Last"}, Headings([]byte(doc)))
}

func TestCount(t *testing.T) {
	assert.Equal(t, "0", Count(0))
	assert.Equal(t, "999", Count(999))
	assert.Equal(t, "25,000", Count(25000))
	assert.Equal(t, "1,234,567", Count(1234567))
	assert.Equal(t, int64(3), Tokens(9))
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

// FuzzCheckRules checks the rules a plan declares: CheckFile never panics,
// names the file in every problem with a known rule and a fix; a file that
// ends with its footer passes Must end with also with more text in front;
// a file holding a heading for each required section passes Sections; and
// a size problem comes exactly when the file is over the limit.
func FuzzCheckRules(f *testing.F) {
	for _, s := range [][3]string{
		{"Memo.\n\nEND OF MEMORANDUM\n", "END OF MEMORANDUM", "[continue"},
		{"## Summary\n\nText [DRAFT", "---\nEND", "[DRAFT"},
		{"*END*", "**END**", ""},
		{"x\n===\n", "", "wip"},
		{"\xff\xfe", "\n\n", "("},
	} {
		f.Add([]byte(s[0]), s[1], s[2], uint16(20))
	}
	f.Fuzz(func(t *testing.T, data []byte, footer, marker string, max uint16) {
		spec := Spec{Footers: []string{footer}, Markers: []string{marker}, Sections: []string{"Summary"}, MaxBytes: int64(max), WarnBytes: 10}
		ps := CheckFile("out.md", data, spec)
		for _, p := range ps {
			require.Equal(t, "out.md", p.File)
			require.NotEqual(t, "fix the output", p.Fix(), "unknown rule %q", p.Rule)
			require.Equal(t, p.Rule == Large, p.IsWarning())
		}
		if len(ps) > 0 && ps[0].Rule == Empty {
			return
		}
		rules := map[Rule]bool{}
		for _, p := range ps {
			rules[p.Rule] = true
		}
		require.Equal(t, max > 0 && int64(len(data)) > int64(max), rules[TooBig])
		require.Equal(t, max == 0 && len(data) > 10, rules[Large])
		if strings.TrimSpace(footer) != "" && !rules[NoFooter] {
			more := append([]byte("Word word.\n\n"), data...)
			require.False(t, slicesHas(CheckFile("out.md", more, spec), NoFooter), "%q", more)
		}
		with := append([]byte("## Summary\n\n"), data...)
		require.False(t, slicesHas(CheckFile("out.md", with, spec), NoSections), "%q", with)
	})
}

func slicesHas(ps []Problem, r Rule) bool {
	for _, p := range ps {
		if p.Rule == r {
			return true
		}
	}
	return false
}
