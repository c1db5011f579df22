package gitcontract

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
)

// testTreeWithout (its paths inside the cone of TestKindSparseInCone): the tree of a commit with one folder left out is the
// tree of the same commit made without it (a folder emptied by it goes
// too), and what git's mktree names it where git judges; a folder that is
// not there leaves the tree as it is.
func testTreeWithout(t *testing.T, r Subject) {
	before := commit(t, r, "work", change("a.txt", "a"), change("d/INDEX.md", "i"), change("d/other/x", "x"), change("s/b.go", "b"))
	with := commit(t, r, "task", change("d/task/state.json", "{}"), change("d/task/outputs/m.md", "m"))
	tree := func(c gitstate.Commit) string {
		h, err := r.FileHashAt(c.Hash, "")
		require.NoError(t, err)
		return h
	}
	got, err := r.TreeWithout(with.Hash, "d/task")
	require.NoError(t, err)
	assert.Equal(t, tree(before), got, "the task folder left out")
	got, err = r.TreeWithout("HEAD", "/d/task/")
	require.NoError(t, err)
	assert.Equal(t, tree(before), got, "HEAD, slashes at the ends")
	got, err = r.TreeWithout(with.Hash, "nope/memo")
	require.NoError(t, err)
	assert.Equal(t, tree(with), got, "a folder that is not there")

	only := commit(t, r, "only", del("a.txt"), del("d/INDEX.md"), del("d/other/x"))
	got, err = r.TreeWithout(only.Hash, "d/task")
	require.NoError(t, err)
	srcOnly, err := r.FileHashAt(only.Hash, "s")
	require.NoError(t, err)
	assert.NotEqual(t, tree(only), got)
	if r.opts.Git != nil {
		// The tree git writes for the top with s alone.
		want := strings.TrimSpace(r.opts.Git(t, r, []byte("040000 tree "+srcOnly+"\ts\n"), "mktree"))
		assert.Equal(t, want, got, "as git mktree names it")
	}
	gone, err := r.TreeWithout(only.Hash, "s")
	require.NoError(t, err)
	assert.NotEqual(t, got, gone)

	_, err = r.TreeWithout(missingID(r.Repository), "s")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	_, err = r.TreeWithout("HEAD", "")
	assert.Error(t, err)
}
