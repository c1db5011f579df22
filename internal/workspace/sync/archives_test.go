package syncer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// archiveTag and archiveBranch are the refs of the task demo's archive.
const (
	archiveTag    = store.ArchiveTagPrefix + slug + "/2026-01-14"
	archiveBranch = store.ArchiveBranchPrefix + slug
)

// archive archives the task demo in dir as itr archive leaves it: the
// annotated tag and the branch at the task's last commit, and a commit
// that takes the folder out of the branch. It returns that commit.
func archive(t *testing.T, dir, message string) string {
	t.Helper()
	git(t, dir, "tag", "-a", "-m", message, strings.TrimPrefix(archiveTag, "refs/tags/"), "HEAD")
	git(t, dir, "branch", strings.TrimPrefix(archiveBranch, "refs/heads/"), "HEAD")
	git(t, dir, "rm", "-r", "-q", taskDir())
	git(t, dir, "commit", "-q", "-m", "itr("+slug+"): archive")
	return testgit.Line(t, dir, "rev-parse", "HEAD")
}

// archiveRefs are the archive refs of a clone, or of a bare remote.
func archiveRefs(t *testing.T, dir string, bareRepo bool) string {
	t.Helper()
	args := []string{"for-each-ref", "--format=%(refname) %(objectname)", store.ArchiveTagPrefix, store.ArchiveBranchPrefix}
	if bareRepo {
		return bareGit(t, dir, args...)
	}
	return git(t, dir, args...)
}

// Archive refs travel with sync: pushed by the clone that archived,
// fetched by the other, whose working tree loses the folder with the
// branch.
func TestSyncCarriesArchives(t *testing.T) {
	clk, remote, a, b := twoClones(t)
	archived := archive(t, a, "done elsewhere")

	ra, err := runSync(t, a, "alice", clk, Request{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"pushed " + archiveBranch, "pushed " + archiveTag}, ra.Archives)
	archives := archiveRefs(t, a, false)
	require.Contains(t, archives, archiveTag+" "+testgit.Line(t, a, "rev-parse", archiveTag))
	assert.Equal(t, archives, archiveRefs(t, remote, true))
	assert.Empty(t, ra.Warnings)

	rb, err := runSync(t, b, "bob", clk, Request{})
	require.NoError(t, err)
	assert.Equal(t, string(gitstate.FastForward), rb.Integration)
	assert.ElementsMatch(t, []string{"fetched " + archiveBranch, "fetched " + archiveTag}, rb.Archives)
	assert.Equal(t, archives, archiveRefs(t, b, false))
	assert.Equal(t, archived, testgit.Line(t, b, "rev-parse", "HEAD"))
	assert.Empty(t, lsTree(t, b, "HEAD", taskDir()))
	_, err = os.Stat(filepath.Join(b, filepath.FromSlash(taskDir())))
	assert.True(t, os.IsNotExist(err), "%v", err)
	assert.Empty(t, rb.Warnings)
	for _, dir := range []string{a, b} {
		testgit.Check(t, dir)
	}
	testgit.FsckBare(t, remote)

	// Once both have them, a sync moves no archive.
	ra, err = runSync(t, a, "alice", clk, Request{})
	require.NoError(t, err)
	assert.Empty(t, ra.Archives)
}

// An archive that differs between the clones (the same name, archived in
// each) is never replaced, either way: the sync goes on and warns.
func TestSyncKeepsDifferingArchives(t *testing.T) {
	clk, remote, a, b := twoClones(t)
	git(t, a, "tag", "-a", "-m", "archived by a", strings.TrimPrefix(archiveTag, "refs/tags/"), "HEAD")
	git(t, b, "tag", "-a", "-m", "archived by b", strings.TrimPrefix(archiveTag, "refs/tags/"), "HEAD")
	tagA, tagB := testgit.Line(t, a, "rev-parse", archiveTag), testgit.Line(t, b, "rev-parse", archiveTag)
	require.NotEqual(t, tagA, tagB)

	_, err := runSync(t, a, "alice", clk, Request{})
	require.NoError(t, err)
	rb, err := runSync(t, b, "bob", clk, Request{})
	require.NoError(t, err, "an archive that differs does not stop the sync")
	assert.Empty(t, rb.Archives)
	assert.NotEmpty(t, rb.Warnings)
	joined := strings.Join(rb.Warnings, "\n")
	assert.Contains(t, joined, "archive "+archiveTag+" differs on origin")
	assert.Contains(t, joined, "both are kept, look with `itr archives`")
	assert.Equal(t, tagB, testgit.Line(t, b, "rev-parse", archiveTag), "b's own archive kept")
	assert.Equal(t, tagA, remoteRef(t, remote, archiveTag), "the remote's kept")
	testgit.Check(t, b)
}

// claimCount counts the claims of the tasks named, a damaged ref as held.
func TestClaimCount(t *testing.T) {
	fake := gitfake.New(filepath.Join(t.TempDir(), "repo"))
	st, err := store.New(fake, store.DefaultRoot, store.Config{}, "", (&clock{now: t0}).Now)
	require.NoError(t, err)
	claim := func(slug, unit string, data []byte) {
		id, err := fake.WriteBlob(data)
		require.NoError(t, err)
		require.NoError(t, fake.UpdateRef(store.ClaimRef(slug, unit), id, ""))
	}
	w := &clone{st}
	assert.Equal(t, 0, w.claimCount([]string{"demo", "auth"}), "none yet")
	claim("demo", "T1", store.Claim{Unit: "T1", Agent: "alice"}.Encode())
	claim("demo", "T2", store.Claim{Unit: "T2", Agent: "bob", Finished: "2026-01-14T09:00:00Z"}.Encode())
	claim("auth", "T1", []byte("not a claim"))
	claim("other", "T1", store.Claim{Unit: "T1", Agent: "carol"}.Encode())
	cases := []struct {
		slugs []string
		want  int
	}{
		{nil, 0},
		{[]string{"demo"}, 2},
		{[]string{"auth"}, 1},
		{[]string{"demo", "auth"}, 3},
		{[]string{"demo", "auth", "other"}, 4},
		{[]string{"gone"}, 0},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, w.claimCount(c.slugs), "%v", c.slugs)
	}
}
