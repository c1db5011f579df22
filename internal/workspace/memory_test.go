package workspace

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
)

// longPlan is a plan whose one unit has no limit of iterations.
const longPlan = "# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: Iterate\n"

// newLongTask is newTask with longPlan.
func newLongTask(t *testing.T) *repo {
	t.Helper()
	r := newRepo(t)
	r.initPlan(longPlan)
	return r
}

// appendBulk appends iteration entries of T1 by hand (from iteration
// first on) until progress.md has grown by at least size bytes, and
// returns how many.
func (r *repo) appendBulk(first, size int) int {
	r.t.Helper()
	f, err := os.OpenFile(r.abs(demoDir+"/progress.md"), os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(r.t, err)
	defer f.Close()
	n, written := 0, 0
	for written < size {
		e := fmt.Sprintf("\n## T1 - Iteration %d - 2026-01-14T10:00:00Z\n**Did:** bulk %d %s\n**Remaining:** None\n**Blockers:** None\n**Commit:** None\n**Agent:** test\n",
			first+n, n, strings.Repeat("words of a long entry ", 40))
		_, err := f.WriteString(e)
		require.NoError(r.t, err)
		written += len(e)
		n++
	}
	return n
}

// A log past a megabyte takes the paths that keep memory within twice it
// (issue #33): the append written in the room its blob was read with, its
// loose object (or git's pack) compressed as written, the disk's log told
// unchanged by hashing it in chunks, an older version that is a prefix of
// HEAD's taken from HEAD's bytes by verify. What the commands say and
// write is what they say and write on a short log.
func TestLargeLogKeepsItsAnswers(t *testing.T) {
	engines(t, func(t *testing.T, engine gitstate.Engine) {
		r := newLongTask(t)
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "the first"})
		n := r.appendBulk(2, 3<<20/2)
		r.git("commit", "-q", "-am", "a long log written by hand")

		rep, err := r.open().Reconcile(ReconcileOptions{Slug: demo})
		require.NoError(t, err)
		require.NotEmpty(t, rep.Commit, "reconcile folds the entries into state.json and commits")
		r.checkGit()

		before := r.read(demoDir + "/progress.md")
		out := r.checkpoint(CheckpointRequest{Unit: "T1", Did: "after the long log"})
		require.Equal(t, n+2, *out.After.Units["T1"].IterationsUsed, "the checkpoint counts every entry")
		after := r.read(demoDir + "/progress.md")
		require.True(t, strings.HasPrefix(after, before), "the log only grew")
		require.Contains(t, after[len(before):], "after the long log")
		require.Equal(t, after, r.show("HEAD", demoDir+"/progress.md"), "the commit holds the log on disk")
		r.checkGit()

		t.Setenv("ITR_VERIFY_NO_CACHE", "1")
		vr, err := r.open().Verify(demo)
		require.NoError(t, err)
		require.Empty(t, vr.Findings, "the whole history verifies")
		check, err := r.open().Reconcile(ReconcileOptions{Slug: demo, Check: true})
		require.NoError(t, err)
		require.Empty(t, check.Discrepancies)

		// A hand edit of an early entry, committed with plain git: the
		// older version is no longer a prefix of HEAD's, and verify says so.
		edited := strings.Replace(after, "bulk 7 ", "bulk seven ", 1)
		r.write(demoDir+"/progress.md", edited)
		r.git("commit", "-q", "-am", "an entry rewritten")
		vr, err = r.open().Verify(demo)
		require.NoError(t, err)
		require.NotEmpty(t, vr.Findings, "the rewrite of the long log is found")
		require.Contains(t, vr.Findings[0].File, "progress.md")
	})
}

// An entry appended by hand to a long log is seen as unsaved (its disk
// file is read when its hash differs from the commit's), and reconcile
// adopts it.
func TestLargeLogAppendedByHand(t *testing.T) {
	isolate(t)
	r := newLongTask(t)
	r.checkpoint(CheckpointRequest{Unit: "T1", Did: "the first"})
	n := r.appendBulk(2, 3<<20/2)
	r.git("commit", "-q", "-am", "a long log written by hand")
	_, err := r.open().Reconcile(ReconcileOptions{Slug: demo})
	require.NoError(t, err)

	r.appendBulk(n+2, 1)
	_, err = r.open().Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "refused"})
	require.ErrorContains(t, err, "1 entry appended that no commit holds")
	rep, err := r.open().Reconcile(ReconcileOptions{Slug: demo})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Adopted)
	r.checkGit()
	out := r.checkpoint(CheckpointRequest{Unit: "T1", Did: "after"})
	require.Equal(t, n+3, *out.After.Units["T1"].IterationsUsed)
}
