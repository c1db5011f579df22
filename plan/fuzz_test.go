package plan

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks that Parse never panics, that every error is an *Error,
// and that a plan it accepts survives Render: parsing the rendering gives
// the same plan (line numbers aside) and rendering again gives the same
// bytes.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.md")
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(filepath.Base(file), data)
	}
	f.Add("tasks.md", []byte(diamond))
	f.Add("tasks.md", doc("## Tasks", "- [ ] **T1**: x", "  detail", "  - Criteria:", "    - a", "      ```", "## not heading", "  -", "", "note", "- [x] **T2:** y", "  - Depends: T1", "  - Max iterations: {N}"))
	f.Add("plan.md", doc("# P", "**K**: v", "```", "## Phases", "- [ ] **R1**: fenced", "```", "## Phases", "intro", "* [X] R1: bare", "## Dependencies", "- R1 (only)", "x -> y"))
	f.Add("tasks.md", []byte("## Tasks\r\n- [ ] **{ID}**: {title}\r\n\t- Depends: {none|T1}\r\n"))
	f.Add("tasks.md", doc("## Dependencies", "T1 -> T2 -> T1", "## Tasks", "- [ ] **T1**: a", "- [ ] **T2**: b"))
	f.Fuzz(func(t *testing.T, file string, data []byte) {
		p, err := Parse(file, data)
		if err != nil {
			var perr *Error
			require.True(t, errors.As(err, &perr), "error %v is not an *Error", err)
			require.Nil(t, p)
			return
		}
		out := p.Render()
		q, err := Parse(file, out)
		require.NoError(t, err, "parse of the rendering failed; rendering:\n%s", out)
		require.Equal(t, shape(p), shape(q), "rendering:\n%s", out)
		require.Equal(t, string(out), string(q.Render()))

		order := p.Order()
		require.ElementsMatch(t, p.IDs(), order)
		pos := map[string]int{}
		for i, id := range order {
			pos[id] = i
		}
		for _, id := range order {
			for _, d := range p.Deps(id) {
				require.Less(t, pos[d], pos[id], "%s must come after its dependency %s", id, d)
			}
		}
		for _, id := range p.Ready(nil) {
			require.Empty(t, p.Waiting(id, nil))
		}
	})
}
