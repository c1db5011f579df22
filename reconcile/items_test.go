package reconcile

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

const itemsPlan = `# Memo - Tasks

## Tasks

- [ ] **T1**: Scan the reports
  - Items: 17
  - Counter: entries in outputs/inventory.md
- [ ] **T2**: Sections
  - Items: intro, methods, results
- [ ] **T3**: Free
`

func TestFoldItemLedger(t *testing.T) {
	sc := newScenario(t, itemsPlan)
	sc.must(iter("T1", 1, "Items", "1-12=done"))
	sc.must(iter("T1", 2, "Items", "13=skipped, 14=failed"))
	u := sc.unit("T1")
	require.NotNil(t, u.Items)
	assert.Equal(t, []string{"1-12"}, u.Items.Done)
	assert.Equal(t, []string{"13"}, u.Items.Skipped)
	assert.Equal(t, []string{"14"}, u.Items.Failed)
	assert.Equal(t, 17, state.Val(u.Items.Total))

	// A later entry for an item wins.
	sc.must(iter("T1", 3, "Items", "14=done 5=failed, 15-17"))
	assert.Equal(t, []string{"1-4", "6-12", "14-17"}, u2(sc, "T1").Done)
	assert.Equal(t, []string{"5"}, u2(sc, "T1").Failed)
	assert.Equal(t, []string{"13"}, u2(sc, "T1").Skipped)

	// Named items; a unit without Items in the plan keeps a ledger with
	// no total; a unit with no items recorded has none.
	sc.must(iter("T2", 1, "Items", "methods=done"))
	assert.Equal(t, []string{"methods"}, u2(sc, "T2").Done)
	assert.Equal(t, 3, state.Val(u2(sc, "T2").Total))
	sc.must(iter("T3", 1, "Items", "a-1, b.2=skipped"))
	assert.Equal(t, []string{"a-1"}, u2(sc, "T3").Done)
	assert.Nil(t, u2(sc, "T3").Total)

	out := string(sc.s.Encode())
	assert.Contains(t, out, "      \"items\": {\n        \"done\": [\"1-4\", \"6-12\", \"14-17\"],\n        \"skipped\": [\"13\"],\n        \"failed\": [\"5\"],\n        \"total\": 17\n      }")

	// The fold of the whole log, and a reconcile of the result, are the
	// same bytes: deleting state.json and reconciling rebuilds it.
	all, problems := Fold(Input{Slug: "user-auth", Plan: sc.p, Entries: sc.entries})
	require.Empty(t, problems)
	assert.Equal(t, out, string(all.Encode()))
	again, _ := Fold(Input{Slug: "user-auth", Base: all, Plan: sc.p, Entries: sc.entries})
	assert.Equal(t, out, string(again.Encode()))
	assert.Empty(t, Diff(all, again, sc.p))

	// A ledger that differs is a discrepancy.
	edited := all.Clone()
	edited.Units["T1"].Items.Done = []string{"1-13"}
	d := Diff(edited, all, sc.p)
	require.Len(t, d, 1)
	assert.Equal(t, `T1.items: recorded "done 1-13; skipped 13; failed 5; total 17", derived "done 1-4, 6-12, 14-17; skipped 13; failed 5; total 17" (from progress.md)`, d[0].String())

	// The plan's total follows the plan.
	p2 := mustPlan(t, strings.Replace(itemsPlan, "Items: 17", "Items: 20", 1))
	re, _ := Fold(Input{Slug: "user-auth", Base: all, Plan: p2, Entries: sc.entries})
	assert.Equal(t, 20, state.Val(re.Units["T1"].Items.Total))
}

func u2(sc *scenario, id string) *state.Items { return sc.unit(id).Items }

func TestFoldBadItemsField(t *testing.T) {
	sc := newScenario(t, itemsPlan)
	e := iter("T1", 1, "Items", "3=fin.ished")
	e.Stamp = "2026-01-14T11:00:00Z"
	ev, err := EventFrom(e, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `**Items:** item "3=fin.ished": "fin.ished" is not an item state`)
	assert.Nil(t, ev.Items)
	s, problems := Fold(Input{Slug: "x", Plan: sc.p, Entries: append(sc.entries, e)})
	require.Len(t, problems, 1)
	assert.Equal(t, 1, state.Val(s.Units["T1"].IterationsUsed), "the iteration still counts")
	assert.Nil(t, s.Units["T1"].Items)
}

func TestDecideRefusesUnknownItems(t *testing.T) {
	sc := newScenario(t, itemsPlan)
	mark := func(s string) []state.ItemMark {
		m, err := progresslog.ParseItems(s)
		require.NoError(t, err)
		return m
	}
	for _, tc := range []struct{ unit, items, want string }{
		{"T1", "18", "item 18 is not an item of T1 (its items in tasks.md: 1 to 17); nothing was recorded"},
		{"T1", "10-18=skipped", "item 10-18 is not an item of T1"},
		{"T1", "intro", "item intro is not an item of T1"},
		{"T2", "conclusion", "item conclusion is not an item of T2 (its items in tasks.md: intro, methods, results)"},
		{"T2", "1", "item 1 is not an item of T2"},
	} {
		_, err := Decide(sc.s, sc.p, Intent{Action: Work, Unit: tc.unit, Items: mark(tc.items)})
		var r *Refusal
		require.ErrorAs(t, err, &r, tc.items)
		assert.Equal(t, UnknownItem, r.Code)
		assert.Contains(t, err.Error(), tc.want)
	}
	for unit, items := range map[string]string{"T1": "1-17=done", "T2": "intro=skipped results", "T3": "anything.1"} {
		ev, err := Decide(sc.s, sc.p, Intent{Action: Work, Unit: unit, Items: mark(items)})
		require.NoError(t, err, unit)
		assert.Equal(t, mark(items), ev.Items)
	}
	// Finish takes items too.
	sc.must(iter("T1", 1))
	_, err := Decide(sc.s, sc.p, Intent{Action: Finish, Unit: "T1", Items: mark("99")})
	require.ErrorContains(t, err, "item 99 is not an item of T1")
	ev, err := Decide(sc.s, sc.p, Intent{Action: Finish, Unit: "T1", Items: mark("17")})
	require.NoError(t, err)
	assert.Equal(t, mark("17"), ev.Items)
}

// TestFoldItemsProperty folds random logs that record items and checks
// that folding at once equals stepping through state.json, and that a
// reconcile of the result changes nothing.
func TestFoldItemsProperty(t *testing.T) {
	p := mustPlan(t, itemsPlan)
	names := []string{"intro", "methods", "results"}
	for seed := int64(0); seed < 100; seed++ {
		r := rand.New(rand.NewSource(seed))
		clock := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
		entries := []progresslog.Entry{{Kind: progresslog.KindCreated, Stamp: clock.Format(time.RFC3339),
			Fields: []progresslog.Field{{Name: "Name", Value: "R"}, {Name: "Mode", Value: "development"}}}}
		count := map[string]int{}
		for i := 0; i < 5+r.Intn(40); i++ {
			clock = clock.Add(time.Minute)
			u := []string{"T1", "T2", "T3"}[r.Intn(3)]
			count[u]++
			var marks []string
			for j := 0; j < 1+r.Intn(4); j++ {
				st := state.ItemStates[r.Intn(3)]
				switch u {
				case "T1":
					lo := 1 + r.Intn(17)
					marks = append(marks, fmt.Sprintf("%d-%d=%s", lo, lo+r.Intn(18-lo), st))
				case "T2":
					marks = append(marks, names[r.Intn(3)]+"="+st)
				default:
					marks = append(marks, fmt.Sprintf("x%d=%s", r.Intn(5), st))
				}
			}
			entries = append(entries, progresslog.Entry{Kind: progresslog.KindIteration, Unit: u, Iteration: count[u], Stamp: clock.Format(time.RFC3339),
				Fields: []progresslog.Field{{Name: "Did", Value: "x"}, {Name: "Items", Value: strings.Join(marks, ", ")}}})
		}
		checkFoldProperty(t, p, entries, fmt.Sprint("items seed ", seed))
		all, problems := Fold(Input{Slug: "prop", Plan: p, Entries: entries})
		require.Empty(t, problems)
		// Each item is in at most one state.
		for _, id := range all.IDs() {
			it := all.Units[id].Items
			if it == nil {
				continue
			}
			d, s, f := it.Set(state.ItemDone), it.Set(state.ItemSkipped), it.Set(state.ItemFailed)
			for _, name := range append([]string{"intro", "methods", "results", "x0", "x1", "x2", "x3", "x4"}, strings.Split("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", " ")...) {
				n := 0
				for _, set := range []state.ItemSet{d, s, f} {
					if set.Has(name) {
						n++
					}
				}
				require.LessOrEqual(t, n, 1, "seed %d: %s %s", seed, id, name)
			}
		}
	}
}
