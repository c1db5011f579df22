package plan

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// diamond: T1 first, T2 and T3 after it, T4 after both; T10 and T5 have no
// dependencies but come later in the file; T6 depends on T10.
const diamond = `## Dependencies

T1 -> T3, T2
T2, T3 → T4

## Tasks

- [ ] **T10**: late number, early line
- [ ] **T4**: join
- [ ] **T3**: right
- [ ] **T2**: left
- [x] **T1**: start
- [ ] **T5**: free
- [ ] **T6**: after T10
  - Depends: T10
`

func mustParse(t *testing.T, text string) *Plan {
	t.Helper()
	p, err := Parse("tasks.md", []byte(text))
	require.NoError(t, err)
	return p
}

func doneSet(ids ...string) func(string) bool {
	return func(id string) bool { return slices.Contains(ids, id) }
}

func TestOrder(t *testing.T) {
	p := mustParse(t, diamond)
	assert.Equal(t, []string{"T10", "T4", "T3", "T2", "T1", "T5", "T6"}, p.IDs())
	assert.Equal(t, []string{"T10", "T1", "T3", "T2", "T4", "T5", "T6"}, p.Order())

	chain := mustParse(t, "## Tasks\n- [ ] **T3**: c\n  - Depends: T2\n- [ ] **T2**: b\n  - Depends: T1\n- [ ] **T1**: a\n")
	assert.Equal(t, []string{"T1", "T2", "T3"}, chain.Order())

	assert.Empty(t, mustParse(t, "").Order())
}

func TestDepsAndDependents(t *testing.T) {
	p := mustParse(t, diamond)
	tests := []struct {
		id         string
		deps, dpts []string
	}{
		{"T1", nil, []string{"T2", "T3"}},
		{"T2", []string{"T1"}, []string{"T4"}},
		{"T3", []string{"T1"}, []string{"T4"}},
		{"T4", []string{"T2", "T3"}, nil},
		{"T10", nil, []string{"T6"}},
		{"T6", []string{"T10"}, nil},
		{"T99", nil, nil},
	}
	all := p.DepMap()
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			assert.Equal(t, tt.deps, p.Deps(tt.id))
			assert.Equal(t, tt.deps, all[tt.id], "DepMap agrees with Deps")
			assert.Equal(t, tt.dpts, p.Dependents(tt.id))
		})
	}
	assert.Len(t, all, len(p.IDs()), "DepMap has every unit")
}

func TestReady(t *testing.T) {
	p := mustParse(t, diamond)
	tests := []struct {
		name string
		done func(string) bool
		want []string
	}{
		{"checkboxes when done is nil", nil, []string{"T10", "T3", "T2", "T5"}},
		{"nothing done", doneSet(), []string{"T10", "T1", "T5"}},
		{"T1 done", doneSet("T1"), []string{"T10", "T3", "T2", "T5"}},
		{"one side of the diamond", doneSet("T1", "T3"), []string{"T10", "T2", "T5"}},
		{"both sides", doneSet("T1", "T2", "T3", "T10"), []string{"T4", "T5", "T6"}},
		{"all done", doneSet("T1", "T2", "T3", "T4", "T5", "T6", "T10"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, p.Ready(tt.done))
		})
	}
}

func TestWaiting(t *testing.T) {
	p := mustParse(t, diamond)
	tests := []struct {
		id   string
		done func(string) bool
		want []string
	}{
		{"T4", doneSet(), []string{"T2", "T3"}},
		{"T4", doneSet("T3"), []string{"T2"}},
		{"T4", doneSet("T2", "T3"), nil},
		{"T2", nil, nil},
		{"T6", nil, []string{"T10"}},
		{"T1", doneSet(), nil},
		{"T99", doneSet(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			assert.Equal(t, tt.want, p.Waiting(tt.id, tt.done))
		})
	}
}

func TestBuiltInCode(t *testing.T) {
	p := &Plan{File: "tasks.md", Units: []*Unit{
		{ID: "T1", Title: "a", Depends: []string{"T2"}},
		{ID: "T2", Title: "b", Depends: []string{"T1"}},
		{ID: "T3", Title: "c"},
	}}
	// A cycle built in code: Order still lists every unit, the cycle last.
	assert.Equal(t, []string{"T3", "T1", "T2"}, p.Order())
	assert.Equal(t, []string{"T3"}, p.Ready(nil))
	require.EqualError(t, p.Check(), "tasks.md:0: dependency cycle T1 → T2 → T1; remove one of these dependencies")

	p.Units[1].Depends = nil
	require.NoError(t, p.Check())
	assert.Equal(t, []string{"T2", "T1", "T3"}, p.Order())
	assert.Equal(t, "## Tasks\n\n- [ ] **T1**: a\n  - Depends: T2\n- [ ] **T2**: b\n- [ ] **T3**: c\n", string(p.Render()))

	p.Mode = Knowledge
	p.Sections = []Section{{Heading: "Notes", Body: "text"}}
	assert.Equal(t, "## Phases\n\n- [ ] **T1**: a\n  - Depends: T2\n- [ ] **T2**: b\n- [ ] **T3**: c\n\n## Notes\n\ntext\n", string(p.Render()))
}

func TestCompareIDs(t *testing.T) {
	sorted := []string{"", "QA1", "QA2", "R9", "T01", "T1", "T2", "T10", "T10a", "T11", "T100", "x"}
	for i, a := range sorted {
		for j, b := range sorted {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			assert.Equal(t, want, CompareIDs(a, b), "%q vs %q", a, b)
		}
	}
	shuffled := []string{"T10", "T2", "R9", "T1", "QA2"}
	slices.SortFunc(shuffled, CompareIDs)
	assert.Equal(t, []string{"QA2", "R9", "T1", "T2", "T10"}, shuffled)
}

func TestValidID(t *testing.T) {
	for s, want := range map[string]bool{
		"T1": true, "R12": true, "QA3": true, "T0": true, "ABC123": true,
		"IV-A": true, "PHASE_3_HIGH_SEVERITY": true, "W2-001": true, "RR": true, "V": true, "G": true, "S1": true,
		"T": true, "t1": true, "T1a": true, "T-1": true,
		"": false, "1": false, "1A": false, "-A": false, "IV.A": false, "A B": false, " T1": false,
		"{ID}": false, "Ť1": false, "T１": false, "Task": false,
	} {
		assert.Equal(t, want, ValidID(s), "%q", s)
	}
}
