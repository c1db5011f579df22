package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace"
)

// TestToolsRecordItems records items of a unit's ledger through the
// checkpoint and finish tools, as --item does: one entry and one commit
// each; items the plan does not give, and items that do not read, are
// refused and change nothing.
func TestToolsRecordItems(t *testing.T) {
	dir := newTask(t)
	plan := strings.Replace(tasksMD, "  - Max iterations: 5\n", "  - Max iterations: 5\n  - Items: 17\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude/iterative/demo/tasks.md"), []byte(plan), 0o644))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "items in the plan")
	cs := connect(t, dir)

	st, _ := ok[Step](t, cs, "checkpoint", map[string]any{"unit": "T1", "did": "reports 1-12", "items": "1-12, 13=skipped"})
	assert.Equal(t, "in_progress", st.Status)
	progress := git(t, dir, "show", "HEAD:.claude/iterative/demo/progress.md")
	assert.Contains(t, progress, "**Items:** 1-12=done, 13=skipped\n")
	fails(t, cs, dir, "checkpoint", map[string]any{"unit": "T1", "did": "x", "items": "18"}, "item 18 is not an item of T1 (its items in the plan: 1 to 17); nothing was recorded: pass only the unit's items in items")
	fails(t, cs, dir, "checkpoint", map[string]any{"unit": "T1", "did": "x", "items": "3=finished"}, `item "3=finished" does not read: item "3=finished": "finished" is not an item state`)
	fails(t, cs, dir, "checkpoint", map[string]any{"unit": "T1", "did": "x", "items": "a\x1b[2J"}, `is not an item ID`)
	st, _ = ok[Step](t, cs, "finish", map[string]any{"unit": "T1", "evidence": "all scanned", "items": "14-17, 13"})
	assert.Equal(t, "confirming", st.Status)
	fails(t, cs, dir, "finish", map[string]any{"unit": "T1", "evidence": "x", "items": "0"}, `items are numbered from 1`)

	ws, err := workspace.Open(workspace.Options{Dir: dir})
	require.NoError(t, err)
	defer ws.Close()
	sum, err := ws.Status("demo")
	require.NoError(t, err)
	require.NotNil(t, sum.Work.Items)
	assert.Equal(t, 17, sum.Work.Items.Done)
	assert.Equal(t, 17, sum.Work.Items.Total)
	rep, err := ws.Verify("demo")
	require.NoError(t, err)
	assert.Empty(t, rep.Findings)
	checkGit(t, dir)
}
