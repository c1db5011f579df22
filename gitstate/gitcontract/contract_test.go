package gitcontract_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitcontract"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
)

const (
	testerName  = "Contract Tester"
	testerEmail = "contract@example.com"
)

// needGit skips the test when the git CLI is missing and isolates git from
// the user's configuration and environment.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	testgit.Unconfigured(t)
}

// git runs the git CLI in dir and returns its standard output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testgit.Out(t, dir, args...)
}

// gitTry runs the git CLI in dir and returns its standard output and, when
// it fails, its standard error after it.
func gitTry(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out) + stderr.String(), err
	}
	return string(out), nil
}

// openReal makes a repository with `git init` and an identity in its
// config, and opens it with gitstate.Open.
func openReal(t *testing.T) (*gitstate.Repo, string) {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "config", "user.name", testerName)
	git(t, dir, "config", "user.email", testerEmail)
	r, err := gitstate.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r, dir
}

// TestRepo runs the contract on *gitstate.Repo, and after each case checks
// the repository with git itself.
func TestRepo(t *testing.T) {
	needGit(t)
	gitcontract.RunWith(t, gitcontract.Options{Git: gitOracle}, func(t *testing.T) gitstate.Repository {
		r, dir := openReal(t)
		t.Cleanup(func() { checkWithGit(t, r, dir) })
		return r
	})
}

// TestGitEngine runs the contract on *gitstate.GitRepo, the engine on
// git's own plumbing, in a plain repository, and checks each case with git.
func TestGitEngine(t *testing.T) {
	needGit(t)
	gitcontract.RunWith(t, gitcontract.Options{Git: gitOracle}, func(t *testing.T) gitstate.Repository {
		_, dir := openReal(t)
		g, err := gitstate.OpenGit(dir)
		require.NoError(t, err)
		t.Cleanup(func() { checkWithGit(t, g, dir); _ = g.Close() })
		return g
	})
}

// TestFake runs the contract on gitfake.
func TestFake(t *testing.T) {
	gitcontract.Run(t, func(t *testing.T) gitstate.Repository {
		return gitfake.New(t.TempDir())
	})
}

// checkWithGit compares what r reports with what git reports: the objects
// are sound, the working tree of committed files is clean, and the index,
// the refs and the first-parent history are git's.
func checkWithGit(t *testing.T, r gitstate.Repository, dir string) {
	t.Helper()
	git(t, dir, "fsck", "--strict", "--no-progress")
	for _, line := range strings.Split(strings.TrimRight(git(t, dir, "status", "--porcelain"), "\n"), "\n") {
		// The second column compares the working tree with the index: a
		// file written with its index entry must match it.
		if len(line) >= 2 && (strings.ContainsAny(line[1:2], "MTU") || line[0] == 'U') {
			t.Errorf("git status: %q: a file written in the working tree differs from its index entry", line)
		}
	}

	staged, err := r.Staged("")
	require.NoError(t, err)
	var got []string
	for _, e := range staged {
		got = append(got, fmt.Sprintf("%s %d\t%s", e.Hash, e.Stage, e.Path))
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(git(t, dir, "ls-files", "--stage")), "\n") {
		if f := strings.Fields(line); len(f) == 4 {
			want = append(want, fmt.Sprintf("%s %s\t%s", f[1], f[2], f[3]))
		}
	}
	assert.Equal(t, want, got, "Staged(\"\") is git ls-files --stage")

	raw, err := r.RawRefs("refs/")
	require.NoError(t, err)
	got = nil
	for _, name := range gitstate.RefNames(raw) {
		got = append(got, name+" "+raw[name])
	}
	want = nil
	if out := strings.TrimSpace(git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)")); out != "" {
		want = strings.Split(out, "\n")
	}
	sort.Strings(want)
	assert.Equal(t, want, got, "RawRefs(\"refs/\") is git for-each-ref")

	h, err := r.Head()
	require.NoError(t, err)
	if h.Unborn {
		return
	}
	var hist []string
	require.NoError(t, r.History("HEAD", func(c gitstate.Commit) bool { hist = append(hist, c.Hash); return true }))
	assert.Equal(t, strings.Fields(git(t, dir, "rev-list", "--first-parent", "HEAD")), hist, "History is git rev-list --first-parent")
}

// TestConfigAsGitReadsIt: the values SetConfigSection writes are the ones
// git reads, the ones the contract expects ConfigSection to return.
func TestConfigAsGitReadsIt(t *testing.T) {
	needGit(t)
	r, dir := openReal(t)
	keys := [][2]string{{"semi", "a;b"}, {"hash", "x # y"}, {"quote", `say "hi"`}, {"back", `c:\dir`}, {"pad", " padded "}, {"empty", ""}, {"plain", "itr merge-driver %O %A %B %P"}}
	_, err := r.SetConfigSection("itrcontract", "quoted", keys)
	require.NoError(t, err)
	for _, kv := range keys {
		got := git(t, dir, "config", "--get", "itrcontract.quoted."+kv[0])
		assert.Equal(t, kv[1]+"\n", got, kv[0])
	}
	fake := gitfake.New(t.TempDir())
	_, err = fake.SetConfigSection("itrcontract", "quoted", keys)
	require.NoError(t, err)
	sec, err := fake.ConfigSection("itrcontract", "quoted")
	require.NoError(t, err)
	assert.Equal(t, keys, sec)
	want, err := os.ReadFile(filepath.Join(dir, r.ConfigFile()))
	require.NoError(t, err)
	got, err := os.ReadFile(fake.ConfigFile())
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(want), string(got)), "the fake writes the section as gitstate does:\n%s\n%s", want, got)
}

// script drives both implementations through the same commits, branch
// and tags, and returns every hash they give.
func script(t *testing.T, r gitstate.Repository) []string {
	t.Helper()
	var out []string
	add := func(h string, err error) {
		t.Helper()
		require.NoError(t, err)
		out = append(out, h)
	}
	who := &gitstate.Signature{Name: testerName, Email: testerEmail}
	commit := func(msg string, changes ...gitstate.FileChange) gitstate.Commit {
		t.Helper()
		c, err := r.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: gitcontract.When, Author: who, Worktree: true})
		add(c.Hash, err)
		return c
	}
	c1 := commit("first\n\nItr-Task: demo\n",
		gitstate.FileChange{Path: "a.txt", Data: []byte("a\n")},
		gitstate.FileChange{Path: "d/b.txt", Data: []byte("b\n")},
		gitstate.FileChange{Path: "d/e/c.txt", Data: []byte("c\n")},
		gitstate.FileChange{Path: "d/e.txt", Data: []byte("e\n")},
		gitstate.FileChange{Path: "d-x.txt", Data: []byte("x\n")},
		gitstate.FileChange{Path: "empty", Data: nil})
	c2 := commit("second", gitstate.FileChange{Path: "d/e", Delete: true}, gitstate.FileChange{Path: "z/y.txt", Data: []byte("y")})
	commit("third", gitstate.FileChange{Path: "d", Delete: true})
	commit("fourth", gitstate.FileChange{Path: "d", Data: []byte("now a file")}, gitstate.FileChange{Path: "a.txt", Delete: true})
	for _, rev := range []string{c1.Hash, c2.Hash, "HEAD"} {
		for _, p := range []string{"", "d", "d/e", "a.txt", "z"} {
			h, err := r.FileHashAt(rev, p)
			if err != nil {
				h = "(none)"
			}
			out = append(out, h)
		}
	}
	tagger := gitstate.Signature{Name: testerName, Email: testerEmail, When: gitcontract.When}
	add(r.CreateTag("refs/tags/v1", c1.Hash, "one", tagger))
	add(r.CreateTag("refs/tags/archive/v2", c2.Hash, "two\n\nwith a body\n", tagger))
	require.NoError(t, r.SetBranch("refs/heads/side", c1.Hash, tagger, "side"))
	refs, err := r.RawRefs("refs/tags/")
	require.NoError(t, err)
	for _, name := range gitstate.RefNames(refs) {
		out = append(out, name+" "+refs[name])
	}
	require.NoError(t, r.History("HEAD", func(c gitstate.Commit) bool {
		out = append(out, fmt.Sprintf("%s %v %q %q %v %s %s", c.Hash, c.Parents, c.Message, c.Subject, c.Trailers,
			c.Author.When.Format(time.RFC3339), c.Committer.Name))
		return true
	}))
	return out
}

// TestSameHashes: the fake encodes objects as git does, so the same
// commits give the same hashes in both.
func TestSameHashes(t *testing.T) {
	needGit(t)
	real, _ := openReal(t)
	want := script(t, real)
	got := script(t, gitfake.New(t.TempDir()))
	assert.Equal(t, want, got)
}

// controls drive an implementation where the interface cannot: for the
// real repository with the git CLI, for the fake with its test controls.
type controls struct {
	name     string
	repo     gitstate.Repository
	switchTo func(t *testing.T, branch string)
	detach   func(t *testing.T, rev string)
	// merge merges the branch other into HEAD with message msg; the fake
	// is told the changes the merge brings.
	merge func(t *testing.T, other, msg string, changes []gitstate.FileChange)
	// conflict starts a merge of other that stops on path (base, ours and
	// theirs being its three versions).
	conflict func(t *testing.T, other, path string, base, ours, theirs []byte)
}

func both(t *testing.T) []controls {
	t.Helper()
	needGit(t)
	real, dir := openReal(t)
	fake := gitfake.New(t.TempDir())
	fake.SetIdentity(testerName, testerEmail)
	return []controls{
		{
			name:     "real",
			repo:     real,
			switchTo: func(t *testing.T, branch string) { git(t, dir, "checkout", "-q", branch) },
			detach:   func(t *testing.T, rev string) { git(t, dir, "checkout", "-q", "--detach", rev) },
			merge: func(t *testing.T, other, msg string, _ []gitstate.FileChange) {
				git(t, dir, "merge", "-q", "--no-ff", "-m", msg, other)
			},
			conflict: func(t *testing.T, other, path string, _, _, _ []byte) {
				out, err := gitTry(dir, "merge", "-q", other)
				require.Error(t, err, "the merge stops on a conflict: %s", out)
			},
		},
		{
			name:     "fake",
			repo:     fake,
			switchTo: func(t *testing.T, branch string) { require.NoError(t, fake.SetHead("refs/heads/"+branch)) },
			detach:   func(t *testing.T, rev string) { require.NoError(t, fake.SetHead(rev)) },
			merge: func(t *testing.T, other, msg string, changes []gitstate.FileChange) {
				_, err := fake.Merge(other, gitstate.CommitRequest{Changes: changes, Message: msg, Worktree: true})
				require.NoError(t, err)
			},
			conflict: func(t *testing.T, other, path string, base, ours, theirs []byte) {
				h, err := fake.ResolveRev(other)
				require.NoError(t, err)
				fake.SetOperation("merge", h)
				fake.SetConflict(path, base, ours, theirs)
			},
		},
	}
}

// sideBranch commits path = data on the current branch (base), makes the
// branch side there and commits sidePath = sideData on it (side), then
// switches back.
func (c controls) sideBranch(t *testing.T, path, data, sidePath, sideData string) (base, side gitstate.Commit) {
	t.Helper()
	r := c.repo
	base = commitOn(t, r, path, data)
	branch, err := r.Head()
	require.NoError(t, err)
	who := gitstate.Signature{Name: testerName, Email: testerEmail, When: gitcontract.When}
	require.NoError(t, r.SetBranch("refs/heads/side", base.Hash, who, "side"))
	c.switchTo(t, "side")
	side = commitOn(t, r, sidePath, sideData)
	c.switchTo(t, strings.TrimPrefix(branch.Branch, "refs/heads/"))
	return base, side
}

func commitOn(t *testing.T, r gitstate.Repository, path, data string) gitstate.Commit {
	t.Helper()
	c, err := r.CommitFiles(gitstate.CommitRequest{
		Changes: []gitstate.FileChange{{Path: path, Data: []byte(data)}},
		Message: "write " + path, When: gitcontract.When, Worktree: true,
	})
	require.NoError(t, err)
	return c
}

// TestMergeAndDetachedHead: merge commits and a detached HEAD, made with
// git for the real repository and with the fake's controls, read alike.
func TestMergeAndDetachedHead(t *testing.T) {
	for _, c := range both(t) {
		t.Run(c.name, func(t *testing.T) {
			r := c.repo
			base, side := c.sideBranch(t, "a.txt", "a\n", "b.txt", "b\n")
			main := commitOn(t, r, "c.txt", "c\n")
			c.merge(t, "side", "Merge side", []gitstate.FileChange{{Path: "b.txt", Data: []byte("b\n")}})

			var hist []gitstate.Commit
			require.NoError(t, r.History("HEAD", func(c gitstate.Commit) bool { hist = append(hist, c); return true }))
			require.Len(t, hist, 3, "first parents only")
			merge := hist[0]
			assert.Equal(t, []string{main.Hash, side.Hash}, merge.Parents)
			assert.Equal(t, "Merge side", merge.Subject)
			assert.Equal(t, []string{main.Hash, base.Hash}, []string{hist[1].Hash, hist[2].Hash})
			for rev, want := range map[string]string{"HEAD^2": side.Hash, "HEAD^2^": base.Hash, "HEAD^1": main.Hash, "side": side.Hash} {
				got, err := r.ResolveRev(rev)
				require.NoError(t, err, rev)
				assert.Equal(t, want, got, rev)
			}
			data, err := r.ReadFile("HEAD", "b.txt")
			require.NoError(t, err)
			assert.Equal(t, "b\n", string(data))

			c.detach(t, base.Hash)
			h, err := r.Head()
			require.NoError(t, err)
			assert.Equal(t, gitstate.Head{Hash: base.Hash, Detached: true}, h)
			got, err := r.ReadRef("HEAD")
			require.NoError(t, err)
			assert.Equal(t, base.Hash, got)
			_, err = r.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{{Path: "d.txt", Data: []byte("d")}}, Message: "x"})
			assert.ErrorIs(t, err, gitstate.ErrDetachedHead)
			var hashes []string
			require.NoError(t, r.History("HEAD", func(c gitstate.Commit) bool { hashes = append(hashes, c.Hash); return true }))
			assert.Equal(t, []string{base.Hash}, hashes)
		})
	}
}

// TestConflict: a merge stopped on a conflict shows the same operation and
// index stages in both; Stage resolves the path.
func TestConflict(t *testing.T) {
	for _, c := range both(t) {
		t.Run(c.name, func(t *testing.T) {
			r := c.repo
			assert.Empty(t, r.Operation())
			_, side := c.sideBranch(t, "f.txt", "base\n", "f.txt", "theirs\n")
			commitOn(t, r, "f.txt", "ours\n")
			c.conflict(t, "side", "f.txt", []byte("base\n"), []byte("ours\n"), []byte("theirs\n"))

			assert.Equal(t, "merge", r.Operation())
			assert.Contains(t, r.OperationHeads(), side.Hash)
			staged, err := r.Staged("")
			require.NoError(t, err)
			assert.Equal(t, []gitstate.IndexEntry{
				{Path: "f.txt", Stage: 1, Hash: gitstate.BlobHash([]byte("base\n"))},
				{Path: "f.txt", Stage: 2, Hash: gitstate.BlobHash([]byte("ours\n"))},
				{Path: "f.txt", Stage: 3, Hash: gitstate.BlobHash([]byte("theirs\n"))},
			}, staged)
			theirs, err := r.ReadBlob(staged[2].Hash)
			require.NoError(t, err)
			assert.Equal(t, "theirs\n", string(theirs))

			require.NoError(t, r.Stage([]gitstate.FileChange{{Path: "f.txt", Data: []byte("resolved\n")}}))
			staged, err = r.Staged("")
			require.NoError(t, err)
			assert.Equal(t, []gitstate.IndexEntry{{Path: "f.txt", Hash: gitstate.BlobHash([]byte("resolved\n"))}}, staged)
			data, err := os.ReadFile(filepath.Join(r.Root(), "f.txt"))
			require.NoError(t, err)
			assert.Equal(t, "resolved\n", string(data))
		})
	}
}
