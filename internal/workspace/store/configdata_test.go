package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name, in, root, err string
	}{
		{"empty", "", "", ""},
		{"root", "root: work/tasks\n", "work/tasks", ""},
		{"unknown key", "colour: red\n", "", `commit 1a2b: .itr.yaml:1: unknown key "colour"`},
		{"not a mapping", "- a\n", "", "commit 1a2b:1: expected keys"},
		{"not yaml", "root: [\n", "", "commit 1a2b: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig("commit 1a2b", []byte(tt.in))
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.root, c.Root)
		})
	}
}
