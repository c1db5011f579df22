package claims

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// The compare-and-swap lost to a faster agent, and a repository that
// fails, on the fake: what no real repository does on cue.

// errBoom is a failure the fake injects.
var errBoom = errors.New("boom")

// racing is the fake with another agent's move slipped in just before
// the room's first move of a claim ref, as a faster agent's would be.
type racing struct {
	*gitfake.Repo
	first func()
}

// UpdateRef runs first once, then moves the ref.
func (r *racing) UpdateRef(name, newID, oldID string) error {
	if first := r.first; first != nil {
		r.first = nil
		first()
	}
	return r.Repo.UpdateRef(name, newID, oldID)
}

// fakeFixture is a fixture on the fake.
func fakeFixture(t *testing.T, c *clock) *fixture {
	t.Helper()
	isolate(t)
	return newFixture(t, onFake, c)
}

// racingRoom is the room of agent over the fake, where first runs before
// the room's first move of a ref.
func (f *fixture) racingRoom(agent string, first func()) *Room {
	f.t.Helper()
	st, err := store.New(&racing{Repo: f.fake, first: first}, store.DefaultRoot, store.Config{}, "", f.clock.Now)
	require.NoError(f.t, err)
	st.Agent = agent
	return New(st, f.note)
}

// A claim of a named unit that another agent took first is decided again
// on what the ref holds now: the agent is told who holds it.
func TestClaimLostRaceForANamedUnit(t *testing.T) {
	f := fakeFixture(t, newClock(t0))
	bob := lease("T1", "bob", 0, time.Hour)
	_, err := f.racingRoom("alice", func() { f.setClaim(bob) }).Claim(Request{Slug: slug, Unit: "T1", For: time.Hour})
	require.Error(t, err)
	assert.True(t, IsHeld(err), "%v", err)
	assert.Contains(t, err.Error(), "T1 is held by bob until "+stamp(t0.Add(time.Hour)))
	assert.Equal(t, map[string]store.Claim{"T1": bob}, withoutIDs(f.claims()))
}

// A claim of the next unit that lost the race for it reaches for another.
func TestClaimLostRaceForTheNextUnit(t *testing.T) {
	f := fakeFixture(t, newClock(t0))
	bob := lease("T1", "bob", 0, time.Hour)
	rep, err := f.racingRoom("alice", func() { f.setClaim(bob) }).Claim(Request{Slug: slug, For: time.Hour})
	require.NoError(t, err)
	assert.Equal(t, "T2", rep.Claim.Unit)
	assert.Equal(t, map[string]store.Claim{"T1": bob, "T2": lease("T2", "alice", 0, time.Hour)}, withoutIDs(f.claims()))
}

// A ref that moves under every attempt gives up after Attempts tries.
func TestClaimGivesUpAfterAttempts(t *testing.T) {
	for _, unit := range []string{"T1", ""} {
		f := fakeFixture(t, newClock(t0))
		f.fake.Fail("UpdateRef", gitstate.ErrRefChanged)
		before := f.fake.Calls("UpdateRef")
		_, err := f.room("alice").Claim(Request{Slug: slug, Unit: unit})
		require.Error(t, err, "unit %q", unit)
		assert.Equal(t, Attempts, f.fake.Calls("UpdateRef")-before, "unit %q: one move a try", unit)
		if unit == "" {
			assert.ErrorIs(t, err, gitstate.ErrRefChanged)
			assert.Contains(t, err.Error(), "other agents claimed each unit this claim reached for first (4 tries, the last T")
		} else {
			assert.Contains(t, err.Error(), "the claim of T1 changed meanwhile (released); run it again")
		}
		assert.False(t, IsHeld(err), "nobody holds it: %v", err)
		f.fake.Fail("UpdateRef", nil)
		assert.Empty(t, f.claims())
	}
}

// A release that loses every compare-and-swap names the holder it sees.
func TestReleaseLostRace(t *testing.T) {
	f := fakeFixture(t, newClock(t0))
	f.setClaim(lease("T1", "alice", 0, time.Hour))
	f.fake.Fail("UpdateRef", gitstate.ErrRefChanged)
	before := f.fake.Calls("UpdateRef")
	_, err := f.room("alice").Release(slug, "T1", "", false)
	require.Error(t, err)
	assert.Equal(t, Attempts, f.fake.Calls("UpdateRef")-before)
	assert.True(t, IsHeld(err), "%v", err)
	assert.Contains(t, err.Error(), "another agent claimed T1 first: T1 is held by alice")
}

// A renewal whose claim another agent took meanwhile refuses the
// checkpoint, naming the new holder; a renewal that fails otherwise in
// this repository is an error too.
func TestRenewLost(t *testing.T) {
	c := newClock(t0.Add(10 * time.Minute))
	f := fakeFixture(t, c)
	f.setClaim(lease("T1", "alice", 0, time.Hour))
	bob := lease("T1", "bob", 5*time.Minute, time.Hour)
	warn, err := f.racingRoom("alice", func() { f.setClaim(bob) }).Renew(slug, "T1")
	assert.Empty(t, warn)
	require.Error(t, err)
	assert.True(t, IsHeld(err), "%v", err)
	assert.Contains(t, err.Error(), "another agent claimed T1 first: T1 is held by bob")
	assert.Equal(t, map[string]store.Claim{"T1": bob}, withoutIDs(f.claims()))

	f.setClaim(lease("T1", "alice", 0, time.Hour))
	f.fake.Fail("UpdateRef", errBoom)
	warn, err = f.room("alice").Renew(slug, "T1")
	assert.Empty(t, warn)
	assert.ErrorIs(t, err, errBoom)
}

// What a failing repository makes of each step.
func TestRepositoryFailures(t *testing.T) {
	cases := []struct {
		name   string
		method string
		done   bool // T1 is done
		run    func(r *Room) error
		want   string
	}{
		{name: "claim: the blob", method: "WriteBlob", run: func(r *Room) error {
			_, err := r.Claim(Request{Slug: slug, Unit: "T2"})
			return err
		}, want: "write the claim of T2: boom"},
		{name: "claim: the claims", method: "RawRefs", run: func(r *Room) error {
			_, err := r.Claim(Request{Slug: slug, Unit: "T2"})
			return err
		}, want: "read the claims of demo: boom"},
		{name: "claim: the move", method: "UpdateRef", run: func(r *Room) error {
			_, err := r.Claim(Request{Slug: slug, Unit: "T2"})
			return err
		}, want: "boom"},
		{name: "release: the finished claim", method: "WriteBlob", done: true, run: func(r *Room) error {
			_, err := r.Release(slug, "T1", "", false)
			return err
		}, want: "write the finished claim of T1: boom"},
		{name: "release: the claims", method: "RawRefs", run: func(r *Room) error {
			_, err := r.Release(slug, "T1", "", false)
			return err
		}, want: "read the claims of demo: boom"},
		{name: "renew: the blob", method: "WriteBlob", run: func(r *Room) error {
			_, err := r.Renew(slug, "T1")
			return err
		}, want: "boom"},
		{name: "renew: the claims", method: "RawRefs", run: func(r *Room) error {
			_, err := r.Renew(slug, "T1")
			return err
		}, want: "read the claims of demo: boom"},
		{name: "held: the claims", method: "RawRefs", run: func(r *Room) error {
			_, err := r.Held(slug)
			return err
		}, want: "read the claims of demo: boom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := fakeFixture(t, newClock(t0))
			if tc.done {
				f.done("T1")
			}
			f.setClaim(lease("T1", "alice", 0, time.Hour))
			before := f.claims()
			f.fake.Fail(tc.method, errBoom)
			err := tc.run(f.room("alice"))
			require.Error(t, err)
			assert.ErrorIs(t, err, errBoom)
			assert.Equal(t, tc.want, err.Error())
			f.fake.Fail(tc.method, nil)
			assert.Equal(t, before, f.claims(), "nothing moved")
		})
	}
}

// Drop keeps what it cannot delete and says so, unit by unit; with no
// claims readable it has nothing to say.
func TestDropKeepsWhatFails(t *testing.T) {
	f := fakeFixture(t, newClock(t0))
	f.setClaim(lease("T2", "bob", 0, time.Hour))
	f.setClaim(finished("T1", "alice", 0))
	before := f.claims()
	f.fake.Fail("UpdateRef", errBoom)
	assert.Equal(t, []string{"claim of T1 kept: boom", "claim of T2 kept: boom"}, f.room("carol").Drop(slug))
	f.fake.Fail("UpdateRef", nil)
	assert.Equal(t, before, f.claims())

	f.fake.Fail("RawRefs", errBoom)
	assert.Nil(t, f.room("carol").Drop(slug))
	f.fake.Fail("RawRefs", nil)
	assert.Empty(t, f.room("carol").Drop(slug))
	assert.Empty(t, f.claims())
}

// Without a network (the fake) claims stay in this repository, and
// Refresh has nothing to bring.
func TestRefreshWithoutNetwork(t *testing.T) {
	f := fakeFixture(t, newClock(t0))
	remote, err := f.room("alice").Refresh(slug)
	require.NoError(t, err)
	assert.Empty(t, remote)
	for _, cfg := range []store.Config{{}, {ClaimsRemote: "none"}, {ClaimsRemote: "origin"}} {
		rep, err := New(f.store("alice", cfg), nil).Claim(Request{Slug: slug, Unit: "T1"})
		require.NoError(t, err, "%+v", cfg)
		assert.Empty(t, rep.Remote, "%+v", cfg)
	}
}
