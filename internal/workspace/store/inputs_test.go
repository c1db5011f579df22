package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
)

// TestFileOf: a name is looked up in the task folder, then from the
// repository root; a folder gives its files' count and total size; a name
// reached through a symbolic link, or missing, is missing (where it would
// be in the task folder).
func TestFileOf(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	top := f.fake.Root()
	write := func(rel, data string) {
		p := filepath.Join(top, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	write(".claude/iterative/dd/outputs/cases.md", "12345")
	write(".claude/iterative/dd/outputs/notes/a.md", "ab")
	write(".claude/iterative/dd/outputs/notes/b.md", "abc")
	write("sources/brief.md", "brief\n")
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(top, "linked")))

	assert.Equal(t, store.FileFact{Name: "outputs/cases.md", Path: ".claude/iterative/dd/outputs/cases.md", Size: 5}, f.s.FileOf("dd", "outputs/cases.md"))
	assert.Equal(t, store.FileFact{Name: "outputs/notes/", Path: ".claude/iterative/dd/outputs/notes", Size: 5, Dir: true, Files: 2}, f.s.FileOf("dd", "outputs/notes/"))
	assert.Equal(t, store.FileFact{Name: "sources/brief.md", Path: "sources/brief.md", Size: 6}, f.s.FileOf("dd", "sources/brief.md"))
	assert.Equal(t, store.FileFact{Name: "outputs/memo.md", Path: ".claude/iterative/dd/outputs/memo.md", Missing: true}, f.s.FileOf("dd", "outputs/memo.md"))
	assert.True(t, f.s.FileOf("dd", "linked/secret.md").Missing, "read through a symbolic link")
	// A file where a folder is named is not the folder.
	assert.True(t, f.s.FileOf("dd", "sources/brief.md/").Missing)
	in := store.FileFact{Name: "outputs/cases.md", From: "R1"}
	assert.Equal(t, "outputs/cases.md (R1.output)", in.String())
}
