package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// doc joins lines with "\n", so test inputs read like the file.
func doc(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func TestParseUnits(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
		check func(t *testing.T, p *Plan)
	}{
		{
			name:  "unit line forms",
			input: doc("## Tasks", "- [ ] **T1**: open", "- [x] **T2**: done lower", "- [X] **T3**: done upper", "* [ ] T4: bare ID and star", "- [ ] **T5:** colon in bold", "- [ ] **T6**", "- [ ] ** QA7 **  :  spaced  ", "- [ ] **T8**: {Feature} work, only partly template"),
			check: func(t *testing.T, p *Plan) {
				require.Len(t, p.Units, 8)
				want := []struct {
					id, title string
					done      bool
				}{{"T1", "open", false}, {"T2", "done lower", true}, {"T3", "done upper", true}, {"T4", "bare ID and star", false}, {"T5", "colon in bold", false}, {"T6", "", false}, {"QA7", "spaced", false}, {"T8", "{Feature} work, only partly template", false}}
				for i, w := range want {
					u := p.Units[i]
					assert.Equal(t, w.id, u.ID)
					assert.Equal(t, w.title, u.Title)
					assert.Equal(t, w.done, u.Done, w.id)
					assert.Equal(t, i+2, u.Line)
					assert.False(t, u.Placeholder)
				}
			},
		},
		{
			name:  "known keys in any case, unknown keys kept in order",
			input: doc("## Tasks", "- [ ] **T1**: x", "  - FILES: `a.go`", "  - Zeta: z", "  - criteria: it works", "  - Alpha key: a", "  - COMPLETION: done-signal", "\t- Output: `out.md`", "  - max  Iterations: 07", "      - model: opus", "  - depends: none", "  - Omega: o", "      - nested under Omega"),
			check: func(t *testing.T, p *Plan) {
				u := p.Units[0]
				assert.Equal(t, "`a.go`", u.Files)
				assert.Equal(t, "it works", u.Criteria)
				assert.Equal(t, "done-signal", u.Completion)
				assert.Equal(t, "`out.md`", u.Output)
				assert.Equal(t, 7, u.MaxIterations)
				assert.Equal(t, "opus", u.Model)
				assert.Equal(t, []string{}, u.Depends)
				assert.Equal(t, []Field{{"Zeta", "z"}, {"Alpha key", "a"}, {"Omega", "o\n- nested under Omega"}}, u.Extra)
			},
		},
		{
			name:  "continuation lines, keyless bullets, details and notes",
			input: doc("## Tasks", "- [ ] **T1**: x", "  First detail.", "", "  Second detail.", "  - Criteria: one", "    two", "      - three", "  more at the same indent", "  - a note bullet", "  -", "", "Notes for T1.", "", "  indented note line", "- [ ] **T2**: y"),
			check: func(t *testing.T, p *Plan) {
				require.Len(t, p.Units, 2)
				u := p.Units[0]
				assert.Equal(t, "First detail.\nSecond detail.", u.Details)
				assert.Equal(t, "one\ntwo\n- three\nmore at the same indent", u.Criteria)
				assert.Equal(t, []Field{{"", "a note bullet"}, {"", ""}}, u.Extra)
				assert.Equal(t, "Notes for T1.\n\n  indented note line", u.Notes)
				assert.Equal(t, 16, p.Units[1].Line)
			},
		},
		{
			name:  "empty first line of a value is kept",
			input: doc("## Tasks", "- [ ] **T1**: x", "  - Criteria:", "    - a", "    - b"),
			check: func(t *testing.T, p *Plan) {
				assert.Equal(t, "\n- a\n- b", p.Units[0].Criteria)
			},
		},
		{
			name:  "depends forms",
			input: doc("## Tasks", "- [ ] **T1**: a", "  - Depends: -", "- [ ] **T2**: b", "  - Depends:", "- [ ] **T3**: c", "  - Depends: T1,T2", "- [ ] **T4**: d", "  - Depends: `T2` T1 , T2", "- [ ] **T5**: e", "  - Depends: NONE", "- [ ] **T6**: f", "  - Depends: T1,", "    T3"),
			check: func(t *testing.T, p *Plan) {
				assert.Equal(t, []string{}, p.Unit("T1").Depends)
				assert.Equal(t, []string{}, p.Unit("T2").Depends)
				assert.Equal(t, []string{"T1", "T2"}, p.Unit("T3").Depends)
				assert.Equal(t, []string{"T2", "T1"}, p.Unit("T4").Depends)
				assert.Equal(t, []string{}, p.Unit("T5").Depends)
				assert.Equal(t, []string{"T1", "T3"}, p.Unit("T6").Depends)
			},
		},
		{
			name:  "no Depends sub-item is nil",
			input: doc("## Tasks", "- [ ] **T1**: a"),
			check: func(t *testing.T, p *Plan) {
				assert.Nil(t, p.Units[0].Depends)
				assert.Nil(t, p.Units[0].Extra)
				assert.Nil(t, p.Units[0].Pending)
			},
		},
		{
			name:  "template text marks placeholders and parses",
			input: doc("## Tasks", "- [ ] **T1**: {title}", "  - Max iterations: {N}", "  - Depends: `{none|T1}`", "- [ ] **{ID}**: {title}"),
			check: func(t *testing.T, p *Plan) {
				require.Len(t, p.Units, 2)
				assert.True(t, p.Units[0].Placeholder)
				assert.Equal(t, 0, p.Units[0].MaxIterations)
				assert.Nil(t, p.Units[0].Depends)
				assert.Equal(t, map[string]string{"Max iterations": "{N}", "Depends": "`{none|T1}`"}, p.Units[0].Pending)
				assert.True(t, p.Units[1].Placeholder)
				assert.Equal(t, "{ID}", p.Units[1].ID)
				assert.True(t, p.Placeholder())
				assert.Equal(t, []string{"T1"}, p.IDs())
			},
		},
		{
			name:  "lines before the first unit are the section body; an indented unit line is not a unit",
			input: doc("## Tasks", "", "Intro text.", "", "  - [ ] not a unit, no ID", "", "- [ ] **T1**: x"),
			check: func(t *testing.T, p *Plan) {
				require.Len(t, p.Units, 1)
				assert.Equal(t, "Intro text.\n\n  - [ ] not a unit, no ID", p.Sections[0].Body)
			},
		},
		{
			name:  "fenced lines are neither headings nor units",
			input: doc("## Tasks", "- [ ] **T1**: x", "", "```md", "## Notes", "- [ ] **T2**: y", "```", "- [ ] **T3**: z"),
			check: func(t *testing.T, p *Plan) {
				assert.Equal(t, []string{"T1", "T3"}, p.IDs())
				assert.Equal(t, "```md\n## Notes\n- [ ] **T2**: y\n```", p.Units[0].Notes)
				assert.Len(t, p.Sections, 1)
			},
		},
		{
			name:  "units of several sections join in document order",
			input: doc("## Phases", "- [ ] **R1**: a", "## Notes", "text", "## Tasks", "- [ ] **T1**: b"),
			check: func(t *testing.T, p *Plan) {
				assert.Equal(t, []string{"R1", "T1"}, p.IDs())
				assert.Equal(t, Knowledge, p.Mode)
				require.Len(t, p.Sections, 3)
				assert.Equal(t, []SectionKind{UnitsSection, OtherSection, UnitsSection}, []SectionKind{p.Sections[0].Kind, p.Sections[1].Kind, p.Sections[2].Kind})
			},
		},
		{
			name:  "no unit section and no unit lines is an empty plan",
			input: doc("# Title", "", "## Notes", "", "- [ ] not a unit: no ID", "  - [ ] **T1**: indented, a checklist", "```", "- [ ] **T2**: fenced", "```"),
			check: func(t *testing.T, p *Plan) {
				assert.Empty(t, p.Units)
				assert.True(t, p.Placeholder())
				assert.Equal(t, Development, p.Mode)
				assert.Equal(t, "- [ ] not a unit: no ID\n  - [ ] **T1**: indented, a checklist\n```\n- [ ] **T2**: fenced\n```", p.Sections[0].Body)
			},
		},
		{
			name:  "unit lines outside the units section of a plan that has one are notes",
			input: doc("## Tasks", "- [ ] **T1**: a", "## Later", "- [ ] **T9**: an idea, not a unit yet"),
			check: func(t *testing.T, p *Plan) {
				assert.Equal(t, []string{"T1"}, p.IDs())
				assert.Equal(t, "- [ ] **T9**: an idea, not a unit yet", p.Sections[1].Body)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("tasks.md", tt.input)
			require.NoError(t, err)
			tt.check(t, p)
		})
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		title    string
		meta     []Field
		preamble string
	}{
		{"template", "# User auth - Tasks\n\n**Created:** 2026-01-14T10:30:00Z\n**Total:** 5 tasks\n", "User auth - Tasks", []Field{{"Created", "2026-01-14T10:30:00Z"}, {"Total", "5 tasks"}}, ""},
		{"bold key then colon, empty value", "# T\n**Owner**: me\n**Empty:**\n", "T", []Field{{"Owner", "me"}, {"Empty", ""}}, ""},
		{"prose kept, only the first title counts", "intro\n# First\n# Second\n\n**K:** v\nmore\n", "First", []Field{{"K", "v"}}, "intro\n# Second\n\nmore"},
		{"empty title is prose", "#   \n", "", nil, "#"},
		{"meta inside a fence is prose", "# T\n```\n**K:** v\n```\n", "T", nil, "```\n**K:** v\n```"},
		{"nothing", "", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("tasks.md", []byte(tt.input))
			require.NoError(t, err)
			assert.Equal(t, tt.title, p.Title)
			assert.Equal(t, tt.meta, p.Meta)
			assert.Equal(t, strings.TrimSpace(tt.preamble), strings.TrimSpace(p.Preamble))
		})
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		file, input string
		want        Mode
	}{
		{"tasks.md", "## Tasks\n", Development},
		{"tasks.md", "## Phases\n", Knowledge},
		{"x/plan.md", "## tasks\n", Development},
		{"x/plan.md", "## PHASES\n", Knowledge},
		{"x/plan.md", "", Knowledge},
		{"tasks.md", "", Development},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+tt.input, func(t *testing.T) {
			p, err := Parse(tt.file, []byte(tt.input))
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Mode)
			assert.Equal(t, tt.file, p.File)
		})
	}
}

func TestParseLineEndings(t *testing.T) {
	lf := []byte("# T\n\n**K:** v\n\n## Tasks\n\n- [ ] **T1**: ünïcode title\n  - Criteria: a\n    b\n\n## Notes\n\nfree\n")
	want, err := Parse("tasks.md", lf)
	require.NoError(t, err)
	for name, in := range map[string][]byte{
		"crlf":   []byte(strings.ReplaceAll(string(lf), "\n", "\r\n")),
		"cr":     []byte(strings.ReplaceAll(string(lf), "\n", "\r")),
		"bom+lf": append([]byte("\uFEFF"), lf...),
		"no eol": lf[:len(lf)-1],
		"lf":     lf,
		"mixed":  []byte(strings.Replace(string(lf), "\n", "\r\n", 3)),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Parse("tasks.md", in)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, string(lf), string(got.Render()))
		})
	}
	assert.Equal(t, "a\nb", want.Units[0].Criteria)
}

func TestSignal(t *testing.T) {
	tests := []struct{ completion, want string }{
		{"`<signal>T1_DONE</signal>`", "T1_DONE"},
		{"<signal> LOGIN_OK </signal> when green", "LOGIN_OK"},
		{"`ALL_GREEN`", "ALL_GREEN"},
		{"", "T7_DONE"},
		{"``", "T7_DONE"},
		{"<signal></signal>", "T7_DONE"},
	}
	for _, tt := range tests {
		t.Run(tt.completion, func(t *testing.T) {
			u := &Unit{ID: "T7", Completion: tt.completion}
			assert.Equal(t, tt.want, u.Signal())
		})
	}
}

func TestDependencySection(t *testing.T) {
	units := "## Tasks\n\n- [ ] **T1**: a\n- [ ] **T2**: b\n- [ ] **T3**: c\n- [ ] **T4**: d\n- [ ] **T5**: e\n"
	tests := []struct {
		name string
		deps string
		want map[string][]string // unit → Deps
	}{
		{"chain with unicode arrows", "T1 → T2 → T3 (sequential)", map[string][]string{"T2": {"T1"}, "T3": {"T2"}}},
		{"ascii arrows, groups on both sides", "T1, T2 -> T4, T5", map[string][]string{"T4": {"T1", "T2"}, "T5": {"T1", "T2"}}},
		{"independent declares nothing", "T4 (independent)\nT5", map[string][]string{}},
		{"bullets, backticks, bold and nested comments", "- `T1` -> **T2** (see (notes))\n* T2 → T3", map[string][]string{"T2": {"T1"}, "T3": {"T2"}}},
		{"prose without unit IDs is ignored, even with arrows", "Work flows left to right.\ninput -> output\n\nT3 -> T5", map[string][]string{"T5": {"T3"}}},
		{"fenced lines are ignored", "```\nT1 -> T5\n```\nT2 -> T5", map[string][]string{"T5": {"T2"}}},
		{"duplicates collapse, natural order", "T2 -> T5\nT1 -> T5\nT2 -> T5", map[string][]string{"T5": {"T1", "T2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("tasks.md", []byte(units+"\n## Dependencies\n\n"+tt.deps+"\n"))
			require.NoError(t, err)
			for _, id := range p.IDs() {
				assert.Equal(t, tt.want[id], p.Deps(id), id)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		input []byte
		want  string
	}{
		{"duplicate ID", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "- [ ] **T1**: c"),
			"tasks.md:4: unit T1 is defined twice (first on line 2); give each unit its own ID"},
		{"unknown unit in Depends", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T4**: b", "  - Depends: T1, T9"),
			"tasks.md:4: unit T4 depends on T9, which is not defined; add a unit T9 or remove the dependency"},
		{"unknown prerequisite in the section", "plan.md", doc("## Phases", "- [ ] **R1**: a", "## Dependencies", "R7 -> R1"),
			"plan.md:4: unit R1 depends on R7, which is not defined; add a unit R7 or remove the dependency"},
		{"unknown dependent in the section", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "## Dependencies", "", "T1 -> T2"),
			"tasks.md:5: the dependency line names T2, which is not defined; add a unit T2 or remove it from the line"},
		{"self in Depends", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T3**: b", "  - Max iterations: 2", "  - Depends: T1 T3"),
			"tasks.md:5: unit T3 depends on itself; remove T3 from its dependencies"},
		{"self in the section", "tasks.md", doc("## Dependencies", "T1 -> T1", "## Tasks", "- [ ] **T1**: a"),
			"tasks.md:2: unit T1 depends on itself; remove T1 from its dependencies"},
		{"cycle across Depends and the section", "tasks.md", doc("## Dependencies", "T1 -> T2 -> T3", "## Tasks", "- [ ] **T1**: a", "  - Depends: T3", "- [ ] **T2**: b", "- [ ] **T3**: c"),
			"tasks.md:2: dependency cycle T1 → T2 → T3 → T1; remove one of these dependencies"},
		{"cycle named from its first unit, at its lowest line", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "  - Depends: T3", "- [ ] **T3**: c", "  - Depends: T2"),
			"tasks.md:4: dependency cycle T2 → T3 → T2; remove one of these dependencies"},
		{"max iterations a word", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Max iterations: five"),
			`tasks.md:3: T1: max iterations "five" is not a positive whole number`},
		{"max iterations zero", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Max iterations: 0"),
			`tasks.md:3: T1: max iterations "0" is not a positive whole number`},
		{"max iterations negative", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Max iterations: -3"),
			`tasks.md:3: T1: max iterations "-3" is not a positive whole number`},
		{"max iterations fraction", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Max iterations: 2.5"),
			`tasks.md:3: T1: max iterations "2.5" is not a positive whole number`},
		{"max iterations too large", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Max iterations: 99999999999999999999"),
			`tasks.md:3: T1: max iterations "99999999999999999999" is not a positive whole number`},
		{"max iterations empty", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Max iterations:"),
			`tasks.md:3: T1: max iterations "" is not a positive whole number`},
		{"bad Depends token", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "  - Depends: T1 + T3"),
			`tasks.md:4: T2: Depends lists "+", which is not a unit ID; write unit IDs separated by commas, such as "T1, T2", or "none"`},
		{"Depends token with a dot", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Depends: IV.A"),
			`tasks.md:3: T1: Depends lists "IV.A", which is not a unit ID; write unit IDs separated by commas, such as "T1, T2", or "none"`},
		{"known sub-item twice", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Files: a.go", "  - files: b.go"),
			`tasks.md:4: T1: "Files" is given twice (first on line 3); keep one`},
		{"unreadable unit line", "tasks.md", doc("## Tasks", "- [] **T1**: a"),
			`tasks.md:2: cannot read the unit line "- [] **T1**: a"; write it as "- [ ] **T1**: title"`},
		{"unit line without closing bold", "tasks.md", doc("## Tasks", "- [x] **T1: a"),
			`tasks.md:2: cannot read the unit line "- [x] **T1: a"; write it as "- [ ] **T1**: title"`},
		{"invalid unit ID", "tasks.md", doc("## Tasks", "- [ ] **1A**: a"),
			`tasks.md:2: unit ID "1A" is not valid: an ID starts with a letter and holds letters, digits, - and _ (such as T1, IV-A, PHASE_3)`},
		{"unit ID with a dot", "tasks.md", doc("## Tasks", "- [ ] **T1.1**: a"),
			`tasks.md:2: unit ID "T1.1" is not valid: an ID starts with a letter and holds letters, digits, - and _ (such as T1, IV-A, PHASE_3)`},
		{"indented unit line before any unit", "tasks.md", doc("## Tasks", "  - [ ] **T1**: a"),
			"tasks.md:2: unit line is indented; start it at the beginning of the line"},
		{"dependency line with a word", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "## Dependencies", "T1 -> T2 & T3"),
			`tasks.md:5: dependency line "T1 -> T2 & T3": "&" is not a unit ID; write lines such as "T1, T2 -> T3"`},
		{"dependency line with an empty side", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "## Dependencies", "", "- T1 →"),
			`tasks.md:5: dependency line "- T1 →": an arrow needs unit IDs on both sides, such as "T1 -> T2"`},
		{"template ID left in a real plan", "tasks.md", doc("## Tasks", "- [ ] **T1**: real", "- [ ] **{ID}**: {title}"),
			`tasks.md:3: unit ID "{ID}" is still template text; give the unit an ID such as T1, or delete it`},
		{"unit with template sub-items", "tasks.md", doc("## Tasks", "- [ ] **T1**: Add login", "  - Files: `{paths}`", "  - Criteria: {measurable}"),
			"tasks.md:3: T1: \"{paths}\" is still template text; write the files the unit touches, such as \"Files: `src/login.go`\", or delete the line"},
		{"template criteria", "tasks.md", doc("## Tasks", "- [ ] **T1**: Add login", "  - Criteria: {measurable}"),
			`tasks.md:3: T1: "{measurable}" is still template text; write how to tell the unit is done, such as "Criteria: go test ./... passes"`},
		{"template completion", "tasks.md", doc("## Tasks", "- [ ] **T2**: Add login", "  - Completion: `{signal}`"),
			"tasks.md:3: T2: \"{signal}\" is still template text; write the signal the agent prints when done, such as \"Completion: `<signal>T2_DONE</signal>`\", or delete the line"},
		{"template max iterations", "tasks.md", doc("## Tasks", "- [ ] **T1**: Add login", "  - Max iterations: {N}"),
			`tasks.md:3: T1: "{N}" is still template text; write a number of iterations, such as "Max iterations: 5"`},
		{"template depends", "tasks.md", doc("## Tasks", "- [ ] **T1**: Add login", "  - Depends: `{none|T1}`"),
			`tasks.md:3: T1: "{none|T1}" is still template text; write the units it waits for, such as "Depends: T1", or "Depends: none"`},
		{"template model", "tasks.md", doc("## Tasks", "- [ ] **T1**: Add login", "  - Model: {haiku|sonnet|opus}"),
			`tasks.md:3: T1: "{haiku|sonnet|opus}" is still template text; write one model, such as "Model: sonnet", or delete the line`},
		{"template output", "plan.md", doc("## Phases", "- [ ] **R1**: Survey", "  - Output: `{path}`"),
			"plan.md:3: R1: \"{path}\" is still template text; write the file the unit produces, such as \"Output: `outputs/report.md`\", or delete the line"},
		{"template in an unknown sub-item", "tasks.md", doc("## Tasks", "- [ ] **T1**: Add login", "  - Risk: {low|high}"),
			`tasks.md:3: T1: "{low|high}" is still template text; write one of low, high, such as "Risk: low", or delete the line`},
		{"template in a keyless sub-item", "tasks.md", doc("## Tasks", "- [ ] **T1**: Add login", "  - {anything else}"),
			`tasks.md:3: T1: "{anything else}" is still template text; write the text or delete the line`},
		{"placeholder unit beside a real one", "tasks.md", doc("## Tasks", "- [ ] **T1**: Add login", "- [ ] **T2**: {title}", "  - Max iterations: {N}"),
			`tasks.md:3: T2: "{title}" is still template text; write the unit's title, such as "- [ ] **T2**: Add the login form", or delete the unit`},
		{"template total", "tasks.md", doc("# Auth - Tasks", "", "**Created:** 2026-01-14", "**Total:** {N} tasks", "", "## Tasks", "- [ ] **T1**: Add login", "- [ ] **T2**: Add logout"),
			`tasks.md:4: "{N}" is still template text; write the number of tasks, such as "**Total:** 2 tasks", or delete the line`},
		{"template total of phases", "plan.md", doc("**Total:** {N} phases", "## Phases", "- [ ] **R1**: Survey"),
			`plan.md:1: "{N}" is still template text; write the number of phases, such as "**Total:** 1 phase", or delete the line`},
		{"template status", "tasks.md", doc("**Status**: 1 done, {Y} in progress, {Z} pending", "## Tasks", "- [ ] **T1**: Add login"),
			`tasks.md:1: "{Y}" is still template text; write the counts, such as "**Status:** 0 done, 0 in progress, 1 pending", or delete the line`},
		{"template domain", "plan.md", doc("**Domain:** {research|writing|analysis|planning}", "## Phases", "- [ ] **R1**: Survey"),
			`plan.md:1: "{research|writing|analysis|planning}" is still template text; write one of research, writing, analysis, planning, such as "**Domain:** research", or delete the line`},
		{"template created", "tasks.md", doc("**Created:** {timestamp}", "## Tasks", "- [ ] **T1**: Add login"),
			`tasks.md:1: "{timestamp}" is still template text; write the value of "**Created:**" or delete the line`},
		{"the template with only the title written", "tasks.md", []byte(strings.Replace(itrTemplate, "{title}", "Add login", 1)),
			`tasks.md:4: "{N}" is still template text; write the number of tasks, such as "**Total:** 1 task", or delete the line`},
		{"reading errors before template errors", "tasks.md", doc("**Total:** {N} tasks", "## Tasks", "- [ ] **T1**: a", "  - Max iterations: x"),
			`tasks.md:4: T1: max iterations "x" is not a positive whole number`},
		{"template errors before graph errors", "tasks.md", doc("## Dependencies", "T1 -> T2", "## Tasks", "- [ ] **T1**: a", "  - Model: {haiku|sonnet|opus}"),
			`tasks.md:5: T1: "{haiku|sonnet|opus}" is still template text; write one model, such as "Model: sonnet", or delete the line`},
		{"units before any heading", "tasks.md", doc("# Auth - Tasks", "", "- [ ] **T1**: Add login", "- [ ] **T2**: Add logout", "", "## Notes"),
			`tasks.md:3: unit T1 comes before any "## " heading and the file has no "## Tasks" heading, so no unit is read; put the units under a "## Tasks" heading`},
		{"units under another heading", "tasks.md", doc("# Auth - Tasks", "", "## Task list", "", "Intro.", "", "* [x] T1: Add login", "- [ ] **T2**: Add logout"),
			`tasks.md:7: unit T1 is under "## Task list" and the file has no "## Tasks" heading, so no unit is read; put the units under a "## Tasks" heading`},
		{"phases under another heading", "plan.md", doc("## Dependencies", "R1 -> R2", "- [ ] **R1**: Survey"),
			`plan.md:3: unit R1 is under "## Dependencies" and the file has no "## Phases" heading, so no unit is read; put the units under a "## Phases" heading`},
		{"template units under another heading", "tasks.md", doc("### Tasks", "- [ ] **{ID}**: {title}"),
			`tasks.md:2: unit {ID} comes before any "## " heading and the file has no "## Tasks" heading, so no unit is read; put the units under a "## Tasks" heading`},
		{"lowest line first", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Max iterations: x", "  - Depends: ?", "- [ ] **T1**: b"),
			`tasks.md:3: T1: max iterations "x" is not a positive whole number`},
		{"reading errors before graph errors", "tasks.md", doc("## Dependencies", "T9 -> T1", "## Tasks", "- [ ] **T1**: a", "  - Max iterations: x"),
			`tasks.md:5: T1: max iterations "x" is not a positive whole number`},
		{"graph errors by line", "tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Depends: T8", "## Dependencies", "T1 -> T1"),
			"tasks.md:3: unit T1 depends on T8, which is not defined; add a unit T8 or remove the dependency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.file, tt.input)
			require.Error(t, err)
			assert.Nil(t, p)
			var perr *Error
			require.ErrorAs(t, err, &perr)
			assert.Equal(t, tt.file, perr.File)
			assert.Equal(t, tt.want, err.Error())
			assert.Equal(t, tt.want, fmt.Sprintf("%s:%d: %s", perr.File, perr.Line, perr.Msg))
		})
	}
}

// itrTemplate is templates/files/tasks.md.tmpl as itr writes it for a new
// task.
const itrTemplate = `# Auth - Tasks

**Created:** 2026-01-14T10:30:00Z
**Total:** {N} tasks
**Status:** {X} done, {Y} in progress, {Z} pending

## Dependencies

T1 → T2 → T3 (sequential)
T4 (independent)

## Tasks

- [ ] **T1**: {title}
  - Files: ` + "`{paths}`" + `
  - Criteria: {measurable}
  - Completion: ` + "`<signal>T1_DONE</signal>`" + `
  - Max iterations: 5
  - Depends: none
  - Model: {haiku|sonnet|opus}

## Notes

{Context for sub-agents}
`

// TestTemplateText: a plan that is all template parses as a placeholder
// plan; template text inside prose, or only part of a title or value, is
// not template text.
func TestTemplateText(t *testing.T) {
	for name, in := range map[string]string{
		"itr's template":            itrTemplate,
		"seed template plan.md":     "# {Task Name} - Phases\n\n**Created:** {timestamp}\n**Domain:** {research|writing|analysis|planning}\n**Total:** {N} phases\n\n## Phases\n\n- [ ] **R1**: {title}\n  - Criteria: {measurable}\n  - Output: `{path}`\n  - Max iterations: {N}\n\n## Dependencies\n\nR1 → R2 → R3 → R4 (sequential)\n",
		"template header, no units": "**Total:** {N} tasks\n**Status:** {X} done, {Y} in progress, {Z} pending\n\n## Tasks\n",
	} {
		t.Run(name, func(t *testing.T) {
			p, err := Parse("tasks.md", []byte(in))
			require.NoError(t, err)
			assert.True(t, p.Placeholder())
		})
	}

	filled := strings.NewReplacer("{title}", "Add login", "`{paths}`", "`auth/login.go`", "{measurable}", `refuses "{N}" with file:line`, "{haiku|sonnet|opus}", "opus",
		"{N}", "1", "{X}", "0", "{Y}", "0", "{Z}", "1").Replace(itrTemplate)
	filled = strings.Replace(filled, "T1 → T2 → T3 (sequential)\nT4 (independent)", "T1 (alone)", 1)
	p, err := Parse("tasks.md", []byte(filled))
	require.NoError(t, err, filled)
	assert.False(t, p.Placeholder())
	assert.Equal(t, `refuses "{N}" with file:line`, p.Unit("T1").Criteria)
	assert.Equal(t, "{Context for sub-agents}", p.Sections[2].Body, "prose is not checked")

	p, err = Parse("tasks.md", doc("# {Feature} - Tasks", "## Tasks", "- [ ] **T1**: {Feature} flags", "  Details {like this}", "  - Criteria: prints {\"ok\": true}", "  - Output: `{\"ok\": true}`", "  - Files: {}", "  - Risk: {a}, {b}", "", "Notes {like this}"))
	require.NoError(t, err)
	assert.False(t, p.Placeholder())
}

func TestTemplatePlanSkipsGraphChecks(t *testing.T) {
	// The seed template names T2 and T3 in its dependencies but defines
	// only T1, whose title is still "{title}".
	in := doc("## Dependencies", "", "T1 → T2 → T3 (sequential)", "T4 (independent)", "", "## Tasks", "", "- [ ] **T1**: {title}", "  - Depends: T7")
	p, err := Parse("tasks.md", in)
	require.NoError(t, err)
	assert.True(t, p.Placeholder())
	assert.Empty(t, p.Deps("T1"))
	assert.Equal(t, []string{"T1"}, p.Ready(nil))

	// The same graph with a real title is an error.
	_, err = Parse("tasks.md", []byte(strings.Replace(string(in), "{title}", "Add the model", 1)))
	require.EqualError(t, err, "tasks.md:3: the dependency line names T2, which is not defined; add a unit T2 or remove it from the line")
}

// TestMatchUnitLineIsUnitRe: the hand-written matcher agrees with the
// regular expression it replaces, on lines of every shape.
func TestMatchUnitLineIsUnitRe(t *testing.T) {
	for _, line := range []string{
		"- [ ] **T1**: a", "* [x] T2: b", "- [X]\tT3", "- [ ]", "- [ ] ", "- [ ]  ", "- [y] T1", "-  [ ] T1",
		"- [ ]T1", "+ [ ] T1", "- [ ] \t  x  ", "", "- [", "- [ ] é", "  - [ ] T1", "- [ ] a\nb",
	} {
		m := unitRe.FindStringSubmatch(line)
		box, rest, ok := matchUnitLine(line)
		assert.Equal(t, m != nil, ok, "%q", line)
		if m != nil && ok {
			assert.Equal(t, m[1], string(box), "%q", line)
			assert.Equal(t, m[2], rest, "%q", line)
		}
	}
}
