package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecideAndSummarizeTools(t *testing.T) {
	dir := newTask(t)
	cs := connect(t, dir)
	decisions := filepath.Join(dir, ".claude/iterative/demo/decisions.md")

	// Bad input is refused, naming the parameter, and changes nothing.
	fails(t, cs, dir, "decide", map[string]any{"title": " ", "choice": "SQLite", "why": "one file"}, "title is required")
	fails(t, cs, dir, "decide", map[string]any{"title": "Storage", "choice": "", "why": "one file"}, "choice is required")
	fails(t, cs, dir, "decide", map[string]any{"title": "Storage", "choice": "SQLite"}, "why")
	fails(t, cs, dir, "decide", map[string]any{"title": "Storage", "choice": "SQLite", "why": "  "}, "why is required: say why")
	fails(t, cs, dir, "decide", map[string]any{"title": "Storage", "choice": "SQL\x00ite", "why": "x"}, "choice holds a NUL byte")
	fails(t, cs, dir, "decide", map[string]any{"title": "Storage", "choice": "SQLite", "why": "\x1b[2J"}, `why holds the control character \x1b`)
	fails(t, cs, dir, "decide", map[string]any{"title": "Storage", "choice": "SQLite", "why": "x", "unit": "T9"}, `unit "T9" is not a unit of the task`)
	fails(t, cs, dir, "summarize", map[string]any{"did": ""}, "did is required")
	fails(t, cs, dir, "summarize", map[string]any{"did": "x", "kind": "needs-human"}, "goes with outcome failed; a summary has none")
	_, err := os.Stat(decisions)
	assert.True(t, os.IsNotExist(err), "no decisions.md before a decision")

	ok[Step](t, cs, "checkpoint", map[string]any{"did": "started"})
	r, _ := ok[Recorded](t, cs, "decide", map[string]any{"title": "Storage", "choice": "PostgreSQL", "why": "the team knows it"})
	assert.Equal(t, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")), r.Commit)
	assert.Equal(t, `decision "Storage" recorded in decisions.md; resume lists it as settled`, r.Text)
	ok[Recorded](t, cs, "decide", map[string]any{"title": "storage", "choice": "SQLite", "why": "one file", "unit": "T1"})
	body := git(t, dir, "log", "-1", "--format=%B")
	assert.Contains(t, body, "Itr-Task: demo\nItr-Event: decision\n")
	data, err := os.ReadFile(decisions)
	require.NoError(t, err)
	assert.Contains(t, string(data), "## Storage\n- **Choice**: PostgreSQL\n- **Why**: the team knows it\n- **Unit**: T1\n")
	assert.Contains(t, string(data), "## storage\n- **Choice**: SQLite\n")
	checkGit(t, dir)

	r, _ = ok[Recorded](t, cs, "summarize", map[string]any{"did": "T1 started; SQLite chosen"})
	assert.Contains(t, r.Text, "it covers entries 1–3, through T1 - Iteration 1 - ")
	assert.Contains(t, git(t, dir, "log", "-1", "--format=%B"), "Itr-Event: summary\n")
	fails(t, cs, dir, "summarize", map[string]any{"did": "again"}, "is already a Summary")

	_, md := ok[ResumeOutput](t, cs, "resume", nil)
	assert.Contains(t, md, "- “storage” → “SQLite”")
	assert.NotContains(t, md, "PostgreSQL", "a superseded decision is not listed")
	assert.Contains(t, md, "## Summary so far (progress.md line")
	assert.Contains(t, md, "T1 started; SQLite chosen")

	verifyClean(t, dir)
	checkGit(t, dir)
}
