package gitstate

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readTREE returns the parsed TREE extension of the repository's index.
func readTREE(t *testing.T, dir string) *cacheTree {
	t.Helper()
	path := filepath.Join(dir, ".git", "index")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	idx, err := parseIndex(path, data)
	require.NoError(t, err)
	for _, e := range idx.Exts {
		if e.Sig == "TREE" {
			ct, rest, ok := parseCacheTree(e.Data)
			require.True(t, ok)
			require.Empty(t, rest)
			return ct
		}
	}
	return nil
}

func TestCommitFilesKeepsCacheTree(t *testing.T) {
	dir := newRepo(t, map[string]string{
		stateJSON:     "{}\n",
		"src/a.go":    "package a\n",
		"src/b/b.go":  "package b\n",
		"docs/x.md":   "x\n",
		"top.txt":     "t\n",
		"untr/keep.t": "k\n",
	})
	gitRun(t, dir, "config", "core.untrackedCache", "true")
	gitRun(t, dir, "update-index", "--untracked-cache")
	gitRun(t, dir, "status", "--porcelain") // fills UNTR
	before := readTREE(t, dir)
	require.NotNil(t, before)
	require.GreaterOrEqual(t, before.Count, 0)

	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: stateJSON, Data: []byte("{\"x\":1}\n")}}, Message: "m", Worktree: true})
	require.NoError(t, err)
	after := readTREE(t, dir)
	require.NotNil(t, after, "TREE extension kept")
	assert.Equal(t, -1, after.Count, "root invalidated")
	claude := after.Child(".claude")
	require.NotNil(t, claude)
	assert.Equal(t, -1, claude.Count)
	assert.Equal(t, -1, claude.Child("iterative").Count)
	assert.Equal(t, -1, claude.Child("iterative").Child("slug").Count)
	for _, name := range []string{"src", "docs", "untr"} {
		b, a := before.Child(name), after.Child(name)
		require.NotNil(t, a, name)
		assert.Equal(t, b.Count, a.Count, name)
		assert.Equal(t, b.Hash, a.Hash, name)
	}
	assert.Equal(t, before.Child("src").Child("b").Hash, after.Child("src").Child("b").Hash)
	assert.Equal(t, "", checkRepo(t, dir))
	// git can rebuild the cache-tree from our index and agrees with HEAD.
	assert.Equal(t, gitRun(t, dir, "rev-parse", "HEAD^{tree}"), gitRun(t, dir, "write-tree"))
}

func TestCommitFilesRaceWithGitCommit(t *testing.T) {
	dir := newRepo(t, map[string]string{"seed.txt": "s\n", stateJSON: "{}\n"})
	r := openRepo(t, dir)
	const rounds = 20
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var gitCommits []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("git/%03d.txt", i)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "git"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644))
			if _, err := gitTry(dir, "add", name); err != nil {
				continue // index.lock held by CommitFiles: git refuses, as it should
			}
			if _, err := gitTry(dir, "commit", "-q", "-m", "git "+name); err != nil {
				continue
			}
			if h, err := gitTry(dir, "rev-parse", "HEAD"); err == nil {
				gitCommits = append(gitCommits, strings.TrimSpace(h))
			}
		}
	}()
	var ours []Commit
	for i := 0; i < rounds; i++ {
		c, err := r.CommitFiles(CommitRequest{
			Changes:  []FileChange{{Path: stateJSON, Data: []byte(fmt.Sprintf("{\"i\":%d}\n", i))}, {Path: fmt.Sprintf("itr/%02d.txt", i), Data: []byte("x")}},
			Message:  fmt.Sprintf("itr: %d\n\nItr-Iteration: %d", i, i),
			Worktree: true,
		})
		require.NoError(t, err)
		ours = append(ours, c)
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()

	gitRun(t, dir, "fsck", "--strict", "--no-progress")
	for _, c := range ours {
		_, err := gitTry(dir, "merge-base", "--is-ancestor", c.Hash, "HEAD")
		assert.NoError(t, err, "commit %s lost", c.Hash)
	}
	for _, h := range gitCommits {
		_, err := gitTry(dir, "merge-base", "--is-ancestor", h, "HEAD")
		assert.NoError(t, err, "git commit %s lost", h)
	}
	assert.Equal(t, fmt.Sprintf("{\"i\":%d}\n", rounds-1), gitRun(t, dir, "show", "HEAD:"+stateJSON))
	for i := 0; i < rounds; i++ {
		gitRun(t, dir, "cat-file", "-e", fmt.Sprintf("HEAD:itr/%02d.txt", i))
	}
	// Linear history.
	assert.Equal(t, gitRun(t, dir, "rev-list", "--count", "HEAD"), gitRun(t, dir, "rev-list", "--count", "--first-parent", "HEAD"))
	status := gitRun(t, dir, "status", "--porcelain")
	assert.NotContains(t, status, "itr/")
	assert.NotContains(t, status, ".claude")
}

func TestHistoryShallowClone(t *testing.T) {
	src := newRepo(t, map[string]string{"a.txt": "0"})
	for i := 1; i <= 6; i++ {
		writeFile(t, filepath.Join(src, "a.txt"), fmt.Sprint(i))
		gitRun(t, src, "commit", "-q", "-am", fmt.Sprintf("c%d\n\nItr-Iteration: %d", i, i))
	}
	dst := filepath.Join(t.TempDir(), "clone")
	gitRun(t, src, "clone", "-q", "--depth", "3", "file://"+src, dst)
	r := openRepo(t, dst)
	var subjects []string
	require.NoError(t, r.History("", func(c Commit) bool {
		subjects = append(subjects, c.Subject)
		return true
	}))
	assert.Equal(t, []string{"c6", "c5", "c4"}, subjects)

	// Early stop and trailers.
	var iters []string
	require.NoError(t, r.History("HEAD", func(c Commit) bool {
		v, _ := c.Trailer("Itr-Iteration")
		iters = append(iters, v)
		return len(iters) < 2
	}))
	assert.Equal(t, []string{"6", "5"}, iters)

	// The full history of the source, from a ref name.
	rs := openRepo(t, src)
	n := 0
	require.NoError(t, rs.History("main", func(Commit) bool { n++; return true }))
	assert.Equal(t, 7, n)
	h, err := rs.ResolveRev("HEAD~2")
	require.NoError(t, err)
	assert.Equal(t, gitRun(t, src, "rev-parse", "HEAD~2"), h+"\n")
	_, err = rs.ResolveRev("nope")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestHistoryUnborn(t *testing.T) {
	dir := newRepo(t, nil)
	r := openRepo(t, dir)
	called := false
	require.NoError(t, r.History("", func(Commit) bool { called = true; return true }))
	assert.False(t, called)
	_, err := r.ReadFile("HEAD", "x")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestResolveRevTagsAndBranches(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a"})
	gitRun(t, dir, "tag", "-a", "-m", "annotated", "v1")
	gitRun(t, dir, "tag", "light")
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	r := openRepo(t, dir)
	for _, rev := range []string{"", "HEAD", "main", "refs/heads/main", "v1", "refs/tags/v1", "light", head, head[:8]} {
		h, err := r.ResolveRev(rev)
		require.NoError(t, err, rev)
		assert.Equal(t, head, h, rev)
	}
}

func TestOpenRefusesUnsupported(t *testing.T) {
	cases := []struct{ key, value, setting string }{
		{"extensions.objectFormat", "sha256", "extensions.objectFormat"},
		{"extensions.refStorage", "reftable", "extensions.refStorage"},
		{"extensions.partialClone", "origin", "extensions.partialClone"},
		{"extensions.frobnicate", "true", "extensions.frobnicate"},
	}
	for _, tc := range cases {
		t.Run(tc.setting, func(t *testing.T) {
			dir := newRepo(t, map[string]string{"a": "a"})
			gitRun(t, dir, "config", "core.repositoryformatversion", "1")
			gitRun(t, dir, "config", tc.key, tc.value)
			_, err := Open(dir)
			var ue *UnsupportedError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, tc.setting, ue.Setting)
			assert.NotEmpty(t, ue.Fix)
		})
	}
}

func TestParseIndexRejectsCorruption(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a", "b/c": "c"})
	path := filepath.Join(dir, ".git", "index")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	_, err = parseIndex(path, data)
	require.NoError(t, err)
	bad := bytes.Clone(data)
	bad[20] ^= 0xff
	_, err = parseIndex(path, bad)
	assert.ErrorContains(t, err, "checksum")
	v9 := bytes.Clone(data)
	binary.BigEndian.PutUint32(v9[4:], 9)
	var ue *UnsupportedError
	_, err = parseIndex(path, v9)
	assert.ErrorAs(t, err, &ue)
	_, err = parseIndex(path, data[:10])
	assert.Error(t, err)
}

func TestVarintRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 255, 16383, 16384, 1 << 20, 1<<32 + 5} {
		b := encodeVarint(nil, v)
		got, n := decodeVarint(b)
		assert.Equal(t, len(b), n)
		assert.Equal(t, v, got)
	}
}
