package gitstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAbbreviatedHashesLooseAndPacked resolves abbreviated hashes of loose
// and packed commits, and refuses an ambiguous one.
func TestAbbreviatedHashesLooseAndPacked(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a"})
	first := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	gitRun(t, dir, "gc", "-q")
	writeFile(t, filepath.Join(dir, "b"), "b")
	gitRun(t, dir, "add", "b")
	gitRun(t, dir, "commit", "-q", "-m", "second")
	second := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	r := openRepo(t, dir)
	for _, want := range []string{first, second} {
		for _, n := range []int{4, 7, 39} {
			got, err := r.ResolveRev(want[:n])
			require.NoError(t, err, want[:n])
			assert.Equal(t, want, got)
			got, err = r.ResolveRev(strings.ToUpper(want[:n]) + "^{commit}")
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
	}
	got, err := r.ResolveRev(second[:7] + "~1")
	require.NoError(t, err)
	assert.Equal(t, first, got)
	// Two made-up loose objects sharing a prefix with nothing else.
	objs := filepath.Join(dir, ".git", "objects", "ff")
	require.NoError(t, os.MkdirAll(objs, 0o755))
	for _, name := range []string{"ffff" + strings.Repeat("0", 34), "ffff" + strings.Repeat("1", 34)} {
		writeFile(t, filepath.Join(objs, name), "x")
	}
	_, err = r.ResolveRev("ffff")
	assert.ErrorIs(t, err, ErrNotFound)
}

// TestRefsPeelsLooseAndPacked lists branches and tags, loose and packed,
// peeling annotated tags and skipping refs to non-commits.
func TestRefsPeelsLooseAndPacked(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a"})
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	gitRun(t, dir, "branch", "packed")
	gitRun(t, dir, "tag", "-a", "-m", "annotated", "v1")
	gitRun(t, dir, "pack-refs", "--all")
	gitRun(t, dir, "branch", "loose")
	gitRun(t, dir, "tag", "light")
	gitRun(t, dir, "tag", "tree", "HEAD^{tree}")
	r := openRepo(t, dir)
	refs, err := r.Refs("refs/heads/", "refs/tags/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"refs/heads/main": head, "refs/heads/packed": head, "refs/heads/loose": head,
		"refs/tags/v1": head, "refs/tags/light": head,
	}, refs)
}

// TestCorruptObjectIsAnError: a damaged object is an error, never taken
// for a missing one (which History reads as a shallow end).
func TestCorruptObjectIsAnError(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a"})
	writeFile(t, filepath.Join(dir, "b"), "b")
	gitRun(t, dir, "add", "b")
	gitRun(t, dir, "commit", "-q", "-m", "second")
	parent := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD~1"))
	p := filepath.Join(dir, ".git", "objects", parent[:2], parent[2:])
	require.NoError(t, os.Chmod(p, 0o644))
	require.NoError(t, os.WriteFile(p, []byte("not zlib"), 0o644))
	r := openRepo(t, dir)
	err := r.History("", func(Commit) bool { return true })
	require.Error(t, err)
	assert.NotErrorIs(t, err, plumbing.ErrObjectNotFound)
	assert.ErrorIs(t, err, errUnreadable)
	assert.Contains(t, err.Error(), parent)
}
