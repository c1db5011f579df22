package gitstate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJournaledLocksOfAKilledRunAreRemovedAndGitsAreNot(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "itr-locks")
	JournalLocks(journal)
	l, err := acquireLock(filepath.Join(dir, "index"))
	require.NoError(t, err)
	JournalLocks("")
	// The "killed" run never rolls back; its lock stays.
	_ = l.f.Close()
	// A lock taken by git (not journaled) next to it.
	gitLock := filepath.Join(dir, "HEAD.lock")
	require.NoError(t, os.WriteFile(gitLock, nil, 0o644))

	removed, err := RemoveJournaledLocks(journal)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "index.lock")}, removed)
	assert.NoFileExists(t, filepath.Join(dir, "index.lock"))
	assert.FileExists(t, gitLock)

	// A lock re-created since (another inode, made long after the intent)
	// is left alone.
	JournalLocks(journal)
	l, err = acquireLock(filepath.Join(dir, "config"))
	require.NoError(t, err)
	JournalLocks("")
	l.rollback()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "unrelated.lock"), nil, 0o644))
	removed, err = RemoveJournaledLocks(journal)
	require.NoError(t, err)
	assert.NotContains(t, removed, filepath.Join(dir, "unrelated.lock"))

	none, err := RemoveJournaledLocks(filepath.Join(dir, "missing"))
	require.NoError(t, err)
	assert.Empty(t, none)
}
