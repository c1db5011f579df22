package plan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnitOfAParsedPlan: a parsed plan answers Unit from its map as the
// search of a plan built in code does (the first unit with an ID), and an
// ID it lacks is nil.
func TestUnitOfAParsedPlan(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		p, err := Parse(filepath.Base(file), data)
		require.NoError(t, err)
		built := &Plan{Units: p.Units} // not parsed: searched
		for _, u := range p.Units {
			require.Same(t, built.Unit(u.ID), p.Unit(u.ID), "%s: %s", file, u.ID)
		}
		require.Nil(t, p.Unit("T-no-such-unit"))
	}
}
