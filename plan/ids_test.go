package plan

import (
	"testing"

	"github.com/itr-dev/itr/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seed001Plan holds seed 001's unit IDs: sections with a hyphen (IV-A),
// phases with underscores (PHASE_3_HIGH_SEVERITY), work items with a
// number after a hyphen (W2-001) and letters alone (RR, V, G).
const seed001Plan = `# Memorandum - Tasks

## Dependencies

IV-A → IV-B (sequential)
RR, V -> G

## Tasks

- [ ] **IV-A**: Corporate structure
  - Output: outputs/section-IV-A.md
- [ ] **IV-B**: Regulatory exposure
  - Inputs: IV-A.output
- [ ] **PHASE_3_HIGH_SEVERITY**: High-severity issues
  - Depends: IV-A, IV-B
- [ ] W2-001: Questions presented
  - Depends: PHASE_3_HIGH_SEVERITY
- [ ] **W2-010**: Remediation
- [ ] **W2-9**: Exposure
- [ ] **RR**: Research review
- [ ] **V**: Verification
- [ ] **G**: Gate
`

// TestParseSeedIDs: a plan of seed 001's IDs parses end to end, its
// dependencies (sub-items, the dependencies section, Inputs) name them,
// and they sort naturally.
func TestParseSeedIDs(t *testing.T) {
	p, err := Parse("tasks.md", []byte(seed001Plan))
	require.NoError(t, err)
	assert.Equal(t, []string{"IV-A", "IV-B", "PHASE_3_HIGH_SEVERITY", "W2-001", "W2-010", "W2-9", "RR", "V", "G"}, p.IDs())
	assert.Equal(t, []string{"IV-A"}, p.Deps("IV-B"))
	assert.Equal(t, []string{"IV-A", "IV-B"}, p.Deps("PHASE_3_HIGH_SEVERITY"))
	assert.Equal(t, []string{"PHASE_3_HIGH_SEVERITY"}, p.Deps("W2-001"))
	assert.Equal(t, []string{"RR", "V"}, p.Deps("G"))
	assert.Equal(t, "Questions presented", p.Unit("W2-001").Title)
	assert.Equal(t, "IV-A_DONE", p.Unit("IV-A").Signal())
	assert.Equal(t, []string{"IV-A", "IV-B", "PHASE_3_HIGH_SEVERITY", "W2-001", "W2-010", "W2-9", "RR", "V", "G"}, p.Order())
	assert.Equal(t, []string{"IV-A", "W2-010", "W2-9", "RR", "V"}, p.Ready(nil))
	ids := p.IDs()
	state.SortIDs(ids) // state.json's order
	assert.Equal(t, []string{"G", "IV-A", "IV-B", "PHASE_3_HIGH_SEVERITY", "RR", "V", "W2-001", "W2-9", "W2-010"}, ids)

	out := p.Render()
	q, err := Parse("tasks.md", out)
	require.NoError(t, err, "rendering:\n%s", out)
	assert.Equal(t, shape(p), shape(q))
}

// TestParseIDErrors: an ID outside the rule is refused at its line with
// the rule, bold or not.
func TestParseIDErrors(t *testing.T) {
	const rule = "an ID starts with a letter and holds letters, digits, - and _ (such as T1, IV-A, PHASE_3)"
	tests := []struct {
		name, line, want string
	}{
		{"a dot, bold", "- [ ] **IV.A**: Corporate structure", `tasks.md:3: unit ID "IV.A" is not valid: ` + rule},
		{"a dot, bare", "- [ ] IV.A: Corporate structure", `tasks.md:3: unit ID "IV.A" is not valid: ` + rule},
		{"a leading digit", "- [ ] **1A**: x", `tasks.md:3: unit ID "1A" is not valid: ` + rule},
		{"a leading hyphen", "- [ ] **-A**: x", `tasks.md:3: unit ID "-A" is not valid: ` + rule},
		{"a leading underscore", "- [ ] **_A**: x", `tasks.md:3: unit ID "_A" is not valid: ` + rule},
		{"a space", "- [ ] **A B**: x", `tasks.md:3: unit ID "A B" is not valid: ` + rule},
		{"non-ASCII", "- [ ] **Ä1**: x", `tasks.md:3: unit ID "Ä1" is not valid: ` + rule},
		{"the task's name", "- [ ] **Task**: x", `tasks.md:3: unit ID "Task" is not valid: "Task" names the whole task in progress.md; use another ID, such as T1`},
		{"too long", "- [ ] **A" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA**: x",
			`is not valid: it is longer than 64 characters; use a shorter one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("tasks.md", doc("# P", "## Tasks", tt.line))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var perr *Error
			require.ErrorAs(t, err, &perr)
			assert.Equal(t, 3, perr.Line)
		})
	}
}

// TestParseCaseClash: two IDs that differ only in case are refused, the
// error naming the file and line of both.
func TestParseCaseClash(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"bold", doc("## Tasks", "- [ ] **IV-A**: a", "- [ ] **T2**: b", "- [ ] **iv-a**: c"),
			"tasks.md:4: unit ID iv-a clashes with IV-A (tasks.md:2): IDs that differ only in case would share a claim ref and file names on a case-insensitive disk; rename one"},
		{"bare and in two sections", doc("## Tasks", "- [ ] w2-001: a", "## Tasks", "- [ ] W2-001: b"),
			"tasks.md:4: unit ID W2-001 clashes with w2-001 (tasks.md:2)"},
		{"exact duplicates keep their message", doc("## Tasks", "- [ ] **IV-A**: a", "- [ ] **IV-A**: b"),
			"tasks.md:3: unit IV-A is defined twice (first on line 2); give each unit its own ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("tasks.md", tt.data)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestDependencyWrongCase: a dependency naming a unit in another case is
// not that unit; the error says which ID the plan has.
func TestDependencyWrongCase(t *testing.T) {
	_, err := Parse("tasks.md", doc("## Tasks", "- [ ] **IV-A**: a", "- [ ] **IV-B**: b", "  - Depends: iv-a"))
	require.EqualError(t, err, "tasks.md:4: unit IV-B depends on iv-a, which is not defined (IDs are case-sensitive; the plan has IV-A): write IV-A, or add a unit iv-a")
	_, err = Parse("tasks.md", doc("## Tasks", "- [ ] **IV-A**: a", "- [ ] **IV-B**: b", "## Dependencies", "IV-A -> iv-b"))
	require.EqualError(t, err, "tasks.md:5: the dependency line names iv-b, which is not defined (IDs are case-sensitive; the plan has IV-B): write IV-B, or add a unit iv-b")
}

// TestDependencyProse: now that words are IDs, an arrow line in the
// dependencies section declares edges only when it names a unit of the
// plan; prose naming none is kept as prose.
func TestDependencyProse(t *testing.T) {
	p, err := Parse("tasks.md", doc("## Dependencies", "input -> output", "Data flows: parser -> reducer", "", "## Tasks", "- [ ] **parser**: a", "- [ ] **T2**: b"))
	require.Error(t, err, "a line naming a unit is a dependency line")
	assert.Nil(t, p)
	p, err = Parse("tasks.md", doc("## Dependencies", "input -> output", "", "## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b"))
	require.NoError(t, err)
	assert.Empty(t, p.Deps("T2"))
}

// TestInlineForm: seed 003's DAG line, "- [ ] S1: Search: Find sources
// (Status: PENDING, DependsOn: P1, P2)", bare or bold: DependsOn is the
// unit's Depends, Status is read, and the parenthetical is not part of
// the title; a parenthetical of another form stays in the title.
func TestInlineForm(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		extra   []string // lines after the unit line
		title   string
		status  string
		depends []string
		inline  bool
	}{
		{"the seed's line", "- [ ] S1: Search: Find sources (Status: PENDING, DependsOn: P1, P2)", nil,
			"Search: Find sources", "PENDING", []string{"P1", "P2"}, true},
		{"bold", "- [ ] **S1**: Search: Find sources (Status: BLOCKED, DependsOn: P1, P2)", nil,
			"Search: Find sources", "BLOCKED", []string{"P1", "P2"}, true},
		{"keys in any case and order", "- [ ] S1: Search: x (dependsOn: P2, status: in_progress)", nil,
			"Search: x", "IN_PROGRESS", []string{"P2"}, true},
		{"Depends On with a space", "- [ ] S1: x (Depends On: P1)", nil, "x", "", []string{"P1"}, true},
		{"status alone", "- [ ] S1: x (Status: FAILED)", nil, "x", "FAILED", nil, false},
		{"done", "- [x] S1: x (Status: COMPLETED, DependsOn: P1)", nil, "x", "COMPLETED", []string{"P1"}, true},
		{"upper-case box", "- [X] S1: x (Status: completed)", nil, "x", "COMPLETED", nil, false},
		{"no dependencies", "- [ ] S1: x (Status: PENDING, DependsOn: none)", nil, "x", "PENDING", []string{}, true},
		{"no dependencies, a dash", "- [ ] S1: x (Status: PENDING, DependsOn: -)", nil, "x", "PENDING", []string{}, true},
		{"no dependencies, empty", "- [ ] S1: x (Status: PENDING, DependsOn: )", nil, "x", "PENDING", []string{}, true},
		{"no title", "- [ ] **S1**: (Status: PENDING)", nil, "", "PENDING", nil, false},
		{"a sub-item that agrees", "- [ ] S1: x (DependsOn: P1, P2)", []string{"  - Depends: P2, P1"}, "x", "", []string{"P1", "P2"}, true},
		{"seed 001 IDs", "- [ ] **W2-001**: Questions (Status: PENDING, DependsOn: P1, P2)", nil, "Questions", "PENDING", []string{"P1", "P2"}, true},
		{"another parenthetical stays", "- [ ] S1: Find sources (see notes)", nil, "Find sources (see notes)", "", nil, false},
		{"not at the end stays", "- [ ] S1: x (Status: PENDING) later", nil, "x (Status: PENDING) later", "", nil, false},
		{"nested parentheses in the title", "- [ ] S1: f(x) (Status: PENDING)", nil, "f(x)", "PENDING", nil, false},
		{"template text in the parenthetical stays", "- [ ] S1: x (Status: {STATUS})", nil, "x (Status: {STATUS})", "", nil, false},
		{"braces in the title", "- [ ] S1: Parse {json} (Status: PENDING)", nil, "Parse {json}", "PENDING", nil, false},
		{"another key first stays", "- [ ] S1: x (Owner: me, Status: PENDING)", nil, "x (Owner: me, Status: PENDING)", "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := append([]string{"## Tasks", "- [ ] **P1**: plan", "- [ ] **P2**: plan again", tt.line}, tt.extra...)
			p, err := Parse("tasks.md", doc(lines...))
			require.NoError(t, err)
			u := p.Unit("S1")
			if u == nil {
				u = p.Units[2]
			}
			assert.Equal(t, tt.title, u.Title)
			assert.Equal(t, tt.status, u.Status)
			assert.Equal(t, tt.depends, u.Depends)
			assert.Equal(t, tt.inline, u.DependsInline)
			if tt.depends != nil {
				assert.ElementsMatch(t, tt.depends, p.Deps(u.ID))
			}

			out := p.Render()
			q, err := Parse("tasks.md", out)
			require.NoError(t, err, "rendering:\n%s", out)
			assert.Equal(t, shape(p), shape(q), "rendering:\n%s", out)
		})
	}
}

// TestInlineRender: Render writes the inline form back on the unit line,
// in the seed's order and case.
func TestInlineRender(t *testing.T) {
	p, err := Parse("tasks.md", doc("## Tasks", "- [ ] **P1**: a", "- [x] S1: Search: Find sources (dependson: P1, status: completed)", "  - Depends: P1", "- [ ] S2: b (Status: pending)"))
	require.NoError(t, err)
	assert.Equal(t, "## Tasks\n\n- [ ] **P1**: a\n- [x] **S1**: Search: Find sources (Status: COMPLETED, DependsOn: P1)\n- [ ] **S2**: b (Status: PENDING)\n", string(p.Render()))
}

// TestInlineErrors: an inline form that is wrong is refused at its line,
// saying what to write; a Depends sub-item that disagrees names both
// lines.
func TestInlineErrors(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"unknown status", []string{"- [ ] S1: x (Status: done)"},
			`tasks.md:3: S1: Status "done" is not a status of the inline form; write one of PENDING, BLOCKED, IN_PROGRESS, COMPLETED, FAILED`},
		{"empty status", []string{"- [ ] S1: x (Status: , DependsOn: P1)"},
			`tasks.md:3: S1: Status "" is not a status of the inline form; write one of PENDING, BLOCKED, IN_PROGRESS, COMPLETED, FAILED`},
		{"COMPLETED on an unchecked box", []string{"- [ ] S1: x (Status: COMPLETED, DependsOn: P1)"},
			`tasks.md:3: S1: Status is COMPLETED but the box is not checked; check it ("- [x]") or write the status it has, such as PENDING`},
		{"a checked box that is not COMPLETED", []string{"- [x] **S1**: x (Status: IN_PROGRESS)"},
			`tasks.md:3: S1: the box is checked but Status is IN_PROGRESS; a checked unit is COMPLETED: write "Status: COMPLETED" or uncheck the box`},
		{"a bad dependency", []string{"- [ ] S1: x (Status: PENDING, DependsOn: P1; P2)"},
			`tasks.md:3: S1: DependsOn lists "P1;", which is not a unit ID; write unit IDs separated by commas, such as "DependsOn: P1, P2", or "none"`},
		{"an undefined dependency", []string{"- [ ] S1: x (DependsOn: P9)"},
			`tasks.md:3: unit S1 depends on P9, which is not defined; add a unit P9 or remove the dependency`},
		{"keys without a comma", []string{"- [ ] S1: x(dependson: P1 status: in_progress)"},
			`tasks.md:3: S1: DependsOn lists "status:", which is not a unit ID; write unit IDs separated by commas, such as "DependsOn: P1, P2", or "none"`},
		{"a key twice", []string{"- [ ] S1: x (Status: PENDING, Status: FAILED)"},
			`tasks.md:3: S1: Status is given twice in the parenthetical ending the unit line; keep one`},
		{"a sub-item that disagrees", []string{"- [ ] S1: x (Status: PENDING, DependsOn: P1)", "  - Max iterations: 3", "  - Depends: P1, S0"},
			`tasks.md:5: S1: Depends (P1, S0) and the DependsOn of the unit line (tasks.md:3: P1) list different units; keep one, or make them agree`},
		{"a sub-item of none that disagrees", []string{"- [ ] S1: x (DependsOn: P1)", "  - Depends: none"},
			`tasks.md:4: S1: Depends (none) and the DependsOn of the unit line (tasks.md:3: P1) list different units; keep one, or make them agree`},
		{"a self-dependency", []string{"- [ ] S1: x (DependsOn: S1)"},
			`tasks.md:3: unit S1 depends on itself; remove S1 from its dependencies`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("tasks.md", doc(append([]string{"## Tasks", "- [ ] **P1**: plan"}, tt.lines...)...))
			require.EqualError(t, err, tt.want)
		})
	}
}

// TestSyncInline: the inline Status follows the unit: Sync keeps it in
// step with the box, SyncStatus writes each unit's status in the seed's
// words, and nothing else on the line moves.
func TestSyncInline(t *testing.T) {
	in := doc("## Tasks",
		"- [ ] P1: Plan: Decompose (Status: PENDING, DependsOn: none)",
		"- [ ] **S1**: Search: Find sources (status: pending, DependsOn: P1)  ",
		"- [x] S2: Search: More (DependsOn: P1, Status: COMPLETED)",
		"- [ ] R1: Read: Extract (Status: BLOCKED, DependsOn: S1, S2)",
		"- [ ] C1: Resolve (see notes)",
		"- [ ] C2: Skipped one (Status: FAILED)")
	statuses := map[string]state.Status{"P1": state.Done, "S1": state.Verifying, "S2": state.InProgress, "R1": state.Blocked, "C1": state.Done, "C2": state.Skipped}
	out, changed := SyncStatus(in, func(id string) state.Status { return statuses[id] }, Counts{})
	require.True(t, changed)
	assert.Equal(t, string(doc("## Tasks",
		"- [x] P1: Plan: Decompose (Status: COMPLETED, DependsOn: none)",
		"- [ ] **S1**: Search: Find sources (status: IN_PROGRESS, DependsOn: P1)  ",
		"- [ ] S2: Search: More (DependsOn: P1, Status: IN_PROGRESS)",
		"- [ ] R1: Read: Extract (Status: BLOCKED, DependsOn: S1, S2)",
		"- [x] C1: Resolve (see notes)",
		"- [ ] C2: Skipped one (Status: FAILED)")), string(out))
	again, changed := SyncStatus(out, func(id string) state.Status { return statuses[id] }, Counts{})
	assert.False(t, changed)
	assert.Equal(t, string(out), string(again))
	_, err := Parse("tasks.md", out)
	require.NoError(t, err)

	// Sync knows only done: COMPLETED follows the box both ways, other
	// values stay.
	out, _ = Sync(in, doneIDs("S1"), Counts{})
	assert.Equal(t, string(doc("## Tasks",
		"- [ ] P1: Plan: Decompose (Status: PENDING, DependsOn: none)",
		"- [x] **S1**: Search: Find sources (status: COMPLETED, DependsOn: P1)  ",
		"- [ ] S2: Search: More (DependsOn: P1, Status: PENDING)",
		"- [ ] R1: Read: Extract (Status: BLOCKED, DependsOn: S1, S2)",
		"- [ ] C1: Resolve (see notes)",
		"- [ ] C2: Skipped one (Status: FAILED)")), string(out))
	_, err = Parse("tasks.md", out)
	require.NoError(t, err)

	// A skipped unit keeps its word unless it says COMPLETED.
	out, _ = SyncStatus(doc("## Tasks", "- [x] S1: x (Status: COMPLETED)"), func(string) state.Status { return state.Skipped }, Counts{})
	assert.Equal(t, string(doc("## Tasks", "- [ ] S1: x (Status: PENDING)")), string(out))
}

// TestSeedStatus: every status has the seed's word but skipped.
func TestSeedStatus(t *testing.T) {
	for st, want := range map[state.Status]string{
		state.Pending: "PENDING", state.InProgress: "IN_PROGRESS", state.Confirming: "IN_PROGRESS", state.Verifying: "IN_PROGRESS",
		state.Done: "COMPLETED", state.Blocked: "BLOCKED", state.Timeout: "BLOCKED", state.Failed: "FAILED", state.Skipped: "",
	} {
		assert.Equal(t, want, SeedStatus(st), string(st))
	}
}
