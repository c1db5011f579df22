package gitstate

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJournaledLocksOfAKilledRunAreRemovedAndGitsAreNot(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "itr-locks")
	j := &lockJournal{}
	j.set(journal)
	l, err := acquireLockJournaled(filepath.Join(dir, "index"), j)
	require.NoError(t, err)
	j.set("")
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
	j.set(journal)
	l, err = acquireLockJournaled(filepath.Join(dir, "config"), j)
	require.NoError(t, err)
	j.set("")
	l.rollback()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "unrelated.lock"), nil, 0o644))
	removed, err = RemoveJournaledLocks(journal)
	require.NoError(t, err)
	assert.NotContains(t, removed, filepath.Join(dir, "unrelated.lock"))

	none, err := RemoveJournaledLocks(filepath.Join(dir, "missing"))
	require.NoError(t, err)
	assert.Empty(t, none)
}

// TestRemoveJournaledLocksPublishLink removes the hard link a run killed
// inside lockFile.publish left next to its lock.
func TestRemoveJournaledLocksPublishLink(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "index.lock")
	link := lock + ".itr-4242"
	require.NoError(t, os.WriteFile(link, []byte("DIRC"), 0o644))
	journal := filepath.Join(dir, "journal")
	require.NoError(t, os.WriteFile(journal, []byte(fmt.Sprintf("intent %s %d\n", lock, time.Now().UnixNano())), 0o644))
	removed, err := RemoveJournaledLocks(journal)
	require.NoError(t, err)
	assert.Contains(t, removed, link)
	assert.NoFileExists(t, link)
}
