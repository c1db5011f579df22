package syncer

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// A sync that cannot be made is refused before anything moves, naming
// the fix: the clone (HEAD, refs, index, configuration, working tree, the
// operation in progress) and its remote are as they were.
func TestSyncRefusals(t *testing.T) {
	cases := []struct {
		name string
		// setup makes the repository of dir unsyncable; remote is its
		// bare remote ("" for none). It returns the request.
		setup func(t *testing.T, dir, remote string) Request
		// noRemote leaves the repository without one.
		noRemote bool
		want     string
	}{
		{name: "no remote", noRemote: true, setup: func(*testing.T, string, string) Request { return Request{} },
			want: "this repository has no remote to sync with; add one with `git remote add origin URL`"},
		{name: "a remote that is not one", setup: func(*testing.T, string, string) Request { return Request{Remote: "upstream"} },
			want: "\"upstream\" is not a remote of this repository (remotes: origin); add it with `git remote add upstream URL`"},
		{name: "detached HEAD", setup: func(t *testing.T, dir, _ string) Request {
			git(t, dir, "checkout", "-q", "--detach")
			return Request{}
		}, want: "HEAD is detached: check out the branch to sync (git switch BRANCH), then run `itr sync` again"},
		{name: "a merge in progress", setup: func(t *testing.T, dir, _ string) Request {
			divergeNotes(t, dir)
			_, err := gitRun(dir, "merge", "-q", "other")
			require.Error(t, err, "the merge stops on notes.txt")
			return Request{}
		}, want: "a git merge is in progress; finish it (git status says how) and run `itr sync` again"},
		{name: "a rebase in progress", setup: func(t *testing.T, dir, _ string) Request {
			divergeNotes(t, dir)
			_, err := gitRun(dir, "rebase", "-q", "other")
			require.Error(t, err, "the rebase stops on notes.txt")
			return Request{}
		}, want: "a git rebase is in progress; finish it (git status says how) and run `itr sync` again"},
		{name: "a cherry-pick in progress", setup: func(t *testing.T, dir, _ string) Request {
			divergeNotes(t, dir)
			_, err := gitRun(dir, "cherry-pick", "other")
			require.Error(t, err, "the cherry-pick stops on notes.txt")
			return Request{}
		}, want: "a git cherry-pick is in progress"},
		{name: "a revert in progress", setup: func(t *testing.T, dir, _ string) Request {
			writeCommit(t, dir, "notes.txt", "one\n")
			writeCommit(t, dir, "notes.txt", "two\n")
			writeCommit(t, dir, "notes.txt", "three\n")
			_, err := gitRun(dir, "revert", "--no-edit", "HEAD~1")
			require.Error(t, err, "the revert stops on notes.txt")
			return Request{}
		}, want: "a git revert is in progress"},
		{name: "push.default=nothing", setup: func(t *testing.T, dir, _ string) Request {
			git(t, dir, "config", "push.default", "nothing")
			return Request{}
		}, want: "push.default is nothing: git push pushes no branch unless named; push main yourself, or set push.default"},
		{name: "an upstream of another name under push.default=simple", setup: func(t *testing.T, dir, _ string) Request {
			git(t, dir, "checkout", "-q", "-b", "feature", "--track", "origin/main")
			return Request{}
		}, want: "the branch feature tracks main of origin, whose name differs, and git push refuses that under push.default=simple; set push.default=upstream to push there, or give the branch the same name"},
	}
	engines(t, func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				clk := &clock{now: t0}
				dir := seed(t, clk)
				remote := ""
				if !c.noRemote {
					remote = remoteOf(t, dir)
				}
				req := c.setup(t, dir, remote)
				refused(t, dir, remote, clk, req, c.want)
			})
		}
	})
}

// A branch without a commit (a clone of a remote whose HEAD names a branch
// it lacks) has nothing to sync: the refusal says how to go on.
func TestSyncRefusesAnUnbornBranch(t *testing.T) {
	engines(t, func(t *testing.T) {
		remote := newBare(t)
		first := cloneOf(t, remote)
		git(t, first, "commit", "-q", "--allow-empty", "-m", "initial commit")
		git(t, first, "push", "-q", "origin", "HEAD:refs/heads/trunk")
		dir := cloneOf(t, remote)
		_, err := gitRun(dir, "rev-parse", "-q", "--verify", "HEAD")
		require.Error(t, err, "the clone has no commit")
		refused(t, dir, remote, &clock{now: t0}, Request{},
			"branch main has no commits yet, so there is nothing to sync: check out the remote's branch (`git ls-remote --heads` lists them; `git switch -c NAME --track REMOTE/NAME`), or make a first commit")
	})
}

// A task root behind a symbolic link is refused, as every write of itr
// refuses it.
func TestSyncRefusesALinkedRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	engines(t, func(t *testing.T) {
		dir := newRepo(t)
		remote := remoteOf(t, dir)
		elsewhere := t.TempDir()
		require.NoError(t, os.Symlink(elsewhere, filepath.Join(dir, ".claude")))
		refused(t, dir, remote, &clock{now: t0}, Request{}, ".claude is a symbolic link (to "+elsewhere+")")
	})
}

// refused runs a sync in dir that must be refused with an error holding
// want, and requires the clone and its remote (when there is one) to be
// as they were.
func refused(t *testing.T, dir, remote string, clk *clock, req Request, want string) {
	t.Helper()
	before := snap(t, dir)
	remoteBefore := ""
	if remote != "" {
		remoteBefore = bareGit(t, remote, "for-each-ref", "--format=%(refname) %(objectname)")
	}
	rep, err := runSync(t, dir, "alice", clk, req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), want)
	assert.Nil(t, rep)
	var stopped *Stopped
	assert.False(t, errors.As(err, &stopped), "a refusal is not a stop")
	assert.Equal(t, before, snap(t, dir), "the refusal changes nothing in the clone")
	if remote != "" {
		assert.Equal(t, remoteBefore, bareGit(t, remote, "for-each-ref", "--format=%(refname) %(objectname)"), "nor on the remote")
	}
}

// divergeNotes makes the branch other and the current branch change
// notes.txt each its own way, so that bringing one into the other stops
// on it.
func divergeNotes(t *testing.T, dir string) {
	t.Helper()
	writeCommit(t, dir, "notes.txt", "notes\n")
	git(t, dir, "branch", "other")
	writeCommit(t, dir, "notes.txt", "notes\nours\n")
	git(t, dir, "checkout", "-q", "other")
	writeCommit(t, dir, "notes.txt", "notes\ntheirs\n")
	git(t, dir, "checkout", "-q", "main")
}

// writeCommit writes a file of the working tree and commits it with git.
func writeCommit(t *testing.T, dir, rel, data string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(data), 0o644))
	git(t, dir, "add", rel)
	git(t, dir, "commit", "-q", "-m", "edit "+rel)
}

// On the fake repository, which has no network, the refusals that need
// none come first and write nothing: an operation in progress, a linked
// root; past them, the want of a network is the error.
func TestSyncRefusalsOnTheFake(t *testing.T) {
	writes := []string{"CommitFiles", "Stage", "SetBranch", "CreateTag", "WriteBlob", "UpdateRef", "SetConfigSection"}
	cases := []struct {
		name    string
		setup   func(t *testing.T, f *gitfake.Repo)
		want    string
		wantErr error
	}{
		{name: "merge", setup: func(_ *testing.T, f *gitfake.Repo) { f.SetOperation("merge", "abc") }, want: "a git merge is in progress"},
		{name: "rebase", setup: func(_ *testing.T, f *gitfake.Repo) { f.SetOperation("rebase") }, want: "a git rebase is in progress"},
		{name: "cherry-pick", setup: func(_ *testing.T, f *gitfake.Repo) { f.SetOperation("cherry-pick") }, want: "a git cherry-pick is in progress"},
		{name: "revert", setup: func(_ *testing.T, f *gitfake.Repo) { f.SetOperation("revert") }, want: "a git revert is in progress"},
		{name: "linked root", setup: func(t *testing.T, f *gitfake.Repo) {
			if runtime.GOOS == "windows" {
				t.Skip("symbolic links need privileges on Windows")
			}
			require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(f.Root(), ".claude")))
		}, want: ".claude is a symbolic link"},
		{name: "no network", setup: func(*testing.T, *gitfake.Repo) {}, want: "no network for this repository", wantErr: gitstate.ErrNoNetwork},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := gitfake.New(filepath.Join(t.TempDir(), "repo"))
			c.setup(t, fake)
			st, err := store.New(fake, store.DefaultRoot, store.Config{}, "", (&clock{now: t0}).Now)
			require.NoError(t, err)
			rep, err := Sync(st, Request{})
			require.Error(t, err)
			assert.Nil(t, rep)
			assert.Contains(t, err.Error(), c.want)
			if c.wantErr != nil {
				assert.ErrorIs(t, err, c.wantErr)
			}
			for _, m := range writes {
				assert.Zero(t, fake.Calls(m), "%s: a refusal writes nothing", m)
			}
			assert.Zero(t, fake.Calls("Head"), "refused before HEAD is read")
		})
	}
}
