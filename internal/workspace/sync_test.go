package workspace

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
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// Two clones of a bare remote each record a checkpoint on another unit.
// The first sync pushes; the second brings the other clone's entry in (a
// merge, or a rebase with pull.rebase) with itr resolving its own files,
// and pushes; the first clone's next sync fast-forwards. Both clones end
// at the remote's commit with both entries, each once; the log only ever
// grew along every commit's first parent; git and itr verify find nothing.
// A second sync with nothing new then changes no ref anywhere.
func TestSyncBringsBothClonesEntries(t *testing.T) {
	for _, mode := range []gitstate.Integration{gitstate.Merged, gitstate.Rebased} {
		t.Run(string(mode), func(t *testing.T) {
			clock := ucNewClock(ucT0)
			seed := ucRepo(t, clock, ucTasks)
			bare := ucBare(t, seed)
			a, b := ucClone(t, bare), ucClone(t, bare)
			if mode == gitstate.Rebased {
				ucGit(t, a, "config", "pull.rebase", "true")
				ucGit(t, b, "config", "pull.rebase", "true")
			}
			logFile := ucTaskFile(store.ProgressFile)
			remoteMain := func() string { return strings.TrimSpace(ucBareGit(t, bare, "rev-parse", "refs/heads/main")) }

			_, err := ucOpen(t, a, "alice", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "a: the model"})
			require.NoError(t, err)
			clock.Set(ucT0.Add(5 * time.Minute))
			_, err = ucOpen(t, b, "bob", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T2", Did: "b: the docs"})
			require.NoError(t, err)
			aBefore := ucGit(t, a, "show", "HEAD:"+logFile)
			bBefore := ucGit(t, b, "show", "HEAD:"+logFile)

			// a first: nothing new on the remote, its checkpoint pushed.
			clock.Set(ucT0.Add(10 * time.Minute))
			ra, err := ucOpen(t, a, "alice", clock).Sync(SyncRequest{})
			require.NoError(t, err)
			assert.Equal(t, string(gitstate.UpToDate), ra.Integration)
			assert.Equal(t, 0, ra.Fetched)
			assert.Equal(t, 1, ra.Pushed)
			assert.Equal(t, "refs/heads/main", ra.PushedTo)
			assert.Equal(t, ucGitLine(t, a, "rev-parse", "HEAD"), remoteMain())

			// b: a's entry comes in, both go out.
			rb, err := ucOpen(t, b, "bob", clock).Sync(SyncRequest{})
			require.NoError(t, err)
			assert.Equal(t, string(mode), rb.Integration)
			assert.Equal(t, 1, rb.Fetched)
			assert.Positive(t, rb.Pushed)
			assert.Equal(t, ucGitLine(t, b, "rev-parse", "HEAD"), remoteMain())

			// a again: a fast-forward to what b pushed.
			ra, err = ucOpen(t, a, "alice", clock).Sync(SyncRequest{})
			require.NoError(t, err)
			assert.Equal(t, string(gitstate.FastForward), ra.Integration)
			assert.Equal(t, 0, ra.Pushed)
			assert.Equal(t, remoteMain(), ucGitLine(t, a, "rev-parse", "HEAD"))

			for name, dir := range map[string]string{"a": a, "b": b} {
				log := ucGit(t, dir, "show", "HEAD:"+logFile)
				assert.Equal(t, 1, strings.Count(log, "a: the model"), "%s: a's entry, once", name)
				assert.Equal(t, 1, strings.Count(log, "b: the docs"), "%s: b's entry, once", name)
				s := ucStateAt(t, dir, "HEAD")
				for _, unit := range []string{"T1", "T2"} {
					assert.Equal(t, state.InProgress, s.Units[unit].Status, "%s: %s", name, unit)
					assert.Equal(t, 1, state.Val(s.Units[unit].IterationsUsed), "%s: %s", name, unit)
				}
				assert.Positive(t, ucAppendOnly(t, dir, "HEAD", logFile), name)
				ucCheckGit(t, dir)
				v, err := ucOpen(t, dir, "alice", clock).Verify(ucSlug)
				require.NoError(t, err)
				assert.Empty(t, v.Findings, name)
			}
			ucFsckBare(t, bare)
			after := ucGit(t, a, "show", "HEAD:"+logFile)
			if mode == gitstate.Merged {
				// b merged: its own log is the start of the merged one.
				assert.Len(t, strings.Fields(ucGit(t, b, "rev-list", "--parents", "-n1", "HEAD")), 3, "a merge commit")
				assert.True(t, strings.HasPrefix(after, bBefore), "b's log only grew")
			} else {
				// b rebased onto a: the history is a line, and a's log only grew.
				assert.Empty(t, ucGit(t, b, "rev-list", "--merges", "HEAD"))
				assert.True(t, strings.HasPrefix(after, aBefore), "a's log only grew")
			}

			// Nothing new: a second sync in each clone changes no ref.
			snapshot := func() [3]string {
				return [3]string{ucRefs(t, a, ""), ucRefs(t, b, ""),
					ucBareGit(t, bare, "for-each-ref", "--format=%(refname) %(objectname)")}
			}
			was := snapshot()
			for _, dir := range []string{a, b} {
				r, err := ucOpen(t, dir, "alice", clock).Sync(SyncRequest{})
				require.NoError(t, err)
				assert.Equal(t, string(gitstate.UpToDate), r.Integration)
				assert.Equal(t, 0, r.Fetched)
				assert.Equal(t, 0, r.Pushed)
				assert.Empty(t, r.Reconciled)
				assert.Empty(t, r.Warnings)
				ucCheckGit(t, dir)
			}
			assert.Equal(t, was, snapshot())
			assert.Equal(t, after, ucGit(t, b, "show", "HEAD:"+logFile))
		})
	}
}

// A sync that meets a conflict in a file other than itr's stops with the
// merge in progress, names only that file, and pushes nothing; another
// sync is refused while the merge is open. The person resolves the file,
// lets itr reconcile resolve itr's own files inside the merge (whether or
// not git could run itr's merge driver), concludes the merge with git,
// and the next sync pushes it with every entry kept once.
func TestSyncStopsOnConflictOutsideItr(t *testing.T) {
	clock := ucNewClock(ucT0)
	seed := ucRepo(t, clock, ucTasks)
	require.NoError(t, os.WriteFile(filepath.Join(seed, "notes.txt"), []byte("notes\n"), 0o644))
	ucGit(t, seed, "add", "notes.txt")
	ucGit(t, seed, "commit", "-q", "-m", "notes")
	bare := ucBare(t, seed)
	a, b := ucClone(t, bare), ucClone(t, bare)
	logFile := ucTaskFile(store.ProgressFile)
	remoteMain := func() string { return strings.TrimSpace(ucBareGit(t, bare, "rev-parse", "refs/heads/main")) }
	for _, side := range []struct{ dir, agent, unit string }{{a, "alice", "T1"}, {b, "bob", "T2"}} {
		_, err := ucOpen(t, side.dir, side.agent, clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: side.unit, Did: side.agent + " worked"})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(side.dir, "notes.txt"), []byte("notes\nfrom "+side.agent+"\n"), 0o644))
		ucGit(t, side.dir, "commit", "-q", "-am", side.agent+": notes")
	}
	_, err := ucOpen(t, a, "alice", clock).Sync(SyncRequest{})
	require.NoError(t, err)
	pushedByA := remoteMain()

	_, err = ucOpen(t, b, "bob", clock).Sync(SyncRequest{})
	var stopped *SyncStopped
	require.True(t, errors.As(err, &stopped), "%v", err)
	assert.Equal(t, gitstate.Merged, stopped.Op)
	assert.Equal(t, []string{"notes.txt"}, stopped.Unmerged)
	assert.Contains(t, err.Error(), "sync stopped: the merge has conflicts in notes.txt")
	ucGit(t, b, "rev-parse", "-q", "--verify", "MERGE_HEAD") // the merge is left in progress
	assert.Contains(t, ucGit(t, b, "status", "--porcelain"), "UU notes.txt\n")
	assert.Equal(t, "notes.txt\n", ucGit(t, b, "diff", "--name-only", "--diff-filter=U"),
		"itr's own files are resolved before the sync stops, as it says")
	assert.Equal(t, pushedByA, remoteMain(), "nothing pushed")

	_, err = ucOpen(t, b, "bob", clock).Sync(SyncRequest{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a git merge is in progress")
	assert.Equal(t, pushedByA, remoteMain())

	require.NoError(t, os.WriteFile(filepath.Join(b, "notes.txt"), []byte("notes\nfrom alice\nfrom bob\n"), 0o644))
	ucGit(t, b, "add", "notes.txt")
	rec, err := ucOpen(t, b, "bob", clock).Reconcile(ReconcileOptions{Slug: ucSlug})
	require.NoError(t, err)
	assert.Equal(t, "merge", rec.Operation)
	assert.Empty(t, rec.Unresolved)
	assert.Empty(t, ucGit(t, b, "diff", "--name-only", "--diff-filter=U"), "nothing left unmerged")
	ucGit(t, b, "commit", "-q", "--no-edit")

	r, err := ucOpen(t, b, "bob", clock).Sync(SyncRequest{})
	require.NoError(t, err)
	assert.Positive(t, r.Pushed)
	assert.Equal(t, ucGitLine(t, b, "rev-parse", "HEAD"), remoteMain())
	log := ucGit(t, b, "show", "HEAD:"+logFile)
	assert.Equal(t, 1, strings.Count(log, "alice worked"))
	assert.Equal(t, 1, strings.Count(log, "bob worked"))
	assert.Positive(t, ucAppendOnly(t, b, "HEAD", logFile))
	ucCheckGit(t, b)
	ucFsckBare(t, bare)
	v, err := ucOpen(t, b, "bob", clock).Verify(ucSlug)
	require.NoError(t, err)
	assert.Empty(t, v.Findings)
}

// Archive refs travel with sync: pushed by the clone that archived, fetched
// by the other, whose working tree loses the folder with the branch.
func TestSyncCarriesArchives(t *testing.T) {
	clock := ucNewClock(ucT0)
	seed := ucRepo(t, clock, ucTasks)
	bare := ucBare(t, seed)
	a, b := ucClone(t, bare), ucClone(t, bare)
	arch, err := ucOpen(t, a, "alice", clock).Archive(ArchiveRequest{Slug: ucSlug, Force: true, Reason: "done elsewhere"})
	require.NoError(t, err)

	ra, err := ucOpen(t, a, "alice", clock).Sync(SyncRequest{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"pushed " + arch.Branch, "pushed " + arch.Tag}, ra.Archives)
	archives := ucRefs(t, a, "refs/tags/itr/") + ucRefs(t, a, "refs/heads/itr/")
	require.Contains(t, archives, arch.Tag+" "+arch.TagObject)
	assert.Equal(t, archives,
		ucBareGit(t, bare, "for-each-ref", "--format=%(refname) %(objectname)", "refs/tags/itr/")+
			ucBareGit(t, bare, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/itr/"))

	rb, err := ucOpen(t, b, "bob", clock).Sync(SyncRequest{})
	require.NoError(t, err)
	assert.Equal(t, string(gitstate.FastForward), rb.Integration)
	assert.ElementsMatch(t, []string{"fetched " + arch.Branch, "fetched " + arch.Tag}, rb.Archives)
	assert.Equal(t, archives, ucRefs(t, b, "refs/tags/itr/")+ucRefs(t, b, "refs/heads/itr/"))
	assert.Equal(t, arch.Commit, ucGitLine(t, b, "rev-parse", "HEAD"))
	assert.Empty(t, ucLsTree(t, b, "HEAD", ucTaskDir()))
	_, err = os.Stat(filepath.Join(b, filepath.FromSlash(ucTaskDir())))
	assert.True(t, os.IsNotExist(err), "%v", err)
	for _, dir := range []string{a, b} {
		ucCheckGit(t, dir)
	}
	ucFsckBare(t, bare)
	v, err := ucOpen(t, b, "bob", clock).Verify("")
	require.NoError(t, err)
	assert.Empty(t, v.Findings)
}
