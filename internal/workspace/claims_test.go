package workspace

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
)

// A claim is a ref per unit holding a blob with the claim; the holder's
// second claim renews it (same Since, a later Until), and so does each of
// its checkpoints. Claims are refs, never commits: HEAD does not move.
func TestClaimCreatesRefAndRenewsForItsHolder(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	head := ucGitLine(t, dir, "rev-parse", "HEAD")
	ref := store.ClaimRef(ucSlug, "T1")

	rep, err := ucOpen(t, dir, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.False(t, rep.Renewed)
	assert.Empty(t, rep.Stole)
	assert.Empty(t, rep.Remote, "no remote: the claim stays in this repository")
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", ucRefs(t, dir, store.ClaimRefPrefix), "one claim ref, for T1")
	c := ucClaimBlob(t, dir, ref)
	assert.Equal(t, store.Claim{Unit: "T1", Agent: "alice", Since: ucStamp(ucT0), Until: ucStamp(ucT0.Add(time.Hour)), For: "1h0m0s"}, c)
	assert.Equal(t, head, ucGitLine(t, dir, "rev-parse", "HEAD"), "a claim makes no commit")
	ucCheckGit(t, dir)

	// Renewed by its holder half-way: Since stays, Until moves on.
	clock.Set(ucT0.Add(30 * time.Minute))
	again, err := ucOpen(t, dir, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.True(t, again.Renewed)
	assert.NotEqual(t, rep.Claim.ID, again.Claim.ID)
	assert.Equal(t, ref+" "+again.Claim.ID+"\n", ucRefs(t, dir, store.ClaimRefPrefix))
	c = ucClaimBlob(t, dir, ref)
	assert.Equal(t, ucStamp(ucT0), c.Since)
	assert.Equal(t, ucStamp(ucT0.Add(90*time.Minute)), c.Until)

	// The holder's checkpoint renews the lease by its length.
	clock.Set(ucT0.Add(time.Hour))
	out, err := ucOpen(t, dir, "alice", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "the model"})
	require.NoError(t, err)
	assert.Equal(t, out.Commit, ucGitLine(t, dir, "rev-parse", "HEAD"))
	c = ucClaimBlob(t, dir, ref)
	assert.Equal(t, "alice", c.Agent)
	assert.Equal(t, ucStamp(ucT0.Add(2*time.Hour)), c.Until, "the checkpoint renewed the lease")

	// Without --for the lease is DefaultLease.
	bob, err := ucOpen(t, dir, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T2"})
	require.NoError(t, err)
	assert.Equal(t, ucStamp(ucT0.Add(time.Hour+DefaultLease)), ucClaimBlob(t, dir, store.ClaimRef(ucSlug, "T2")).Until)
	assert.Equal(t, DefaultLease.String(), bob.Claim.For)
	ucCheckGit(t, dir)
}

// While the lease runs, another agent is refused (told who holds the unit
// until when), even with Steal, and cannot record work on the unit or
// release it; a claim that names no unit takes the next one nobody holds.
func TestClaimRefusesAnotherAgentWhileLeaseRuns(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	_, err := ucOpen(t, dir, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	refs := ucRefs(t, dir, "refs/")
	head := ucGitLine(t, dir, "rev-parse", "HEAD")
	holder := "alice until " + ucStamp(ucT0.Add(time.Hour))

	clock.Set(ucT0.Add(time.Hour - time.Second)) // the lease's last second
	for _, steal := range []bool{false, true} {
		_, err = ucOpen(t, dir, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", Steal: steal})
		require.Error(t, err, "steal=%v", steal)
		assert.True(t, IsHeld(err), "steal=%v: %v", steal, err)
		assert.Contains(t, err.Error(), "T1 is held by "+holder+" (since "+ucStamp(ucT0)+")")
	}

	_, err = ucOpen(t, dir, "bob", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "not mine"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 is held by "+holder)

	_, err = ucOpen(t, dir, "bob", clock).Release(ucSlug, "T1", "", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 is held by alice, not by bob")

	assert.Equal(t, refs, ucRefs(t, dir, "refs/"), "the refusals moved no ref")
	assert.Equal(t, head, ucGitLine(t, dir, "rev-parse", "HEAD"))

	next, err := ucOpen(t, dir, "bob", clock).Claim(ClaimRequest{Slug: ucSlug})
	require.NoError(t, err)
	assert.Equal(t, "T2", next.Claim.Unit, "T1 is alice's, T3 waits for T1")
	assert.Equal(t, "bob", ucClaimBlob(t, dir, store.ClaimRef(ucSlug, "T2")).Agent)
	assert.Equal(t, "alice", ucClaimBlob(t, dir, store.ClaimRef(ucSlug, "T1")).Agent)
	ucCheckGit(t, dir)
}

// Once the lease has ended, a claim without Steal says so and changes
// nothing; with Steal it takes the unit and logs the steal as a note
// commit; the former holder's checkpoint is then refused.
func TestClaimStealAfterLeaseEnded(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	ref := store.ClaimRef(ucSlug, "T1")
	_, err := ucOpen(t, dir, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	ended := ucStamp(ucT0.Add(time.Hour))

	clock.Set(ucT0.Add(2 * time.Hour))
	refs := ucRefs(t, dir, "refs/")
	_, err = ucOpen(t, dir, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 was held by alice until "+ended+", which has passed; take it with `itr claim T1 --steal`")
	assert.Equal(t, refs, ucRefs(t, dir, "refs/"), "the refusal moved no ref")

	head := ucGitLine(t, dir, "rev-parse", "HEAD")
	logBefore := ucGit(t, dir, "show", "HEAD:"+ucTaskFile(store.ProgressFile))
	rep, err := ucOpen(t, dir, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", Steal: true})
	require.NoError(t, err)
	assert.Equal(t, "alice", rep.Stole)
	c := ucClaimBlob(t, dir, ref)
	assert.Equal(t, "bob", c.Agent)
	assert.Equal(t, "alice", c.StolenFrom)
	assert.Equal(t, ucStamp(ucT0.Add(2*time.Hour)), c.Since)
	assert.Equal(t, ucStamp(ucT0.Add(2*time.Hour+DefaultLease)), c.Until)

	// The steal is one note commit on top of HEAD, in the task's log.
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

	// alice learns it at her next checkpoint.
	clock.Set(ucT0.Add(2*time.Hour + 10*time.Minute))
	_, err = ucOpen(t, dir, "alice", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T1", Did: "too late"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 is held by bob")
	assert.Equal(t, rep.Note, ucGitLine(t, dir, "rev-parse", "HEAD"))
}

// Release deletes the claim ref; only its holder may unless forced. A
// unit released done keeps a finished claim without a lease, which
// cannot be released again.
func TestClaimReleaseRemovesRef(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	alice := ucOpen(t, dir, "alice", clock)
	_, err := alice.Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)

	got, err := ucOpen(t, dir, "alice", clock).Release(ucSlug, "T1", "", false)
	require.NoError(t, err)
	assert.Equal(t, "alice", got.Agent)
	assert.Empty(t, ucRefs(t, dir, store.ClaimRefPrefix), "the ref is gone")
	_, err = ucOpen(t, dir, "alice", clock).Release(ucSlug, "T1", "", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 is not claimed; there is nothing to release")

	// Forced by another agent.
	_, err = ucOpen(t, dir, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T2", For: time.Hour})
	require.NoError(t, err)
	_, err = ucOpen(t, dir, "alice", clock).Release(ucSlug, "T2", "", true)
	require.NoError(t, err)
	assert.Empty(t, ucRefs(t, dir, store.ClaimRefPrefix))
	ucCheckGit(t, dir)

	// Released done: the claim stays, finished, with no lease.
	_, err = ucOpen(t, dir, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	ucDone(t, ucOpen(t, dir, "alice", clock), "T1")
	clock.Set(ucT0.Add(30 * time.Minute))
	_, err = ucOpen(t, dir, "alice", clock).Release(ucSlug, "T1", "", false)
	require.NoError(t, err)
	c := ucClaimBlob(t, dir, store.ClaimRef(ucSlug, "T1"))
	assert.Equal(t, ucStamp(ucT0.Add(30*time.Minute)), c.Finished)
	assert.Empty(t, c.Until)
	_, err = ucOpen(t, dir, "alice", clock).Release(ucSlug, "T1", "", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 was finished by alice at "+c.Finished+": its claim stays")
	ucCheckGit(t, dir)
}

// With an origin, claims are decided on it: a claim is pushed to the bare
// remote, a second clone is refused naming the holder (the claim fetched
// the remote's claims), a third sees the holder with a plain git fetch,
// renewals and steals move the remote's ref, and a release deletes it
// there and, at the next refresh, in the other clones.
func TestClaimTravelsThroughBareRemote(t *testing.T) {
	clock := ucNewClock(ucT0)
	seed := ucRepo(t, clock, ucTasks)
	bare := ucBare(t, seed)
	a, b, c := ucClone(t, bare), ucClone(t, bare), ucClone(t, bare)
	ref := store.ClaimRef(ucSlug, "T1")
	remoteClaims := func() string {
		return ucBareGit(t, bare, "for-each-ref", "--format=%(refname) %(objectname)", store.ClaimRefPrefix)
	}

	rep, err := ucOpen(t, a, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.Equal(t, "origin", rep.Remote)
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", remoteClaims(), "the remote holds the claim")
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", ucRefs(t, a, store.ClaimRefPrefix), "the clone mirrors it")
	assert.Equal(t, "alice", ucClaimBlob(t, bare, ref).Agent)
	assert.Empty(t, ucRefs(t, b, store.ClaimRefPrefix), "b has fetched nothing yet")

	// b is refused: the claim looked at the remote.
	_, err = ucOpen(t, b, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1"})
	require.Error(t, err)
	assert.True(t, IsHeld(err), "%v", err)
	assert.Contains(t, err.Error(), "T1 is held by alice until "+ucStamp(ucT0.Add(time.Hour)))
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", ucRefs(t, b, store.ClaimRefPrefix), "b now has the remote's claim")
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", remoteClaims(), "the refusal moved nothing on the remote")

	// c sees the holder with plain git.
	ucGit(t, c, "fetch", "-q", "origin", "+"+store.ClaimRefPrefix+"*:"+store.ClaimRefPrefix+"*")
	seen := ucClaimBlob(t, c, ref)
	assert.Equal(t, "alice", seen.Agent)
	assert.Equal(t, ucStamp(ucT0.Add(time.Hour)), seen.Until)

	// b takes the next unit nobody holds, on the remote.
	next, err := ucOpen(t, b, "bob", clock).Claim(ClaimRequest{Slug: ucSlug})
	require.NoError(t, err)
	assert.Equal(t, "T2", next.Claim.Unit)
	assert.Contains(t, remoteClaims(), store.ClaimRef(ucSlug, "T2")+" "+next.Claim.ID+"\n")

	// A renewal moves the remote's ref.
	clock.Set(ucT0.Add(30 * time.Minute))
	renewed, err := ucOpen(t, a, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.True(t, renewed.Renewed)
	assert.Equal(t, ucStamp(ucT0.Add(90*time.Minute)), ucClaimBlob(t, bare, ref).Until)

	// After the lease, b steals through the remote; c's fetch sees it.
	clock.Set(ucT0.Add(3 * time.Hour))
	stolen, err := ucOpen(t, b, "bob", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", Steal: true})
	require.NoError(t, err)
	assert.Equal(t, "alice", stolen.Stole)
	onRemote := ucClaimBlob(t, bare, ref)
	assert.Equal(t, "bob", onRemote.Agent)
	assert.Equal(t, "alice", onRemote.StolenFrom)
	ucGit(t, c, "fetch", "-q", "origin", "+"+store.ClaimRefPrefix+"*:"+store.ClaimRefPrefix+"*")
	assert.Equal(t, "bob", ucClaimBlob(t, c, ref).Agent)
	// a refreshes: its copies become the remote's.
	remote, err := ucOpen(t, a, "alice", clock).RefreshClaims(ucSlug)
	require.NoError(t, err)
	assert.Equal(t, "origin", remote)
	assert.Equal(t, remoteClaims(), ucRefs(t, a, store.ClaimRefPrefix))

	// Releases delete the refs on the remote.
	for _, unit := range []string{"T1", "T2"} {
		_, err = ucOpen(t, b, "bob", clock).Release(ucSlug, unit, "", false)
		require.NoError(t, err, unit)
	}
	assert.Empty(t, remoteClaims())
	assert.Empty(t, ucRefs(t, b, store.ClaimRefPrefix))

	// a's stale copy (bob holds T1, leased for two more hours) does not
	// refuse alice: the claim looks at the remote before saying no.
	require.Equal(t, "bob", ucClaimBlob(t, a, ref).Agent)
	mine, err := ucOpen(t, a, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.Empty(t, mine.Stole)
	assert.Equal(t, ref+" "+mine.Claim.ID+"\n", remoteClaims())
	assert.Equal(t, remoteClaims(), ucRefs(t, a, store.ClaimRefPrefix), "a's copies are the remote's")
	_, err = ucOpen(t, a, "alice", clock).Release(ucSlug, "T1", "", false)
	require.NoError(t, err)
	assert.Empty(t, remoteClaims())

	// c's refresh prunes the copies its plain fetch brought.
	require.NotEmpty(t, ucRefs(t, c, store.ClaimRefPrefix))
	remote, err = ucOpen(t, c, "carol", clock).RefreshClaims(ucSlug)
	require.NoError(t, err)
	assert.Equal(t, "origin", remote)
	assert.Empty(t, ucRefs(t, c, store.ClaimRefPrefix))
	assert.Empty(t, ucRefs(t, a, store.ClaimRefPrefix))

	for _, dir := range []string{a, b, c} {
		ucCheckGit(t, dir)
	}
	ucFsckBare(t, bare)
}

// Two agents in two clones claim one unit at the same moment: the remote's
// compare-and-swap lets exactly one hold it, and the other is told who.
func TestClaimRaceThroughRemoteHasOneHolder(t *testing.T) {
	clock := ucNewClock(ucT0)
	seed := ucRepo(t, clock, ucTasks)
	bare := ucBare(t, seed)
	clones := map[string]string{"alice": ucClone(t, bare), "bob": ucClone(t, bare)}
	ws := map[string]*Workspace{}
	for agent, dir := range clones {
		ws[agent] = ucOpen(t, dir, agent, clock)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := map[string]error{}
	start := make(chan struct{})
	for agent, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := w.Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
			mu.Lock()
			errs[agent] = err
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()

	var winner, loser string
	for agent, err := range errs {
		if err == nil {
			require.Empty(t, winner, "both claims succeeded")
			winner = agent
		} else {
			loser = agent
		}
	}
	require.NotEmpty(t, winner, "no claim succeeded: %v", errs)
	require.NotEmpty(t, loser, "both claims succeeded")
	assert.True(t, IsHeld(errs[loser]), "%v", errs[loser])
	assert.Contains(t, errs[loser].Error(), "T1 is held by "+winner+" until "+ucStamp(ucT0.Add(time.Hour)))
	assert.Equal(t, winner, ucClaimBlob(t, bare, store.ClaimRef(ucSlug, "T1")).Agent)
	for _, dir := range clones {
		ucCheckGit(t, dir)
	}
	ucFsckBare(t, bare)
}
