package plan

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fragments are lines a plan is made of, including the awkward ones. The
// generated documents mix them at random; whatever Parse accepts must
// survive Render.
var fragments = []string{
	"", "   ", "\t", "# Title", "#  ", "# {Feature} - Tasks", "**Created:** 2026-01-14T10:30:00Z", "**Owner**: me", "**a::** b", "**:** x",
	"## Tasks", "## Phases", "## Dependencies", "## Notes", "##", "## ", "### Sub", "prose line", "Some **bold** prose.",
	"```", "  ```", "    ```go", "~~~",
	"- [ ] **T1**: first", "- [x] **T2**: second", "- [X] **T3**:", "* [ ] T4: bare", "- [ ] **T5:** colon", "- [ ] **{ID}**: {title}", "- [ ] **T6**: {title}",
	"- [ ] **{a**: }**: x", "- [ ] **T7**::: colons", "  - [ ] **T8**: indented",
	"  - Files: `a.go`", "  - Criteria: works", "  - Criteria:", "  - Completion: `<signal>X</signal>`", "  - Output: out.md",
	"  - Max iterations: 3", "  - Max iterations: {N}", "  - Depends: T1", "  - Depends: none", "  - Depends: T2, T1", "  - Depends: {none|T1}",
	"  - Model: opus", "  - Risk: low", "  - plain bullet", "  -", "  - Key:no space", "    continuation", "      - nested", "    - Files: deep",
	"  detail text", "\t- tabbed: x", "- free bullet", "+ plus bullet",
	" - Files: one space", "   - [ ] **T9**: nested", "## TASKS", "```md", "    ~~~", "  - Depends: T1,", "  - Depends: `T2` **T3**", "  - Max iterations: `7`",
	"  - Completion:", "   ```", "- [ ] **T10**: ten", "\t\t- deeper tab", "  - FILES: upper", "-\tFiles: tab after dash", "*emphasis* line", "  **bold** detail",
	"  - Min words: 200", "  - Min words: {N}", "  - Min words: zero", "  - Complete: sentences", "  - Complete: `Sentences`", "  - Complete: words",
	"  - Output: `outputs/a.md`, `outputs/b.md`", "  - Output: ../up.md", "  - Output: /abs.md", "  - Output: `sources/` (a folder)",
	"  - Items: 17", "  - Items: intro, methods", "    results", "  - Counter: footnotes in outputs/memo.md",
	"  - Counter: cites in `a.md` matching `^\\[`", "  - Counter: lines in ../x.md",
	"T1 → T2 → T3 (sequential)", "T4 (independent)", "T1, T2 -> T5", "- T3 -> T4", "input -> output", "T1 -> T1",
	// The seeds' own IDs and seed 003's inline DAG form.
	"- [ ] **IV-A**: Corporate structure", "- [ ] PHASE_3_HIGH_SEVERITY: issues", "- [x] **W2-001**: questions", "- [ ] iv-a: clash",
	"- [ ] **IV.A**: dot", "IV-A → W2-001", "  - Depends: IV-A, T1", "  - Inputs: IV-A.output",
	"- [ ] S1: Search: Find sources (Status: PENDING, DependsOn: T1, T2)", "- [x] **S2**: done (Status: COMPLETED)",
	"- [x] S3: done (status: completed, dependson: none)", "- [ ] **S4**: x (DependsOn: IV-A)", "- [ ] S5: y (see notes)",
	"- [ ] S6: z (Status: IN_PROGRESS)", "- [ ] S7: (Status: BLOCKED, DependsOn: S1)", "- [ ] S8: bad (Status: done)",
	"- [x] S9: contradiction (Status: PENDING)", "- [ ] **S10**: {title} (Status: PENDING)", "  - Depends: S1",
	// The output rules.
	"**Truncation markers:** [DRAFT]", "**Max size:** 40 KB", "**Max size:** big", "  - Truncation markers: [continue, `...`", "  - Truncation markers: only [TBD]",
	"  - Truncation markers: none", "  - Truncation markers:", "  - Must end with: END OF MEMORANDUM", "  - Must end with: `---` or `## Footnotes`", "  - Must end with:",
	"    ---", "  - Sections: Summary, Risks", "  - Sections: `IV-A, scope`", "  - Sections: #", "  - Max size: 25000 tokens", "  - Max size: 1.5 MB",
	"  - Max size: 40 KBs", "  - Max size: none", "  - Max size: {size}",
}

func TestRoundTripGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for i := 0; i < 30000; i++ {
		n := 1 + r.IntN(25)
		lines := make([]string, n)
		for j := range lines {
			lines[j] = fragments[r.IntN(len(fragments))]
		}
		sep := "\n"
		if r.IntN(4) == 0 {
			sep = "\r\n"
		}
		in := strings.Join(lines, sep)
		p, err := Parse("tasks.md", []byte(in))
		if err != nil {
			var perr *Error
			require.ErrorAs(t, err, &perr)
			continue
		}
		accepted++
		out := p.Render()
		q, err := Parse("tasks.md", out)
		require.NoError(t, err, "input:\n%s\nrendering:\n%s", in, out)
		require.Equal(t, shape(p), shape(q), "input:\n%s\nrendering:\n%s", in, out)
		require.Equal(t, string(out), string(q.Render()), "input:\n%s", in)
	}
	require.Greater(t, accepted, 1000, "the generator should produce plans Parse accepts")
}
