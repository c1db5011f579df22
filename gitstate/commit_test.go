package gitstate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const stateJSON = ".claude/iterative/slug/state.json"

func TestCommitFilesFirstCommitOnUnbornBranch(t *testing.T) {
	dir := newRepo(t, nil)
	r := openRepo(t, dir)
	h, err := r.Head()
	require.NoError(t, err)
	assert.True(t, h.Unborn)
	assert.Equal(t, "refs/heads/main", h.Branch)

	msg := "itr: start task\n\nItr-Task: slug\nItr-Iteration: 0\n"
	c, err := r.CommitFiles(CommitRequest{
		Changes:  []FileChange{{Path: stateJSON, Data: []byte("{}\n")}, {Path: "top.txt", Data: []byte("top\n")}},
		Message:  msg,
		When:     fixedTime,
		Worktree: true,
	})
	require.NoError(t, err)
	assert.Empty(t, c.Parents)
	assert.Equal(t, "itr: start task", c.Subject)
	v, ok := c.Trailer("itr-task")
	assert.True(t, ok)
	assert.Equal(t, "slug", v)

	assert.Equal(t, "", checkRepo(t, dir))
	assert.Equal(t, c.Hash+"\n", gitRun(t, dir, "rev-parse", "HEAD"))
	assert.Equal(t, msg+"\n", gitRun(t, dir, "log", "-1", "--format=%B"))
	assert.Equal(t, "Test User <test@example.com> 1772593567 +0200\n", gitRun(t, dir, "log", "-1", "--format=%an <%ae> %at %ad", "--date=format:%z"))
	assert.Equal(t, "", gitRun(t, dir, "diff", "--cached"))
	assert.Contains(t, gitRun(t, dir, "ls-files", "--stage"), "100644 ")
	assert.Equal(t, c.Hash[:7]+" HEAD@{0}: commit (initial): itr: start task\n", gitRun(t, dir, "reflog", "--format=%h %gd: %gs"))
	data, err := os.ReadFile(filepath.Join(dir, stateJSON))
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(data))
}

func TestCommitFilesSecondCommitReusesSiblings(t *testing.T) {
	dir := newRepo(t, map[string]string{
		".claude/iterative/slug/state.json":  "{\"v\":1}\n",
		".claude/iterative/slug/progress.md": "# progress\n",
		".claude/iterative/other/state.json": "{}\n",
		"src/main.go":                        "package main\n",
		"README.md":                          "hi\n",
	})
	before := gitRun(t, dir, "rev-parse", "HEAD")
	r := openRepo(t, dir)
	c, err := r.CommitFiles(CommitRequest{
		Changes:  []FileChange{{Path: stateJSON, Data: []byte("{\"v\":2}\n")}},
		Message:  "itr: checkpoint\n\nItr-Iteration: 1",
		When:     fixedTime,
		Worktree: true,
		Expect:   strings.TrimSpace(before),
	})
	require.NoError(t, err)
	assert.Equal(t, []string{strings.TrimSpace(before)}, c.Parents)
	assert.Equal(t, "", checkRepo(t, dir))
	assert.Equal(t, "", gitRun(t, dir, "diff", "--cached"))
	assert.Equal(t, "M\t"+stateJSON+"\n", gitRun(t, dir, "diff-tree", "-r", "--name-status", "--no-commit-id", "HEAD"))
	for _, sib := range []string{"src", ".claude/iterative/other", "README.md", ".claude/iterative/slug/progress.md"} {
		assert.Equal(t, gitRun(t, dir, "rev-parse", "HEAD~1:"+sib), gitRun(t, dir, "rev-parse", "HEAD:"+sib), sib)
	}
	// Trees are in git order and well-formed: git's own mktree agrees.
	tree := gitRun(t, dir, "cat-file", "-p", "HEAD:.claude/iterative")
	assert.Equal(t, strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD:.claude/iterative")), strings.TrimSpace(gitRunInput(t, dir, tree, "mktree")))
	assert.Equal(t, "2\n", gitRun(t, dir, "rev-list", "--count", "HEAD"))
	assert.Equal(t, "itr: checkpoint\n\nItr-Iteration: 1\n\n", gitRun(t, dir, "log", "-1", "--format=%B"))
	assert.Contains(t, gitRun(t, dir, "reflog", "-1", "--format=%gs"), "commit: itr: checkpoint")
	assert.Contains(t, gitRun(t, dir, "reflog", "show", "-1", "--format=%gs", "refs/heads/main"), "commit: itr: checkpoint")

	got, err := r.ReadFile("HEAD", stateJSON)
	require.NoError(t, err)
	assert.Equal(t, "{\"v\":2}\n", string(got))
	names, err := r.ListDir("HEAD", ".claude/iterative")
	require.NoError(t, err)
	assert.Equal(t, []string{"other", "slug"}, names)
}

func gitRunInput(t testing.TB, dir, input string, args ...string) string {
	t.Helper()
	cmd := execGit(dir, args...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return string(out)
}

func TestCommitFilesDeletion(t *testing.T) {
	dir := newRepo(t, map[string]string{
		".claude/iterative/slug/state.json": "{}\n",
		".claude/iterative/keep/state.json": "{}\n",
		"gone/only.txt":                     "x\n",
		"folder/a.txt":                      "a\n",
		"folder/sub/b.txt":                  "b\n",
	})
	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{
		Changes: []FileChange{
			{Path: stateJSON, Delete: true},
			{Path: "gone/only.txt", Delete: true},
			{Path: "folder", Delete: true},
			{Path: "never/existed.txt", Delete: true},
		},
		Message:  "itr: remove",
		Worktree: true,
	})
	require.NoError(t, err)
	assert.Equal(t, "", checkRepo(t, dir))
	assert.Equal(t, ".claude/iterative/keep/state.json\n", gitRun(t, dir, "ls-files"))
	assert.Equal(t, "", gitRun(t, dir, "diff", "--cached"))
	_, err = os.Stat(filepath.Join(dir, "gone"))
	assert.True(t, os.IsNotExist(err), "empty folder removed from the working tree")
	_, err = os.Stat(filepath.Join(dir, ".claude/iterative/slug"))
	assert.True(t, os.IsNotExist(err))
	_, err = r.ReadFile("HEAD", "gone/only.txt")
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = r.ListDir("HEAD", "folder")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestCommitFilesLeavesOtherWorkAlone(t *testing.T) {
	dir := newRepo(t, map[string]string{
		"staged.txt":   "old\n",
		"unstaged.txt": "old\n",
		"both.txt":     "old\n",
		stateJSON:      "{}\n",
	})
	writeFile(t, filepath.Join(dir, "staged.txt"), "new staged\n")
	writeFile(t, filepath.Join(dir, "added.txt"), "brand new\n")
	gitRun(t, dir, "add", "staged.txt", "added.txt")
	writeFile(t, filepath.Join(dir, "both.txt"), "staged\n")
	gitRun(t, dir, "add", "both.txt")
	writeFile(t, filepath.Join(dir, "both.txt"), "unstaged on top\n")
	writeFile(t, filepath.Join(dir, "unstaged.txt"), "changed\n")
	writeFile(t, filepath.Join(dir, "untracked.txt"), "?\n")
	statusBefore := gitRun(t, dir, "status", "--porcelain")
	cachedBefore := gitRun(t, dir, "diff", "--cached", "--", "staged.txt", "added.txt", "both.txt")
	worktreeBefore := gitRun(t, dir, "diff")

	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{
		Changes:  []FileChange{{Path: stateJSON, Data: []byte("{\"n\":1}\n")}, {Path: "z/new.md", Data: []byte("n\n")}},
		Message:  "itr: checkpoint",
		Worktree: true,
	})
	require.NoError(t, err)
	assert.Equal(t, statusBefore, checkRepo(t, dir))
	assert.Equal(t, cachedBefore, gitRun(t, dir, "diff", "--cached"))
	assert.Equal(t, worktreeBefore, gitRun(t, dir, "diff"))
	assert.Equal(t, "M\t"+stateJSON+"\nA\tz/new.md\n", gitRun(t, dir, "diff-tree", "-r", "--name-status", "--no-commit-id", "HEAD"))
}

func TestCommitFilesWithoutWorktree(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	writeFile(t, filepath.Join(dir, "b.txt"), "b2\n") // disk already has the new content
	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{
		Changes: []FileChange{{Path: "a.txt", Data: []byte("committed only\n")}, {Path: "b.txt", Data: []byte("b2\n")}},
		Message: "itr: x",
	})
	require.NoError(t, err)
	// a.txt on disk still holds the old bytes: git must see that difference.
	assert.Equal(t, " M a.txt\n", checkRepo(t, dir))
	assert.Equal(t, "", gitRun(t, dir, "diff", "--cached"))
	data, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "a\n", string(data))
}

func TestOpenFromSubfolder(t *testing.T) {
	dir := newRepo(t, map[string]string{"deep/er/f.txt": "x\n"})
	r := openRepo(t, filepath.Join(dir, "deep", "er"))
	assert.Equal(t, dir, r.Root())
	assert.Equal(t, filepath.Join(dir, ".git"), r.GitDir())
	assert.Equal(t, filepath.Join(dir, ".git"), r.CommonDir())
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "deep/g.txt", Data: []byte("g\n")}}, Message: "m", Worktree: true})
	require.NoError(t, err)
	assert.Equal(t, "", checkRepo(t, dir))
	_, err = os.Stat(filepath.Join(dir, "deep", "g.txt"))
	assert.NoError(t, err)
}

func TestOpenNotARepo(t *testing.T) {
	isolate(t)
	_, err := Open(t.TempDir())
	assert.ErrorIs(t, err, ErrNotRepo)
}

func TestCommitFilesLinkedWorktree(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n", stateJSON: "{}\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	gitRun(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	r := openRepo(t, wt)
	assert.Equal(t, wt, r.Root())
	assert.Equal(t, filepath.Join(dir, ".git"), r.CommonDir())
	assert.Equal(t, filepath.Join(dir, ".git", "worktrees", "wt"), r.GitDir())
	h, err := r.Head()
	require.NoError(t, err)
	assert.Equal(t, "refs/heads/feature", h.Branch)

	_, err = r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: stateJSON, Data: []byte("{\"wt\":1}\n")}}, Message: "itr: in worktree", Worktree: true})
	require.NoError(t, err)
	assert.Equal(t, "", checkRepo(t, wt))
	assert.Equal(t, "", checkRepo(t, dir))
	assert.Equal(t, gitRun(t, dir, "rev-parse", "main~0"), gitRun(t, wt, "rev-parse", "HEAD~1"))
	assert.Equal(t, "itr: in worktree\n", gitRun(t, dir, "log", "-1", "--format=%s", "feature"))
	assert.Contains(t, gitRun(t, wt, "reflog", "-1", "--format=%gs"), "commit: itr: in worktree")
}

func TestCommitFilesWorktreeConfig(t *testing.T) {
	for _, how := range []string{"config", "sparse-checkout"} {
		t.Run(how, func(t *testing.T) {
			dir := newRepo(t, map[string]string{"a.txt": "a\n", stateJSON: "{}\n"})
			if how == "config" {
				gitRun(t, dir, "config", "extensions.worktreeConfig", "true")
				gitRun(t, dir, "config", "--worktree", "user.name", "Worktree User")
			} else {
				gitRun(t, dir, "sparse-checkout", "init", "--no-cone")
				gitRun(t, dir, "sparse-checkout", "set", "/*")
			}
			r := openRepo(t, dir)
			c, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: stateJSON, Data: []byte("[]\n")}}, Message: "itr: m", Worktree: true})
			require.NoError(t, err)
			assert.Equal(t, "", checkRepo(t, dir))
			assert.Equal(t, strings.TrimSpace(gitRun(t, dir, "log", "-1", "--format=%an")), c.Author.Name)
			if how == "config" {
				assert.Equal(t, "Worktree User", c.Author.Name)
			}
		})
	}
}

func TestCommitFilesIndexVersions(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		t.Run("v"+v, func(t *testing.T) {
			files := map[string]string{}
			for i := 0; i < 30; i++ {
				files[fmt.Sprintf("dir%02d/sub/file%02d.txt", i%5, i)] = fmt.Sprint(i)
			}
			files[stateJSON] = "{}\n"
			dir := newRepo(t, files)
			gitRun(t, dir, "update-index", "--index-version", v)
			if v == "3" {
				writeFile(t, filepath.Join(dir, "dir02/ita.txt"), "ita\n")
				gitRun(t, dir, "add", "-N", "dir02/ita.txt") // extended flags
			}
			statusBefore := gitRun(t, dir, "status", "--porcelain")
			r := openRepo(t, dir)
			_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{
				{Path: "dir01/sub/file01.txt", Data: []byte("changed\n")},
				{Path: "dir01/sub/file00a.txt", Data: []byte("inserted\n")},
				{Path: "dir03/sub/file03.txt", Delete: true},
				{Path: "dir04/new/x.txt", Data: []byte("x\n")},
				{Path: stateJSON, Data: []byte("{\"a\":1}\n")},
			}, Message: "itr: m", Worktree: true})
			require.NoError(t, err)
			assert.Equal(t, statusBefore, checkRepo(t, dir))
			idx, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			require.NoError(t, err)
			assert.Equal(t, v, fmt.Sprint(idx[7]), "index version kept")
			if v != "3" {
				assert.Equal(t, "", gitRun(t, dir, "diff", "--cached"))
			}
			assert.Equal(t, gitRun(t, dir, "ls-tree", "-r", "--name-only", "HEAD"),
				strings.ReplaceAll(gitRun(t, dir, "ls-files"), "dir02/ita.txt\n", ""))
		})
	}
}

func TestCommitFilesPackedRefsOnly(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	gitRun(t, dir, "pack-refs", "--all")
	_, err := os.Stat(filepath.Join(dir, ".git/refs/heads/main"))
	require.True(t, os.IsNotExist(err))
	r := openRepo(t, dir)
	before := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	c, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "b.txt", Data: []byte("b\n")}}, Message: "m", Worktree: true, Expect: before})
	require.NoError(t, err)
	assert.Equal(t, "", checkRepo(t, dir))
	assert.Equal(t, c.Hash+"\n", gitRun(t, dir, "rev-parse", "main"))
	assert.Equal(t, before+"\n", gitRun(t, dir, "rev-parse", "main~1"))
}

func TestCommitFilesSplitIndexUnsupported(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	gitRun(t, dir, "update-index", "--split-index")
	before := snapshot(t, dir)
	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "b.txt", Data: []byte("b\n")}}, Message: "m", Worktree: true})
	var ue *UnsupportedError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "core.splitIndex", ue.Setting)
	assert.Contains(t, ue.Error(), "git update-index --no-split-index")
	assert.Equal(t, before, snapshot(t, dir))
	_, err = os.Stat(filepath.Join(dir, "b.txt"))
	assert.True(t, os.IsNotExist(err))
	_, err = os.Stat(filepath.Join(dir, ".git/index.lock"))
	assert.True(t, os.IsNotExist(err), "lock removed")
}

func TestCommitFilesHeldIndexLock(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	lock := filepath.Join(dir, ".git", "index.lock")
	writeFile(t, lock, "")
	before := snapshot(t, dir)
	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "b.txt", Data: []byte("b\n")}}, Message: "m", Worktree: true})
	require.ErrorIs(t, err, ErrLocked)
	assert.Contains(t, err.Error(), "Unable to create '"+lock+"': File exists.")
	assert.Contains(t, err.Error(), "remove the file manually to continue.")
	// git's own message for the same situation.
	out, gerr := gitTry(dir, "add", "a.txt")
	require.Error(t, gerr)
	assert.Contains(t, out, strings.SplitN(err.Error(), "\n", 2)[0])
	require.NoError(t, os.Remove(lock))
	assert.Equal(t, before, snapshot(t, dir))
}

func TestCommitFilesHeldRefLock(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	lock := filepath.Join(dir, ".git", "refs", "heads", "main.lock")
	writeFile(t, lock, "")
	before := snapshot(t, dir)
	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "b.txt", Data: []byte("b\n")}}, Message: "m", Worktree: true})
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, os.Remove(lock))
	assert.Equal(t, before, snapshot(t, dir))
	_, err = os.Stat(filepath.Join(dir, ".git", "index.lock"))
	assert.True(t, os.IsNotExist(err))
}

func TestCommitFilesExpectMismatch(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	before := snapshot(t, dir)
	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "b.txt", Data: []byte("b\n")}}, Message: "m", Worktree: true,
		Expect: strings.Repeat("1", 40)})
	require.ErrorIs(t, err, ErrHeadMoved)
	assert.Equal(t, before, snapshot(t, dir))
	_, err = os.Stat(filepath.Join(dir, "b.txt"))
	assert.True(t, os.IsNotExist(err))
}

func TestCommitFilesDetachedHead(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	gitRun(t, dir, "checkout", "-q", "--detach")
	before := snapshot(t, dir)
	r := openRepo(t, dir)
	h, err := r.Head()
	require.NoError(t, err)
	assert.True(t, h.Detached)
	_, err = r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "b.txt", Data: []byte("b\n")}}, Message: "m"})
	require.ErrorIs(t, err, ErrDetachedHead)
	assert.Equal(t, before, snapshot(t, dir))
}

func TestCommitFilesReplacesConflictStages(t *testing.T) {
	dir := newRepo(t, map[string]string{stateJSON: "{\"base\":1}\n", "other.txt": "o\n"})
	gitRun(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, filepath.Join(dir, stateJSON), "{\"side\":1}\n")
	gitRun(t, dir, "commit", "-q", "-am", "side")
	gitRun(t, dir, "checkout", "-q", "main")
	writeFile(t, filepath.Join(dir, stateJSON), "{\"main\":1}\n")
	gitRun(t, dir, "commit", "-q", "-am", "main")
	_, err := gitTry(dir, "merge", "-q", "side")
	require.Error(t, err)
	require.Contains(t, gitRun(t, dir, "ls-files", "--stage", stateJSON), " 3\t")

	r := openRepo(t, dir)
	_, err = r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: stateJSON, Data: []byte("{\"resolved\":1}\n")}}, Message: "itr: resolve", Worktree: true})
	require.NoError(t, err)
	stages := gitRun(t, dir, "ls-files", "--stage", stateJSON)
	assert.Equal(t, 1, strings.Count(stages, "\n"))
	assert.Contains(t, stages, " 0\t")
	gitRun(t, dir, "fsck", "--strict")
	assert.Equal(t, "", gitRun(t, dir, "diff", "--cached"))
}

func TestCommitFilesBareRefusesWorktree(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "--bare")
	r := openRepo(t, dir)
	assert.Equal(t, "", r.Root())
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "a", Data: []byte("a")}}, Message: "m", Worktree: true})
	require.Error(t, err)
	c, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "a", Data: []byte("a")}}, Message: "m"})
	require.NoError(t, err)
	assert.Equal(t, c.Hash+"\n", gitRun(t, dir, "rev-parse", "HEAD"))
	gitRun(t, dir, "fsck", "--strict")
}

func TestCommitFilesRejectsBadPaths(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, dir)
	for _, p := range []string{"", "/abs", "a/../b", ".git/config", "dir/", "a//b"} {
		_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: p, Data: []byte("x")}}, Message: "m"})
		assert.Error(t, err, p)
	}
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "a.txt/x", Data: []byte("x")}}, Message: "m"})
	assert.Error(t, err, "a file cannot become a folder")
	assert.Equal(t, "1\n", gitRun(t, dir, "rev-list", "--count", "HEAD"))
}

func TestCommitFilesGuardRebuildsOnAMovedHeadThatLeftTheFolderAlone(t *testing.T) {
	dir := newRepo(t, map[string]string{"task/log.md": "one\n", "src/a.go": "package a\n"})
	before := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	r := openRepo(t, dir)
	// Someone commits elsewhere after the caller read HEAD.
	writeFile(t, filepath.Join(dir, "src/b.go"), "package a\n")
	gitRun(t, dir, "add", "src/b.go")
	gitRun(t, dir, "commit", "-q", "-m", "work")
	moved := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))

	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "task/log.md", Data: []byte("one\ntwo\n")}}, Message: "x", Expect: before, Worktree: true})
	require.ErrorIs(t, err, ErrHeadMoved, "without a guard any move fails")

	c, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "task/log.md", Data: []byte("one\ntwo\n")}}, Message: "x", Expect: before, Guard: []string{"task"}, Worktree: true})
	require.NoError(t, err)
	assert.Equal(t, []string{moved}, c.Parents, "rebuilt on the new HEAD")
	assert.Equal(t, "package a\n", gitRun(t, dir, "show", "HEAD:src/b.go"), "the other commit is kept")
	assert.Equal(t, "", checkRepo(t, dir))

	// A move that touched the guarded folder still fails.
	writeFile(t, filepath.Join(dir, "task/log.md"), "one\ntwo\nby git\n")
	gitRun(t, dir, "commit", "-q", "-am", "git edits the log")
	_, err = r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "task/log.md", Data: []byte("one\ntwo\nthree\n")}}, Message: "y", Expect: c.Hash, Guard: []string{"task"}, Worktree: true})
	require.ErrorIs(t, err, ErrHeadMoved)
}
