package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/state"
)

// TestPaletteAgreesWithTheTerminal: the one palette of the report, DOT
// and Mermaid names for each class the terminal colour its status word
// gets here (statusColors), so a status reads the same hue everywhere.
func TestPaletteAgreesWithTheTerminal(t *testing.T) {
	codes := map[string]byte{"green": 'g', "blue": 'b', "cyan": 'c', "purple": 'p', "red": 'r', "dim": 'd'}
	for _, p := range workspace.Palette {
		status := p.Class
		if status == "ready" || status == "waiting" {
			status = string(state.Pending) // both are pending units
		}
		if status == string(state.Failed) {
			status = state.RunFailed // the same word, coloured as a failed run
		}
		want, ok := codes[p.Term]
		if assert.True(t, ok, "%s: unknown terminal colour %q", p.Class, p.Term) {
			assert.Equal(t, string(want), string(statusColors[status]), "%s: the palette says %s", p.Class, p.Term)
		}
	}
}
