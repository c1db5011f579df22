package gitstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setStepHook installs a step hook for one test.
func setStepHook(t *testing.T, fn func(string)) {
	t.Helper()
	stepHook = fn
	t.Cleanup(func() { stepHook = nil })
}

// TestCommitFilesWhatGitSeesAtEachStep stops CommitFiles at every step and
// looks at the repository the way a `git commit` running beside it does:
// HEAD first, then the index, with the real git. Whoever sees itr's new
// commit as HEAD must also see its index entries (otherwise that git commit
// would take them out again), and index.lock must stay held from the first
// step until the branch has moved, so that no git process that read the
// old index can write it back in between.
func TestCommitFilesWhatGitSeesAtEachStep(t *testing.T) {
	const p = ".claude/iterative/slug/progress.md"
	dir := newRepo(t, map[string]string{p: "# log\n", "other.txt": "x\n"})
	before := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	r := openRepo(t, dir)

	type seen struct {
		step, head, entry string
		indexLocked       bool
	}
	var obs []seen
	setStepHook(t, func(s string) {
		if strings.HasPrefix(s, "mkdir ") {
			return
		}
		head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
		entry := strings.Fields(gitRun(t, dir, "ls-files", "-s", "--", p))[1]
		_, err := os.Stat(filepath.Join(dir, ".git", "index.lock"))
		obs = append(obs, seen{s, head, entry, err == nil})
	})
	data := []byte("# log\n\n## T1 - Iteration 1 - ts\n**Did:** it\n")
	c, err := r.CommitFiles(CommitRequest{
		Changes:  []FileChange{{Path: p, Data: data}},
		Message:  "itr: one\n",
		When:     fixedTime,
		Worktree: true,
	})
	require.NoError(t, err)
	newBlob := BlobHash(data)

	var steps []string
	for _, o := range obs {
		steps = append(steps, o.step)
		if o.head == c.Hash {
			assert.Equal(t, newBlob, o.entry, "at %q git sees the new HEAD with an old index entry", o.step)
		} else {
			assert.Equal(t, before, o.head, "at %q", o.step)
		}
		assert.Equal(t, o.step != "released", o.indexLocked, "index.lock held at %q", o.step)
	}
	assert.Equal(t, []string{"index locked", "objects", "refs locked", "worktree", "index", "branch", "released"}, steps)
	assert.Equal(t, "", checkRepo(t, dir))
	assert.Empty(t, gitRun(t, dir, "status", "--porcelain"))
}

// TestCommitFilesGitCommitBesideEachStep runs a real `git commit` of other
// staged work at every step: it either fails (a lock is held, or HEAD moved
// under its compare-and-swap) or lands before itr's commit, which is then
// rebuilt on top of it. Either way both commits' content is in HEAD.
func TestCommitFilesGitCommitBesideEachStep(t *testing.T) {
	const p = ".claude/iterative/slug/progress.md"
	for _, at := range []string{"index locked", "objects", "refs locked", "worktree", "index", "branch", "released"} {
		t.Run(at, func(t *testing.T) {
			dir := newRepo(t, map[string]string{p: "# log\n"})
			writeFile(t, filepath.Join(dir, "work.txt"), "work\n")
			gitRun(t, dir, "add", "work.txt")
			r := openRepo(t, dir)
			var gitOut string
			var gitErr error
			setStepHook(t, func(s string) {
				if s == at {
					gitOut, gitErr = gitTry(dir, "commit", "-q", "-m", "user work")
				}
			})
			data := []byte("# log\n\n## T1 - Iteration 1 - ts\n**Did:** it\n")
			_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: p, Data: data}}, Message: "itr: one\n", When: fixedTime, Worktree: true})
			require.NoError(t, err)
			stepHook = nil
			if gitErr != nil {
				first, _, _ := strings.Cut(strings.TrimSpace(gitOut), "\n")
				t.Logf("git commit at %q: %s", at, first)
				gitRun(t, dir, "commit", "-q", "-m", "user work")
			}
			// Both are in HEAD: itr's entry and the user's file.
			assert.Equal(t, string(data), gitRun(t, dir, "show", "HEAD:"+p))
			assert.Equal(t, "work\n", gitRun(t, dir, "show", "HEAD:work.txt"))
			assert.Equal(t, "", checkRepo(t, dir))
			assert.Empty(t, gitRun(t, dir, "status", "--porcelain"))
		})
	}
}

// TestCommitFilesObjectFolderPruned removes the object folder CommitFiles
// has just made (as git prune does with an empty one, between itr's mkdir
// and its write): the write is retried and the commit lands.
func TestCommitFilesObjectFolderPruned(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, dir)
	removed := 0
	setStepHook(t, func(s string) {
		if d, ok := strings.CutPrefix(s, "mkdir "); ok && removed < 3 {
			if os.Remove(d) == nil { // empty: a fresh folder, as prune would see it
				removed++
			}
		}
	})
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "b.txt", Data: []byte("a new blob\n")}}, Message: "b\n", When: fixedTime, Worktree: true})
	require.NoError(t, err)
	assert.Positive(t, removed, "the test removed no folder: it tested nothing")
	assert.Equal(t, "", checkRepo(t, dir))
	assert.Equal(t, "a new blob\n", gitRun(t, dir, "show", "HEAD:b.txt"))
}
