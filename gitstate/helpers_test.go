package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testgit"
)

// isolate points git's config lookup at empty temp folders and clears the
// identity variables, then writes a global identity.
func isolate(t testing.TB) string {
	t.Helper()
	home := testgit.Unconfigured(t)
	writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
	return home
}

// gitRun runs git in dir and fails the test on error; it returns stdout
// and stderr together (testgit.Git).
func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testgit.Git(t, dir, args...)
}

// gitTry runs git in dir and returns combined output (testgit.Try).
func gitTry(dir string, args ...string) (string, error) { return testgit.Try(dir, args...) }

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
}

// newRepo makes an isolated repository with an initial commit holding
// files (path → content); no files means an unborn branch.
func newRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	isolate(t)
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q")
	if len(files) > 0 {
		for p, c := range files {
			writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), c)
		}
		gitRun(t, dir, "add", "-A")
		gitRun(t, dir, "commit", "-q", "-m", "initial")
	}
	return dir
}

func openRepo(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// checkRepo runs git fsck --strict and returns `git status --porcelain`.
func checkRepo(t testing.TB, dir string) string {
	t.Helper()
	gitRun(t, dir, "fsck", "--strict", "--no-progress")
	return gitRun(t, dir, "status", "--porcelain")
}

// snapshot captures everything a refused CommitFiles must leave alone.
func snapshot(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(gitRun(t, dir, "rev-parse", "HEAD"))
	b.WriteString(gitRun(t, dir, "status", "--porcelain"))
	b.WriteString(gitRun(t, dir, "ls-files", "--stage"))
	gd := strings.TrimSpace(gitRun(t, dir, "rev-parse", "--absolute-git-dir"))
	idx, err := os.ReadFile(filepath.Join(gd, "index"))
	if err == nil {
		b.Write(idx)
	}
	return b.String()
}

var fixedTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("", 2*3600))

func execGit(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	return cmd
}
