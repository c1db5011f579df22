package reconcile

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

const reviewPlan = `# Review - Phases

**Item states:** candidate, included, level-2, level-3, level-4
**Settled states:** level-3, level-4

## Phases

- [ ] **R1**: Read the papers
  - Items: 6
  - Metric: words >= 100
- [ ] **R2**: Memo
  - Items: intro, body
  - Counter: headings in outputs/memo.md
  - Settle items before done: no
- [ ] **R3**: Free
  - Item states: draft, final
`

// knowledge is a scenario of a knowledge-mode task under plan text.
func knowledge(t *testing.T, text string) *scenario {
	sc := &scenario{t: t, clock: time.Date(2026, 1, 14, 10, 30, 0, 0, time.UTC)}
	p, err := plan.Parse("plan.md", []byte(text))
	require.NoError(t, err)
	sc.p = p
	sc.s = Seed(state.New(state.Knowledge, "Review", "review", ""), "review", p)
	sc.must(progresslog.Entry{Kind: progresslog.KindCreated, Fields: []progresslog.Field{{Name: "Name", Value: "Review"}, {Name: "Mode", Value: "knowledge"}}})
	return sc
}

func marks(t *testing.T, s string) []state.ItemMark {
	m, err := progresslog.ParseItems(s)
	require.NoError(t, err)
	return m
}

func refusal(t *testing.T, err error) *Refusal {
	t.Helper()
	var r *Refusal
	require.ErrorAs(t, err, &r)
	return r
}

func TestDecideItemStates(t *testing.T) {
	sc := knowledge(t, reviewPlan)
	// A declared state, in any case, is recorded as declared.
	ev, err := Decide(sc.s, sc.p, Intent{Action: Work, Unit: "R1", Items: marks(t, "1-4=Candidate, 5=level-3, 6=skipped")})
	require.NoError(t, err)
	assert.Equal(t, marks(t, "1-4=candidate, 5=level-3, 6=skipped"), ev.Items)

	for _, tc := range []struct{ unit, items, want string }{
		{"R1", "3=level-5", `item 3: "level-5" is not an item state of R1 (its states, declared at plan.md:3: candidate, included, level-2, level-3, level-4 (settled: level-3, level-4), and skipped, failed); nothing was recorded: write item 3=STATE with one of them`},
		{"R1", "3", `item 3: "done" is not an item state of R1`},
		{"R3", "x=level-3", `item x: "level-3" is not an item state of R3 (its states, declared at plan.md:16: draft, final (settled: final), and skipped, failed)`},
	} {
		_, err := Decide(sc.s, sc.p, Intent{Action: Work, Unit: tc.unit, Items: marks(t, tc.items)})
		assert.Equal(t, UnknownItemState, refusal(t, err).Code, tc.items)
		assert.Contains(t, err.Error(), tc.want, tc.items)
	}
	// Without declared states: done, skipped, failed, as before.
	dev := newScenario(t, itemsPlan)
	_, err = Decide(dev.s, dev.p, Intent{Action: Work, Unit: "T1", Items: marks(t, "3=level-3")})
	assert.Equal(t, `item 3: "level-3" is not an item state of T1: its items are done, skipped or failed; nothing was recorded: write item 3=done, or declare the states its items move through in tasks.md ("Item states: candidate, included, level-3", for the plan or the unit)`, err.Error())
	assert.Equal(t, "item 3: \"level-3\" is not an item state of T1: its items are done, skipped or failed; nothing was recorded: write --item 3=done, or declare the states its items move through in tasks.md (\"Item states: candidate, included, level-3\", for the plan or the unit)",
		refusal(t, err).Worded(func(f string) string { return "--" + f }))

	// Values belong to the unit's items.
	_, err = Decide(sc.s, sc.p, Intent{Action: Work, Unit: "R1", Values: []state.ItemValue{{Item: "9", Name: "score", Text: "4"}}})
	assert.Equal(t, UnknownItem, refusal(t, err).Code)
	assert.Contains(t, err.Error(), "item 9 is not an item of R1 (its items in plan.md: 1 to 6)")
	ev, err = Decide(sc.s, sc.p, Intent{Action: Work, Unit: "R1", Values: []state.ItemValue{{Item: "2", Name: "score", Text: "4"}}, Metrics: []state.Metric{{Name: "words", Value: "80"}}})
	require.NoError(t, err)
	assert.Equal(t, []state.ItemValue{{Item: "2", Name: "score", Text: "4"}}, ev.Values)
	assert.Equal(t, []state.Metric{{Name: "words", Value: "80"}}, ev.Metrics)
}

func TestSettleBeforeDone(t *testing.T) {
	sc := knowledge(t, reviewPlan)
	sc.must(iter("R1", 1, "Items", "1-4=level-3, 5=included, 6=candidate", "Metrics", "words=120"))
	signal := Intent{Action: Work, Unit: "R1", Signal: true}

	// Two of six unsettled: the signal is refused, naming them and the fix.
	_, err := Decide(sc.s, sc.p, signal)
	r := refusal(t, err)
	assert.Equal(t, ItemsUnsettled, r.Code)
	assert.Equal(t, `unit R1 cannot move toward done while 2 of its 6 items are not settled (candidate: 6; included: 5); nothing was recorded: move them to a settled state (--item 6=level-3; settled: level-3, level-4, skipped, failed) or skip them (--item 6=skipped), then try again ("Settle items before done: no" in plan.md turns the rule off)`,
		r.Worded(func(f string) string { return "--" + f }))
	// Finish is the same move.
	_, err = Decide(sc.s, sc.p, Intent{Action: Finish, Unit: "R1"})
	assert.Equal(t, ItemsUnsettled, refusal(t, err).Code)
	// Work without a signal goes on.
	_, err = Decide(sc.s, sc.p, Intent{Action: Work, Unit: "R1", Items: marks(t, "5=level-2")})
	require.NoError(t, err)

	// The request's own items count: settling both with the signal is accepted.
	in := signal
	in.Items = marks(t, "5=level-4, 6=skipped")
	ev, err := Decide(sc.s, sc.p, in)
	require.NoError(t, err)
	assert.Equal(t, "R1_DONE", ev.Signal)

	// A metric short of its target holds it too, until the request's own metric meets it.
	sc.must(iter("R1", 2, "Items", "5=level-4, 6=skipped", "Metrics", "words=90"))
	_, err = Decide(sc.s, sc.p, signal)
	assert.Equal(t, MetricShort, refusal(t, err).Code)
	assert.Equal(t, "unit R1 cannot move toward done: metric words is 90, short of its target in plan.md (words >= 100); nothing was recorded: go on with the work and record the metric with metric words=N, then try again", err.Error())
	in = signal
	in.Metrics = []state.Metric{{Name: "words", Value: "100"}}
	_, err = Decide(sc.s, sc.p, in)
	require.NoError(t, err)

	// Moving an item back is allowed, and named.
	back := Intent{Action: Work, Unit: "R1", Items: marks(t, "1-2=included, 3=level-4, 6=level-2")}
	ev, err = Decide(sc.s, sc.p, back)
	require.NoError(t, err)
	assert.Equal(t, []string{"1-2 level-3 → included", "6 skipped → level-2"}, MovedBack(sc.s, sc.p, ev))

	// A unit with "Settle items before done: no" is not held; one with
	// it (by the mode) is held by a counter that disagrees.
	sc.must(iter("R2", 1, "Items", "intro=candidate"))
	_, err = Decide(sc.s, sc.p, Intent{Action: Work, Unit: "R2", Signal: true, Counts: Counts{"R2": {{Counter: "headings in outputs/memo.md", InFile: 4}}}})
	require.NoError(t, err)
	p2 := mustPlanFile(t, "plan.md", strings.Replace(reviewPlan, "  - Settle items before done: no\n", "  - Item states: draft, final\n", 1))
	_, err = Decide(sc.s, p2, Intent{Action: Work, Unit: "R2", Signal: true, Items: marks(t, "intro=final, body=final"), Counts: Counts{"R2": {{Counter: "headings", Path: "x/outputs/memo.md", InFile: 4}}}})
	r = refusal(t, err)
	assert.Equal(t, CounterDisagrees, r.Code)
	assert.Equal(t, "unit R2 cannot move toward done while counter headings in x/outputs/memo.md disagrees with its ledger: 4 in the file, 2 items done; nothing was recorded: trust the file: record the items it holds (item ID) or redo those it lost, then try again", err.Error())
	_, err = Decide(sc.s, p2, Intent{Action: Work, Unit: "R2", Signal: true, Items: marks(t, "intro=final, body=final"), Counts: Counts{"R2": {{Counter: "headings in outputs/memo.md", InFile: 2}}}})
	require.NoError(t, err)
	_, err = Decide(sc.s, p2, Intent{Action: Work, Unit: "R2", Signal: true, Items: marks(t, "intro=skipped, body=skipped"), Counts: Counts{"R2": {{Counter: "headings", Missing: true}}}})
	require.NoError(t, err, "a missing file agrees with no items done")

	// Development mode settles nothing by default: the audit's unit with
	// a ledger of 6 and none recorded moves on there, and is held where
	// the plan asks for it.
	dev := "# D - Tasks\n\n## Tasks\n\n- [ ] **T1**: six\n  - Items: 6\n"
	ds := newScenario(t, dev)
	ds.must(iter("T1", 1))
	_, err = Decide(ds.s, ds.p, Intent{Action: Work, Unit: "T1", Signal: true})
	require.NoError(t, err)
	held := mustPlan(t, strings.Replace(dev, "## Tasks", "**Settle items before done:** yes\n\n## Tasks", 1))
	_, err = Decide(ds.s, held, Intent{Action: Work, Unit: "T1", Signal: true})
	r = refusal(t, err)
	assert.Equal(t, ItemsUnsettled, r.Code)
	assert.Contains(t, err.Error(), "while 6 of its 6 items are not settled (not recorded: 1-6); nothing was recorded: move them to a settled state (item 1=done; settled: done, skipped, failed)")
}

func mustPlanFile(t testing.TB, file, text string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse(file, []byte(text))
	require.NoError(t, err)
	return p
}

func TestFoldValuesAndMetrics(t *testing.T) {
	sc := knowledge(t, reviewPlan)
	sc.must(iter("R1", 1, "Items", "1-2=level-3", "Values", `1:score="4", 1:finding="Entity consolidation required"`, "Metrics", "words=812, findings=3"))
	sc.must(iter("R1", 2, "Items", "1=level-4", "Values", `2:finding="IP assignments incomplete", 1:score=""`, "Metrics", "words=1640"))
	u := sc.unit("R1")
	assert.Equal(t, map[string][]string{"level-3": {"2"}, "level-4": {"1"}}, u.Items.States)
	assert.Equal(t, map[string]map[string]string{"1": {"finding": "Entity consolidation required"}, "2": {"finding": "IP assignments incomplete"}}, u.Items.Values)
	assert.Equal(t, map[string]string{"words": "1640", "findings": "3"}, u.Metrics)

	all, problems := Fold(Input{Slug: "review", Base: state.New(state.Knowledge, "Review", "review", ""), Plan: sc.p, Entries: sc.entries})
	require.Empty(t, problems)
	assert.Equal(t, string(sc.s.Encode()), string(all.Encode()), "the fold of the log is the view stepped to")
	again, _ := Fold(Input{Slug: "review", Base: all, Plan: sc.p, Entries: sc.entries})
	assert.Empty(t, Diff(all, again, sc.p))

	edited := all.Clone()
	edited.Units["R1"].Metrics["words"] = "9"
	edited.Units["R1"].Items.SetValue(state.ItemValue{Item: "2", Name: "finding", Text: "x"})
	d := Diff(edited, all, sc.p)
	require.Len(t, d, 2)
	assert.Equal(t, `R1.items: recorded "level-3 2; level-4 1; total 6; 1:finding=\"Entity consolidation required\"; 2:finding=\"x\"", derived "level-3 2; level-4 1; total 6; 1:finding=\"Entity consolidation required\"; 2:finding=\"IP assignments incomplete\"" (from progress.md)`, d[0].String())
	assert.Equal(t, `R1.metrics: recorded "findings=3, words=9", derived "findings=3, words=1640" (from progress.md)`, d[1].String())

	// A field that does not read is reported; the iteration still counts.
	e := iter("R1", 3, "Values", `1:score=4`, "Metrics", "words=many")
	e.Stamp = "2026-01-14T12:00:00Z"
	_, err := EventFrom(e, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `**Values:** value 1:score: the text is not in double quotes`)
	assert.Contains(t, err.Error(), `**Metrics:** metric words: "many" is not a number`)
}

// TestFoldDeclaredStatesProperty folds random logs of declared states,
// values and metrics and checks that folding at once equals stepping
// through state.json, and that each item is in one state at most.
func TestFoldDeclaredStatesProperty(t *testing.T) {
	p := mustPlanFile(t, "plan.md", reviewPlan)
	states := []string{"candidate", "included", "level-2", "level-3", "level-4", "skipped", "failed", "done"}
	for seed := int64(0); seed < 100; seed++ {
		r := rand.New(rand.NewSource(seed))
		clock := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
		entries := []progresslog.Entry{{Kind: progresslog.KindCreated, Stamp: clock.Format(time.RFC3339),
			Fields: []progresslog.Field{{Name: "Name", Value: "R"}}}}
		count := map[string]int{}
		for i := 0; i < 5+r.Intn(30); i++ {
			clock = clock.Add(time.Minute)
			u := []string{"R1", "R3"}[r.Intn(2)]
			count[u]++
			var ms, vs []string
			for j := 0; j < 1+r.Intn(3); j++ {
				lo := 1 + r.Intn(6)
				ms = append(ms, fmt.Sprintf("%d-%d=%s", lo, lo+r.Intn(7-lo), states[r.Intn(len(states))]))
				vs = append(vs, fmt.Sprintf("%d:%s=%q", lo, []string{"score", "finding"}[r.Intn(2)], []string{"", "4", "a, \"b\""}[r.Intn(3)]))
			}
			fields := []progresslog.Field{{Name: "Did", Value: "x"}, {Name: "Items", Value: strings.Join(ms, ", ")}, {Name: "Values", Value: strings.Join(vs, ", ")}}
			if r.Intn(2) == 0 {
				fields = append(fields, progresslog.Field{Name: "Metrics", Value: fmt.Sprintf("words=%d", r.Intn(300))})
			}
			entries = append(entries, progresslog.Entry{Kind: progresslog.KindIteration, Unit: u, Iteration: count[u], Stamp: clock.Format(time.RFC3339), Fields: fields})
		}
		name := fmt.Sprint("declared seed ", seed)
		checkFoldProperty(t, p, entries, name)
		all, problems := Fold(Input{Slug: "prop", Plan: p, Entries: entries})
		require.Empty(t, problems, name)
		for _, id := range all.IDs() {
			it := all.Units[id].Items
			for n := 1; n <= 6; n++ {
				in := 0
				for _, st := range it.StateNames() {
					if it.Set(st).Has(fmt.Sprint(n)) {
						in++
					}
				}
				require.LessOrEqual(t, in, 1, "%s: %s item %d", name, id, n)
			}
		}
	}
}

// TestAdviceOffersItemWork: while items are unsettled the advisor offers
// no signal, but the item work that settles them, each offer one Decide
// accepts.
func TestAdviceOffersItemWork(t *testing.T) {
	sc := knowledge(t, reviewPlan)
	sc.must(iter("R1", 1, "Items", "1-4=level-3, 5=included, 6=candidate", "Metrics", "words=120"))
	a := AdviseIn(sc.s, sc.p, Situation{})
	var fors []Move
	for _, o := range a.Offers {
		if o.Unit == "R1" {
			fors = append(fors, o.For)
			assert.False(t, o.Intent.Signal, "no signal while items are unsettled")
			_, err := Decide(sc.s, sc.p, o.Intent)
			assert.NoError(t, err, "%v", o)
		}
	}
	assert.Equal(t, []Move{MoveContinue, MoveSettle, MoveBlock}, fors)
	settle := a.Offers[1]
	assert.Equal(t, []state.ItemMark{{Range: state.ItemRange{Lo: 6, Hi: 6}, State: "level-3"}}, settle.Intent.Items)

	// Settled: the signal is offered again.
	sc.must(iter("R1", 2, "Items", "5-6=level-4"))
	a = AdviseIn(sc.s, sc.p, Situation{})
	assert.True(t, a.Offers[1].Intent.Signal)
	// A counter that disagrees holds it (the counter is R2's; R1 has none,
	// so its counts do not matter).
	a = AdviseIn(sc.s, sc.p, Situation{Counts: Counts{"R1": {{Counter: "x", InFile: 9}}}})
	assert.True(t, a.Offers[1].Intent.Signal)
}

func TestAdviceSaysWhySettleHolds(t *testing.T) {
	sc := knowledge(t, reviewPlan)
	sc.must(iter("R1", 1, "Items", "1-5=level-3, 6=candidate"))
	a := AdviseIn(sc.s, sc.p, Situation{})
	require.NotNil(t, a.Settle)
	assert.Equal(t, ItemsUnsettled, a.Settle.Code)
	sc.must(iter("R1", 2, "Items", "6=level-3"))
	a = AdviseIn(sc.s, sc.p, Situation{})
	require.NotNil(t, a.Settle)
	assert.Equal(t, MetricShort, a.Settle.Code, "no words recorded yet")
	sc.must(iter("R1", 3, "Metrics", "words=100"))
	assert.Nil(t, AdviseIn(sc.s, sc.p, Situation{}).Settle)
}
