package hooks

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// TestCheckStagedDecisions: decisions.md is held to the same append-only
// rule as the logs.
func TestCheckStagedDecisions(t *testing.T) {
	f := newFixture(t)
	b := loggedTask(f)
	f.tick()
	dec, err := progresslog.AppendDecision(nil, progresslog.Decision{Title: "Storage", Choice: "SQLite", Why: "one file"})
	require.NoError(t, err)
	b.commit(nil, store.EventDecision, "decide: Storage", []gitstate.FileChange{{Path: b.rel(store.DecisionsFile), Data: dec}})

	// An append passes.
	more, err := progresslog.AppendDecision(dec, progresslog.Decision{Title: "Storage", Choice: "PostgreSQL", Why: "replication"})
	require.NoError(t, err)
	f.stage(b.rel(store.DecisionsFile), more)
	got, err := CheckStaged(f.st)
	require.NoError(t, err)
	assert.Empty(t, got)

	// A rewrite of an earlier decision is refused, naming it and the fix.
	f.stage(b.rel(store.DecisionsFile), bytes.Replace(dec, []byte("SQLite"), []byte("MySQL"), 1))
	got, err = CheckStaged(f.st)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, b.rel(store.DecisionsFile), got[0].File)
	assert.Contains(t, got[0].Problem, `the commit would rewrite earlier entries: decisions.md: entry "Storage" changed at line 6`)
	assert.Contains(t, got[0].Fix, "`git checkout HEAD -- .claude/iterative/auth/decisions.md`")
	assert.Contains(t, got[0].Diff, "+- **Choice**: MySQL")

	// So is taking it out.
	f.stage(b.rel(store.DecisionsFile), []byte("# Decisions\n"))
	got, err = CheckStaged(f.st)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Contains(t, got[0].Problem, "decisions.md")
}
