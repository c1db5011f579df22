package workspace

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
)

// The claims room (package claims) is tested on its own; here are the use
// cases that compose it with the others: a checkpoint renews or is refused
// by a claim, a steal is logged as a note commit, and StartClaimed starts
// and claims in one.

// The holder's checkpoint renews its lease by the lease's length; another
// agent's checkpoint of the unit is refused while the lease runs.
func TestClaimCheckpointRenewsAndRefuses(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	ref := store.ClaimRef(ucSlug, "T1")
	_, err := ucOpen(t, dir, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)

	clock.Set(ucT0.Add(30 * time.Minute))
	head := ucGitLine(t, dir, "rev-parse", "HEAD")
	_, err = ucOpen(t, dir, "bob", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "not mine"})
	require.Error(t, err)
	assert.True(t, IsHeld(err), "%v", err)
	assert.Contains(t, err.Error(), "T1 is held by alice until "+ucStamp(ucT0.Add(time.Hour)))
	assert.Equal(t, head, ucGitLine(t, dir, "rev-parse", "HEAD"), "the refusal recorded nothing")

	out, err := ucOpen(t, dir, "alice", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "the model"})
	require.NoError(t, err)
	assert.Equal(t, out.Commit, ucGitLine(t, dir, "rev-parse", "HEAD"))
	c := ucClaimBlob(t, dir, ref)
	assert.Equal(t, "alice", c.Agent)
	assert.Equal(t, ucStamp(ucT0), c.Since)
	assert.Equal(t, ucStamp(ucT0.Add(90*time.Minute)), c.Until, "the checkpoint renewed the lease")
	ucCheckGit(t, dir)
}

// A steal is logged as one note commit on top of HEAD, in the task's log;
// the former holder learns it at its next checkpoint.
func TestClaimStealLogsANote(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	_, err := ucOpen(t, dir, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	ended := ucStamp(ucT0.Add(time.Hour))

	clock.Set(ucT0.Add(2 * time.Hour))
	head := ucGitLine(t, dir, "rev-parse", "HEAD")
	logBefore := ucGit(t, dir, "show", "HEAD:"+ucTaskFile(store.ProgressFile))
	rep, err := ucOpen(t, dir, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", Steal: true})
	require.NoError(t, err)
	assert.Equal(t, "alice", rep.Stole)
	assert.Equal(t, "bob", ucClaimBlob(t, dir, store.ClaimRef(ucSlug, "T1")).Agent)

	require.NotEmpty(t, rep.Note)
	assert.Equal(t, rep.Note, ucGitLine(t, dir, "rev-parse", "HEAD"))
	assert.Equal(t, head, ucGitLine(t, dir, "rev-parse", "HEAD^"))
	logAfter := ucGit(t, dir, "show", "HEAD:"+ucTaskFile(store.ProgressFile))
	assert.True(t, strings.HasPrefix(logAfter, logBefore), "the note is appended")
	assert.Contains(t, logAfter[len(logBefore):], "bob took T1 from alice, whose lease ended "+ended)
	assert.Equal(t, ucSlug, ucGitLine(t, dir, "log", "-1", "--format=%(trailers:key=Itr-Task,valueonly)"))
	for _, f := range strings.Fields(ucGit(t, dir, "diff-tree", "--no-commit-id", "-r", "--name-only", "HEAD")) {
		assert.True(t, strings.HasPrefix(f, ucTaskDir()+"/"), "the note commit touches only the task: %s", f)
	}
	ucCheckGit(t, dir)

	clock.Set(ucT0.Add(2*time.Hour + 10*time.Minute))
	_, err = ucOpen(t, dir, "alice", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "too late"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 is held by bob")
	assert.Equal(t, rep.Note, ucGitLine(t, dir, "rev-parse", "HEAD"))
}

// StartClaimed hands each agent a unit that is its alone: the next one
// nobody holds, claimed for it; a unit named that another agent holds is
// refused.
func TestStartClaimed(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	head := ucGitLine(t, dir, "rev-parse", "HEAD")

	us, claim, claimErr, err := ucOpen(t, dir, "alice", clock).StartClaimed(ucSlug, "")
	require.NoError(t, err)
	require.NoError(t, claimErr)
	assert.Equal(t, "T1", us.ID)
	assert.Equal(t, "T1", claim.Claim.Unit)
	assert.Equal(t, "alice", ucClaimBlob(t, dir, store.ClaimRef(ucSlug, "T1")).Agent)
	assert.Equal(t, ucStamp(ucT0.Add(DefaultLease)), claim.Claim.Until)

	us, claim, claimErr, err = ucOpen(t, dir, "bob", clock).StartClaimed(ucSlug, "")
	require.NoError(t, err)
	require.NoError(t, claimErr)
	assert.Equal(t, "T2", us.ID, "T1 is alice's, T3 waits for T1")
	assert.Equal(t, "bob", ucClaimBlob(t, dir, store.ClaimRef(ucSlug, "T2")).Agent)
	assert.Equal(t, "T2", claim.Claim.Unit)

	refs := ucRefs(t, dir, "refs/")
	us, claim, claimErr, err = ucOpen(t, dir, "carol", clock).StartClaimed(ucSlug, "T1")
	require.Error(t, err)
	assert.True(t, IsHeld(err), "%v", err)
	assert.Contains(t, err.Error(), "T1 is held by alice")
	assert.Nil(t, us)
	assert.Nil(t, claim)
	assert.NoError(t, claimErr)
	assert.Equal(t, refs, ucRefs(t, dir, "refs/"), "the refusal moved no ref")
	assert.Equal(t, head, ucGitLine(t, dir, "rev-parse", "HEAD"), "starting commits nothing")
	ucCheckGit(t, dir)
}
