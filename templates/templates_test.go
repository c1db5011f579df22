package templates

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestTaskGolden(t *testing.T) {
	cases := map[string]Data{
		"development": {Name: "User authentication", Slug: "user-auth", Created: "2026-01-14T10:30:00Z", Mode: "development"},
		"knowledge":   {Name: "Future of work \"synthesis\" <draft>", Slug: "future-work", Created: "2026-01-16T10:00:00Z", Mode: "knowledge", Domain: "research"},
	}
	for mode, d := range cases {
		t.Run(mode, func(t *testing.T) {
			files, err := Task(d)
			require.NoError(t, err)
			var names []string
			for _, f := range files {
				names = append(names, f.Name)
				golden := filepath.Join("testdata", mode, f.Name+".golden")
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
					require.NoError(t, os.WriteFile(golden, f.Data, 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "run go test ./templates -update")
				assert.Equal(t, string(want), string(f.Data), f.Name)
			}
			unitsFile := map[string]string{"development": "tasks.md", "knowledge": "plan.md"}[mode]
			assert.Equal(t, []string{"state.json", "brief.md", unitsFile, "context.md", "progress.md", "guardrails.md"}, names)
		})
	}
}

// TestStateTemplatesAreCanonical checks that a new state.json decodes, is
// valid, and is already in the canonical form itr writes.
func TestStateTemplatesAreCanonical(t *testing.T) {
	for _, d := range []Data{
		{Name: "a", Slug: "a", Created: "2026-01-14T10:30:00Z", Mode: "development"},
		{Name: "a", Slug: "a", Created: "2026-01-14T10:30:00Z", Mode: "development", Domain: "bug"},
		{Name: "b", Slug: "b", Created: "2026-01-14T10:30:00Z", Mode: "knowledge"},
		{Name: "b \\ é", Slug: "b", Created: "2026-01-14T10:30:00Z", Mode: "knowledge", Domain: "writing"},
	} {
		data, err := Render("state-"+d.Mode+".json", d)
		require.NoError(t, err)
		s, err := state.Decode(data)
		require.NoError(t, err, string(data))
		assert.Equal(t, string(data), string(s.Encode()))
		assert.Equal(t, d.Name, s.Task)
		assert.Equal(t, state.Discover, s.Phase)
		assert.Equal(t, d.Domain, state.Val(s.Domain))
	}
}

func TestUnknownMode(t *testing.T) {
	_, err := Task(Data{Mode: "dev"})
	assert.EqualError(t, err, `mode "dev" is not development or knowledge`)
	_, err = Render("nope.md", Data{})
	assert.Error(t, err)
}
