package claims

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
)

// The room's decisions as tables: which unit a claim picks, on which
// terms it is taken (anew, renewed, refused while held, stolen after the
// lease), who may release it, and what a renewal moves. Each table runs on
// the fake and on a real repository: claims without a remote need no
// network.

// lease is agent's claim of unit from since to until (after t0), leased
// for an hour.
func lease(unit, agent string, since, until time.Duration) store.Claim {
	return store.Claim{Unit: unit, Agent: agent, Since: stamp(t0.Add(since)), Until: stamp(t0.Add(until)), For: "1h0m0s"}
}

// finished is agent's claim of unit, leased from t0 for an hour and
// released done at (after t0).
func finished(unit, agent string, at time.Duration) store.Claim {
	return finishedLease(lease(unit, agent, 0, time.Hour), at)
}

// finishedLease is c released done at (after t0): no lease, finished.
func finishedLease(c store.Claim, at time.Duration) store.Claim {
	c.Until, c.Finished = "", stamp(t0.Add(at))
	return c
}

// stolen is c taken from the agent from.
func stolen(c store.Claim, from string) store.Claim {
	c.StolenFrom = from
	return c
}

func ptr[T any](v T) *T { return &v }

// seed puts the claims of a table row, and refs holding what is not a
// claim.
func (f *fixture) seed(have []store.Claim, damaged []string) {
	f.t.Helper()
	for _, c := range have {
		f.setClaim(c)
	}
	for _, unit := range damaged {
		f.setRaw(unit, []byte("not a claim\n"))
	}
}

// noID is c as the table writes it.
func noID(c store.Claim) store.Claim {
	c.ID = ""
	return c
}

// withoutIDs are claims as the table writes them.
func withoutIDs(claims map[string]store.Claim) map[string]store.Claim {
	out := map[string]store.Claim{}
	for unit, c := range claims {
		c.ID = ""
		out[unit] = c
	}
	return out
}

func TestClaimTerms(t *testing.T) {
	doneReopened := func(f *fixture) { f.done("T1"); f.reopen("T1") }
	cases := []struct {
		name    string
		log     func(f *fixture) // the task's history after its plan
		have    []store.Claim
		damaged []string // units whose ref holds no claim
		at      time.Duration
		agent   string // the store's agent
		req     Request

		err      string // the refusal, "" for none
		held     bool   // the refusal says another agent holds it
		want     store.Claim
		renewed  bool
		stole    string
		wantNote bool
	}{
		{name: "a free unit, named", agent: "alice", req: Request{Unit: "T1", For: time.Hour},
			want: lease("T1", "alice", 0, time.Hour)},
		{name: "the default lease", agent: "alice", req: Request{Unit: "T2"},
			want: store.Claim{Unit: "T2", Agent: "alice", Since: stamp(t0), Until: stamp(t0.Add(DefaultLease)), For: DefaultLease.String()}},
		{name: "the next unit, none named", agent: "alice", req: Request{For: time.Hour},
			want: lease("T1", "alice", 0, time.Hour)},
		{name: "the next unit skips one held", agent: "bob", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 10 * time.Minute, req: Request{For: time.Hour},
			want: lease("T2", "bob", 10*time.Minute, 70*time.Minute)},
		{name: "the next unit skips a finished claim", agent: "bob", log: doneReopened, have: []store.Claim{finished("T1", "alice", 0)}, req: Request{For: time.Hour},
			want: lease("T2", "bob", 0, time.Hour)},
		{name: "no unit left", agent: "carol", have: []store.Claim{lease("T1", "alice", 0, time.Hour), lease("T2", "bob", 0, time.Hour)}, at: time.Minute, req: Request{},
			err: "no unit is ready"},
		{name: "the request's agent", agent: "alice", req: Request{Unit: "T1", Agent: "  bob ", For: time.Hour},
			want: lease("T1", "bob", 0, time.Hour)},
		{name: "renewed by its holder", agent: "alice", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 30 * time.Minute, req: Request{Unit: "T1", For: time.Hour},
			want: lease("T1", "alice", 0, 90*time.Minute), renewed: true},
		{name: "renewed by its holder after the lease", agent: "alice", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 2 * time.Hour, req: Request{Unit: "T1", For: time.Hour},
			want: lease("T1", "alice", 0, 3*time.Hour), renewed: true},
		{name: "refused while the lease runs", agent: "bob", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: time.Hour - time.Second, req: Request{Unit: "T1"},
			err: "T1 is held by alice until " + stamp(t0.Add(time.Hour)) + " (since " + stamp(t0) + ")", held: true},
		{name: "refused while the lease runs, even to a steal", agent: "bob", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: time.Hour - time.Second, req: Request{Unit: "T1", Steal: true},
			err: "T1 is held by alice until", held: true},
		{name: "an ended lease is not taken without steal", agent: "bob", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: time.Hour, req: Request{Unit: "T1"},
			err: "T1 was held by alice until " + stamp(t0.Add(time.Hour)) + ", which has passed; take it with `itr claim T1 --steal` (the steal is logged)"},
		{name: "an ended lease is stolen", agent: "bob", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 2 * time.Hour, req: Request{Unit: "T1", Steal: true, For: time.Hour},
			want: stolen(lease("T1", "bob", 2*time.Hour, 3*time.Hour), "alice"), stole: "alice", wantNote: true},
		{name: "a finished claim holds", agent: "bob", log: doneReopened, have: []store.Claim{finished("T1", "alice", 0)}, at: 5 * time.Hour, req: Request{Unit: "T1"},
			err: "T1 is held by alice, who finished it at " + stamp(t0), held: true},
		{name: "a finished claim of a reopened unit is stolen", agent: "bob", log: doneReopened, have: []store.Claim{finished("T1", "alice", 0)}, req: Request{Unit: "T1", Steal: true, For: time.Hour},
			want: stolen(lease("T1", "bob", 0, time.Hour), "alice"), stole: "alice", wantNote: true},
		{name: "a finished claim of its holder is not renewed", agent: "alice", log: doneReopened, have: []store.Claim{finished("T1", "alice", 0)}, req: Request{Unit: "T1", For: time.Hour},
			err: "T1 is held by alice, who finished it at " + stamp(t0), held: true},
		{name: "a ref that holds no claim holds", agent: "bob", damaged: []string{"T1"}, req: Request{Unit: "T1", Steal: true},
			err: "T1 is held by unknown", held: true},
		{name: "the rule book refuses a unit whose dependency is open", agent: "alice", req: Request{Unit: "T3"},
			err: "T3"},
		{name: "the rule book refuses a unit done", agent: "alice", log: func(f *fixture) { f.done("T1") }, req: Request{Unit: "T1"},
			err: "T1"},
		{name: "an agent that is not plain text", agent: "alice", req: Request{Unit: "T1", Agent: "bob\x00mallory"},
			err: "agent holds a NUL byte"},
		{name: "an unknown task", agent: "alice", req: Request{Slug: "nope", Unit: "T1"},
			err: "nope"},
	}
	backends(t, func(t *testing.T, on string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f, c := parallelFixture(t, on)
				if tc.log != nil {
					tc.log(f)
				}
				f.seed(tc.have, tc.damaged)
				before, head := f.claims(), f.head()
				c.Set(t0.Add(tc.at))
				req := tc.req
				if req.Slug == "" {
					req.Slug = slug
				}

				rep, err := f.room(tc.agent).Claim(req)

				assert.Equal(t, head, f.head(), "a claim makes no commit")
				if tc.err != "" {
					require.Error(t, err)
					assert.Contains(t, err.Error(), tc.err)
					assert.Equal(t, tc.held, IsHeld(err), "IsHeld(%v)", err)
					assert.Nil(t, rep)
					assert.Equal(t, before, f.claims(), "a refusal moves no claim")
					assert.Empty(t, f.notes)
					return
				}
				require.NoError(t, err)
				after := f.claims()
				got := after[tc.want.Unit]
				assert.Equal(t, got.ID, rep.Claim.ID, "the report names the blob the ref holds")
				assert.Equal(t, tc.want, noID(got))
				assert.Equal(t, tc.want, noID(rep.Claim))
				assert.Equal(t, tc.renewed, rep.Renewed)
				assert.Equal(t, tc.stole, rep.Stole)
				assert.Empty(t, rep.Remote)
				delete(after, tc.want.Unit)
				delete(before, tc.want.Unit)
				assert.Equal(t, before, after, "no other claim moved")
				if tc.wantNote {
					require.Len(t, f.notes, 1)
					assert.Contains(t, f.notes[0], tc.want.Agent+" took "+tc.want.Unit+" from "+tc.stole+", whose lease ended ")
					assert.Equal(t, "note-1", rep.Note)
				} else {
					assert.Empty(t, f.notes)
					assert.Empty(t, rep.Note)
				}
			})
		}
	})
}

func TestRelease(t *testing.T) {
	cases := []struct {
		name  string
		done  bool // T1 is done in the task's state
		have  []store.Claim
		at    time.Duration
		agent string // the store's agent
		as    string // the agent named ("" the store's)
		force bool

		err  string
		gone bool         // the ref of T1 is deleted
		left *store.Claim // else what it holds after
	}{
		{name: "by its holder", agent: "alice", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, gone: true},
		{name: "by its holder, named", agent: "bob", as: " alice ", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, gone: true},
		{name: "by its holder after the lease", agent: "alice", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 3 * time.Hour, gone: true},
		{name: "by another agent", agent: "bob", have: []store.Claim{lease("T1", "alice", 0, time.Hour)},
			err: "T1 is held by alice, not by bob; only its holder releases it (or `itr release T1 --force`)"},
		{name: "by another agent, forced", agent: "bob", force: true, have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, gone: true},
		{name: "not claimed", agent: "alice", have: []store.Claim{lease("T2", "alice", 0, time.Hour)},
			err: "T1 is not claimed; there is nothing to release"},
		{name: "done, by its holder: the claim stays, finished", agent: "alice", done: true, have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 30 * time.Minute,
			left: ptr(finishedLease(lease("T1", "alice", 0, time.Hour), 30*time.Minute))},
		{name: "done, by another agent, forced", agent: "bob", force: true, done: true, have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, gone: true},
		{name: "finished, by its holder", agent: "alice", done: true, have: []store.Claim{finished("T1", "alice", 0)},
			err: "T1 was finished by alice at " + stamp(t0) + ": its claim stays so that no clone starts it again"},
		{name: "finished, forced", agent: "alice", force: true, done: true, have: []store.Claim{finished("T1", "alice", 0)}, gone: true},
	}
	backends(t, func(t *testing.T, on string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f, c := parallelFixture(t, on)
				if tc.done {
					f.done("T1")
				}
				f.seed(tc.have, nil)
				before := f.claims()
				c.Set(t0.Add(tc.at))

				got, err := f.room(tc.agent).Release(slug, "T1", tc.as, tc.force)

				after := f.claims()
				if tc.err != "" {
					require.Error(t, err)
					assert.Contains(t, err.Error(), tc.err)
					assert.Equal(t, before, after, "a refusal moves no claim")
					return
				}
				require.NoError(t, err)
				held, ok := after["T1"]
				if tc.gone {
					assert.False(t, ok, "the claim of T1 is gone: %v", held)
					assert.Equal(t, noID(before["T1"]), noID(*got), "the claim released")
				} else {
					require.True(t, ok, "the claim of T1 stays")
					assert.Equal(t, *tc.left, noID(held))
					assert.Equal(t, *tc.left, noID(*got), "the claim as released")
				}
				delete(before, "T1")
				delete(after, "T1")
				assert.Equal(t, before, after, "no other claim moved")
			})
		}
	})
}

func TestRenewAndHeld(t *testing.T) {
	badFor := lease("T1", "alice", 0, time.Hour)
	badFor.For = "soon"
	badForRenewed := badFor
	badForRenewed.Until = stamp(t0.Add(10*time.Minute + DefaultLease))
	cases := []struct {
		name  string
		have  []store.Claim
		at    time.Duration
		agent string
		want  map[string]store.Claim // the claims after Renew of T1
	}{
		{name: "the holder's lease moves on by its length", agent: "alice", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 10 * time.Minute,
			want: map[string]store.Claim{"T1": lease("T1", "alice", 0, 70*time.Minute)}},
		{name: "even after it ended", agent: "alice", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 5 * time.Hour,
			want: map[string]store.Claim{"T1": lease("T1", "alice", 0, 6*time.Hour)}},
		{name: "a lease of no length is the default", agent: "alice", have: []store.Claim{badFor}, at: 10 * time.Minute,
			want: map[string]store.Claim{"T1": badForRenewed}},
		{name: "another agent's claim is not renewed", agent: "bob", have: []store.Claim{lease("T1", "alice", 0, time.Hour)}, at: 10 * time.Minute,
			want: map[string]store.Claim{"T1": lease("T1", "alice", 0, time.Hour)}},
		{name: "a unit not claimed", agent: "alice", have: []store.Claim{lease("T2", "alice", 0, time.Hour)}, at: 10 * time.Minute,
			want: map[string]store.Claim{"T2": lease("T2", "alice", 0, time.Hour)}},
		{name: "no claims", agent: "alice", want: map[string]store.Claim{}},
	}
	backends(t, func(t *testing.T, on string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f, c := parallelFixture(t, on)
				f.seed(tc.have, nil)
				c.Set(t0.Add(tc.at))
				warn, err := f.room(tc.agent).Renew(slug, "T1")
				require.NoError(t, err)
				assert.Empty(t, warn)
				assert.Equal(t, tc.want, withoutIDs(f.claims()))
			})
		}

		// Held is what the rule book sees of the claims: the others'
		// running leases, finished claims and damaged refs.
		t.Run("held", func(t *testing.T) {
			c := newClock(t0.Add(30 * time.Minute))
			f := newFixture(t, on, c)
			f.seed([]store.Claim{lease("T1", "alice", 0, time.Hour), lease("T2", "bob", 0, 10*time.Minute), finished("T3", "carol", 0)}, []string{"T4"})
			for agent, want := range map[string][]string{
				"alice": {"T3", "T4"},
				"bob":   {"T1", "T3", "T4"},
				"carol": {"T1", "T4"},
			} {
				held, err := f.room(agent).Held(slug)
				require.NoError(t, err)
				var units []string
				for unit := range held {
					units = append(units, unit)
				}
				assert.ElementsMatch(t, want, units, agent)
				for unit, who := range held {
					claims := f.claims()
					if cl, ok := claims[unit]; ok && cl.Agent != "(not a claim)" {
						assert.Contains(t, who, cl.Agent, unit)
					} else {
						assert.Contains(t, who, "unknown", unit)
					}
				}
			}
		})
	})
}

// spread sends agents that lost the race for the next unit to different
// ready units by their name and the attempt; a unit under way comes first.
func TestSpread(t *testing.T) {
	isolate(t)
	f := newFixture(t, onFake, newClock(t0))
	st := f.store("alice", store.Config{})
	task, err := st.Load(slug)
	require.NoError(t, err)
	ready := map[string]bool{"T1": true, "T2": true}

	seen := map[string]bool{}
	for _, agent := range []string{"alice", "bob", "carol", "dave"} {
		first := spread(task, nil, nil, agent, 1, 0)
		second := spread(task, nil, nil, agent, 2, 0)
		assert.True(t, ready[first], "%s reaches for a ready unit: %q", agent, first)
		assert.True(t, ready[second], "%s reaches for a ready unit: %q", agent, second)
		assert.NotEqual(t, first, second, "%s's next attempt reaches for another unit", agent)
		seen[first] = true
	}
	assert.Len(t, seen, 2, "agents spread over both ready units")

	// One ready unit left: the rule book chooses.
	assert.Empty(t, spread(task, reconcile.Held{"T1": "alice"}, nil, "bob", 1, 0))

	// A unit under way that nobody holds comes first.
	f.iterate("T2")
	task, err = st.Load(slug)
	require.NoError(t, err)
	assert.Empty(t, spread(task, nil, nil, "bob", 1, 0))
	unit, _, _, err := pick(st, task, choice{agent: "bob", attempt: 1}, nil, t0)
	require.NoError(t, err)
	assert.Equal(t, "T2", unit, "the unit under way")
}

// A claim that names no unit takes the next one on its first attempt,
// whoever else is at work; after a lost race it spreads, and the unit it
// lost counts as held.
func TestPickSpreadsAfterALostRace(t *testing.T) {
	isolate(t)
	f := newFixture(t, onFake, newClock(t0))
	st := f.store("alice", store.Config{})
	task, err := st.Load(slug)
	require.NoError(t, err)
	next, _, _, err := pick(st, task, choice{agent: "alice"}, nil, t0)
	require.NoError(t, err)
	working := map[string]store.Claim{"T9": lease("T9", "zed", 0, time.Hour)}
	for _, agent := range []string{"alice", "bob", "carol", "dave", "erin", "frank"} {
		unit, _, _, err := pick(st, task, choice{agent: agent}, working, t0)
		require.NoError(t, err)
		assert.Equal(t, next, unit, "%s takes the next unit first", agent)
		unit, _, _, err = pick(st, task, choice{agent: agent, attempt: 1, lost: reconcile.Held{next: "another agent"}}, working, t0)
		require.NoError(t, err)
		assert.NotEqual(t, next, unit, "%s does not reach for the unit it lost", agent)
	}
}

// Agents at work beyond spreadWindow widen the window of ready units a
// lost race spreads over: one per agent.
func TestAtWork(t *testing.T) {
	claims := map[string]store.Claim{
		"T1": lease("T1", "bob", 0, time.Hour),
		"T2": lease("T2", "bob", 0, time.Hour),
		"T3": finished("T3", "carol", -time.Minute),
		"T4": lease("T4", "dave", -3*time.Hour, -2*time.Hour), // ended
		"T5": lease("T5", "alice", 0, time.Hour),
		"T6": lease("T6", "erin", 0, time.Hour),
	}
	assert.Equal(t, 2, atWork(claims, "alice", t0), "bob and erin")
	assert.Equal(t, 0, atWork(nil, "alice", t0))
}

// parallelFixture marks the test parallel and makes a fixture on the
// repository on, with a clock of its own at t0.
func parallelFixture(t *testing.T, on string) (*fixture, *clock) {
	t.Helper()
	t.Parallel()
	c := newClock(t0)
	return newFixture(t, on, c), c
}
