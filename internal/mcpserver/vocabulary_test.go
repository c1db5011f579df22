package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

// The seeds' vocabulary travels through MCP as through the CLI: metrics
// with a checkpoint, a restart through reopen, and the task's outcome
// through summarize; a bad outcome changes nothing.
func TestVocabularyThroughMCP(t *testing.T) {
	dir := newTask(t)
	cs := connect(t, dir)

	st, _ := ok[Step](t, cs, "checkpoint", map[string]any{"unit": "T1", "did": "drafted", "metrics": []string{"words=812"}})
	assert.Equal(t, "in_progress", st.Status)
	s := stateAt(t, dir)
	assert.Equal(t, map[string]string{"words": "812"}, s.Units["T1"].Metrics)
	assert.Contains(t, git(t, dir, "show", "HEAD:.claude/iterative/demo/progress.md"), "**Metrics:** words=812")

	fails(t, cs, dir, "checkpoint", map[string]any{"unit": "T1", "did": "x", "metrics": []string{"words=many"}}, "words=many")

	re, _ := ok[Reopened](t, cs, "reopen", map[string]any{"unit": "T1", "reason": "wrong approach", "restart": true})
	assert.Equal(t, "pending", re.Status)
	s = stateAt(t, dir)
	assert.Equal(t, 1, state.Val(s.Units["T1"].Restarts))
	fails(t, cs, dir, "reopen", map[string]any{"unit": "T1", "reason": "again", "restart": true}, "T1")

	fails(t, cs, dir, "summarize", map[string]any{"did": "x", "outcome": "finished"}, `outcome "finished" is not one of delivered, abandoned, failed`)
	rec, _ := ok[Recorded](t, cs, "summarize", map[string]any{"did": "only the model", "outcome": "delivered"})
	assert.Contains(t, rec.Text, "the task is concluded: done with limitations")
	s = stateAt(t, dir)
	require.NotNil(t, s.Outcome)
	assert.Equal(t, state.ResultLimited, s.Outcome.Result)
	assert.Equal(t, "only the model", s.Outcome.Limitations)
	checkGit(t, dir)
}

// stateAt is the task's state.json as HEAD holds it.
func stateAt(t *testing.T, dir string) *state.State {
	t.Helper()
	s, err := state.Decode([]byte(git(t, dir, "show", "HEAD:.claude/iterative/demo/state.json")))
	require.NoError(t, err)
	return s
}
