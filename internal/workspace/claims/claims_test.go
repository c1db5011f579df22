package claims

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// The tests of this file run on real repositories made with the real git
// (a bare remote on disk for the remote's), one Room per command, and
// judge with git what the claims leave.

// realFixture is a fixture on a real repository with itr's own engine.
func realFixture(t *testing.T, c *clock) *fixture {
	t.Helper()
	isolate(t)
	return newFixture(t, onNative, c)
}

// A claim is a ref per unit holding a blob with the claim; the holder's
// second claim renews it (same Since, a later Until), and so does its
// Renew (each checkpoint's). Claims are refs, never commits: HEAD does not
// move.
func TestClaimCreatesRefAndRenewsForItsHolder(t *testing.T) {
	c := newClock(t0)
	f := realFixture(t, c)
	dir := f.dir
	head := testgit.Line(t, dir, "rev-parse", "HEAD")
	ref := store.ClaimRef(slug, "T1")

	rep, err := f.room("alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.False(t, rep.Renewed)
	assert.Empty(t, rep.Stole)
	assert.Empty(t, rep.Remote, "no remote: the claim stays in this repository")
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", testgit.Refs(t, dir, store.ClaimRefPrefix), "one claim ref, for T1")
	got := claimBlob(t, dir, ref)
	assert.Equal(t, store.Claim{Unit: "T1", Agent: "alice", Since: stamp(t0), Until: stamp(t0.Add(time.Hour)), For: "1h0m0s"}, got)
	assert.Equal(t, head, testgit.Line(t, dir, "rev-parse", "HEAD"), "a claim makes no commit")
	testgit.Check(t, dir)

	// Renewed by its holder half-way: Since stays, Until moves on.
	c.Set(t0.Add(30 * time.Minute))
	again, err := f.room("alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.True(t, again.Renewed)
	assert.NotEqual(t, rep.Claim.ID, again.Claim.ID)
	assert.Equal(t, ref+" "+again.Claim.ID+"\n", testgit.Refs(t, dir, store.ClaimRefPrefix))
	got = claimBlob(t, dir, ref)
	assert.Equal(t, stamp(t0), got.Since)
	assert.Equal(t, stamp(t0.Add(90*time.Minute)), got.Until)

	// The holder's renewal (at each checkpoint) moves the lease on by its
	// length; another agent's renews nothing.
	c.Set(t0.Add(time.Hour))
	warn, err := f.room("bob").Renew(slug, "T1")
	require.NoError(t, err)
	assert.Empty(t, warn)
	assert.Equal(t, stamp(t0.Add(90*time.Minute)), claimBlob(t, dir, ref).Until, "bob's renewal moved nothing")
	warn, err = f.room("alice").Renew(slug, "T1")
	require.NoError(t, err)
	assert.Empty(t, warn)
	got = claimBlob(t, dir, ref)
	assert.Equal(t, "alice", got.Agent)
	assert.Equal(t, stamp(t0.Add(2*time.Hour)), got.Until, "the renewal renewed the lease")
	assert.Equal(t, head, testgit.Line(t, dir, "rev-parse", "HEAD"))

	// Without For the lease is DefaultLease.
	bob, err := f.room("bob").Claim(Request{Slug: slug, Unit: "T2"})
	require.NoError(t, err)
	assert.Equal(t, stamp(t0.Add(time.Hour+DefaultLease)), claimBlob(t, dir, store.ClaimRef(slug, "T2")).Until)
	assert.Equal(t, DefaultLease.String(), bob.Claim.For)
	testgit.Check(t, dir)
}

// While the lease runs, another agent is refused (told who holds the unit
// until when), even with Steal, and cannot release it; a claim that names
// no unit takes the next one nobody holds.
func TestClaimRefusesAnotherAgentWhileLeaseRuns(t *testing.T) {
	c := newClock(t0)
	f := realFixture(t, c)
	dir := f.dir
	_, err := f.room("alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	before := testgit.Refs(t, dir, "refs/")
	head := testgit.Line(t, dir, "rev-parse", "HEAD")
	holder := "alice until " + stamp(t0.Add(time.Hour))

	c.Set(t0.Add(time.Hour - time.Second)) // the lease's last second
	for _, steal := range []bool{false, true} {
		_, err = f.room("bob").Claim(Request{Slug: slug, Unit: "T1", Steal: steal})
		require.Error(t, err, "steal=%v", steal)
		assert.True(t, IsHeld(err), "steal=%v: %v", steal, err)
		assert.Contains(t, err.Error(), "T1 is held by "+holder+" (since "+stamp(t0)+")")
	}

	held, err := f.room("bob").Held(slug)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"T1": holder + " (since " + stamp(t0) + ")"}, map[string]string(held), "the rule book sees alice's hold")
	mine, err := f.room("alice").Held(slug)
	require.NoError(t, err)
	assert.Empty(t, mine, "alice's own claim holds nothing from her")

	_, err = f.room("bob").Release(slug, "T1", "", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 is held by alice, not by bob")

	assert.Equal(t, before, testgit.Refs(t, dir, "refs/"), "the refusals moved no ref")
	assert.Equal(t, head, testgit.Line(t, dir, "rev-parse", "HEAD"))

	next, err := f.room("bob").Claim(Request{Slug: slug})
	require.NoError(t, err)
	assert.Equal(t, "T2", next.Claim.Unit, "T1 is alice's, T3 waits for T1")
	assert.Equal(t, "bob", claimBlob(t, dir, store.ClaimRef(slug, "T2")).Agent)
	assert.Equal(t, "alice", claimBlob(t, dir, store.ClaimRef(slug, "T1")).Agent)
	testgit.Check(t, dir)
}

// Once the lease has ended, a claim without Steal says so and changes
// nothing; with Steal it takes the unit and logs the steal with the
// Room's NoteFunc; the former holder's renewal is then refused.
func TestClaimStealAfterLeaseEnded(t *testing.T) {
	c := newClock(t0)
	f := realFixture(t, c)
	dir := f.dir
	ref := store.ClaimRef(slug, "T1")
	_, err := f.room("alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	ended := stamp(t0.Add(time.Hour))

	c.Set(t0.Add(2 * time.Hour))
	before := testgit.Refs(t, dir, "refs/")
	_, err = f.room("bob").Claim(Request{Slug: slug, Unit: "T1"})
	require.Error(t, err)
	assert.False(t, IsHeld(err), "an ended lease holds nothing: %v", err)
	assert.Contains(t, err.Error(), "T1 was held by alice until "+ended+", which has passed; take it with `itr claim T1 --steal`")
	assert.Equal(t, before, testgit.Refs(t, dir, "refs/"), "the refusal moved no ref")
	assert.Empty(t, f.notes)

	head := testgit.Line(t, dir, "rev-parse", "HEAD")
	rep, err := f.room("bob").Claim(Request{Slug: slug, Unit: "T1", Steal: true})
	require.NoError(t, err)
	assert.Equal(t, "alice", rep.Stole)
	got := claimBlob(t, dir, ref)
	assert.Equal(t, "bob", got.Agent)
	assert.Equal(t, "alice", got.StolenFrom)
	assert.Equal(t, stamp(t0.Add(2*time.Hour)), got.Since)
	assert.Equal(t, stamp(t0.Add(2*time.Hour+DefaultLease)), got.Until)
	assert.Equal(t, []string{"demo: bob took T1 from alice, whose lease ended " + ended}, f.notes, "the steal is logged once")
	assert.Equal(t, "note-1", rep.Note, "the report names the note's commit")
	assert.Equal(t, head, testgit.Line(t, dir, "rev-parse", "HEAD"), "the room itself commits nothing")
	testgit.Check(t, dir)

	// alice learns it at her next checkpoint's renewal.
	c.Set(t0.Add(2*time.Hour + 10*time.Minute))
	_, err = f.room("alice").Renew(slug, "T1")
	assert.NoError(t, err, "bob's claim is not alice's to renew")
	_, err = f.room("alice").Claim(Request{Slug: slug, Unit: "T1"})
	require.Error(t, err)
	assert.True(t, IsHeld(err))
	assert.Contains(t, err.Error(), "T1 is held by bob")
}

// A steal whose note cannot be logged still holds the unit, and says the
// log lacks it.
func TestClaimStealNoteFails(t *testing.T) {
	c := newClock(t0)
	f := realFixture(t, c)
	f.setClaim(store.Claim{Unit: "T2", Agent: "alice", Since: stamp(t0), Until: stamp(t0.Add(time.Hour)), For: "1h0m0s"})
	c.Set(t0.Add(2 * time.Hour))
	f.noteErr = errors.New("the log is locked")
	rep, err := f.room("bob").Claim(Request{Slug: slug, Unit: "T2", Steal: true})
	require.Error(t, err)
	assert.ErrorIs(t, err, f.noteErr)
	assert.Contains(t, err.Error(), "bob now holds T2, but logging the steal failed")
	require.NotNil(t, rep)
	assert.Equal(t, "alice", rep.Stole)
	assert.Empty(t, rep.Note)
	assert.Equal(t, "bob", claimBlob(t, f.dir, store.ClaimRef(slug, "T2")).Agent)
}

// Release deletes the claim ref; only its holder may unless forced. A
// unit released done keeps a finished claim without a lease, which
// cannot be released again.
func TestClaimReleaseRemovesRef(t *testing.T) {
	c := newClock(t0)
	f := realFixture(t, c)
	dir := f.dir
	_, err := f.room("alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)

	got, err := f.room("alice").Release(slug, "T1", "", false)
	require.NoError(t, err)
	assert.Equal(t, "alice", got.Agent)
	assert.Empty(t, testgit.Refs(t, dir, store.ClaimRefPrefix), "the ref is gone")
	_, err = f.room("alice").Release(slug, "T1", "", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 is not claimed; there is nothing to release")

	// Forced by another agent.
	_, err = f.room("bob").Claim(Request{Slug: slug, Unit: "T2", For: time.Hour})
	require.NoError(t, err)
	_, err = f.room("alice").Release(slug, "T2", "", true)
	require.NoError(t, err)
	assert.Empty(t, testgit.Refs(t, dir, store.ClaimRefPrefix))
	testgit.Check(t, dir)

	// Released done: the claim stays, finished, with no lease.
	_, err = f.room("alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	f.done("T1")
	c.Set(t0.Add(30 * time.Minute))
	_, err = f.room("alice").Release(slug, "T1", "", false)
	require.NoError(t, err)
	fin := claimBlob(t, dir, store.ClaimRef(slug, "T1"))
	assert.Equal(t, stamp(t0.Add(30*time.Minute)), fin.Finished)
	assert.Empty(t, fin.Until)
	_, err = f.room("alice").Release(slug, "T1", "", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "T1 was finished by alice at "+fin.Finished+": its claim stays")
	testgit.Check(t, dir)

	// Drop deletes every claim, finished ones too.
	_, err = f.room("bob").Claim(Request{Slug: slug, Unit: "T2", For: time.Hour})
	require.NoError(t, err)
	assert.Empty(t, f.room("carol").Drop(slug))
	assert.Empty(t, testgit.Refs(t, dir, store.ClaimRefPrefix))
	assert.Empty(t, f.room("carol").Drop(slug), "nothing left to drop")
	testgit.Check(t, dir)
}

// With an origin, claims are decided on it: a claim is pushed to the bare
// remote, a second clone is refused naming the holder (the claim fetched
// the remote's claims), a third sees the holder with a plain git fetch,
// renewals and steals move the remote's ref, and a release deletes it
// there and, at the next refresh, in the other clones.
func TestClaimTravelsThroughBareRemote(t *testing.T) {
	c := newClock(t0)
	seed := realFixture(t, c)
	bare := testgit.Bare(t, seed.dir)
	a, b, cl := testgit.Clone(t, bare), testgit.Clone(t, bare), testgit.Clone(t, bare)
	ref := store.ClaimRef(slug, "T1")
	remoteClaims := func() string {
		return testgit.BareGit(t, bare, "for-each-ref", "--format=%(refname) %(objectname)", store.ClaimRefPrefix)
	}
	var notes []string
	note := func(slug, text string) (string, error) {
		notes = append(notes, text)
		return "logged", nil
	}
	open := func(dir, agent string) *Room { return roomAt(t, dir, agent, c, note) }

	rep, err := open(a, "alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.Equal(t, "origin", rep.Remote)
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", remoteClaims(), "the remote holds the claim")
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", testgit.Refs(t, a, store.ClaimRefPrefix), "the clone mirrors it")
	assert.Equal(t, "alice", claimBlob(t, bare, ref).Agent)
	assert.Empty(t, testgit.Refs(t, b, store.ClaimRefPrefix), "b has fetched nothing yet")

	// b is refused: the claim looked at the remote.
	_, err = open(b, "bob").Claim(Request{Slug: slug, Unit: "T1"})
	require.Error(t, err)
	assert.True(t, IsHeld(err), "%v", err)
	assert.Contains(t, err.Error(), "T1 is held by alice until "+stamp(t0.Add(time.Hour)))
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", testgit.Refs(t, b, store.ClaimRefPrefix), "b now has the remote's claim")
	assert.Equal(t, ref+" "+rep.Claim.ID+"\n", remoteClaims(), "the refusal moved nothing on the remote")

	// cl sees the holder with plain git.
	testgit.Out(t, cl, "fetch", "-q", "origin", "+"+store.ClaimRefPrefix+"*:"+store.ClaimRefPrefix+"*")
	seen := claimBlob(t, cl, ref)
	assert.Equal(t, "alice", seen.Agent)
	assert.Equal(t, stamp(t0.Add(time.Hour)), seen.Until)

	// b takes the next unit nobody holds, on the remote.
	next, err := open(b, "bob").Claim(Request{Slug: slug})
	require.NoError(t, err)
	assert.Equal(t, "T2", next.Claim.Unit)
	assert.Contains(t, remoteClaims(), store.ClaimRef(slug, "T2")+" "+next.Claim.ID+"\n")

	// A renewal moves the remote's ref.
	c.Set(t0.Add(30 * time.Minute))
	renewed, err := open(a, "alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.True(t, renewed.Renewed)
	assert.Equal(t, stamp(t0.Add(90*time.Minute)), claimBlob(t, bare, ref).Until)

	// A checkpoint's renewal on a remote waits until less than half of
	// the lease is left: at 50 minutes (40 of 60 left) nothing moves; at
	// 70 (20 left) it does.
	c.Set(t0.Add(50 * time.Minute))
	warn, err := open(a, "alice").Renew(slug, "T1")
	require.NoError(t, err)
	assert.Empty(t, warn)
	assert.Equal(t, stamp(t0.Add(90*time.Minute)), claimBlob(t, bare, ref).Until, "more than half the lease is left")
	c.Set(t0.Add(70 * time.Minute))
	warn, err = open(a, "alice").Renew(slug, "T1")
	require.NoError(t, err)
	assert.Empty(t, warn)
	assert.Equal(t, stamp(t0.Add(130*time.Minute)), claimBlob(t, bare, ref).Until, "renewed on the remote")
	assert.Equal(t, claimBlob(t, bare, ref), claimBlob(t, a, ref), "and mirrored in a")

	// After the lease, b steals through the remote; cl's fetch sees it.
	c.Set(t0.Add(3 * time.Hour))
	stolen, err := open(b, "bob").Claim(Request{Slug: slug, Unit: "T1", Steal: true})
	require.NoError(t, err)
	assert.Equal(t, "alice", stolen.Stole)
	assert.Equal(t, []string{"bob took T1 from alice, whose lease ended " + stamp(t0.Add(130*time.Minute))}, notes)
	onRemote := claimBlob(t, bare, ref)
	assert.Equal(t, "bob", onRemote.Agent)
	assert.Equal(t, "alice", onRemote.StolenFrom)
	testgit.Out(t, cl, "fetch", "-q", "origin", "+"+store.ClaimRefPrefix+"*:"+store.ClaimRefPrefix+"*")
	assert.Equal(t, "bob", claimBlob(t, cl, ref).Agent)
	// a refreshes: its copies become the remote's.
	remote, err := open(a, "alice").Refresh(slug)
	require.NoError(t, err)
	assert.Equal(t, "origin", remote)
	assert.Equal(t, remoteClaims(), testgit.Refs(t, a, store.ClaimRefPrefix))

	// Releases delete the refs on the remote.
	for _, unit := range []string{"T1", "T2"} {
		_, err = open(b, "bob").Release(slug, unit, "", false)
		require.NoError(t, err, unit)
	}
	assert.Empty(t, remoteClaims())
	assert.Empty(t, testgit.Refs(t, b, store.ClaimRefPrefix))

	// a's stale copy (bob holds T1, leased for two more hours) does not
	// refuse alice: the claim looks at the remote before saying no.
	require.Equal(t, "bob", claimBlob(t, a, ref).Agent)
	mine, err := open(a, "alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.Empty(t, mine.Stole)
	assert.Equal(t, ref+" "+mine.Claim.ID+"\n", remoteClaims())
	assert.Equal(t, remoteClaims(), testgit.Refs(t, a, store.ClaimRefPrefix), "a's copies are the remote's")
	_, err = open(a, "alice").Release(slug, "T1", "", false)
	require.NoError(t, err)
	assert.Empty(t, remoteClaims())

	// cl's refresh prunes the copies its plain fetch brought.
	require.NotEmpty(t, testgit.Refs(t, cl, store.ClaimRefPrefix))
	remote, err = open(cl, "carol").Refresh(slug)
	require.NoError(t, err)
	assert.Equal(t, "origin", remote)
	assert.Empty(t, testgit.Refs(t, cl, store.ClaimRefPrefix))
	assert.Empty(t, testgit.Refs(t, a, store.ClaimRefPrefix))

	// A release of a unit this clone has no copy of looks at the remote.
	_, err = open(a, "alice").Claim(Request{Slug: slug, Unit: "T2", For: time.Hour})
	require.NoError(t, err)
	_, err = open(cl, "carol").Release(slug, "T2", "", true)
	require.NoError(t, err, "the release fetched alice's claim first")
	assert.Empty(t, remoteClaims())

	// Drop deletes the remote's claims too.
	t1, err := open(a, "alice").Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	_, err = open(b, "bob").Claim(Request{Slug: slug, Unit: "T2", For: time.Hour})
	require.NoError(t, err)
	assert.Empty(t, open(b, "bob").Drop(slug))
	assert.Equal(t, ref+" "+t1.Claim.ID+"\n", remoteClaims(), "b dropped the claims it has a copy of")
	_, err = open(b, "bob").Refresh(slug)
	require.NoError(t, err)
	assert.Empty(t, open(b, "bob").Drop(slug))
	assert.Empty(t, remoteClaims(), "after a refresh, every claim")

	for _, dir := range []string{a, b, cl} {
		testgit.Check(t, dir)
	}
	testgit.FsckBare(t, bare)
}

// Two agents in two clones claim one unit at the same moment: the remote's
// compare-and-swap lets exactly one hold it, and the other is told who.
func TestClaimRaceThroughRemoteHasOneHolder(t *testing.T) {
	c := newClock(t0)
	seed := realFixture(t, c)
	bare := testgit.Bare(t, seed.dir)
	clones := map[string]string{"alice": testgit.Clone(t, bare), "bob": testgit.Clone(t, bare)}
	rooms := map[string]*Room{}
	for agent, dir := range clones {
		rooms[agent] = roomAt(t, dir, agent, c, nil)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := map[string]error{}
	start := make(chan struct{})
	for agent, r := range rooms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := r.Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
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
	assert.Contains(t, errs[loser].Error(), "T1 is held by "+winner+" until "+stamp(t0.Add(time.Hour)))
	assert.Equal(t, winner, claimBlob(t, bare, store.ClaimRef(slug, "T1")).Agent)
	for _, dir := range clones {
		testgit.Check(t, dir)
	}
	testgit.FsckBare(t, bare)
}

// writeConfig writes .itr.yaml at the top of dir.
func writeConfig(t *testing.T, dir, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, store.ConfigFile), []byte(text), 0o644))
}

// .itr.yaml's claims_remote chooses where claims are decided, and a Room
// reads it once: "none" keeps them in this repository; a name that is no
// remote refuses every claim of the command (and Drop and Renew say so)
// until the next command; a named remote is used over the branch's.
func TestClaimsRemoteSetting(t *testing.T) {
	c := newClock(t0)
	seed := realFixture(t, c)
	bare := testgit.Bare(t, seed.dir)
	a := testgit.Clone(t, bare)
	remoteClaims := func() string {
		return testgit.BareGit(t, bare, "for-each-ref", "--format=%(refname) %(objectname)", store.ClaimRefPrefix)
	}

	writeConfig(t, a, "claims_remote: none\n")
	rep, err := roomAt(t, a, "alice", c, nil).Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	assert.Empty(t, rep.Remote)
	assert.Empty(t, remoteClaims(), "claims_remote: none pushes nothing")
	assert.Equal(t, store.ClaimRef(slug, "T1")+" "+rep.Claim.ID+"\n", testgit.Refs(t, a, store.ClaimRefPrefix))
	remote, err := roomAt(t, a, "alice", c, nil).Refresh(slug)
	require.NoError(t, err)
	assert.Empty(t, remote)
	assert.NotEmpty(t, testgit.Refs(t, a, store.ClaimRefPrefix), "no remote prunes nothing")

	writeConfig(t, a, "claims_remote: shared\n")
	r := roomAt(t, a, "alice", c, nil)
	_, err = r.Claim(Request{Slug: slug, Unit: "T2"})
	require.Error(t, err)
	want := store.ConfigFile + `: claims_remote "shared" is not a remote of this repository (remotes: origin); add it with ` + "`git remote add shared URL`" + `, or write claims_remote: none`
	assert.Equal(t, want, err.Error())
	assert.Equal(t, []string{"claims of demo kept: " + want}, r.Drop(slug))
	warn, err := r.Renew(slug, "T1")
	require.NoError(t, err, "a renewal never refuses the checkpoint for the remote")
	assert.Equal(t, "could not renew the claim of T1: "+want, warn)

	// The setting is read once per Room: the remote added meanwhile is
	// seen by the next command only.
	testgit.Out(t, a, "remote", "add", "shared", bare)
	_, err = r.Refresh(slug)
	assert.EqualError(t, err, want, "the same command keeps what it read")
	rep, err = roomAt(t, a, "alice", c, nil).Claim(Request{Slug: slug, Unit: "T2", For: time.Hour})
	require.NoError(t, err)
	assert.Equal(t, "shared", rep.Remote)
	assert.Equal(t, store.ClaimRef(slug, "T2")+" "+rep.Claim.ID+"\n", remoteClaims())
}

// A claims remote that cannot be reached refuses claims and releases
// with the fix, while a renewal only warns: the lease still runs.
func TestClaimsRemoteUnreachable(t *testing.T) {
	c := newClock(t0)
	seed := realFixture(t, c)
	bare := testgit.Bare(t, seed.dir)
	a := testgit.Clone(t, bare)
	_, err := roomAt(t, a, "alice", c, nil).Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	testgit.Out(t, a, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
	unreachable := "claims go through the remote origin, so that agents in every clone see them, and it could not be used: "

	_, err = roomAt(t, a, "alice", c, nil).Claim(Request{Slug: slug, Unit: "T2"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), unreachable)
	assert.Contains(t, err.Error(), "fix the remote (git fetch origin), or keep claims in this repository with claims_remote: none in "+store.ConfigFile)
	_, err = roomAt(t, a, "alice", c, nil).Refresh(slug)
	require.Error(t, err)
	assert.Contains(t, err.Error(), unreachable)
	_, err = roomAt(t, a, "alice", c, nil).Release(slug, "T2", "", false)
	require.Error(t, err, "a unit this clone sees unclaimed is looked up on the remote")
	assert.Contains(t, err.Error(), unreachable)

	// More than half the lease is left: a renewal does not reach out.
	c.Set(t0.Add(10 * time.Minute))
	warn, err := roomAt(t, a, "alice", c, nil).Renew(slug, "T1")
	require.NoError(t, err)
	assert.Empty(t, warn)
	c.Set(t0.Add(50 * time.Minute))
	warn, err = roomAt(t, a, "alice", c, nil).Renew(slug, "T1")
	require.NoError(t, err)
	assert.Contains(t, warn, "could not renew the claim of T1 on origin (it holds until "+stamp(t0.Add(time.Hour))+"): "+unreachable)
	assert.Equal(t, stamp(t0.Add(time.Hour)), claimBlob(t, a, store.ClaimRef(slug, "T1")).Until, "the lease still runs as it was")

	warns := roomAt(t, a, "alice", c, nil).Drop(slug)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], "claim of T1 kept: "+unreachable)
}

// A claim of the next unit through a remote whose view is stale loses the
// race for it and reaches for another unit at once, without fetching the
// remote's claims (a second lost race would): it ends with one holder per
// unit, and the winner's claim is not in the loser's clone.
func TestClaimLostRaceThroughRemoteSkipsTheFetch(t *testing.T) {
	c := newClock(t0)
	seed := realFixture(t, c)
	bare := testgit.Bare(t, seed.dir)
	alice, bob := testgit.Clone(t, bare), testgit.Clone(t, bare)
	won, err := roomAt(t, bob, "bob", c, nil).Claim(Request{Slug: slug, For: time.Hour})
	require.NoError(t, err)
	rep, err := roomAt(t, alice, "alice", c, nil).Claim(Request{Slug: slug, For: time.Hour})
	require.NoError(t, err)
	assert.NotEqual(t, won.Claim.Unit, rep.Claim.Unit)
	assert.Equal(t, "bob", claimBlob(t, bare, store.ClaimRef(slug, won.Claim.Unit)).Agent)
	assert.Equal(t, "alice", claimBlob(t, bare, store.ClaimRef(slug, rep.Claim.Unit)).Agent)
	assert.Equal(t, store.ClaimRef(slug, rep.Claim.Unit), testgit.Line(t, alice, "for-each-ref", "--format=%(refname)", store.ClaimRefPrefix), "no fetch brought bob's claim")
	testgit.Check(t, alice)
	testgit.FsckBare(t, bare)
}
