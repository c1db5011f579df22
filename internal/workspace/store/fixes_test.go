package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
)

// TestFindArchiveByDatePrefersTheSlugsTag: a release tag named like a date
// never stands in for the slug's own archive tag of that date.
func TestFindArchiveByDatePrefersTheSlugsTag(t *testing.T) {
	f := newFixture(t)
	c1, _ := f.plannedTask("user-auth")
	f.archiveTag("user-auth", "2026-01-14", c1.Hash)
	c2 := f.work("release")
	_, err := f.fake.CreateTag("refs/tags/2026-01-14", c2.Hash, "release", tester)
	require.NoError(t, err)
	ref, commit, err := f.s.FindArchive("user-auth", "2026-01-14")
	require.NoError(t, err)
	assert.Equal(t, store.ArchiveTagPrefix+"user-auth/2026-01-14", ref)
	assert.Equal(t, c1.Hash, commit)
}

// TestSplitArchiveTagRefusesTrailingText: only a date, or a date and -n
// with n ≥ 2, names an archive.
func TestSplitArchiveTagRefusesTrailingText(t *testing.T) {
	for name, ok := range map[string]bool{
		"2026-01-14": true, "2026-01-14-2": true, "2026-01-14-17": true,
		"2026-01-14junk": false, "2026-01-14-x": false, "2026-01-14.bak": false,
		"2026-01-14-1": false, "2026-01-14-02": false, "2026-1-14": false, "2026-01-14-": false,
	} {
		_, _, got := store.SplitArchiveTag(store.ArchiveTagPrefix + "x/" + name)
		assert.Equal(t, ok, got, name)
	}
}

// TestReadWorktreeRefusesASymlinkedFolder: a folder on the way that is a
// symbolic link leads outside what git tracks; itr refuses to read there.
func TestReadWorktreeRefusesASymlinkedFolder(t *testing.T) {
	f := newFixture(t)
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "tasks.md"), []byte("secret"), 0o644))
	f.symlink(root+"/user-auth", outside)
	_, err := f.s.ReadWorktree(root + "/user-auth/tasks.md")
	require.Error(t, err)
	assert.Contains(t, err.Error(), root+"/user-auth is a symbolic link")
	assert.Contains(t, err.Error(), "make "+root+"/user-auth a real folder")
}

// TestLoadConfigRefusesAKeySetTwice names both lines.
func TestLoadConfigRefusesAKeySetTwice(t *testing.T) {
	for text, want := range map[string]string{
		"root: a\nmode: development\nroot: b\n":                       ".itr.yaml:3: root is set twice (first on line 1); keep one",
		"identity:\n  name: A\n  email: a@x\n  name: B\n":             ".itr.yaml:4: name is set twice (first on line 2); keep one",
		"root: a\nidentity:\n  name: A\n  email: a@x\nidentity: {}\n": ".itr.yaml:5: identity is set twice (first on line 2); keep one",
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, store.ConfigFile), []byte(text), 0o644))
		_, err := store.LoadConfig(dir)
		require.Error(t, err, text)
		assert.Equal(t, want, err.Error())
	}
}

func TestOneLineWithNoRoom(t *testing.T) {
	assert.Equal(t, "…", store.OneLine("anything", 0))
	assert.Equal(t, "…", store.OneLine("anything", -3))
	assert.Equal(t, "", store.OneLine("", 0))
}

// TestCheckRootRefusesALinkOnTheWay: a link anywhere on the way to the
// task root inside the work tree is refused, a missing root is not.
func TestCheckRootRefusesALinkOnTheWay(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.s.CheckRoot(), "no root yet")
	f.symlink(".claude", t.TempDir())
	err := f.s.CheckRoot()
	require.Error(t, err)
	assert.Contains(t, err.Error(), ".claude is a symbolic link")
}
