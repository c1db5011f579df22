package view

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

// seedLegalPlan is seed 001's legal research team at its size: six phases
// with instructions for each subagent, handoff files between them and
// output rules.
const seedLegalPlan = `# Merger due diligence - Phases

## Phases

- [ ] **R1**: Scan the data room reports
  Read every report in sources/reports/ once, in order, and extract each footnote with its citation, the party it concerns and the risk it names, into outputs/footnotes.md; keep the running count of reports and footnotes in step with the file.
  - Output: outputs/footnotes.md
  - Criteria: every report scanned once; every footnote extracted with its citation
  - Min words: 200
- [ ] **R2**: Research the case law on change-of-control clauses
  Find the controlling decisions in the target's jurisdictions on change-of-control and anti-assignment clauses in supply agreements, with pin cites and the holding in one sentence each.
  - Output: outputs/cases.md
  - Criteria: at least ten decisions, each with a pin cite
- [ ] **R3**: Map the contracts against the case law
  For each material contract in outputs/footnotes.md, say whether the change-of-control clause is triggered by the merger, citing the decisions from outputs/cases.md.
  - Inputs: R1.output, R2.output
  - Output: outputs/contract-map.md
  - Min words: 500
  - Complete: sentences
- [ ] **R4**: Draft the memo for the partner
  Write the memo: the question, the short answer, the analysis by contract, the risks ranked, and the recommended covenants.
  - Inputs: R3.output, sources/engagement-letter.md
  - Output: outputs/memo.md
  - Min words: 1500
  - Complete: sentences
- [ ] **R5**: Cite-check the memo
  Check every citation in outputs/memo.md against outputs/cases.md and the reports; fix what does not hold.
  - Inputs: R4.output, R2.output
  - Criteria: every cite checked; the list of fixes in the Did
- [ ] **R6**: Partner review
  - Inputs: R4.output
  - Criteria: the partner signs off
`

// TestBriefSeedSize: on seed 001's task, each unit's brief for a subagent
// stays within 400 tokens (characters / 4), at every unit, with long
// entries in the log and many guardrails, and it keeps what the subagent
// must have: the unit, its inputs, what the units before it left, and how
// to record.
func TestBriefSeedSize(t *testing.T) {
	f := newFixture(t)
	b := f.newTask("dd", "Merger due diligence for Acme's purchase of Widget Co", state.Knowledge).planned(seedLegalPlan)
	long := strings.Repeat("Extracted the footnotes of the supply agreements and cross-checked each citation against the report index; ", 8)
	for i := 0; i < 6; i++ {
		b.guardrail("Never rescan a report already in the do-not-rescan list, whatever the context says", "rescans cost a session")
	}
	f.writeDisk(b.rel("outputs/footnotes.md"), strings.Repeat("Footnote text with a citation. ", 60))
	f.writeDisk(b.rel("outputs/cases.md"), strings.Repeat("A v B, 123 F.3d 456, 460 (2d Cir. 1999). ", 30))
	b.checkpoint("R1", long, iterOpts{remaining: long, signal: true})
	b.finish("R1")
	b.checkpoint("R2", long, iterOpts{remaining: long})
	b.finish("R2")
	for _, id := range []string{"R1", "R2", "R3", "R4", "R5", "R6"} {
		br, err := Brief(f.st, "dd", id)
		require.NoError(t, err, id)
		n := utf8.RuneCountInString(br.Markdown)
		assert.LessOrEqual(t, br.Tokens, briefTokens, "%s: %d characters:\n%s", id, n, br.Markdown)
		assert.Equal(t, (n+3)/4, br.Tokens)
		assert.Contains(t, br.Markdown, "# itr: unit "+id+" of task `dd`")
		assert.Contains(t, br.Markdown, "itr checkpoint "+id+" --did")
		t.Logf("%s: %d tokens", id, br.Tokens)
	}
	br, err := Brief(f.st, "dd", "R3")
	require.NoError(t, err)
	assert.True(t, br.CanStart)
	assert.Contains(t, br.Markdown, "From R1 (done): wrote `outputs/footnotes.md` (1.8 KB); last did “")
	assert.Contains(t, br.Markdown, "From R2 (done): wrote `outputs/cases.md`")
	assert.Contains(t, br.Markdown, "and 3 more")
	// R4 reads a file nobody wrote yet: it cannot start, and says why.
	br, err = Brief(f.st, "dd", "R4")
	require.NoError(t, err)
	assert.False(t, br.CanStart)
	assert.Contains(t, br.CannotStart, "unit R4 cannot start: it depends on R3 (pending)")
	all, err := NextAll(f.st, "dd")
	require.NoError(t, err)
	require.Len(t, all.Units, 1)
	assert.Equal(t, "R3", all.Units[0].Unit)
	assert.Contains(t, strings.Join(all.Reasons, "\n"), "R4 waits for R3 (pending)")
}
