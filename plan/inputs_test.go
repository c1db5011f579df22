package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInputs(t *testing.T) {
	p, err := Parse("plan.md", doc("## Phases",
		"- [ ] **R1**: gather", "  - Output: outputs/sources.md, outputs/notes/",
		"- [ ] **R2**: cases", "  - Output: outputs/cases.md",
		"- [ ] **R3**: memo", "  - Inputs: R1.output, `sources/brief.md`, R2.outputs, outputs/cases.md",
		"- [ ] **R4**: none", "  - Inputs: none"))
	require.NoError(t, err)
	assert.Equal(t, []Input{{Unit: "R1"}, {Name: "sources/brief.md"}, {Unit: "R2"}, {Name: "outputs/cases.md"}}, p.Unit("R3").InputRefs())
	assert.Equal(t, []InputFile{{"outputs/sources.md", "R1"}, {"outputs/notes/", "R1"}, {"sources/brief.md", ""}, {"outputs/cases.md", "R2"}}, p.InputFiles("R3"))
	assert.Nil(t, p.Unit("R4").InputRefs())
	assert.Nil(t, p.InputFiles("R9"))
	// Reading another unit's outputs waits for it.
	assert.Equal(t, []string{"R1", "R2"}, p.Deps("R3"))
	assert.Empty(t, p.Deps("R4"))
	// Render keeps the line, and the plan reads back the same.
	out := string(p.Render())
	assert.Contains(t, out, "  - Inputs: R1.output, `sources/brief.md`, R2.outputs, outputs/cases.md\n- [ ] **R4**")
	q, err := Parse("plan.md", []byte(out))
	require.NoError(t, err)
	assert.Equal(t, p.InputFiles("R3"), q.InputFiles("R3"))
}

func TestInputsErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		lines []string
		want  string
	}{
		"path out":   {[]string{"- [ ] **T1**: a", "  - Inputs: ../secrets.md"}, `tasks.md:3: T1: Inputs names "../secrets.md"; write relative paths`},
		"absolute":   {[]string{"- [ ] **T1**: a", "  - Inputs: ok.md, /etc/passwd"}, `tasks.md:3: T1: Inputs names "/etc/passwd"`},
		"unknown":    {[]string{"- [ ] **T1**: a", "  - Output: a.md", "- [ ] **T2**: b", "  - Inputs: T9.output"}, "tasks.md:5: T2: Inputs names T9.output, but there is no unit T9; add it or remove the entry"},
		"itself":     {[]string{"- [ ] **T1**: a", "  - Output: a.md", "  - Inputs: T1.output"}, "tasks.md:4: T1: Inputs names its own output (T1.output)"},
		"no output":  {[]string{"- [ ] **T1**: a", "- [ ] **T2**: b", "  - Inputs: T1.output"}, `tasks.md:4: T2: Inputs names T1.output, but T1 has no Output; give T1 an "Output:" line`},
		"cycle":      {[]string{"- [ ] **T1**: a", "  - Output: a.md", "  - Inputs: T2.output", "- [ ] **T2**: b", "  - Output: b.md", "  - Depends: T1"}, "cycle"},
		"twice":      {[]string{"- [ ] **T1**: a", "  - Inputs: a.md", "  - inputs: b.md"}, `"Inputs" is given twice`},
		"backquoted": {[]string{"- [ ] **T1**: a", "  - Inputs: a`b.md"}, `Inputs names "a`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("tasks.md", doc(append([]string{"## Tasks"}, tc.lines...)...))
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tc.want), "%v\nwant %q", err, tc.want)
		})
	}
}
