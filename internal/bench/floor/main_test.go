//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testgit"
)

// TestFloorCommitIsWhatGitWouldWrite: the floor's commits pass git fsck
// --strict, leave git status clean, carry the changed files only, keep the
// index's cache tree honest (git write-tree gives HEAD's tree) and log the
// branch and HEAD.
func TestFloorCommitIsWhatGitWouldWrite(t *testing.T) {
	testgit.Isolate(t)
	t.Setenv("GIT_COMMITTER_NAME", testgit.Name)
	t.Setenv("GIT_COMMITTER_EMAIL", testgit.Email)
	dir := t.TempDir()
	testgit.Git(t, dir, "init", "-q")
	task := filepath.Join(dir, ".claude", "iterative", "bench")
	require.NoError(t, os.MkdirAll(filepath.Join(task, "sources"), 0o755))
	for name, text := range map[string]string{
		"README.md": "top\n", "z.txt": "z\n", ".claude/x.md": "x\n",
		".claude/iterative/bench/progress.md": "# Progress\n", ".claude/iterative/bench/state.json": "{}\n",
		".claude/iterative/bench/brief.md": "brief\n", ".claude/iterative/bench/sources/a.md": "a\n",
		".claude/iterative/bench-x/progress.md": "other\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	testgit.Git(t, dir, "add", "-A")
	testgit.Git(t, dir, "commit", "-q", "-m", "start")
	testgit.Git(t, dir, "write-tree") // a full cache tree in the index

	for i := 1; i <= 2; i++ {
		appendTo(t, filepath.Join(task, "progress.md"), "\n## T1 - Iteration "+string(rune('0'+i))+"\n")
		require.NoError(t, os.WriteFile(filepath.Join(task, "state.json"), []byte(strings.Repeat("{} ", i)+"\n"), 0o644))
		before := testgit.Line(t, dir, "rev-parse", "HEAD")
		hash, err := Commit(dir, ".claude/iterative/bench", "floor checkpoint", time.Now())
		require.NoError(t, err)
		require.Equal(t, hash, testgit.Line(t, dir, "rev-parse", "HEAD"))
		require.Equal(t, before, testgit.Line(t, dir, "rev-parse", "HEAD^"))
		testgit.Check(t, dir)
		require.Equal(t, ".claude/iterative/bench/progress.md\n.claude/iterative/bench/state.json",
			strings.TrimSpace(testgit.Out(t, dir, "diff", "--name-only", "HEAD^", "HEAD")))
		require.Equal(t, testgit.Line(t, dir, "rev-parse", "HEAD^{tree}"), testgit.Line(t, dir, "write-tree"))
		require.Equal(t, "floor checkpoint", testgit.Line(t, dir, "log", "-1", "--format=%s"))
		require.Contains(t, testgit.Out(t, dir, "reflog", "-1"), "commit: floor checkpoint")
	}
	_, err := Commit(dir, ".claude/iterative/bench", "nothing", time.Now())
	require.ErrorContains(t, err, "nothing changed")
	testgit.Check(t, dir)
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
