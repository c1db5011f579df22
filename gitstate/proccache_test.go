package gitstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/require"
)

// age sets a file's times well in the past, so that the process cache
// trusts its stat data (a file written just now is "racy" and read again).
func age(t *testing.T, path string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))
}

// TestProcCacheSeesOtherWriters: a Repo kept open reads HEAD, the branch
// and the config once while they stay the same, and sees at once what git
// changes meanwhile (a commit, a config edit), also within the same second.
func TestProcCacheSeesOtherWriters(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	git := filepath.Join(dir, ".git")
	for _, p := range []string{"HEAD", "config", "refs/heads/main"} {
		age(t, filepath.Join(git, filepath.FromSlash(p)))
	}
	r := openRepo(t, dir)
	h1, err := r.Head()
	require.NoError(t, err)
	_, err = r.Author(time.Time{})
	require.NoError(t, err)
	// Kept: the files are not read again while their stat data holds.
	require.Contains(t, r.cache.files, filepath.Join(git, "HEAD"))
	require.Contains(t, r.cache.files, filepath.Join(git, "refs", "heads", "main"))
	require.Contains(t, r.cache.files, filepath.Join(git, "config"))

	writeFile(t, filepath.Join(dir, "b.txt"), "b\n")
	gitRun(t, dir, "add", "b.txt")
	gitRun(t, dir, "commit", "-q", "-m", "b")
	h2, err := r.Head()
	require.NoError(t, err)
	require.NotEqual(t, h1.Hash, h2.Hash)
	require.Equal(t, strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD")), h2.Hash)

	gitRun(t, dir, "config", "user.name", "Someone Else")
	t.Setenv("GIT_AUTHOR_NAME", "")
	os.Unsetenv("GIT_AUTHOR_NAME")
	who, err := r.Author(time.Time{})
	require.NoError(t, err)
	require.Equal(t, "Someone Else", who.Name)

	// Objects are kept by name: the parent commit is read once.
	_, err = r.ReadFile("HEAD", "a.txt")
	require.NoError(t, err)
	_, _, ok := r.cache.object(plumbing.NewHash(h2.Hash))
	require.True(t, ok)
}

// TestMaintenanceCounter: the native maintenance check keeps a counter and
// lists objects/17 only when its time changed, the whole folder on a pack
// change; a loose object git adds to objects/17 is counted at once.
func TestMaintenanceCounter(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, dir)
	objects := filepath.Join(dir, ".git", "objects")
	require.NoError(t, os.MkdirAll(filepath.Join(objects, "17"), 0o755))
	// Folder times close to the counter's are not trusted: age them.
	age(t, filepath.Join(objects, "pack"))
	age(t, filepath.Join(objects, "17"))
	now := time.Now()
	c1 := r.countedObjects(objects, now)
	st, ok := readCounter(r.ItrPath(objectCounter))
	require.True(t, ok)
	require.Equal(t, 0, st.checks)
	require.Equal(t, c1, st.objectCounts)
	// Bytes this process writes are added without a listing.
	r.cache.addWritten(4096)
	c2 := r.countedObjects(objects, now.Add(2*time.Second))
	require.Equal(t, c1.looseBytes+4096, c2.looseBytes)
	st, _ = readCounter(r.ItrPath(objectCounter))
	require.Equal(t, 1, st.checks)
	// Another program adds loose objects to objects/17: counted at once.
	for i := 0; i < 3; i++ {
		writeFile(t, filepath.Join(objects, "17", strings.Repeat("0", 37)+string(rune('a'+i))), "x")
	}
	c3 := r.countedObjects(objects, now.Add(4*time.Second))
	require.Equal(t, c1.in17+3, c3.in17)
	// A new pack: the whole folder is listed again.
	gitRun(t, dir, "repack", "-q", "-a", "-d")
	c4 := r.countedObjects(objects, now.Add(6*time.Second))
	st, _ = readCounter(r.ItrPath(objectCounter))
	require.Equal(t, 0, st.checks)
	require.Equal(t, 1, c4.packs)
	// An unreadable counter is recounted.
	writeFile(t, r.ItrPath(objectCounter), "garbage\n")
	c5 := r.countedObjects(objects, now.Add(8*time.Second))
	require.Equal(t, c4.packs, c5.packs)
	st, ok = readCounter(r.ItrPath(objectCounter))
	require.True(t, ok)
	require.Equal(t, 0, st.checks)
}
