package gitcontract_test

// The contract on every kind of repository itr meets, with the engine
// gitstate.OpenRepository chooses there, judged case by case with git: the
// native engine only where nothing asks for more than it does (a plain
// SHA-1 repository), git's own plumbing elsewhere, for a reason that names
// the setting. See checkKind for what git is asked after each case.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitcontract"
)

// plainRepo is a kind's setup for a repository made by `git init ARGS`.
func plainRepo(args ...string) func(t *testing.T) (string, string) {
	return func(t *testing.T) (string, string) {
		dir := newRepo(t, args...)
		return dir, dir
	}
}

// TestKindPlain: a plain SHA-1 repository is the native engine's.
func TestKindPlain(t *testing.T) {
	needGit(t)
	runKind(t, kind{setup: plainRepo(), engine: gitstate.EngineNative})
}

// TestKindPlainSameObjects: the native engine and git's plumbing write the
// same objects, byte for byte, for the same commits, branch and tags at
// fixed times and identity: the same commit, tree, blob and tag names,
// and the same set of objects reachable from the refs.
func TestKindPlainSameObjects(t *testing.T) {
	needGit(t)
	nativeDir := newRepo(t)
	native := openChosen(t, nativeDir, gitstate.EngineNative, "")
	defer native.Close()
	gitDir := newRepo(t)
	viaGit, err := gitstate.OpenGit(gitDir)
	require.NoError(t, err)
	defer viaGit.Close()

	want := script(t, native)
	got := script(t, viaGit)
	assert.Equal(t, want, got)
	objects := func(dir string) []string {
		out := strings.Fields(git(t, dir, "rev-list", "--objects", "--all"))
		sort.Strings(out)
		return out
	}
	assert.Equal(t, objects(nativeDir), objects(gitDir), "the same objects are reachable")
	assert.NotEmpty(t, objects(gitDir))
	checkKind(t, native, nativeDir)
	checkKind(t, viaGit, gitDir)
}

// TestKindSHA256: objects named by SHA-256 (`git init
// --object-format=sha256`).
func TestKindSHA256(t *testing.T) {
	needGit(t)
	runKind(t, kind{
		setup:  plainRepo("--object-format=sha256"),
		engine: gitstate.EngineGit, reason: "extensions.objectFormat",
		check: func(t *testing.T, r gitstate.Repository, top string) {
			assert.Equal(t, "sha256\n", git(t, top, "rev-parse", "--show-object-format"))
			assert.Len(t, r.BlobID(nil), 64)
			if h, err := r.Head(); err == nil && !h.Unborn {
				assert.Len(t, h.Hash, 64)
			}
		},
	})
}

// TestKindReftable: refs in a reftable (`git init --ref-format=reftable`,
// git >= 2.45, set up by shared/tools/newer-git).
func TestKindReftable(t *testing.T) {
	needGit(t)
	needNewerGit(t)
	runKind(t, kind{
		setup:  plainRepo("--ref-format=reftable"),
		engine: gitstate.EngineGit, reason: "extensions.refStorage",
		check: func(t *testing.T, r gitstate.Repository, top string) {
			assert.Equal(t, "reftable\n", git(t, top, "rev-parse", "--show-ref-format"))
			h, err := r.Head()
			require.NoError(t, err)
			// In a reftable repository .git/refs/heads is a file git
			// keeps so older gits refuse the repository: a loose ref
			// cannot be under it.
			_, err = os.Stat(filepath.Join(top, ".git", filepath.FromSlash(h.Branch)))
			assert.Error(t, err, "no loose ref file is written beside the reftable")
			tables, err := os.ReadFile(filepath.Join(top, ".git", "reftable", "tables.list"))
			require.NoError(t, err)
			assert.NotEmpty(t, tables, "the refs are in the reftable")
			_, err = os.Stat(filepath.Join(top, ".git", "packed-refs"))
			assert.ErrorIs(t, err, os.ErrNotExist, "no packed-refs file is written beside the reftable")
		},
	})
}

// splitIndex reports the shared index file of a split index ("" when the
// index is whole). git 2.39 names a null shared index
// (sharedindex.000...) for an index that was split and is no more: that
// counts as whole, and so does a name of a file that is not there.
func splitIndex(t *testing.T, top string) string {
	t.Helper()
	p := strings.TrimSpace(git(t, top, "rev-parse", "--shared-index-path"))
	if p == "" || strings.Trim(filepath.Ext(p), ".0") == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(top, p)
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// TestKindSplitIndex: a split index (core.splitIndex, `git update-index
// --split-index`) stays split after itr's commits.
func TestKindSplitIndex(t *testing.T) {
	needGit(t)
	runKind(t, kind{
		setup: func(t *testing.T) (string, string) {
			dir := newRepo(t)
			git(t, dir, "config", "core.splitIndex", "true")
			git(t, dir, "update-index", "--split-index")
			require.NotEmpty(t, splitIndex(t, dir), "the index is split before the case")
			return dir, dir
		},
		engine: gitstate.EngineGit, reason: "core.splitIndex",
		check: func(t *testing.T, r gitstate.Repository, top string) {
			assert.NotEmpty(t, splitIndex(t, top), "the index is still split")
		},
	})
}

// TestKindSplitIndexAfterFirstCommit: an index split by git after a
// first commit git made, with core.splitIndex set or by `git update-index
// --split-index` alone (the sharedindex file is the reason then), holds
// that commit's files and itr's after itr commits on it, and stays split.
func TestKindSplitIndexAfterFirstCommit(t *testing.T) {
	needGit(t)
	for _, tc := range []struct {
		name, reason string
		config       bool
	}{{"Config", "core.splitIndex", true}, {"IndexOnly", "index", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "first.txt"), []byte("by git\n"), 0o644))
			git(t, dir, "add", "first.txt")
			git(t, dir, "commit", "-q", "-m", "first")
			if tc.config {
				git(t, dir, "config", "core.splitIndex", "true")
			}
			git(t, dir, "update-index", "--split-index")
			require.NotEmpty(t, splitIndex(t, dir))

			r := openChosen(t, dir, gitstate.EngineGit, tc.reason)
			defer r.Close()
			for i, changes := range [][]gitstate.FileChange{
				{{Path: "a.txt", Data: []byte("a\n")}, {Path: "d/b.txt", Data: []byte("b\n")}},
				{{Path: "first.txt", Data: []byte("by itr\n")}, {Path: "d/b.txt", Delete: true}},
			} {
				_, err := r.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: "itr", When: gitcontract.When, Worktree: true})
				require.NoError(t, err, "commit %d", i)
				assert.NotEmpty(t, splitIndex(t, dir), "the index is still split after commit %d", i)
			}
			assert.Equal(t, "a.txt\nfirst.txt\n", git(t, dir, "ls-files"))
			assert.Empty(t, git(t, dir, "status", "--porcelain"))
			checkKind(t, r, dir)
		})
	}
}

// coneFolders are the top folders the contract commits in: the sparse
// cone of TestKindSparseInCone holds them all (its check fails when a case
// commits outside them).
var coneFolders = []string{"somedir", "blocker", "c", "d", "dir", "guarded", "keep", "n", "no", "other", "s", "w"}

// sparseRepo makes a repository with a sparse index and a cone-mode sparse
// checkout of the given folders.
func sparseRepo(cone ...string) func(t *testing.T) (string, string) {
	return func(t *testing.T) (string, string) {
		dir := newRepo(t)
		git(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
		git(t, dir, append([]string{"sparse-checkout", "set"}, cone...)...)
		return dir, dir
	}
}

// skipped lists the index's skip-worktree paths.
func skipped(t *testing.T, top string) []string {
	t.Helper()
	var out []string
	for _, e := range readIndex(t, top) {
		if e.tag == "S" {
			out = append(out, e.path)
		}
	}
	return out
}

// reapplied is git's verdict on a sparse checkout itr committed in, taken
// on a copy of the repository so the repository itself is left as itr
// left it: `git sparse-checkout reapply` takes every path the cone
// excludes out of the working tree and brings every path it includes in.
// It must do so without a warning (a file it cannot take out because it
// differs from its entry) and leave git status as it was. It returns the
// copy's skip-worktree paths: those outside the cone.
func reapplied(t *testing.T, top string) []string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "copy")
	out, err := exec.Command("cp", "-a", top, cp).CombinedOutput()
	require.NoError(t, err, "%s", out)
	// The copy's files have new inodes and times: refresh the index's
	// stat data, or git cannot tell them unchanged.
	_, _ = gitTry(cp, "update-index", "-q", "--refresh")
	before := git(t, cp, "status", "--porcelain", "--untracked-files=no")
	cmd := exec.Command("git", "sparse-checkout", "reapply")
	cmd.Dir = cp
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Empty(t, string(out), "git sparse-checkout reapply finds every file as its entry says")
	assert.Equal(t, before, git(t, cp, "status", "--porcelain", "--untracked-files=no"), "git status is the same after reapply")
	return skipped(t, cp)
}

// TestKindSparseInCone: a sparse index and a cone-mode sparse checkout,
// the contract's files all inside the cone: nothing differs from a plain
// repository, no index entry is skip-worktree, and git's reapply has
// nothing to take out.
func TestKindSparseInCone(t *testing.T) {
	needGit(t)
	runKind(t, kind{
		setup:  sparseRepo(coneFolders...),
		engine: gitstate.EngineGit, reason: "index.sparse",
		check: func(t *testing.T, r gitstate.Repository, top string) {
			assert.Empty(t, skipped(t, top))
			assert.Empty(t, reapplied(t, top), "the cone %v holds every path the case commits", coneFolders)
		},
	})
}

// inSomedirCone is git's cone-mode rule for the cone "somedir" (git help
// sparse-checkout, "Internals — cone mode handling"): the files at the top
// and everything below somedir/ are in it.
func inSomedirCone(path string) bool {
	return !strings.Contains(path, "/") || strings.HasPrefix(path, "somedir/")
}

// TestKindSparseOutsideCone: the contract's folders outside the cone
// (`git sparse-checkout set somedir`). What is right there: a commit that
// asks for its files in the working tree (Worktree) gets them, tracked,
// outside the cone as inside — what `git add --sparse` and `git commit`
// leave, and what itr's own scenarios ask for (checkpoint-sparse-checkout:
// `itr init` of a task outside the cone gives the task's files to edit);
// git's reapply takes them out later without a complaint. A commit without
// Worktree leaves a path outside the cone skip-worktree and absent, as git
// keeps such a path, instead of an entry whose file git would take for
// deleted (and `git commit -a` delete). So the contract holds unchanged;
// after each case every path outside the cone is either in the working
// tree and tracked, or skip-worktree and absent; fsck and status are
// clean and the index is the last commit's (checkKind).
func TestKindSparseOutsideCone(t *testing.T) {
	needGit(t)
	runKind(t, kind{
		setup:  sparseRepo("somedir"),
		engine: gitstate.EngineGit, reason: "index.sparse",
		check: func(t *testing.T, r gitstate.Repository, top string) {
			var outside []string
			for _, e := range readIndex(t, top) {
				if inSomedirCone(e.path) {
					assert.Equal(t, "H", e.tag, "%s inside the cone is tracked", e.path)
					continue
				}
				outside = append(outside, e.path)
				_, err := os.Lstat(filepath.Join(top, filepath.FromSlash(e.path)))
				if err == nil {
					assert.Equal(t, "H", e.tag, "%s outside the cone, in the working tree, is tracked", e.path)
				} else {
					assert.Equal(t, "S", e.tag, "%s outside the cone, not in the working tree, is skip-worktree", e.path)
				}
			}
			assert.Equal(t, outside, reapplied(t, top), "git's reapply puts exactly the paths outside the cone out")
		},
	})
}

// TestKindSparseOutsideConeCommit: the rule of TestKindSparseOutsideCone
// in a nested cone (`git sparse-checkout set somedir/sub`, where the top's
// files, somedir's own files and everything below somedir/sub are in):
// with Worktree every file is written and tracked; without, the paths
// outside the cone are skip-worktree and absent, the ones inside are
// tracked and absent (git status shows them deleted, as in any
// repository). git's reapply agrees on which paths are outside.
func TestKindSparseOutsideConeCommit(t *testing.T) {
	needGit(t)
	dir, _ := sparseRepo("somedir/sub")(t)
	r := openChosen(t, dir, gitstate.EngineGit, "core.sparseCheckout")
	defer r.Close()
	commit := func(worktree bool, paths ...string) {
		t.Helper()
		var changes []gitstate.FileChange
		for _, p := range paths {
			changes = append(changes, gitstate.FileChange{Path: p, Data: []byte(p + "\n")})
		}
		_, err := r.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: "sparse", When: gitcontract.When, Worktree: worktree})
		require.NoError(t, err)
	}
	exists := func(p string) bool {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil
	}
	in := []string{"top.txt", "somedir/file.txt", "somedir/sub/x/y.txt"}
	out := []string{"out/x.txt", "somedir/other/z.txt", "somedir/subway/w.txt"}
	commit(true, append(append([]string{}, in...), out...)...)
	for _, p := range append(append([]string{}, in...), out...) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if assert.NoError(t, err, "%s is written", p) {
			assert.Equal(t, p+"\n", string(data))
		}
	}
	assert.Empty(t, skipped(t, dir))
	assert.Empty(t, git(t, dir, "status", "--porcelain"))
	sort.Strings(out)
	assert.Equal(t, out, reapplied(t, dir))
	checkKind(t, r, dir)

	inLater := []string{"later.txt", "somedir/later.txt", "somedir/sub/later.txt"}
	outLater := []string{"elsewhere/n.txt", "somedir/other/q.txt"}
	commit(false, append(append([]string{}, inLater...), outLater...)...)
	for _, p := range append(append([]string{}, inLater...), outLater...) {
		assert.False(t, exists(p), "%s is not written without Worktree", p)
	}
	assert.False(t, exists("elsewhere"))
	assert.Equal(t, outLater, skipped(t, dir), "the paths outside the cone are skip-worktree")
	assert.Equal(t, " D later.txt\n D somedir/later.txt\n D somedir/sub/later.txt\n", git(t, dir, "status", "--porcelain"),
		"the paths inside the cone are missing from the working tree, as anywhere")
	assert.Len(t, strings.Fields(git(t, dir, "ls-tree", "-r", "--name-only", "HEAD")), len(in)+len(out)+len(inLater)+len(outLater))
}

// TestKindSparseIndexStaysSparse: commits inside the cone of a sparse
// index leave the folders outside it collapsed (`git ls-files --sparse`
// still lists out/ as one entry); a commit without Worktree inside such a
// folder leaves its paths skip-worktree; deleting the folder takes it out
// of HEAD and the index.
func TestKindSparseIndexStaysSparse(t *testing.T) {
	needGit(t)
	dir := newRepo(t)
	for _, p := range []string{"out/x.txt", "somedir/a.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644))
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "by git")
	git(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
	git(t, dir, "sparse-checkout", "set", "somedir")
	require.Contains(t, git(t, dir, "ls-files", "--sparse"), "out/\n", "the index is sparse before itr commits")
	r := openChosen(t, dir, gitstate.EngineGit, "index.sparse")
	defer r.Close()
	_, err := r.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{
		{Path: "somedir/a.txt", Data: []byte("itr\n")}, {Path: "somedir/b/c.txt", Data: []byte("c\n")}, {Path: "top.txt", Data: []byte("t\n")},
	}, Message: "in the cone", When: gitcontract.When, Worktree: true})
	require.NoError(t, err)
	assert.Contains(t, git(t, dir, "ls-files", "--sparse"), "out/\n", "the index is still sparse")
	assert.Empty(t, git(t, dir, "status", "--porcelain"))
	assert.Equal(t, []string{"out/x.txt"}, reapplied(t, dir))
	checkKind(t, r, dir)

	for i, tc := range []struct {
		change   []gitstate.FileChange
		worktree bool
	}{
		{[]gitstate.FileChange{{Path: "out/x.txt", Data: []byte("changed by itr\n")}, {Path: "out/y.txt", Data: []byte("new\n")}}, false},
		{[]gitstate.FileChange{{Path: "out", Delete: true}}, true},
	} {
		_, err := r.CommitFiles(gitstate.CommitRequest{Changes: tc.change, Message: "outside", When: gitcontract.When, Worktree: tc.worktree})
		require.NoError(t, err, "commit %d", i)
		assert.Empty(t, git(t, dir, "status", "--porcelain"))
		_, err = os.Lstat(filepath.Join(dir, "out"))
		assert.ErrorIs(t, err, os.ErrNotExist, "out/ is not in the working tree")
		checkKind(t, r, dir)
		if i == 0 {
			assert.Equal(t, []string{"out/x.txt", "out/y.txt"}, skipped(t, dir))
			assert.Equal(t, []string{"out/x.txt", "out/y.txt"}, reapplied(t, dir))
			assert.Equal(t, "changed by itr\n", git(t, dir, "cat-file", "-p", "HEAD:out/x.txt"))
		} else {
			assert.Empty(t, skipped(t, dir))
			assert.NotContains(t, git(t, dir, "ls-files", "--sparse"), "out/")
			assert.NotContains(t, git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"), "out/")
		}
	}
}

// TestKindGitDirEnvRelative: GIT_DIR and GIT_WORK_TREE relative to the
// current folder mean the same to git's children, which run elsewhere.
func TestKindGitDirEnvRelative(t *testing.T) {
	needGit(t)
	base := t.TempDir()
	there, here := filepath.Join(base, "there"), filepath.Join(base, "here")
	git(t, base, "init", "-q", there)
	git(t, base, "init", "-q", here)
	git(t, there, "config", "user.name", testerName)
	git(t, there, "config", "user.email", testerEmail)
	t.Chdir(here)
	t.Setenv("GIT_DIR", "../there/.git")
	t.Setenv("GIT_WORK_TREE", "../there")
	r := openChosen(t, ".", gitstate.EngineGit, "GIT_DIR")
	defer r.Close()
	assert.Equal(t, there, r.Root())
	c, err := r.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{{Path: "d/a.txt", Data: []byte("a\n")}},
		Message: "relative", When: gitcontract.When, Worktree: true})
	require.NoError(t, err)
	abs := []string{"GIT_DIR=" + filepath.Join(there, ".git"), "GIT_WORK_TREE=" + there}
	assert.Equal(t, c.Hash+"\n", string(gitIn(t, there, abs, nil, "rev-parse", "HEAD")))
	assert.Empty(t, string(gitIn(t, there, abs, nil, "status", "--porcelain")))
	data, err := os.ReadFile(filepath.Join(there, "d", "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "a\n", string(data))
	_, err = os.Stat(filepath.Join(here, "d"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing is written in the current folder")
	hereEnv := []string{"GIT_DIR=" + filepath.Join(here, ".git"), "GIT_WORK_TREE=" + here}
	assert.Empty(t, string(gitIn(t, here, hereEnv, nil, "for-each-ref")), "the current folder's repository has no commit")
}

// TestKindLineEndingsOfData: data given with CRLF is committed as git
// commits it where attributes normalise line endings (LF in the blob) and
// checked out with CRLF.
func TestKindLineEndingsOfData(t *testing.T) {
	needGit(t)
	dir := newRepo(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt text eol=crlf\n"), 0o644))
	r := openChosen(t, dir, gitstate.EngineGit, ".gitattributes:1")
	defer r.Close()
	_, err := r.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{
		{Path: "crlf.txt", Data: []byte("one\r\ntwo\r\n")}, {Path: "lf.txt", Data: []byte("one\ntwo\n")}, {Path: "bin.dat", Data: []byte("one\r\ntwo\n")},
	}, Message: "line endings", When: gitcontract.When, Worktree: true})
	require.NoError(t, err)
	for p, want := range map[string][2]string{
		"crlf.txt": {"one\ntwo\n", "one\r\ntwo\r\n"},
		"lf.txt":   {"one\ntwo\n", "one\r\ntwo\r\n"},
		"bin.dat":  {"one\r\ntwo\n", "one\r\ntwo\n"},
	} {
		blob, err := r.ReadFile("HEAD", p)
		require.NoError(t, err)
		assert.Equal(t, want[0], string(blob), "the blob of %s", p)
		data, err := os.ReadFile(filepath.Join(dir, p))
		require.NoError(t, err)
		assert.Equal(t, want[1], string(data), "the working tree's %s", p)
	}
	assert.Empty(t, strings.TrimSpace(strings.ReplaceAll(git(t, dir, "status", "--porcelain"), "?? .gitattributes", "")))
	checkKind(t, r, dir)
}

// TestKindCRLFClone: a clone made with `git clone -c core.autocrlf=true`:
// the blobs hold LF, the working tree CRLF, as git checks them out.
func TestKindCRLFClone(t *testing.T) {
	needGit(t)
	runKind(t, kind{
		setup: func(t *testing.T) (string, string) {
			src := newRepo(t)
			dst := filepath.Join(t.TempDir(), "clone")
			git(t, t.TempDir(), "clone", "-q", "-c", "core.autocrlf=true", src, dst)
			git(t, dst, "config", "user.name", testerName)
			git(t, dst, "config", "user.email", testerEmail)
			return dst, dst
		},
		engine: gitstate.EngineGit, reason: "core.autocrlf",
		opts:  byGit,
		check: crlfCheck,
	})
}

// TestKindEOLAttribute: `*.txt text eol=crlf` in .gitattributes (the
// contract's files are .txt but for a few without an extension).
func TestKindEOLAttribute(t *testing.T) {
	needGit(t)
	runKind(t, kind{
		setup: func(t *testing.T) (string, string) {
			dir := newRepo(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt text eol=crlf\n"), 0o644))
			return dir, dir
		},
		engine: gitstate.EngineGit, reason: ".gitattributes:1",
		opts:  byGit,
		check: crlfCheck,
	})
}

// TestKindCleanFilter: `*.txt filter=up` with a clean filter that
// upper-cases: the blobs are what `git hash-object --path` stores.
func TestKindCleanFilter(t *testing.T) {
	needGit(t)
	runKind(t, kind{
		setup: func(t *testing.T) (string, string) {
			dir := newRepo(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=up\n"), 0o644))
			git(t, dir, "config", "filter.up.clean", "tr a-z A-Z")
			git(t, dir, "config", "filter.up.smudge", "cat")
			return dir, dir
		},
		engine: gitstate.EngineGit, reason: ".gitattributes:1",
		opts: byGit,
		check: func(t *testing.T, r gitstate.Repository, top string) {
			if h, err := r.Head(); err != nil || h.Unborn {
				return
			}
			files, err := r.TreeFiles("HEAD", "")
			require.NoError(t, err)
			for p, id := range files {
				if strings.HasSuffix(p, ".txt") {
					blob := git(t, top, "cat-file", "blob", id)
					assert.Equal(t, strings.ToUpper(blob), blob, "%s went through the clean filter", p)
				}
			}
		},
	})
}

// TestKindSSHSigning: commit.gpgSign and tag.gpgSign with an SSH key
// (gpg.format ssh): every commit and tag verifies.
func TestKindSSHSigning(t *testing.T) {
	needGit(t)
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("ssh signing needs ssh-keygen, which is not on PATH (Debian: apt-get install openssh-client)")
	}
	keys := t.TempDir()
	key := filepath.Join(keys, "key")
	out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", testerEmail, "-f", key).CombinedOutput()
	require.NoError(t, err, "%s", out)
	pub, err := os.ReadFile(key + ".pub")
	require.NoError(t, err)
	allowed := filepath.Join(keys, "allowed_signers")
	require.NoError(t, os.WriteFile(allowed, []byte(testerEmail+" "+string(pub)), 0o644))
	runKind(t, kind{
		setup: func(t *testing.T) (string, string) {
			dir := newRepo(t)
			for _, kv := range [][2]string{{"gpg.format", "ssh"}, {"user.signingKey", key + ".pub"}, {"commit.gpgSign", "true"},
				{"tag.gpgSign", "true"}, {"gpg.ssh.allowedSignersFile", allowed}} {
				git(t, dir, "config", kv[0], kv[1])
			}
			return dir, dir
		},
		engine: gitstate.EngineGit, reason: "commit.gpgSign",
		check: func(t *testing.T, r gitstate.Repository, top string) {
			if out, err := gitTry(top, "rev-parse", "--verify", "-q", "HEAD"); err != nil || out == "" {
				return
			}
			for _, line := range strings.Split(strings.TrimSpace(git(t, top, "log", "--all", "--format=%H %G?")), "\n") {
				assert.True(t, strings.HasSuffix(line, " G"), "a good signature: %s", line)
			}
			for _, tag := range strings.Fields(git(t, top, "tag", "--list")) {
				out, err := gitTry(top, "tag", "-v", tag)
				assert.NoError(t, err, "git tag -v %s: %s", tag, out)
			}
		},
	})
}

// TestKindGitDirEnv: GIT_DIR and GIT_WORK_TREE point at a repository
// elsewhere while the current folder is another repository: itr opens,
// commits and writes files in the one the variables name, and leaves the
// current one alone.
func TestKindGitDirEnv(t *testing.T) {
	needGit(t)
	runKind(t, kind{
		setup: func(t *testing.T) (string, string) {
			there := newRepo(t)
			here := newRepo(t)
			require.NoError(t, os.WriteFile(filepath.Join(here, "here.txt"), []byte("here\n"), 0o644))
			git(t, here, "add", "here.txt")
			git(t, here, "commit", "-q", "-m", "here")
			before := snapshot(t, filepath.Join(here))
			t.Chdir(here)
			t.Setenv("GIT_DIR", filepath.Join(there, ".git"))
			t.Setenv("GIT_WORK_TREE", there)
			t.Cleanup(func() {
				assert.Equal(t, before, snapshot(t, here), "the current folder's repository is left alone")
			})
			return ".", there
		},
		engine: gitstate.EngineGit, reason: "GIT_DIR",
		check: func(t *testing.T, r gitstate.Repository, top string) {
			assert.Equal(t, top, r.Root(), "the working tree is the one GIT_WORK_TREE names")
		},
	})
}

// TestKindIndexFileEnv: GIT_INDEX_FILE names another index: itr's entries
// go there, and the repository's own index is not written. The native
// engine honours it (git sets it for every commit hook, where itr's own
// pre-commit hook runs), and so does git's plumbing (ITR_ENGINE=git).
func TestKindIndexFileEnv(t *testing.T) {
	needGit(t)
	for _, forced := range []bool{false, true} {
		t.Run(fmt.Sprintf("forced=%v", forced), func(t *testing.T) { testIndexFileEnv(t, forced) })
	}
}

func testIndexFileEnv(t *testing.T, forced bool) {
	engine, reason := gitstate.EngineNative, ""
	if forced {
		t.Setenv("ITR_ENGINE", "git")
		engine, reason = gitstate.EngineGit, "ITR_ENGINE"
	}
	runKind(t, kind{
		setup: func(t *testing.T) (string, string) {
			dir := newRepo(t)
			t.Setenv("GIT_INDEX_FILE", filepath.Join(t.TempDir(), "other-index"))
			return dir, dir
		},
		engine: engine, reason: reason,
		check: func(t *testing.T, r gitstate.Repository, top string) {
			_, err := os.Stat(filepath.Join(top, ".git", "index"))
			assert.ErrorIs(t, err, os.ErrNotExist, "the repository's own index is not written")
			staged, err := r.Staged("")
			require.NoError(t, err)
			if len(staged) > 0 {
				_, err := os.Stat(os.Getenv("GIT_INDEX_FILE"))
				assert.NoError(t, err, "the entries are in GIT_INDEX_FILE")
			}
		},
	})
}

// TestKindDubiousOwnership: a repository owned by another user. git
// refuses it until safe.directory allows it; so must itr, changing
// nothing; once allowed, the git engine serves it.
func TestKindDubiousOwnership(t *testing.T) {
	needGit(t)
	if os.Geteuid() != 0 {
		t.Skip("the test gives a repository to another user with chown, which needs root; it runs as uid " + strconv.Itoa(os.Geteuid()))
	}
	t.Setenv("SUDO_UID", "")
	os.Unsetenv("SUDO_UID")
	owned := func(t *testing.T) string {
		dir := newRepo(t)
		if out, err := exec.Command("chown", "-R", "65534:65534", dir).CombinedOutput(); err != nil {
			t.Skipf("chown -R 65534:65534 %s failed (%v): %s", dir, err, bytes.TrimSpace(out))
		}
		return dir
	}
	t.Run("Refused", func(t *testing.T) {
		dir := owned(t)
		before := snapshot(t, dir)
		r, _, err := gitstate.OpenRepository(dir, gitstate.OpenOptions{Scope: scope})
		if r != nil {
			r.Close()
		}
		require.Error(t, err)
		msg := err.Error()
		assert.True(t, strings.Contains(msg, "safe.directory") || strings.Contains(msg, "dubious ownership"), "the error names git's setting: %s", msg)
		assert.Equal(t, before, snapshot(t, dir), "a refused repository is left alone")
	})
	t.Run("Allowed", func(t *testing.T) {
		runKind(t, kind{
			setup: func(t *testing.T) (string, string) {
				dir := owned(t)
				git(t, t.TempDir(), "config", "--global", "--add", "safe.directory", dir)
				return dir, dir
			},
			engine: gitstate.EngineGit, reason: "owner of",
		})
	})
}
