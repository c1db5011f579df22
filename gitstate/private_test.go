package gitstate

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInGitDir(t *testing.T) {
	for rel, want := range map[string]bool{
		".git": true, ".git/hooks": true, ".GIT/x": true, "./.git/../.git/x": true,
		".gitattributes": false, "a/.git": false, ".claude/iterative": false, ".": false,
	} {
		assert.Equal(t, want, InGitDir(rel), rel)
	}
}

func TestItrPathsAndConfigFile(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a\n"})
	r := openRepo(t, dir)
	assert.Equal(t, filepath.Join(dir, ".git", "itr-run"), r.ItrPath("itr-run"))
	assert.Equal(t, filepath.Join(dir, ".git", "itr", "recovered", "s"), r.ItrPath("itr", "recovered", "s"))
	assert.Equal(t, ".git/config", r.ConfigFile())

	// A linked worktree: its own git dir for per-worktree files, the common
	// dir for the shared ones.
	wt := filepath.Join(t.TempDir(), "wt")
	gitRun(t, dir, "worktree", "add", "-q", wt)
	w := openRepo(t, wt)
	assert.Equal(t, filepath.Join(dir, ".git", "itr.lock"), w.ItrPath("itr.lock"))
	assert.Equal(t, filepath.Join(dir, ".git", "worktrees", "wt", "itr-agent.log"), w.WorktreeItrPath("itr-agent.log"))
	assert.Equal(t, filepath.Join(dir, ".git", "config"), w.ConfigFile())
}
