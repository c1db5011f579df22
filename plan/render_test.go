package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRenderAfterEdits(t *testing.T) {
	const in = "# P\n\n## Tasks\n\n- [ ] **T1**: a\n  - Model: haiku\n  - Files: a.go\n  - Depends: -\n- [ ] **T2**: b\n  - Max iterations: 7\n\n## Notes\n\nkeep me\n"
	tests := []struct {
		name string
		edit func(p *Plan)
		want string
	}{
		{"canonical order, none for an empty Depends", func(*Plan) {},
			"# P\n\n## Tasks\n\n- [ ] **T1**: a\n  - Files: a.go\n  - Depends: none\n  - Model: haiku\n- [ ] **T2**: b\n  - Max iterations: 7\n\n## Notes\n\nkeep me\n"},
		{"check a box", func(p *Plan) { p.Unit("T1").Done = true },
			"# P\n\n## Tasks\n\n- [x] **T1**: a\n  - Files: a.go\n  - Depends: none\n  - Model: haiku\n- [ ] **T2**: b\n  - Max iterations: 7\n\n## Notes\n\nkeep me\n"},
		{"a new limit", func(p *Plan) { p.Unit("T2").MaxIterations = 4 },
			"# P\n\n## Tasks\n\n- [ ] **T1**: a\n  - Files: a.go\n  - Depends: none\n  - Model: haiku\n- [ ] **T2**: b\n  - Max iterations: 4\n\n## Notes\n\nkeep me\n"},
		{"dropping Depends drops the line", func(p *Plan) { p.Unit("T1").Depends = nil },
			"# P\n\n## Tasks\n\n- [ ] **T1**: a\n  - Files: a.go\n  - Model: haiku\n- [ ] **T2**: b\n  - Max iterations: 7\n\n## Notes\n\nkeep me\n"},
		{"multi-line values, details, extra and notes", func(p *Plan) {
			u := p.Unit("T2")
			u.Criteria = "\n- one\n- two"
			u.Details = "why it matters"
			u.Extra = []Field{{"Risk", "low"}, {"", "plain bullet"}}
			u.Notes = "A paragraph."
			p.Units = append(p.Units, &Unit{ID: "T3", Title: "c", Depends: []string{"T1", "T2"}})
		}, "# P\n\n## Tasks\n\n- [ ] **T1**: a\n  - Files: a.go\n  - Depends: none\n  - Model: haiku\n- [ ] **T2**: b\n  why it matters\n  - Criteria:\n    - one\n    - two\n  - Max iterations: 7\n  - Risk: low\n  - plain bullet\n\nA paragraph.\n\n- [ ] **T3**: c\n  - Depends: T1, T2\n\n## Notes\n\nkeep me\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("tasks.md", []byte(in))
			require.NoError(t, err)
			tt.edit(p)
			out := p.Render()
			assert.Equal(t, tt.want, string(out))
			q, err := Parse("tasks.md", out)
			require.NoError(t, err)
			assert.Equal(t, shape(p), shape(q))
		})
	}
}

// TestRenderTemplateText: template text is kept only in a plan that is
// still the template (a real plan with it does not parse); a real value
// written in code replaces it.
func TestRenderTemplateText(t *testing.T) {
	const in = "## Tasks\n\n- [ ] **T1**: {title}\n  - Max iterations: {N}\n  - Depends: {none|T1}\n"
	p, err := Parse("tasks.md", []byte(in))
	require.NoError(t, err)
	require.True(t, p.Placeholder())
	assert.Equal(t, in, string(p.Render()))

	u := p.Unit("T1")
	u.MaxIterations, u.Depends = 4, []string{}
	assert.Equal(t, "## Tasks\n\n- [ ] **T1**: {title}\n  - Max iterations: 4\n  - Depends: none\n", string(p.Render()))

	u.Title, u.Placeholder, u.MaxIterations = "real", false, 0
	require.EqualError(t, p.Check(), `tasks.md:4: T1: "{N}" is still template text; write a number of iterations, such as "Max iterations: 5"`)
}

func TestRenderEmpty(t *testing.T) {
	p, err := Parse("tasks.md", []byte("\n\n"))
	require.NoError(t, err)
	assert.Empty(t, p.Render())
	assert.Empty(t, (&Plan{}).Render())
}
