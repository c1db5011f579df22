package gitstate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestReplaceBySpare: a file is replaced through its spare, which then
// holds the old content; the two inodes alternate, nothing else in the
// folder changes, and git sees a clean commit.
func TestReplaceBySpare(t *testing.T) {
	const rel = ".claude/iterative/s/state.json"
	dir := newRepo(t, map[string]string{rel: "{}\n"})
	r := openRepo(t, dir)
	dst := filepath.Join(dir, filepath.FromSlash(rel))
	first := inode(t, dst)
	for i, content := range []string{"one\n", "two, longer\n", "3\n"} {
		done, err := r.replaceBySpare(rel, dst, []byte(content), false)
		require.NoError(t, err)
		require.True(t, done, "round %d", i)
		got, err := os.ReadFile(dst)
		require.NoError(t, err)
		assert.Equal(t, content, string(got))
	}
	spares, err := filepath.Glob(filepath.Join(r.GitDir(), spareDir, "state.json-*"))
	require.NoError(t, err)
	require.Len(t, spares, 1)
	old, err := os.ReadFile(spares[0])
	require.NoError(t, err)
	assert.Equal(t, "two, longer\n", string(old), "the spare holds the content before")
	assert.Equal(t, first, inode(t, spares[0]), "after three rounds the first inode is the spare")
	entries, err := os.ReadDir(filepath.Dir(dst))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temp file left beside the file")
}

// TestReplaceBySpareDeclines: the caller writes the file itself when it
// is missing, not a regular file (a symbolic link is never followed), too
// large, of another mode than the spare, or the spare is a link.
func TestReplaceBySpareDeclines(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n", "big.txt": "b\n", "mode.txt": "m\n"})
	r := openRepo(t, dir)
	outside := filepath.Join(t.TempDir(), "target")
	require.NoError(t, os.WriteFile(outside, []byte("keep\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.txt")))
	require.NoError(t, os.Chmod(filepath.Join(dir, "mode.txt"), 0o600))
	for _, tc := range []struct {
		name, rel string
		data      []byte
	}{
		{"missing", "new.txt", []byte("n\n")},
		{"symbolic link", "link.txt", []byte("x\n")},
		{"too large", "big.txt", make([]byte, spareMax+1)},
		{"another mode", "mode.txt", []byte("x\n")},
	} {
		done, err := r.replaceBySpare(tc.rel, filepath.Join(dir, tc.rel), tc.data, false)
		require.NoError(t, err, tc.name)
		assert.False(t, done, tc.name)
	}
	got, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "keep\n", string(got), "nothing written through the link")

	// A spare that is a link is not followed either.
	done, err := r.replaceBySpare("a.txt", filepath.Join(dir, "a.txt"), []byte("1\n"), false)
	require.NoError(t, err)
	require.True(t, done)
	spares, err := filepath.Glob(filepath.Join(r.GitDir(), spareDir, "a.txt-*"))
	require.NoError(t, err)
	require.Len(t, spares, 1)
	require.NoError(t, os.Remove(spares[0]))
	require.NoError(t, os.Symlink(outside, spares[0]))
	done, err = r.replaceBySpare("a.txt", filepath.Join(dir, "a.txt"), []byte("2\n"), false)
	require.NoError(t, err)
	assert.False(t, done)
	got, err = os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "keep\n", string(got))
}

// TestDropSpare: deleting a file through writeWorktree removes its spare.
func TestDropSpare(t *testing.T) {
	const rel = "t/state.json"
	dir := newRepo(t, map[string]string{rel: "{}\n"})
	r := openRepo(t, dir)
	done, err := r.replaceBySpare(rel, filepath.Join(dir, rel), []byte("1\n"), false)
	require.NoError(t, err)
	require.True(t, done)
	require.FileExists(t, r.sparePath(rel))
	require.NoError(t, r.writeWorktree([]FileChange{{Path: rel, Delete: true}}))
	assert.NoFileExists(t, r.sparePath(rel))
	assert.NoFileExists(t, filepath.Join(dir, rel))
}

// TestReadRawAsOS: readRaw returns what os.ReadFile and the os.Open path
// return (content, stat data, errors a caller tests with errors.Is).
func TestReadRawAsOS(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, size := range []int{0, 1, 511, 512, 4096, 70000} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte('a' + i%26)
		}
		require.NoError(t, os.WriteFile(p, data, 0o644))
		got, sig, err := readRaw(p)
		require.NoError(t, err)
		assert.Equal(t, data, got, "size %d", size)
		want, wsig, err := readWithSigOS(p)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		assert.Equal(t, wsig, sig)
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, sigOf(fi), sig)
	}
	_, _, err := readRaw(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.ReadFile(filepath.Join(dir, "missing"))
	_, _, rawErr := readRaw(filepath.Join(dir, "missing"))
	assert.Equal(t, err.Error(), rawErr.Error())
	_, _, err = readRaw(dir)
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.EISDIR)
}
