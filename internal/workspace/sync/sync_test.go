package syncer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/state"
)

// Two clones of a bare remote each record a checkpoint on another unit.
// The first sync pushes; the second brings the other clone's entry in (a
// merge, or a rebase with pull.rebase) with itr resolving its own files,
// and pushes; the first clone's next sync fast-forwards. Both clones end
// at the remote's commit with both entries, each once; the log only ever
// grew along every commit's first parent; git and itr verify find nothing.
// A second sync with nothing new then changes no ref anywhere. Both
// engines, both integrations.
func TestSyncBringsBothClonesEntries(t *testing.T) {
	engines(t, func(t *testing.T) {
		for _, mode := range []gitstate.Integration{gitstate.Merged, gitstate.Rebased} {
			t.Run(string(mode), func(t *testing.T) { bothClonesEntries(t, mode) })
		}
	})
}

func bothClonesEntries(t *testing.T, mode gitstate.Integration) {
	clk := &clock{now: t0}
	remote := remoteOf(t, seed(t, clk))
	a, b := cloneOf(t, remote), cloneOf(t, remote)
	if mode == gitstate.Rebased {
		git(t, a, "config", "pull.rebase", "true")
		git(t, b, "config", "pull.rebase", "true")
	}
	logFile := taskFile(store.ProgressFile)
	remoteMain := func() string { return remoteRef(t, remote, "refs/heads/main") }

	checkpoint(t, a, "alice", clk, "T1", "a: the model")
	clk.Set(t0.Add(5 * time.Minute))
	checkpoint(t, b, "bob", clk, "T2", "b: the docs")
	aBefore := git(t, a, "show", "HEAD:"+logFile)
	bBefore := git(t, b, "show", "HEAD:"+logFile)

	// a first: nothing new on the remote, its checkpoint pushed.
	clk.Set(t0.Add(10 * time.Minute))
	ra, err := runSync(t, a, "alice", clk, Request{})
	require.NoError(t, err)
	assert.Equal(t, string(gitstate.UpToDate), ra.Integration)
	assert.Equal(t, "origin", ra.Remote)
	assert.Equal(t, "main", ra.Branch)
	assert.Equal(t, "refs/heads/main", ra.Upstream)
	assert.Equal(t, 0, ra.Fetched)
	assert.Equal(t, 1, ra.Pushed)
	assert.Equal(t, 1, ra.Attempts)
	assert.Equal(t, "refs/heads/main", ra.PushedTo)
	assert.True(t, ra.Driver, "a clone does not copy itr's merge driver: sync registers it")
	assert.Equal(t, testgit.Line(t, a, "rev-parse", "HEAD"), remoteMain())

	// b: a's entry comes in, both go out.
	rb, err := runSync(t, b, "bob", clk, Request{})
	require.NoError(t, err)
	assert.Equal(t, string(mode), rb.Integration)
	assert.Equal(t, 1, rb.Fetched)
	assert.Positive(t, rb.Pushed)
	assert.Equal(t, testgit.Line(t, b, "rev-parse", "HEAD"), remoteMain())
	assert.Contains(t, testgit.Line(t, b, "config", "--get", "merge.itr.driver"), "merge-driver")

	// a again: a fast-forward to what b pushed.
	ra, err = runSync(t, a, "alice", clk, Request{})
	require.NoError(t, err)
	assert.Equal(t, string(gitstate.FastForward), ra.Integration)
	assert.Equal(t, 0, ra.Pushed)
	assert.False(t, ra.Driver, "registered by the first sync")
	assert.Equal(t, remoteMain(), testgit.Line(t, a, "rev-parse", "HEAD"))

	for name, dir := range map[string]string{"a": a, "b": b} {
		log := git(t, dir, "show", "HEAD:"+logFile)
		assert.Equal(t, 1, strings.Count(log, "a: the model"), "%s: a's entry, once", name)
		assert.Equal(t, 1, strings.Count(log, "b: the docs"), "%s: b's entry, once", name)
		s := stateAt(t, dir, "HEAD")
		for _, unit := range []string{"T1", "T2"} {
			assert.Equal(t, state.InProgress, s.Units[unit].Status, "%s: %s", name, unit)
			assert.Equal(t, 1, state.Val(s.Units[unit].IterationsUsed), "%s: %s", name, unit)
		}
		assert.Positive(t, appendOnly(t, dir, "HEAD", logFile), name)
		testgit.Check(t, dir)
		v, err := verify.Task(open(t, dir, "alice", clk), slug)
		require.NoError(t, err)
		assert.Empty(t, v.Findings, name)
	}
	testgit.FsckBare(t, remote)
	after := git(t, a, "show", "HEAD:"+logFile)
	if mode == gitstate.Merged {
		// b merged: its own log is the start of the merged one.
		assert.Len(t, strings.Fields(git(t, b, "rev-list", "--parents", "-n1", "HEAD")), 3, "a merge commit")
		assert.Equal(t, "Merge branch 'main' of origin (itr sync)", testgit.Line(t, b, "log", "-1", "--format=%s", "HEAD"))
		assert.True(t, strings.HasPrefix(after, bBefore), "b's log only grew")
	} else {
		// b rebased onto a: the history is a line, and a's log only grew.
		assert.Empty(t, git(t, b, "rev-list", "--merges", "HEAD"))
		assert.True(t, strings.HasPrefix(after, aBefore), "a's log only grew")
	}

	// Nothing new: a second sync in each clone changes no ref.
	refsEverywhere := func() [3]string {
		return [3]string{refs(t, a, ""), refs(t, b, ""),
			bareGit(t, remote, "for-each-ref", "--format=%(refname) %(objectname)")}
	}
	was := refsEverywhere()
	for _, dir := range []string{a, b} {
		r, err := runSync(t, dir, "alice", clk, Request{})
		require.NoError(t, err)
		assert.Equal(t, string(gitstate.UpToDate), r.Integration)
		assert.Equal(t, 0, r.Fetched)
		assert.Equal(t, 0, r.Pushed)
		assert.Empty(t, r.Reconciled)
		assert.Empty(t, r.Warnings)
		assert.False(t, r.Driver)
		testgit.Check(t, dir)
	}
	assert.Equal(t, was, refsEverywhere())
	assert.Equal(t, after, git(t, b, "show", "HEAD:"+logFile))
}

// A sync that meets a conflict in a file other than itr's stops with the
// merge (or the rebase) in progress, names only that file and the fix,
// and pushes nothing; another sync is refused while the operation is
// open. The person resolves the file, lets reconcile resolve itr's own
// files inside the merge (whether or not git could run itr's merge
// driver), concludes it with git, and the next sync pushes it with every
// entry kept once.
func TestSyncStopsOnConflictOutsideItr(t *testing.T) {
	for _, mode := range []gitstate.Integration{gitstate.Merged, gitstate.Rebased} {
		t.Run(string(mode), func(t *testing.T) {
			isolate(t)
			stopsOnConflict(t, mode)
		})
	}
}

func stopsOnConflict(t *testing.T, mode gitstate.Integration) {
	clk := &clock{now: t0}
	origin := seed(t, clk)
	require.NoError(t, os.WriteFile(filepath.Join(origin, "notes.txt"), []byte("notes\n"), 0o644))
	git(t, origin, "add", "notes.txt")
	git(t, origin, "commit", "-q", "-m", "notes")
	remote := remoteOf(t, origin)
	a, b := cloneOf(t, remote), cloneOf(t, remote)
	if mode == gitstate.Rebased {
		git(t, b, "config", "pull.rebase", "true")
	}
	logFile := taskFile(store.ProgressFile)
	remoteMain := func() string { return remoteRef(t, remote, "refs/heads/main") }
	for _, side := range []struct{ dir, agent, unit string }{{a, "alice", "T1"}, {b, "bob", "T2"}} {
		checkpoint(t, side.dir, side.agent, clk, side.unit, side.agent+" worked")
		require.NoError(t, os.WriteFile(filepath.Join(side.dir, "notes.txt"), []byte("notes\nfrom "+side.agent+"\n"), 0o644))
		git(t, side.dir, "commit", "-q", "-am", side.agent+": notes")
	}
	_, err := runSync(t, a, "alice", clk, Request{})
	require.NoError(t, err)
	pushedByA := remoteMain()

	rep, err := runSync(t, b, "bob", clk, Request{})
	var stopped *Stopped
	require.True(t, errors.As(err, &stopped), "%v", err)
	require.NotNil(t, rep, "the report so far comes with the stop")
	assert.Equal(t, string(mode), rep.Integration)
	assert.Equal(t, mode, stopped.Op)
	assert.Equal(t, []string{"notes.txt"}, stopped.Unmerged)
	assert.Contains(t, err.Error(), "sync stopped: the "+string(mode)+" has conflicts in notes.txt (itr's own files were resolved)")
	if mode == gitstate.Merged {
		assert.Contains(t, err.Error(), "`git commit`, then run `itr sync` again, or undo it with `git merge --abort`")
		git(t, b, "rev-parse", "-q", "--verify", "MERGE_HEAD") // the merge is left in progress
	} else {
		assert.Contains(t, err.Error(), "`git rebase --continue`, then run `itr sync` again, or undo it with `git rebase --abort`")
		assert.DirExists(t, filepath.Join(b, ".git", "rebase-merge"), "the rebase is left in progress")
	}
	assert.Contains(t, git(t, b, "status", "--porcelain"), "UU notes.txt\n")
	assert.Equal(t, "notes.txt\n", git(t, b, "diff", "--name-only", "--diff-filter=U"),
		"itr's own files are resolved before the sync stops, as it says")
	assert.Equal(t, pushedByA, remoteMain(), "nothing pushed")

	before := snap(t, b)
	_, err = runSync(t, b, "bob", clk, Request{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a git "+string(mode)+" is in progress; finish it (git status says how) and run `itr sync` again")
	assert.Equal(t, before, snap(t, b), "the refusal changes nothing")
	assert.Equal(t, pushedByA, remoteMain())

	require.NoError(t, os.WriteFile(filepath.Join(b, "notes.txt"), []byte("notes\nfrom alice\nfrom bob\n"), 0o644))
	git(t, b, "add", "notes.txt")
	rec, err := record.Reconcile(open(t, b, "bob", clk), record.ReconcileOptions{Slug: slug})
	require.NoError(t, err)
	assert.Equal(t, string(mode), rec.Operation)
	assert.Empty(t, rec.Unresolved)
	assert.Empty(t, git(t, b, "diff", "--name-only", "--diff-filter=U"), "nothing left unmerged")
	if mode == gitstate.Merged {
		git(t, b, "commit", "-q", "--no-edit")
	} else {
		cmd := []string{"-c", "core.editor=true", "rebase", "--continue"}
		git(t, b, cmd...)
	}

	r, err := runSync(t, b, "bob", clk, Request{})
	require.NoError(t, err)
	assert.Positive(t, r.Pushed)
	assert.Equal(t, testgit.Line(t, b, "rev-parse", "HEAD"), remoteMain())
	log := git(t, b, "show", "HEAD:"+logFile)
	assert.Equal(t, 1, strings.Count(log, "alice worked"))
	assert.Equal(t, 1, strings.Count(log, "bob worked"))
	assert.Positive(t, appendOnly(t, b, "HEAD", logFile))
	testgit.FsckBare(t, remote)
	assertVerified(t, b, "bob", clk)
}

// A commit made without itr that leaves state.json disagreeing with the
// log reaches the other clone by a fast-forward; that clone's sync
// rebuilds the state from the log (trust git over state) in a commit of
// its own, reports it, and pushes it.
func TestSyncReconcilesWhatTheIntegrationBrought(t *testing.T) {
	clk, remote, a, b := twoClones(t)
	checkpoint(t, a, "alice", clk, "T1", "a: the model")
	s := stateAt(t, a, "HEAD")
	s.Units["T1"].Status = state.Done
	require.NoError(t, os.WriteFile(filepath.Join(a, filepath.FromSlash(taskFile(store.StateFile))), s.Encode(), 0o644))
	git(t, a, "commit", "-q", "-am", "mark T1 done by hand")
	git(t, a, "push", "-q", "origin", "main")
	handMade := testgit.Line(t, a, "rev-parse", "HEAD")

	rep, err := runSync(t, b, "bob", clk, Request{})
	require.NoError(t, err)
	assert.Equal(t, string(gitstate.FastForward), rep.Integration)
	assert.Equal(t, 2, rep.Fetched)
	require.Contains(t, rep.Reconciled, slug)
	fixed := rep.Reconciled[slug]
	assert.Equal(t, testgit.Line(t, b, "rev-parse", "HEAD"), fixed)
	assert.Equal(t, handMade, testgit.Line(t, b, "rev-parse", "HEAD~1"), "the rebuild is a commit on top of what came in")
	assert.Equal(t, state.InProgress, stateAt(t, b, "HEAD").Units["T1"].Status, "the state the log gives")
	assert.Equal(t, 1, rep.Pushed)
	assert.Equal(t, fixed, remoteRef(t, remote, "refs/heads/main"))
	assertVerified(t, b, "bob", clk)
}

// When the remote's branch moves between a sync's fetch and its push (a
// pre-push hook pushes another clone's work first), the push is rejected
// and the sync goes round again: fetch, integrate, push, never forcing.
// A branch that keeps moving stops the sync after five rounds, saying so,
// with nothing forced.
func TestSyncGoesRoundWhenTheRemoteMoves(t *testing.T) {
	clk, remote, a, b := twoClones(t)
	git(t, b, "config", "pull.rebase", "true")
	checkpoint(t, a, "alice", clk, "T1", "a: first")
	checkpoint(t, b, "bob", clk, "T2", "b: first")
	fired := filepath.Join(t.TempDir(), "fired")
	hook := "#!/bin/sh\nif [ ! -e '" + fired + "' ]; then\n  touch '" + fired + "'\n  git -C '" + a + "' push -q origin main || exit 1\nfi\nexit 0\n"
	writeHook(t, b, "pre-push", hook)

	rep, err := runSync(t, b, "bob", clk, Request{})
	require.NoError(t, err)
	assert.FileExists(t, fired)
	assert.Equal(t, 2, rep.Attempts)
	assert.Equal(t, string(gitstate.Rebased), rep.Integration)
	assert.Equal(t, 1, rep.Pushed)
	assert.Equal(t, testgit.Line(t, b, "rev-parse", "HEAD"), remoteRef(t, remote, "refs/heads/main"))
	assert.Empty(t, git(t, b, "rev-list", "--merges", "HEAD"))
	log := git(t, b, "show", "HEAD:"+taskFile(store.ProgressFile))
	assert.Equal(t, 1, strings.Count(log, "a: first"))
	assert.Equal(t, 1, strings.Count(log, "b: first"))
	testgit.Check(t, b)

	// Every push now finds the remote moved by another commit of a.
	checkpoint(t, b, "bob", clk, "T2", "b: second")
	writeHook(t, b, "pre-push", "#!/bin/sh\ngit -C '"+a+"' fetch -q origin && git -C '"+a+"' merge -q --ff-only origin/main && "+
		"git -C '"+a+"' commit -q --allow-empty -m moved && git -C '"+a+"' push -q origin main\n")
	_, err = runSync(t, b, "bob", clk, Request{})
	require.Error(t, err)
	assert.ErrorIs(t, err, gitstate.ErrPushRejected)
	assert.Contains(t, err.Error(), "the remote's branch kept moving over 5 rounds, run `itr sync` again")
	assert.Equal(t, testgit.Line(t, a, "rev-parse", "HEAD"), remoteRef(t, remote, "refs/heads/main"), "the remote holds a's last push, nothing forced")
	assert.Equal(t, "5", testgit.Line(t, a, "rev-list", "--count", "--grep=^moved$", "HEAD"), "the remote moved once a round")
	testgit.Check(t, b)
	testgit.FsckBare(t, remote)
}

// writeHook installs an executable git hook in the repository dir.
func writeHook(t *testing.T, dir, name, script string) {
	t.Helper()
	hooks := filepath.Join(dir, ".git", "hooks")
	require.NoError(t, os.MkdirAll(hooks, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(hooks, name), []byte(script), 0o755))
}

// A sync with a remote other than the upstream, which lacks the branch,
// pushes it there (creating it) and leaves the upstream alone.
func TestSyncWithAnotherRemoteCreatesTheBranch(t *testing.T) {
	clk, remote := seeded(t)
	a := cloneOf(t, remote)
	fork := forkOf(t, a)
	checkpoint(t, a, "alice", clk, "T1", "a: the model")
	originRefs := bareGit(t, remote, "for-each-ref")

	rep, err := runSync(t, a, "alice", clk, Request{Remote: "fork"})
	require.NoError(t, err)
	assert.Equal(t, "fork", rep.Remote)
	assert.Equal(t, "refs/heads/main", rep.Upstream)
	assert.Equal(t, "refs/heads/main", rep.PushedTo)
	assert.Equal(t, string(gitstate.UpToDate), rep.Integration, "nothing to bring in from a remote without the branch")
	assert.Equal(t, testgit.Line(t, a, "rev-parse", "HEAD"), remoteRef(t, fork, "refs/heads/main"))
	assert.Equal(t, originRefs, bareGit(t, remote, "for-each-ref"), "the upstream is left alone")
	assert.Equal(t, "refs/remotes/origin/main", testgit.Line(t, a, "rev-parse", "--symbolic-full-name", "main@{upstream}"))
	testgit.Check(t, a)
	testgit.FsckBare(t, fork)

	// Again: now the fork has the branch, and nothing is new.
	rep, err = runSync(t, a, "alice", clk, Request{Remote: "fork"})
	require.NoError(t, err)
	assert.Equal(t, string(gitstate.UpToDate), rep.Integration)
	assert.Equal(t, 0, rep.Pushed)
}

// A branch that fetches from origin and pushes to a fork (pushRemote)
// names both in the report and pushes to the fork only.
func TestSyncPushesToThePushRemote(t *testing.T) {
	clk, remote := seeded(t)
	a := cloneOf(t, remote)
	fork := forkOf(t, a)
	git(t, a, "config", "branch.main.pushRemote", "fork")
	checkpoint(t, a, "alice", clk, "T1", "a: the model")
	originMain := remoteRef(t, remote, "refs/heads/main")

	rep, err := runSync(t, a, "alice", clk, Request{})
	require.NoError(t, err)
	assert.Equal(t, "origin (push: fork)", rep.Remote)
	assert.Equal(t, 1+2+1, rep.Pushed, "what no ref of the fork had: the seed's three commits and the checkpoint")
	assert.Equal(t, testgit.Line(t, a, "rev-parse", "HEAD"), remoteRef(t, fork, "refs/heads/main"))
	assert.Equal(t, originMain, remoteRef(t, remote, "refs/heads/main"), "nothing pushed to origin")
	testgit.Check(t, a)
}

// A .gitattributes that lacks some of itr's merge lines (a task made by
// an older itr) does not stop the sync: it warns, naming the fix.
func TestSyncWarnsOfMissingMergeLines(t *testing.T) {
	isolate(t)
	clk := &clock{now: t0}
	origin := seed(t, clk)
	attrs := store.DefaultRoot + "/.gitattributes"
	data := git(t, origin, "show", "HEAD:"+attrs)
	require.Contains(t, data, "*/progress.md merge=itr\n")
	require.NoError(t, os.WriteFile(filepath.Join(origin, filepath.FromSlash(attrs)), []byte(strings.Replace(data, "*/progress.md merge=itr\n", "", 1)), 0o644))
	git(t, origin, "commit", "-q", "-am", "older attributes")
	remote := remoteOf(t, origin)
	a := cloneOf(t, remote)

	rep, err := runSync(t, a, "alice", clk, Request{})
	require.NoError(t, err)
	require.Len(t, rep.Warnings, 1)
	assert.Contains(t, rep.Warnings[0], store.DefaultRoot+"/.gitattributes lacks some of itr's merge lines")
	assert.Contains(t, rep.Warnings[0], "run `itr setup` and commit it")
	testgit.Check(t, a)
}

// Claims come with sync: the remote's claim refs are fetched (and counted
// in the report), and one the remote dropped is pruned here.
func TestSyncFetchesAndPrunesClaims(t *testing.T) {
	clk, _, a, b := twoClones(t)
	claim := store.Claim{Unit: "T1", Agent: "alice", Since: "2026-01-14T09:00:00Z", Until: "2026-01-14T11:00:00Z", For: "2h0m0s"}
	blob := filepath.Join(t.TempDir(), "claim.json")
	require.NoError(t, os.WriteFile(blob, claim.Encode(), 0o644))
	id := testgit.Line(t, a, "hash-object", "-w", blob)
	ref := store.ClaimRef(slug, "T1")
	git(t, a, "update-ref", ref, id)
	git(t, a, "push", "-q", "origin", ref+":"+ref)

	rep, err := runSync(t, b, "bob", clk, Request{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Claims)
	assert.Equal(t, ref+" "+id+"\n", refs(t, b, store.ClaimRefPrefix))

	git(t, a, "push", "-q", "origin", ":"+ref)
	rep, err = runSync(t, b, "bob", clk, Request{})
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Claims)
	assert.Empty(t, refs(t, b, store.ClaimRefPrefix), "pruned to what the remote holds")
	testgit.Check(t, b)
}

// assertVerified checks dir with git itself (fsck --strict, a clean
// status) and its task with verify, as agent: no findings.
func assertVerified(t *testing.T, dir, agent string, clk *clock) {
	t.Helper()
	testgit.Check(t, dir)
	v, err := verify.Task(open(t, dir, agent, clk), slug)
	require.NoError(t, err)
	assert.Empty(t, v.Findings)
}
