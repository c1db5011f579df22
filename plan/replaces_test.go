package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplacesParsesAndRenders(t *testing.T) {
	in := doc("## Tasks",
		"- [ ] **T1**: base",
		"- [ ] **T2**: fragile",
		"  - Depends: T1",
		"- [ ] **T3**: after",
		"  - Depends: T2",
		"- [ ] **T4**: compensate",
		"  - Depends: T1",
		"  - Replaces: `T2`, T2",
	)
	p, err := Parse("tasks.md", in)
	require.NoError(t, err)
	assert.Nil(t, p.Unit("T1").Replaces)
	assert.Equal(t, []string{"T2"}, p.Unit("T4").Replaces)
	assert.Equal(t, map[string][]string{"T2": {"T4"}}, p.ReplacedBy())
	out := p.Render()
	assert.Contains(t, string(out), "  - Replaces: T2\n")
	q, err := Parse("tasks.md", out)
	require.NoError(t, err)
	assert.Equal(t, shape(p), shape(q))
	assert.Equal(t, string(out), string(q.Render()))
}

func TestReplacesErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"unknown unit", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "  - Replaces: T9"),
			"tasks.md:4: unit T2 replaces T9, which is not defined; name a unit of the plan, or remove it from the Replaces line"},
		{"itself", doc("## Tasks", "- [ ] **T1**: a", "  - Files: x", "  - Replaces: T1"),
			"tasks.md:4: unit T1 replaces itself; name the failed unit it stands in for, or remove the Replaces line"},
		{"not an ID", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "  - Replaces: #1 first"),
			`tasks.md:4: T2: Replaces lists "#1", which is not a unit ID; write the IDs of the units this one stands in for, such as "Replaces: T3"`},
		{"empty", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "  - Replaces:"),
			`tasks.md:4: T2: Replaces lists "", which is not a unit ID; write the IDs of the units this one stands in for, such as "Replaces: T3"`},
		{"depends on what it replaces", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "  - Depends: T1", "- [ ] **T3**: c", "  - Depends: T2", "  - Replaces: T1"),
			"tasks.md:7: unit T3 replaces T1 but depends on it, so T1 could never count as done before T3; remove the dependency or the replacement"},
		{"given twice", doc("## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b", "  - Replaces: T1", "  - Replaces: T1"),
			`tasks.md:5: T2: "Replaces" is given twice (first on line 4); keep one`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("tasks.md", tc.in)
			require.Error(t, err)
			assert.Nil(t, p)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
