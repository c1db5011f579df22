package precommit

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
)

// The quick look is judged against git itself: for every state below, its
// verdict must agree with `git diff-index --cached --quiet HEAD --` on the
// logs' pathspec, and it must reach a verdict of its own (not Unsure) in
// every repository it claims to read.

var logSpec = []string{":(glob)**/progress.md", ":(glob)**/guardrails.md", ":(glob)**/decisions.md"}

// gitEnv is a clean environment for git: no user or system config.
func gitEnv(t *testing.T) []string {
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=init.defaultBranch", "GIT_CONFIG_VALUE_0=main",
		"GIT_CONFIG_KEY_1=gc.auto", "GIT_CONFIG_VALUE_1=0"}
	return env
}

type fixture struct {
	t   *testing.T
	env []string
}

func (f fixture) git(dir string, args ...string) string {
	f.t.Helper()
	out, err := f.gitTry(dir, args...)
	require.NoError(f.t, err, "git %s: %s", strings.Join(args, " "), out)
	return out
}

func (f fixture) gitTry(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, f.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// repoWithTask is a repository with two tasks' logs, a log at the top, and
// some other files, all committed.
func (f fixture) repoWithTask(args ...string) string {
	dir := filepath.Join(f.t.TempDir(), "repo")
	f.git("", append([]string{"init", "-q", dir}, args...)...)
	for _, task := range []string{"a", "b"} {
		base := ".claude/iterative/" + task + "/"
		write(f.t, dir, base+"progress.md", "# Progress\n\n## T1 - Iteration 1 - 2026-01-01T00:00:00Z\n**Did:** x\n")
		write(f.t, dir, base+"guardrails.md", "# Guardrails\n")
		write(f.t, dir, base+"state.json", "{}\n")
	}
	write(f.t, dir, ".claude/iterative/a/decisions.md", "# Decisions\n")
	write(f.t, dir, "progress.md", "top\n")
	write(f.t, dir, "src/deep/er/main.go", "package main\n")
	write(f.t, dir, "README", "r\n")
	f.git(dir, "add", "-A")
	f.git(dir, "commit", "-q", "-m", "init")
	return dir
}

// judge runs the quick look in dir and git's own answer, and requires they
// agree; want is the verdict expected (Unsure only where the look steps
// aside).
func (f fixture) judge(dir string, env map[string]string, want Verdict) string {
	f.t.Helper()
	getenv := func(k string) string { return env[k] }
	v, why := Look(dir, getenv)
	require.Equal(f.t, want, v, "verdict (%s)", why)
	cmd := exec.Command("git", append([]string{"diff-index", "--cached", "--quiet", "HEAD", "--"}, logSpec...)...)
	cmd.Dir = dir
	cmd.Env = f.env
	for k, val := range env {
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	err := cmd.Run()
	if v != Unsure {
		require.Equal(f.t, v == Clean, err == nil, "git diff-index disagrees with %s (%s): %v", v, why, err)
	}
	return why
}

func TestLookAgreesWithGit(t *testing.T) {
	f := fixture{t: t, env: gitEnv(t)}
	cases := []struct {
		name  string
		setup func(dir string) map[string]string
		want  Verdict
		why   string
	}{
		{"nothing staged", func(string) map[string]string { return nil }, Clean, ""},
		{"another file staged", func(dir string) map[string]string {
			write(t, dir, "src/deep/er/main.go", "package main // changed\n")
			write(t, dir, "new.txt", "n\n")
			f.git(dir, "add", "-A")
			return nil
		}, Clean, ""},
		{"an entry appended to a task's progress.md", func(dir string) map[string]string {
			appendFile(t, dir, ".claude/iterative/b/progress.md", "\n## T1 - Iteration 2 - 2026-01-02T00:00:00Z\n")
			f.git(dir, "add", "-A")
			return nil
		}, Staged, ".claude/iterative/b/progress.md: changed"},
		{"guardrails.md changed beside another file", func(dir string) map[string]string {
			appendFile(t, dir, ".claude/iterative/a/guardrails.md", "more\n")
			write(t, dir, "README", "changed\n")
			f.git(dir, "add", "-A")
			return nil
		}, Staged, ".claude/iterative/a/guardrails.md: changed"},
		{"the top-level progress.md", func(dir string) map[string]string {
			appendFile(t, dir, "progress.md", "more\n")
			f.git(dir, "add", "-A")
			return nil
		}, Staged, "progress.md: changed"},
		{"a log removed from the index", func(dir string) map[string]string {
			f.git(dir, "rm", "-q", "--cached", ".claude/iterative/a/decisions.md")
			return nil
		}, Staged, ".claude/iterative/a/decisions.md: removed"},
		{"a whole task folder removed", func(dir string) map[string]string {
			f.git(dir, "rm", "-q", "-r", ".claude/iterative/b")
			return nil
		}, Staged, ".claude/iterative/b/guardrails.md: removed"},
		{"a new task's log added", func(dir string) map[string]string {
			write(t, dir, ".claude/iterative/c/decisions.md", "# Decisions\n")
			f.git(dir, "add", "-A")
			return nil
		}, Staged, ".claude/iterative/c/decisions.md: added"},
		{"a log made executable", func(dir string) map[string]string {
			f.git(dir, "update-index", "--chmod=+x", ".claude/iterative/a/progress.md")
			return nil
		}, Staged, ".claude/iterative/a/progress.md: changed"},
		{"a log replaced by a symbolic link", func(dir string) map[string]string {
			p := filepath.Join(dir, ".claude/iterative/a/guardrails.md")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Symlink("progress.md", p))
			f.git(dir, "add", "-A")
			return nil
		}, Staged, ".claude/iterative/a/guardrails.md: changed"},
		{"an older progress.md staged back (a git command racing a checkpoint)", func(dir string) map[string]string {
			appendFile(t, dir, ".claude/iterative/a/progress.md", "\n## T1 - Iteration 2 - 2026-01-02T00:00:00Z\n")
			f.git(dir, "commit", "-q", "-am", "checkpoint")
			f.git(dir, "reset", "-q", "HEAD~1", "--", ".claude/iterative/a/progress.md")
			return nil
		}, Staged, ".claude/iterative/a/progress.md: changed"},
		{"index version 4", func(dir string) map[string]string {
			f.git(dir, "update-index", "--index-version", "4")
			write(t, dir, "src/x.go", "package src\n")
			f.git(dir, "add", "-A")
			return nil
		}, Clean, ""},
		{"index version 4, a log staged", func(dir string) map[string]string {
			f.git(dir, "update-index", "--index-version", "4")
			appendFile(t, dir, ".claude/iterative/a/progress.md", "more\n")
			f.git(dir, "add", "-A")
			return nil
		}, Staged, ".claude/iterative/a/progress.md: changed"},
		{"everything packed, deltas and packed refs", func(dir string) map[string]string {
			for i := 0; i < 5; i++ {
				appendFile(t, dir, ".claude/iterative/a/progress.md", "line\n")
				f.git(dir, "commit", "-q", "-am", "more")
			}
			f.git(dir, "gc", "-q", "--aggressive", "--prune=now")
			require.NoFileExists(t, filepath.Join(dir, ".git", "refs", "heads", "main"))
			write(t, dir, "README", "changed\n")
			f.git(dir, "add", "-A")
			return nil
		}, Clean, ""},
		{"everything packed, a log staged", func(dir string) map[string]string {
			f.git(dir, "gc", "-q", "--prune=now")
			appendFile(t, dir, ".claude/iterative/b/progress.md", "line\n")
			f.git(dir, "add", "-A")
			return nil
		}, Staged, ".claude/iterative/b/progress.md: changed"},
		{"a detached HEAD", func(dir string) map[string]string {
			f.git(dir, "checkout", "-q", "--detach")
			write(t, dir, "README", "changed\n")
			f.git(dir, "add", "-A")
			return nil
		}, Clean, ""},
		{"no cache tree", func(dir string) map[string]string {
			write(t, dir, "README", "changed\n")
			f.git(dir, "add", "-A")
			dropCacheTree(t, filepath.Join(dir, ".git", "index"))
			return nil
		}, Clean, ""},
		{"no cache tree, a log removed", func(dir string) map[string]string {
			f.git(dir, "rm", "-q", "--cached", ".claude/iterative/b/guardrails.md")
			dropCacheTree(t, filepath.Join(dir, ".git", "index"))
			return nil
		}, Staged, ".claude/iterative/b/guardrails.md: removed"},
		{"GIT_INDEX_FILE (git commit -a and git commit PATH)", func(dir string) map[string]string {
			other := filepath.Join(dir, ".git", "other-index")
			env := map[string]string{"GIT_INDEX_FILE": other}
			cmd := exec.Command("git", "read-tree", "HEAD")
			cmd.Dir, cmd.Env = dir, append(append([]string(nil), f.env...), "GIT_INDEX_FILE="+other)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			appendFile(t, dir, ".claude/iterative/a/progress.md", "more\n")
			cmd = exec.Command("git", "add", "-A")
			cmd.Dir, cmd.Env = dir, append(append([]string(nil), f.env...), "GIT_INDEX_FILE="+other)
			out, err = cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			return env // the main index still matches HEAD
		}, Staged, ".claude/iterative/a/progress.md: changed"},
		{"an intent to add a log", func(dir string) map[string]string {
			write(t, dir, ".claude/iterative/c/progress.md", "new\n")
			f.git(dir, "add", "-N", ".claude/iterative/c/progress.md")
			return nil
		}, Unsure, "intent to add"},
		{"a split index", func(dir string) map[string]string {
			f.git(dir, "update-index", "--split-index")
			return nil
		}, Unsure, "core.splitIndex"},
		{"a sparse index", func(dir string) map[string]string {
			f.git(dir, "sparse-checkout", "set", "--cone", "--sparse-index", "src")
			return nil
		}, Unsure, "index.sparse"},
		{"GIT_ALTERNATE_OBJECT_DIRECTORIES", func(string) map[string]string {
			return map[string]string{"GIT_ALTERNATE_OBJECT_DIRECTORIES": "/nonexistent"}
		}, Unsure, "GIT_ALTERNATE_OBJECT_DIRECTORIES"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fixture{t: t, env: f.env}
			dir := f.repoWithTask()
			env := c.setup(dir)
			why := f.judge(dir, env, c.want)
			require.Contains(t, why, c.why)
		})
	}
}

func TestLookOtherRepositories(t *testing.T) {
	f := fixture{t: t, env: gitEnv(t)}
	t.Run("a linked worktree", func(t *testing.T) {
		f := fixture{t: t, env: f.env}
		dir := f.repoWithTask()
		wt := filepath.Join(t.TempDir(), "wt")
		f.git(dir, "worktree", "add", "-q", "-b", "side", wt)
		write(t, wt, "README", "changed\n")
		f.git(wt, "add", "-A")
		f.judge(wt, nil, Clean)
		appendFile(t, wt, ".claude/iterative/a/progress.md", "more\n")
		f.git(wt, "add", "-A")
		f.judge(wt, nil, Staged)
		f.judge(dir, nil, Clean) // the main worktree's index is its own
	})
	t.Run("objects in an alternate store (clone --shared)", func(t *testing.T) {
		f := fixture{t: t, env: f.env}
		dir := f.repoWithTask()
		f.git(dir, "gc", "-q")
		clone := filepath.Join(t.TempDir(), "clone")
		f.git("", "clone", "-q", "--shared", dir, clone)
		require.FileExists(t, filepath.Join(clone, ".git", "objects", "info", "alternates"))
		write(t, clone, "README", "changed\n")
		f.git(clone, "add", "-A")
		f.judge(clone, nil, Clean)
		appendFile(t, clone, ".claude/iterative/a/progress.md", "more\n")
		f.git(clone, "add", "-A")
		f.judge(clone, nil, Staged)
	})
	t.Run("a submodule (a gitfile into the superproject)", func(t *testing.T) {
		f := fixture{t: t, env: f.env}
		sub := f.repoWithTask()
		super := filepath.Join(t.TempDir(), "super")
		f.git("", "init", "-q", super)
		f.git(super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
		f.git(super, "commit", "-q", "-m", "sub")
		inner := filepath.Join(super, "sub")
		fi, err := os.Stat(filepath.Join(inner, ".git"))
		require.NoError(t, err)
		require.False(t, fi.IsDir(), "the submodule's .git is a gitfile")
		write(t, inner, "README", "changed\n")
		f.git(inner, "add", "-A")
		f.judge(inner, nil, Clean)
		appendFile(t, inner, ".claude/iterative/b/guardrails.md", "more\n")
		f.git(inner, "add", "-A")
		f.judge(inner, nil, Staged)
		f.judge(super, nil, Clean)
	})
	t.Run("no commit yet", func(t *testing.T) {
		f := fixture{t: t, env: f.env}
		dir := filepath.Join(t.TempDir(), "repo")
		f.git("", "init", "-q", dir)
		write(t, dir, "progress.md", "x\n")
		f.git(dir, "add", "-A")
		why := f.judge(dir, nil, Unsure)
		require.Contains(t, why, "no such branch yet")
	})
	t.Run("SHA-256", func(t *testing.T) {
		f := fixture{t: t, env: f.env}
		dir := f.repoWithTask("--object-format=sha256")
		why := f.judge(dir, nil, Unsure)
		require.Contains(t, why, "not a SHA-1 object name")
	})
	t.Run("reftable", func(t *testing.T) {
		f := fixture{t: t, env: f.env}
		dir := f.repoWithTask()
		// What a reftable repository holds, as git 2.45 and later make it
		// (the refs in reftable/, HEAD naming refs/heads/.invalid); the
		// look must step aside without a newer git to prove it.
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "reftable"), 0o755))
		why := f.judge(dir, nil, Unsure)
		require.Contains(t, why, "reftable")
	})
	t.Run("not a repository", func(t *testing.T) {
		v, why := Look(t.TempDir(), func(string) string { return "" })
		require.Equal(t, Unsure, v)
		require.Contains(t, why, "no .git")
	})
}

// TestLookReadsLittle checks the shortcut that makes the look cheap in a
// large repository: with the cache tree, only the folders on the way to a
// staged path are read, not the whole of HEAD's tree.
func TestLookReadsLittle(t *testing.T) {
	f := fixture{t: t, env: gitEnv(t)}
	dir := f.repoWithTask()
	for i := 0; i < 200; i++ {
		write(t, dir, filepath.ToSlash(filepath.Join("pkg", string(rune('a'+i%26)), "d"+string(rune('a'+i/26)), "f.go")), "package x\n")
	}
	ageFiles(t, dir)
	f.git(dir, "add", "-A")
	f.git(dir, "commit", "-q", "-m", "many")
	f.git(dir, "gc", "-q")
	write(t, dir, "pkg/c/db/f.go", "package y\n")
	// git add of everything re-reads (and so takes out of the cache tree)
	// every file changed in the second the index was written, which is
	// every file here unless it is made older (git's "racy" files).
	f.git(dir, "add", "-A")
	r, err := locate(dir, func(string) string { return "" })
	require.NoError(t, err)
	logs, why := r.stagedLogs()
	require.NotNil(t, logs, why)
	require.NotNil(t, logs.cacheTree)
	head, err := r.headCommit()
	require.NoError(t, err)
	tree, err := r.commitTree(head)
	require.NoError(t, err)
	w := walker{r: r, logs: logs.entries}
	changed, err := w.dir(logs.cacheTree, tree, "")
	require.NoError(t, err)
	require.Empty(t, changed)
	require.Empty(t, w.logs)
	// The root, pkg, pkg/c and pkg/c/db: the rest is matched by the cache tree.
	require.Equal(t, 4, w.reads)
}

// ageFiles makes every file of the working tree an hour old.
func ageFiles(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" {
			if err == nil {
				return filepath.SkipDir
			}
			return err
		}
		return os.Chtimes(p, old, old)
	}))
}

func appendFile(t *testing.T, dir, rel, s string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, append(b, s...), 0o644))
}

// dropCacheTree rewrites an index without its TREE extension, as some
// tools leave it.
func dropCacheTree(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	idx, err := gitfmt.ParseIndex(path, data, sha1.New())
	require.NoError(t, err)
	out := append([]byte(nil), data[:idx.EntriesEnd]...)
	found := false
	for off := idx.EntriesEnd; off < int64(len(data))-gitfmt.HashLen; {
		n := int64(binary.BigEndian.Uint32(data[off+4:]))
		if string(data[off:off+4]) == "TREE" {
			found = true
		} else {
			out = append(out, data[off:off+8+n]...)
		}
		off += 8 + n
	}
	require.True(t, found, "the index had a cache tree")
	sum := sha1.Sum(out)
	out = append(out, sum[:]...)
	require.NoError(t, os.WriteFile(path, out, 0o644))
	idx, err = gitfmt.ParseIndex(path, out, sha1.New())
	require.NoError(t, err)
	for _, x := range idx.Exts {
		require.NotEqual(t, "TREE", x.Sig)
	}
	require.False(t, bytes.Equal(out, data))
}

func TestLookStepsAsideForReplaceRefs(t *testing.T) {
	f := fixture{t: t, env: gitEnv(t)}
	dir := f.repoWithTask()
	head := strings.TrimSpace(f.git(dir, "rev-parse", "HEAD"))
	appendFile(t, dir, ".claude/iterative/a/progress.md", "other\n")
	f.git(dir, "commit", "-q", "-am", "other")
	other := strings.TrimSpace(f.git(dir, "rev-parse", "HEAD"))
	f.git(dir, "reset", "-q", "--hard", head)
	f.git(dir, "replace", head, other)
	why := f.judge(dir, nil, Unsure)
	require.Contains(t, why, "refs/replace")
	f.git(dir, "pack-refs", "--all")
	why = f.judge(dir, nil, Unsure)
	require.Contains(t, why, "refs/replace")
	v, _ := Look(dir, func(k string) string {
		if k == "GIT_NO_REPLACE_OBJECTS" {
			return "1"
		}
		return ""
	})
	require.Equal(t, Clean, v)
}
