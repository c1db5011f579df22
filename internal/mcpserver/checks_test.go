package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFinishRunsNamedChecks: finish runs a unit's named checks and its
// result names each; one that broke (exit 2) is an error of the check, not
// of the work: the unit stays where it was and nothing passes.
func TestFinishRunsNamedChecks(t *testing.T) {
	dir := newTask(t)
	plan := strings.Replace(tasksMD, "  - Max iterations: 5\n",
		"  - Max iterations: 5\n  - Check count: `echo 812` (target >= 800)\n  - Check lint: `sh lint.sh`\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude/iterative/demo/tasks.md"), []byte(plan), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lint.sh"), []byte("exit 2\n"), 0o644))
	git(t, dir, "add", "lint.sh")
	git(t, dir, "commit", "-q", "-m", "a lint that breaks")
	cs := connect(t, dir)
	ok[Step](t, cs, "checkpoint", map[string]any{"unit": "T1", "did": "model written"})

	res := call(t, cs, "finish", map[string]any{"unit": "T1", "evidence": "tests", "verify": []string{}})
	out := text(res)
	assert.Contains(t, out, "count: passed: exit 0", "each named check is named")
	assert.Contains(t, out, `(actual 812, target \u003e= 800)`)
	assert.Contains(t, out, "a check of T1 broke (an error of the check, not a failure of the work; see check), so T1 stays in_progress")
	assert.Contains(t, out, "lint: error: exit 2", "exit 2 is an error of the check")
	assert.Contains(t, git(t, dir, "show", "HEAD:.claude/iterative/demo/state.json"), `"status": "in_progress"`)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "lint.sh"), []byte("exit 0\n"), 0o644))
	git(t, dir, "commit", "-q", "-am", "the lint mended")
	step, _ := ok[Step](t, cs, "finish", map[string]any{"unit": "T1", "evidence": "tests", "verify": []string{}})
	assert.Equal(t, confirming, step.Status)
	assert.Contains(t, step.Check, "count: passed")
	assert.Contains(t, step.Check, "lint: passed")
	checkGit(t, dir)
}
