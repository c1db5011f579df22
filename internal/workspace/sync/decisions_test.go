package syncer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// syncTargetOf chooses the remotes and branches from the upstream git's
// configuration gives and the remote the request names, and refuses what
// git would refuse or what cannot be synced, naming the fix.
func TestSyncTargetOf(t *testing.T) {
	tracking := gitstate.Upstream{Branch: "main", Remote: "origin", MergeRef: "refs/heads/main", PushRemote: "origin", Remotes: []string{"fork", "origin"}}
	with := func(change func(u *gitstate.Upstream)) gitstate.Upstream {
		u := tracking
		u.Remotes = append([]string(nil), tracking.Remotes...)
		change(&u)
		return u
	}
	cases := []struct {
		name    string
		req     Request
		up      gitstate.Upstream
		want    syncTarget
		refused string
	}{
		{name: "the upstream", up: tracking,
			want: syncTarget{fetchFrom: "origin", pushTo: "origin", mergeRef: "refs/heads/main", pushRef: "refs/heads/main", short: "main", tracking: "refs/remotes/origin/main"}},
		{name: "the upstream's remote named", req: Request{Remote: "origin"}, up: tracking,
			want: syncTarget{fetchFrom: "origin", pushTo: "origin", mergeRef: "refs/heads/main", pushRef: "refs/heads/main", short: "main", tracking: "refs/remotes/origin/main"}},
		{name: "another remote named: its branch of the same name, both ways", req: Request{Remote: "fork"},
			up:   with(func(u *gitstate.Upstream) { u.Branch, u.MergeRef = "feature", "refs/heads/trunk" }),
			want: syncTarget{fetchFrom: "fork", pushTo: "fork", mergeRef: "refs/heads/feature", pushRef: "refs/heads/feature", short: "feature", tracking: "refs/remotes/fork/feature"}},
		{name: "the upstream's remote named, push.default aside", req: Request{Remote: "origin"},
			up: with(func(u *gitstate.Upstream) {
				u.Branch, u.MergeRef, u.PushDefault = "feature", "refs/heads/trunk", "nothing"
			}),
			want: syncTarget{fetchFrom: "origin", pushTo: "origin", mergeRef: "refs/heads/trunk", pushRef: "refs/heads/feature", short: "trunk", tracking: "refs/remotes/origin/trunk"}},
		{name: "no tracking: the branch of the same name on the default remote",
			up:   with(func(u *gitstate.Upstream) { u.MergeRef = "" }),
			want: syncTarget{fetchFrom: "origin", pushTo: "origin", mergeRef: "refs/heads/main", pushRef: "refs/heads/main", short: "main", tracking: "refs/remotes/origin/main"}},
		{name: "a push remote of its own",
			up:   with(func(u *gitstate.Upstream) { u.PushRemote = "fork" }),
			want: syncTarget{fetchFrom: "origin", pushTo: "fork", mergeRef: "refs/heads/main", pushRef: "refs/heads/main", short: "main", tracking: "refs/remotes/origin/main"}},
		{name: "push.default=upstream pushes to the upstream's name",
			up: with(func(u *gitstate.Upstream) {
				u.Branch, u.MergeRef, u.PushDefault = "feature", "refs/heads/trunk", "upstream"
			}),
			want: syncTarget{fetchFrom: "origin", pushTo: "origin", mergeRef: "refs/heads/trunk", pushRef: "refs/heads/trunk", short: "trunk", tracking: "refs/remotes/origin/trunk"}},
		{name: "push.default=current pushes to the branch's own name",
			up: with(func(u *gitstate.Upstream) {
				u.Branch, u.MergeRef, u.PushDefault = "feature", "refs/heads/trunk", "current"
			}),
			want: syncTarget{fetchFrom: "origin", pushTo: "origin", mergeRef: "refs/heads/trunk", pushRef: "refs/heads/feature", short: "trunk", tracking: "refs/remotes/origin/trunk"}},
		{name: "a branch name with slashes", up: with(func(u *gitstate.Upstream) { u.Branch, u.MergeRef = "team/x", "refs/heads/team/x" }),
			want: syncTarget{fetchFrom: "origin", pushTo: "origin", mergeRef: "refs/heads/team/x", pushRef: "refs/heads/team/x", short: "team/x", tracking: "refs/remotes/origin/team/x"}},

		{name: "a remote that is not one", req: Request{Remote: "upstream"}, up: tracking,
			refused: "\"upstream\" is not a remote of this repository (remotes: fork, origin); add it with `git remote add upstream URL`"},
		{name: "a remote named where there are none", req: Request{Remote: "origin"}, up: gitstate.Upstream{Branch: "main"},
			refused: "\"origin\" is not a remote of this repository (remotes: none); add it with `git remote add origin URL`"},
		{name: "no remote at all", up: gitstate.Upstream{Branch: "main"},
			refused: "this repository has no remote to sync with; add one with `git remote add origin URL`"},
		{name: "several remotes, none chosen", up: gitstate.Upstream{Branch: "main", Remotes: []string{"a", "b"}},
			refused: "this repository has no remote to sync with"},
		{name: "push.default=nothing", up: with(func(u *gitstate.Upstream) { u.PushDefault = "nothing" }),
			refused: "push.default is nothing: git push pushes no branch unless named"},
		{name: "simple, and an upstream of another name",
			up:      with(func(u *gitstate.Upstream) { u.Branch, u.MergeRef = "feature", "refs/heads/trunk" }),
			refused: "the branch feature tracks trunk of origin, whose name differs, and git push refuses that under push.default=simple"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := syncTargetOf(c.req, c.up)
			if c.refused != "" {
				require.Error(t, err)
				assert.Nil(t, got)
				assert.Contains(t, err.Error(), c.refused)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, *got)
		})
	}
}

// splitConflicts gives itr the logs and the state of tasks under the task
// root, each task once in the order met, and leaves every other path,
// plans included, to the person.
func TestSplitConflicts(t *testing.T) {
	const root = ".claude/iterative"
	cases := []struct {
		name          string
		root          string
		paths         []string
		slugs, others []string
	}{
		{name: "none"},
		{name: "itr's files of two tasks",
			paths: []string{root + "/demo/progress.md", root + "/demo/state.json", root + "/auth/guardrails.md", root + "/demo/decisions.md"},
			slugs: []string{"demo", "auth"}},
		{name: "plans are the person's",
			paths:  []string{root + "/demo/tasks.md", root + "/demo/plan.md"},
			others: []string{root + "/demo/tasks.md", root + "/demo/plan.md"}},
		{name: "mixed",
			paths: []string{"notes.txt", root + "/demo/progress.md", "src/main.go"},
			slugs: []string{"demo"}, others: []string{"notes.txt", "src/main.go"}},
		{name: "the root's own files",
			paths:  []string{root + "/.gitattributes", root + "/INDEX.md"},
			others: []string{root + "/.gitattributes", root + "/INDEX.md"}},
		{name: "a log's name deeper in the task",
			paths:  []string{root + "/demo/outputs/progress.md", root + "/demo/sources/state.json"},
			others: []string{root + "/demo/outputs/progress.md", root + "/demo/sources/state.json"}},
		{name: "a folder that only starts like the root",
			paths:  []string{root + "-old/demo/progress.md", "docs/" + root + "/demo/progress.md"},
			others: []string{root + "-old/demo/progress.md", "docs/" + root + "/demo/progress.md"}},
		{name: "no slug", paths: []string{root + "//progress.md"}, others: []string{root + "//progress.md"}},
		{name: "another root", root: "tasks",
			paths: []string{"tasks/demo/progress.md", root + "/demo/progress.md"},
			slugs: []string{"demo"}, others: []string{root + "/demo/progress.md"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.root
			if r == "" {
				r = root
			}
			slugs, others := splitConflicts(r, c.paths)
			assert.Equal(t, c.slugs, slugs, "itr's")
			assert.Equal(t, c.others, others, "the person's")
		})
	}
}

// The stop names the operation, the files (the first eight), how to go
// on and how to undo it.
func TestStoppedSaysHowToGoOn(t *testing.T) {
	many := make([]string, 10)
	for i := range many {
		many[i] = fmt.Sprintf("f%d.txt", i)
	}
	cases := []struct {
		stop Stopped
		want string
	}{
		{Stopped{Op: gitstate.Merged, Unmerged: []string{"notes.txt"}},
			"sync stopped: the merge has conflicts in notes.txt (itr's own files were resolved); resolve them, `git add` them and `git commit`, then run `itr sync` again, or undo it with `git merge --abort`"},
		{Stopped{Op: gitstate.Rebased, Unmerged: []string{"a.go", "b.go"}},
			"sync stopped: the rebase has conflicts in a.go, b.go (itr's own files were resolved); resolve them, `git add` them and `git rebase --continue`, then run `itr sync` again, or undo it with `git rebase --abort`"},
		{Stopped{Op: gitstate.Merged, Unmerged: many},
			"conflicts in f0.txt, f1.txt, f2.txt, f3.txt, f4.txt, f5.txt, f6.txt, f7.txt, and 2 more (itr's"},
	}
	for _, c := range cases {
		t.Run(string(c.stop.Op), func(t *testing.T) {
			assert.Contains(t, c.stop.Error(), c.want)
		})
	}
}

// The refspecs advice is for the branch's remote, else the one git would
// use, else origin: claims fetched forced (the remote's are the truth) and
// never pushed by plain git, archives both ways and never forced.
func TestRefspecsAdvice(t *testing.T) {
	wantFetch := []string{"+refs/itr/claims/*:refs/itr/claims/*", "refs/tags/itr/archive/*:refs/tags/itr/archive/*", "refs/heads/itr/archive/*:refs/heads/itr/archive/*"}
	wantPush := []string{"HEAD", "refs/tags/itr/archive/*:refs/tags/itr/archive/*", "refs/heads/itr/archive/*:refs/heads/itr/archive/*"}
	cases := []struct {
		name   string
		config [][]string
		remote string
	}{
		{name: "no remote yet", remote: "origin"},
		{name: "the only remote", config: [][]string{{"remote", "add", "fork", "../fork.git"}}, remote: "fork"},
		{name: "the branch's upstream among several", config: [][]string{
			{"remote", "add", "origin", "../origin.git"}, {"remote", "add", "upstream", "../upstream.git"},
			{"config", "branch.main.remote", "upstream"}, {"config", "branch.main.merge", "refs/heads/main"}}, remote: "upstream"},
		{name: "origin among several", config: [][]string{{"remote", "add", "a", "../a.git"}, {"remote", "add", "origin", "../o.git"}}, remote: "origin"},
		{name: "none to choose among several", config: [][]string{{"remote", "add", "a", "../a.git"}, {"remote", "add", "b", "../b.git"}}, remote: "origin"},
		{name: "remote.pushDefault", config: [][]string{{"remote", "add", "a", "../a.git"}, {"remote", "add", "b", "../b.git"}, {"config", "remote.pushDefault", "b"}}, remote: "b"},
	}
	engines(t, func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				dir := newRepo(t)
				for _, args := range c.config {
					git(t, dir, args...)
				}
				before := snap(t, dir)
				got := Refspecs(open(t, dir, "alice", &clock{now: t0}))
				assert.Equal(t, RefspecAdvice{Remote: c.remote, Fetch: wantFetch, Push: wantPush}, got)
				assert.Equal(t, before, snap(t, dir), "advice changes nothing")
			})
		}
	})
	t.Run("fake", func(t *testing.T) {
		fake := gitfake.New(filepath.Join(t.TempDir(), "repo"))
		st, err := store.New(fake, store.DefaultRoot, store.Config{}, "", (&clock{now: t0}).Now)
		require.NoError(t, err)
		assert.Equal(t, RefspecAdvice{Remote: "origin", Fetch: wantFetch, Push: wantPush}, Refspecs(st), "no network: origin")
	})
}

// With the advice in a clone's configuration, plain git fetch brings the
// remote's claims and archives, and plain git push takes the branch and
// the archives but never a claim.
func TestRefspecsAdviceWorksWithPlainGit(t *testing.T) {
	clk, remote, a, b := twoClones(t)
	for _, dir := range []string{a, b} {
		adv := Refspecs(open(t, dir, "alice", clk))
		require.Equal(t, "origin", adv.Remote)
		for _, spec := range adv.Fetch {
			git(t, dir, "config", "--add", "remote.origin.fetch", spec)
		}
		for _, spec := range adv.Push {
			git(t, dir, "config", "--add", "remote.origin.push", spec)
		}
	}
	// a: an archive, a claim of its own and a checkpoint, pushed by git.
	git(t, a, "tag", "-a", "-m", "archive", "itr/archive/demo/2026-01-14", "HEAD")
	git(t, a, "branch", "itr/archive/demo", "HEAD")
	claim := filepath.Join(t.TempDir(), "claim")
	require.NoError(t, os.WriteFile(claim, store.Claim{Unit: "T1", Agent: "alice"}.Encode(), 0o644))
	git(t, a, "update-ref", store.ClaimRef(slug, "T1"), testgit.Line(t, a, "hash-object", "-w", claim))
	checkpoint(t, a, "alice", clk, "T1", "a: the model")
	git(t, a, "push", "-q")
	assert.Equal(t, testgit.Line(t, a, "rev-parse", "HEAD"), remoteRef(t, remote, "refs/heads/main"), "HEAD pushed")
	assert.Equal(t, refs(t, a, store.ArchiveTagPrefix)+refs(t, a, store.ArchiveBranchPrefix),
		bareGit(t, remote, "for-each-ref", "--format=%(refname) %(objectname)", store.ArchiveTagPrefix)+
			bareGit(t, remote, "for-each-ref", "--format=%(refname) %(objectname)", store.ArchiveBranchPrefix), "archives pushed")
	assert.Empty(t, bareGit(t, remote, "for-each-ref", store.ClaimRefPrefix), "a claim is pushed by itr claim only")

	// The remote's claim, put there as itr claim would, reaches b by fetch.
	git(t, a, "push", "-q", "origin", store.ClaimRef(slug, "T1")+":"+store.ClaimRef(slug, "T1"))
	git(t, b, "fetch", "-q")
	for _, prefix := range []string{store.ClaimRefPrefix, store.ArchiveTagPrefix, store.ArchiveBranchPrefix} {
		have := refs(t, b, prefix)
		assert.NotEmpty(t, have, prefix)
		assert.Equal(t, refs(t, a, prefix), have, prefix)
	}
	assert.True(t, strings.HasPrefix(refs(t, b, store.ClaimRefPrefix), store.ClaimRef(slug, "T1")+" "))
}
