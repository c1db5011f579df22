package gitstate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArchiveBranchAndTag(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, dir)
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	who := Signature{Name: "Tagger", Email: "tagger@example.com", When: fixedTime}

	require.NoError(t, r.SetBranch("refs/heads/itr/archive/x", head, who, "itr: archive x"))
	got, err := r.ReadRef("refs/heads/itr/archive/x")
	require.NoError(t, err)
	assert.Equal(t, head, got)
	assert.Equal(t, head+"\n", gitRun(t, dir, "rev-parse", "itr/archive/x"))
	assert.Contains(t, gitRun(t, dir, "reflog", "show", "itr/archive/x"), "itr: archive x")

	msg := "itr archive: x\n\nUnits: 1/1 done\n"
	tagHash, err := r.CreateTag("refs/tags/itr/archive/x/2026-03-04", head, msg, who)
	require.NoError(t, err)
	assert.Equal(t, "tag\n", gitRun(t, dir, "cat-file", "-t", tagHash))
	assert.Equal(t, head+"\n", gitRun(t, dir, "rev-parse", "itr/archive/x/2026-03-04^{commit}"))
	assert.True(t, strings.HasSuffix(gitRun(t, dir, "cat-file", "tag", tagHash), "\n\n"+msg))
	assert.Equal(t, "Tagger <tagger@example.com>\n", gitRun(t, dir, "tag", "-l", "--format=%(taggername) %(taggeremail)", "itr/archive/x/2026-03-04"))

	tag, err := r.ReadTag("refs/tags/itr/archive/x/2026-03-04")
	require.NoError(t, err)
	assert.Equal(t, Tag{Ref: "refs/tags/itr/archive/x/2026-03-04", Hash: tagHash, Name: "itr/archive/x/2026-03-04",
		Target: head, Tagger: Signature{Name: "Tagger", Email: "tagger@example.com", When: tag.Tagger.When}, Message: msg}, tag)
	assert.True(t, fixedTime.Equal(tag.Tagger.When))
	peeled, err := r.PeelCommit(tagHash)
	require.NoError(t, err)
	assert.Equal(t, head, peeled)

	// A second tag of the same name is refused and changes nothing.
	_, err = r.CreateTag("refs/tags/itr/archive/x/2026-03-04", head, "again", who)
	require.ErrorIs(t, err, ErrRefExists)
	val, err := r.ReadRef("refs/tags/itr/archive/x/2026-03-04")
	require.NoError(t, err)
	assert.Equal(t, tagHash, val)

	assert.Empty(t, checkRepo(t, dir))
	raw, err := r.RawRefs("refs/tags/itr/archive/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"refs/tags/itr/archive/x/2026-03-04": tagHash}, raw)
}

func TestArchiveRefsSurvivePackAndGC(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	first := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	who := Signature{Name: "T", Email: "t@example.com", When: fixedTime}
	r := openRepo(t, dir)
	require.NoError(t, r.SetBranch("refs/heads/itr/archive/x", first, who, "archive"))
	tagHash, err := r.CreateTag("refs/tags/itr/archive/x/2026-03-04", first, "m", who)
	require.NoError(t, err)
	require.NoError(t, r.Close())

	// The working branch moves on without the archived commit's files;
	// gc packs everything and prunes what no ref reaches.
	gitRun(t, dir, "rm", "-q", "a.txt")
	gitRun(t, dir, "commit", "-q", "-m", "remove")
	gitRun(t, dir, "gc", "-q", "--prune=now")
	_, err = os.Stat(filepath.Join(dir, ".git", "refs", "tags", "itr", "archive", "x", "2026-03-04"))
	require.True(t, os.IsNotExist(err), "gc packs the refs")

	r = openRepo(t, dir)
	got, err := r.ReadRef("refs/heads/itr/archive/x")
	require.NoError(t, err)
	assert.Equal(t, first, got)
	tag, err := r.ReadTag("refs/tags/itr/archive/x/2026-03-04")
	require.NoError(t, err)
	assert.Equal(t, tagHash, tag.Hash)
	data, err := r.ReadFile(tag.Ref, "a.txt")
	require.NoError(t, err)
	assert.Equal(t, "a\n", string(data))

	// Moving a packed branch writes a loose ref that git reads first.
	second := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	require.NoError(t, r.SetBranch("refs/heads/itr/archive/x", second, who, "archive again"))
	assert.Equal(t, second+"\n", gitRun(t, dir, "rev-parse", "refs/heads/itr/archive/x"))
	_, err = r.CreateTag("refs/tags/itr/archive/x/2026-03-04", second, "m", who)
	require.ErrorIs(t, err, ErrRefExists, "a packed tag exists too")
	assert.Empty(t, checkRepo(t, dir))
}

func TestArchiveRefRefusals(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	gitRun(t, dir, "branch", "itr")
	gitRun(t, dir, "branch", "keep/deep/leaf")
	gitRun(t, dir, "tag", "v1/x")
	gitRun(t, dir, "pack-refs", "--all")
	r := openRepo(t, dir)
	who := Signature{Name: "T", Email: "t@example.com", When: fixedTime}
	for _, tc := range []struct {
		name, ref, commit, want string
		tag                     bool
	}{
		{"branch folder is a ref", "refs/heads/itr/archive/x", head, "the ref refs/heads/itr exists", false},
		{"ref is a folder of packed refs", "refs/heads/keep/deep", head, "refs/heads/keep/deep/leaf exists under it", false},
		{"tag folder is a packed ref", "refs/tags/v1/x/y", head, "the ref refs/tags/v1/x exists", true},
		{"missing commit", "refs/heads/ok", strings.Repeat("1", 40), "not found", false},
		{"short hash", "refs/heads/ok", head[:7], "not a full commit hash", false},
		{"bad name", "refs/heads/a..b", head, "not a valid git ref name", false},
		{"lock suffix", "refs/tags/a.lock", head, "not a valid git ref name", true},
		{"not a branch", "refs/tags/x", head, "refs/heads/", false},
		{"not a tag", "refs/heads/x", head, "refs/tags/", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := gitRun(t, dir, "for-each-ref")
			var err error
			if tc.tag {
				_, err = r.CreateTag(tc.ref, tc.commit, "m", who)
			} else {
				err = r.SetBranch(tc.ref, tc.commit, who, "m")
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, before, gitRun(t, dir, "for-each-ref"))
		})
	}
	_, err := r.ReadTag("refs/tags/none")
	require.ErrorIs(t, err, ErrNotFound)
	_, err = r.ReadTag("refs/heads/itr")
	require.ErrorIs(t, err, ErrNotFound, "a branch names a commit, not a tag object")
	_, err = r.CreateTag("refs/tags/anon", head, "m", Signature{When: fixedTime})
	require.ErrorIs(t, err, ErrNoIdentity)
	assert.Empty(t, checkRepo(t, dir))
}

func TestArchiveRefWaitsForGitLock(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	r := openRepo(t, dir)
	lock := filepath.Join(dir, ".git", "refs", "heads", "held.lock")
	writeFile(t, lock, "")
	err := r.SetBranch("refs/heads/held", head, Signature{Name: "T", Email: "t@example.com", When: fixedTime}, "m")
	require.ErrorIs(t, err, ErrLocked)
	var le *lockedError
	require.True(t, errors.As(err, &le))
	got, err := r.ReadRef("refs/heads/held")
	require.NoError(t, err)
	assert.Empty(t, got, "nothing written while git holds the lock")
	require.NoError(t, os.Remove(lock))
	require.NoError(t, r.SetBranch("refs/heads/held", head, Signature{Name: "T", Email: "t@example.com", When: fixedTime}, "m"))
	assert.Empty(t, checkRepo(t, dir))
}

func TestArchiveRawRefsLooseOverPackedSkipsLocks(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	first := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	gitRun(t, dir, "branch", "itr/archive/a")
	gitRun(t, dir, "branch", "itr/archive/b")
	gitRun(t, dir, "pack-refs", "--all")
	gitRun(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	second := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	gitRun(t, dir, "branch", "-f", "itr/archive/b", second) // loose now, packed still old
	writeFile(t, filepath.Join(dir, ".git", "refs", "heads", "itr", "archive", "c.lock"), "")
	writeFile(t, filepath.Join(dir, ".git", "refs", "heads", "itr", "archive", "junk"), "not a hash\n")
	r := openRepo(t, dir)
	got, err := r.RawRefs("refs/heads/itr/archive/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"refs/heads/itr/archive/a": first, "refs/heads/itr/archive/b": second}, got)
	got, err = r.RawRefs("refs/heads/nothing/")
	require.NoError(t, err)
	assert.Empty(t, got)
}
