package mcpserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFailSkipAndTypedBlock runs the fail, skip and block tools as an
// agent would: each records one commit, resume tells a failed unit (needs
// a person) from one in progress, and every refusal changes nothing.
func TestFailSkipAndTypedBlock(t *testing.T) {
	dir := newTask(t)
	cs := connect(t, dir)

	st, _ := ok[Step](t, cs, "block", map[string]any{"unit": "T3", "reason": "no API key", "kind": "missing-input", "clear_when": "KEY is in .env"})
	assert.Equal(t, "blocked", st.Status)
	progress := git(t, dir, "show", "HEAD:.claude/iterative/demo/progress.md")
	assert.Contains(t, progress, "## T3 - Blocked - ")
	assert.Contains(t, progress, "**Reason:** no API key\n**Kind:** missing-input\n**Clear when:** KEY is in .env\n")
	stateJSON := git(t, dir, "show", "HEAD:.claude/iterative/demo/state.json")
	assert.Contains(t, stateJSON, `"reason_kind": "missing-input"`)
	assert.Contains(t, stateJSON, `"clear_when": "KEY is in .env"`)
	fails(t, cs, dir, "start", map[string]any{"unit": "T3"}, "unit T3 is blocked (missing-input: no API key; clear when: KEY is in .env)")
	fails(t, cs, dir, "block", map[string]any{"unit": "T1", "reason": "x", "kind": "someday"},
		`kind "someday" is not a block kind: use one of needs-human, tool-error, missing-input, external, decision`)

	ok[Step](t, cs, "checkpoint", map[string]any{"unit": "T1", "did": "tried"})
	fails(t, cs, dir, "block", map[string]any{"as": "failed", "unit": "T1", "reason": "x", "kind": "external"},
		`kind "external" is not a failure kind: use one of needs-human, tool-error, missing-input`)
	fails(t, cs, dir, "block", map[string]any{"as": "failed", "unit": "T1", "reason": " "}, "reason is required: say why the unit cannot go on")
	fails(t, cs, dir, "block", map[string]any{"as": "failed", "unit": "T9", "reason": "x"}, "unit T9 is not in the task")
	st, _ = ok[Step](t, cs, "block", map[string]any{"as": "failed", "unit": "T1", "reason": "the schema is unreadable", "kind": "needs-human"})
	assert.Equal(t, Step{Task: "demo", Unit: "T1", From: "in_progress", Status: "failed", Commit: st.Commit, Next: st.Next}, st)
	assert.Contains(t, st.Next, "a person reopens it")
	assert.Equal(t, "itr(demo): fail T1: the schema is unreadable", strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s")))
	assert.Contains(t, git(t, dir, "log", "-1", "--format=%B"), "Itr-Event: failed\nItr-Unit: T1\nItr-Status: failed\n")

	p, md := ok[ResumeOutput](t, cs, "resume", nil)
	assert.Equal(t, []string{"T1"}, p.Failed)
	assert.Contains(t, md, "## Failed (needs someone; do not work on these)")
	assert.Contains(t, md, "(kind: needs-human)")
	fails(t, cs, dir, "checkpoint", map[string]any{"unit": "T1", "did": "more"}, "unit T1 failed (needs-human: the schema is unreadable) and takes no work")
	fails(t, cs, dir, "block", map[string]any{"as": "failed", "unit": "T1", "reason": "again"}, "unit T1 already failed")

	// Skipping the failed unit lets T2, which depends on it, start.
	fails(t, cs, dir, "start", map[string]any{"unit": "T2"}, "unit T2 cannot start: it depends on T1 (failed)")
	st, _ = ok[Step](t, cs, "block", map[string]any{"as": "skipped", "unit": "T1", "reason": "the model is dropped"})
	assert.Equal(t, "skipped", st.Status)
	u, _ := ok[UnitInfo](t, cs, "start", map[string]any{"unit": "T2"})
	assert.Equal(t, "T2", u.Unit)
	p, _ = ok[ResumeOutput](t, cs, "resume", nil)
	assert.Equal(t, []string{"T1"}, p.Skipped)
	assert.Empty(t, p.Failed)
	fails(t, cs, dir, "block", map[string]any{"as": "skipped", "unit": "T1", "reason": "again"}, "unit T1 is already skipped")

	// Reopen brings it back to work.
	ro, _ := ok[Reopened](t, cs, "reopen", map[string]any{"unit": "T1", "reason": "needed after all"})
	assert.Equal(t, "in_progress", ro.Status)

	checkGit(t, dir)
	verifyClean(t, dir)
}
