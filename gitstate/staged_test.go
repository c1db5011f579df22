package gitstate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStagedStageAndReadBlobInAMerge(t *testing.T) {
	dir := newRepo(t, map[string]string{"task/log.md": "base\n", "other.txt": "o\n"})
	gitRun(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, filepath.Join(dir, "task/log.md"), "base\nside\n")
	gitRun(t, dir, "commit", "-q", "-am", "side")
	gitRun(t, dir, "checkout", "-q", "main")
	writeFile(t, filepath.Join(dir, "task/log.md"), "base\nmain\n")
	gitRun(t, dir, "commit", "-q", "-am", "main")
	_, err := gitTry(dir, "merge", "side")
	require.Error(t, err, "the merge conflicts")

	r := openRepo(t, dir)
	entries, err := r.Staged("task")
	require.NoError(t, err)
	byStage := map[int]string{}
	for _, e := range entries {
		assert.Equal(t, "task/log.md", e.Path)
		byStage[e.Stage] = e.Hash
	}
	require.Len(t, byStage, 3, "base, ours and theirs")
	for stage, want := range map[int]string{1: "base\n", 2: "base\nmain\n", 3: "base\nside\n"} {
		data, err := r.ReadBlob(byStage[stage])
		require.NoError(t, err)
		assert.Equal(t, want, string(data))
		assert.Equal(t, strings.TrimSpace(gitRun(t, dir, "rev-parse", ":"+string(rune('0'+stage))+":task/log.md")), byStage[stage])
	}

	require.NoError(t, r.Stage([]FileChange{{Path: "task/log.md", Data: []byte("base\nmain\nside\n")}}))
	assert.Equal(t, "M  task/log.md\n", gitRun(t, dir, "status", "--porcelain"))
	stage := gitRun(t, dir, "ls-files", "-s", "task/log.md")
	assert.Contains(t, stage, " 0\ttask/log.md")
	assert.NotContains(t, stage, " 2\t")
	gitRun(t, dir, "commit", "-q", "--no-edit")
	assert.Equal(t, "base\nmain\nside\n", gitRun(t, dir, "show", "HEAD:task/log.md"))
	assert.Equal(t, "", checkRepo(t, dir))
	parents := strings.Fields(gitRun(t, dir, "log", "-1", "--format=%P"))
	assert.Len(t, parents, 2, "git concluded the merge")

	_, err = r.ReadBlob(strings.Repeat("0", 40))
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestHooksDir(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a\n"})
	r := openRepo(t, dir)
	d, err := r.HooksDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, ".git", "hooks"), d)
	gitRun(t, dir, "config", "core.hooksPath", ".githooks")
	r2 := openRepo(t, dir)
	d, err = r2.HooksDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, ".githooks"), d)
}
