package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

func TestItemStatesOf(t *testing.T) {
	p, err := Parse("plan.md", doc("# Review",
		"**Item states:** candidate, included, level-2, level-3, level-4",
		"**Settled states:** level-3, `level-4`",
		"",
		"## Phases",
		"- [ ] **R1**: papers",
		"  - Items: 6",
		"- [ ] **R2**: sections",
		"  - Item states: drafted, cited, Final",
		"- [ ] **R3**: cites",
		"  - Settled states: Level-2, level-3, level-4",
	))
	require.NoError(t, err)
	r1 := p.ItemStatesOf("R1")
	assert.Equal(t, []string{"candidate", "included", "level-2", "level-3", "level-4"}, r1.States)
	assert.Equal(t, []string{"level-3", "level-4"}, r1.Settled)
	assert.Equal(t, "plan.md:2", r1.Where())
	assert.True(t, r1.Declared())
	assert.True(t, r1.IsSettled("level-4"))
	assert.True(t, r1.IsSettled(state.ItemSkipped))
	assert.True(t, r1.IsSettled(state.ItemFailed))
	assert.False(t, r1.IsSettled("included"))
	assert.False(t, r1.IsSettled(state.ItemDone), "done is no state of a declared lifecycle")
	assert.True(t, r1.Finished("level-3"))
	assert.False(t, r1.Finished(state.ItemSkipped))
	got, ok := r1.Known("LEVEL-3")
	assert.True(t, ok)
	assert.Equal(t, "level-3", got, "a state is matched ignoring case and given as declared")
	_, ok = r1.Known("done")
	assert.False(t, ok)
	assert.Equal(t, 3, r1.Rank("level-3"))
	assert.Equal(t, -1, r1.Rank(state.ItemSkipped))
	assert.Equal(t, "candidate, included, level-2, level-3, level-4 (settled: level-3, level-4), and skipped, failed", r1.Text())
	assert.Equal(t, []string{"candidate", "included", "level-2", "level-3", "level-4", "skipped", "failed"}, r1.Names())

	// A unit's own states take their own settled state: the last.
	r2 := p.ItemStatesOf("R2")
	assert.Equal(t, []string{"drafted", "cited", "Final"}, r2.States)
	assert.Equal(t, []string{"Final"}, r2.Settled)
	assert.Equal(t, "plan.md:9", r2.Where())
	// A unit's settled states for the plan's states.
	r3 := p.ItemStatesOf("R3")
	assert.Equal(t, []string{"level-2", "level-3", "level-4"}, r3.Settled)
	assert.Equal(t, "plan.md:2", r3.Where())

	// Without a declaration: done, skipped, failed, done settled.
	none := (*Plan)(nil).ItemStatesOf("T1")
	assert.False(t, none.Declared())
	assert.Equal(t, []string{"done", "skipped", "failed"}, none.Names())
	assert.True(t, none.IsSettled(state.ItemDone))
	assert.Equal(t, []string{state.ItemDone}, none.SettledNames())
	assert.Equal(t, "", none.Where())
}

func TestSettleBeforeDoneAndKeyValue(t *testing.T) {
	p, err := Parse("tasks.md", doc("**Settle items before done:** yes", "**Key value:** summary", "## Tasks",
		"- [ ] **T1**: a", "- [ ] **T2**: b", "  - Settle items before done: No", "  - Key value: `score`"))
	require.NoError(t, err)
	assert.True(t, p.SettleBeforeDone("T1", state.Development), "the header wins over the mode")
	assert.False(t, p.SettleBeforeDone("T2", state.Knowledge), "the unit wins over the header")
	assert.Equal(t, "summary", p.KeyValueOf("T1"))
	assert.Equal(t, "score", p.KeyValueOf("T2"))

	bare, err := Parse("tasks.md", doc("## Tasks", "- [ ] **T1**: a"))
	require.NoError(t, err)
	assert.False(t, bare.SettleBeforeDone("T1", state.Development), "no by default in development mode")
	assert.True(t, bare.SettleBeforeDone("T1", state.Knowledge), "yes by default in knowledge mode")
	assert.Equal(t, DefaultKeyValue, bare.KeyValueOf("T1"))
	assert.True(t, (*Plan)(nil).SettleBeforeDone("T1", state.Knowledge))
}

func TestMetricTargets(t *testing.T) {
	p, err := Parse("plan.md", doc("## Phases", "- [ ] **R1**: memo", "  - Metric: words >= 2500", "  - Metric: `open` = 0", "  - Metric: errors ≤ 3.50"))
	require.NoError(t, err)
	ms := p.Unit("R1").Metrics
	require.Len(t, ms, 3)
	assert.Equal(t, MetricTarget{Raw: "words >= 2500", Name: "words", Op: ">=", Number: "2500"}, ms[0])
	assert.Equal(t, "open = 0", ms[1].String())
	assert.Equal(t, "errors <= 3.5", ms[2].String())
	assert.True(t, ms[0].Met("2500"))
	assert.False(t, ms[0].Met("2499.5"))
	assert.True(t, ms[1].Met("0"))
	assert.False(t, ms[1].Met("1"))
	assert.True(t, ms[2].Met("-1"))
	assert.False(t, ms[2].Met("4"))
	out := string(p.Render())
	assert.Contains(t, out, "  - Metric: words >= 2500\n  - Metric: `open` = 0\n  - Metric: errors ≤ 3.50\n")
}

func TestItemStatesErrors(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"**Item states:** candidate, , 3x", "## Tasks", "- [ ] **T1**: a"},
			`tasks.md:1: Item states "candidate, , 3x": "3x" is not a state name (letters, digits, '-' or '_', starting with a letter, at most 40); write the states in order, such as "Item states: candidate, included, level-3, level-4"`},
		{[]string{"**Item states:** a, b, A", "## Tasks", "- [ ] **T1**: a"}, `tasks.md:1: Item states "a, b, A": state "A" is listed twice`},
		{[]string{"**Item states:** draft, skipped", "## Tasks", "- [ ] **T1**: a"}, `tasks.md:1: Item states "draft, skipped": skipped is always a state, and a settled one (skipped and failed need no declaring); leave it out`},
		{[]string{"**Item states:**", "## Tasks", "- [ ] **T1**: a"}, `tasks.md:1: Item states "": it names no state`},
		{[]string{"**Settled states:** final", "## Tasks", "- [ ] **T1**: a"}, `tasks.md:1: Settled states without Item states: declare the item states first`},
		{[]string{"**Item states:** draft, final", "**Settled states:** done", "## Tasks", "- [ ] **T1**: a"},
			`tasks.md:2: settled state "done" is not one of the item states (draft, final); write the settled ones among the item states`},
		{[]string{"**Settle items before done:** maybe", "## Tasks", "- [ ] **T1**: a"}, `tasks.md:1: Settle items before done "maybe" is neither yes nor no; write "Settle items before done: yes" or "no"`},
		{[]string{"**Key value:** key finding", "## Tasks", "- [ ] **T1**: a"}, `tasks.md:1: Key value "key finding" is not a value's name`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Item states: a b a"}, `tasks.md:3: T1: Item states "a b a": state "a" is listed twice`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Settled states: final"}, `tasks.md:3: T1: Settled states without Item states: declare the item states first, for the unit ("- Item states: ...") or the plan ("**Item states:** ...")`},
		{[]string{"**Item states:** draft, final", "## Tasks", "- [ ] **T1**: a", "  - Item states: x, y", "  - Settled states: final"},
			`tasks.md:5: T1: settled state "final" is not one of the item states (x, y)`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Settle items before done: often"}, `tasks.md:3: T1: Settle items before done "often" is neither yes nor no`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Key value: 9lives"}, `tasks.md:3: T1: Key value "9lives" is not a value's name`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Metric: words"}, `tasks.md:3: T1: metric "words" has no target; write it as "Metric: words >= 2500" (the operators are >=, <= and =)`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Metric: words > 3"}, `tasks.md:3: T1: metric "words > 3": the operator is not >=, <= or =`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Metric: word count >= 3"}, `tasks.md:3: T1: metric "word count >= 3": "word count" is not a metric's name`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Metric: words >= many"}, `tasks.md:3: T1: metric "words >= many": "many" is not a number`},
		{[]string{"## Tasks", "- [ ] **T1**: a", "  - Metric: words >= 1", "  - Metric: words <= 9"}, `tasks.md:4: T1: metric words has a target already (words >= 1); keep one`},
	} {
		_, err := Parse("tasks.md", doc(tc.lines...))
		require.Error(t, err, tc.lines)
		assert.Contains(t, err.Error(), tc.want, tc.lines)
	}
}

func TestUnsettled(t *testing.T) {
	p, err := Parse("plan.md", doc("**Item states:** candidate, included, level-3, level-4", "**Settled states:** level-3, level-4", "## Phases",
		"- [ ] **R1**: papers", "  - Items: 6", "- [ ] **R2**: free"))
	require.NoError(t, err)
	it := &state.Items{}
	it.Mark([]state.ItemMark{{Range: state.ItemRange{Lo: 1, Hi: 2}, State: "level-3"}, {Range: state.ItemRange{Lo: 3, Hi: 3}, State: "level-4"},
		{Range: state.ItemRange{Lo: 4, Hi: 4}, State: "included"}, {Range: state.ItemRange{Lo: 7, Hi: 7}, State: "candidate"}, {Range: state.ItemRange{Lo: 5, Hi: 5}, State: "old"}})
	r1 := p.Unit("R1")
	groups, n := r1.Unsettled(it, p.ItemStatesOf("R1"))
	assert.Equal(t, 3, n, "item 7 is not one of the plan's")
	assert.Equal(t, "included: 4; old: 5; not recorded: 6", UnsettledText(groups))
	assert.Equal(t, 3, r1.ItemsIn(it, p.ItemStatesOf("R1").Finished).Len())

	// Without Items only the recorded items count.
	groups, n = p.Unit("R2").Unsettled(it, p.ItemStatesOf("R2"))
	assert.Equal(t, 3, n)
	assert.Equal(t, "candidate: 7; included: 4; old: 5", UnsettledText(groups))

	// Without declared states: done settles, and a ledger of 6 with
	// nothing recorded has 6 unsettled.
	q, err := Parse("tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Items: 6"))
	require.NoError(t, err)
	_, n = q.Unit("T1").Unsettled(nil, q.ItemStatesOf("T1"))
	assert.Equal(t, 6, n)
	done := &state.Items{}
	done.Mark([]state.ItemMark{{Range: state.ItemRange{Lo: 1, Hi: 4}, State: state.ItemDone}, {Range: state.ItemRange{Lo: 5, Hi: 5}, State: state.ItemSkipped}})
	groups, n = q.Unit("T1").Unsettled(done, q.ItemStatesOf("T1"))
	assert.Equal(t, 1, n)
	assert.Equal(t, "not recorded: 6", UnsettledText(groups))
	many := state.ItemSet{}
	for i := 1; i <= 20; i += 2 {
		many.Add(state.ItemRange{Lo: i, Hi: i})
	}
	assert.Equal(t, "not recorded: 1, 3, 5, 7, 9, and 5 more", UnsettledText([]StateItems{{Items: many}}))
}
