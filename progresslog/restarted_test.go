package progresslog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestartedEntry: a Restarted entry (itr restart) with who made it
// appends and reads back as itself; written about the task, it says how to
// write it.
func TestRestartedEntry(t *testing.T) {
	e := Entry{Kind: KindRestarted, Unit: "T2", Stamp: "2026-02-03T15:20:00Z", Fields: []Field{
		{Name: "Reason", Value: "the draft went the wrong way"},
		{Name: "Agent", Value: "technical-pm"},
		{Name: "Model", Value: "opus"},
		{Name: "Session", Value: "s-2"},
	}}
	log, err := Append(nil, e)
	require.NoError(t, err)
	assert.Equal(t, "# Progress Log\n\n## T2 - Restarted - 2026-02-03T15:20:00Z\n**Reason:** the draft went the wrong way\n**Agent:** technical-pm\n**Model:** opus\n**Session:** s-2\n", string(log))
	l := Parse(log)
	require.Len(t, l.Entries, 1)
	assert.Empty(t, l.Problems)
	got := l.Entries[0]
	assert.Equal(t, KindRestarted, got.Kind)
	assert.Equal(t, "T2", got.Unit)
	agent, _ := got.Field("Agent")
	assert.Equal(t, "technical-pm", agent)
	assert.Equal(t, "restarted", KindRestarted.String())

	l = Parse([]byte("## Task - Restarted - 2026-02-03T15:20:00Z\n"))
	require.Len(t, l.Problems, 1)
	assert.Contains(t, l.Problems[0].Msg, `Restarted is about a unit, so its subject must be a unit ID such as T1, not "Task"; write it as "## T1 - Restarted - 2026-02-03T15:20:00Z"`)
}
