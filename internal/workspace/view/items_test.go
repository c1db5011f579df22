package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

func planUnit(t *testing.T, items string) *plan.Unit {
	t.Helper()
	p, err := plan.Parse("tasks.md", []byte("## Tasks\n- [ ] **T1**: a\n  - Items: "+items+"\n"))
	require.NoError(t, err)
	return p.Unit("T1")
}

func TestItemsOf(t *testing.T) {
	u := &state.Unit{ID: "T1"}
	assert.Nil(t, itemsOf(u, nil), "no ledger and no Items: nothing to show")
	assert.Nil(t, itemsOf(u, &plan.Unit{ID: "T1"}))

	pu := planUnit(t, "17")
	v := itemsOf(u, pu)
	require.NotNil(t, v)
	assert.Equal(t, ItemsView{Total: 17, Next: "1", DoNotRepeat: []string{}}, *v)
	assert.Equal(t, "0 of 17 done; next item: 1", v.Text())

	u.Items = &state.Items{}
	u.Items.Mark([]state.ItemMark{{Range: state.ItemRange{Lo: 1, Hi: 12}, State: state.ItemDone},
		{Range: state.ItemRange{Lo: 13, Hi: 13}, State: state.ItemSkipped}, {Range: state.ItemRange{Lo: 15, Hi: 15}, State: state.ItemFailed},
		{Range: state.ItemRange{Lo: 30, Hi: 40}, State: state.ItemDone}})
	v = itemsOf(u, pu)
	assert.Equal(t, ItemsView{Done: 12, Skipped: 1, Failed: 1, Total: 17, Next: "14", DoNotRepeat: []string{"1-13"}, FailedItems: []string{"15"}}, *v,
		"items the plan does not give (30-40) do not count")
	assert.Equal(t, "12 of 17 done, 1 skipped, 1 failed (15); next item: 14; do not repeat: 1–13", v.Text())

	// Named items: the next is the first in plan order not recorded.
	named := planUnit(t, "intro, methods, results")
	u.Items = &state.Items{Done: []string{"methods"}, Failed: []string{"intro"}}
	v = itemsOf(u, named)
	assert.Equal(t, "results", v.Next)
	assert.Equal(t, "1 of 3 done, 1 failed (intro); next item: results; do not repeat: methods", v.Text())
	u.Items.Done = append(u.Items.Done, "results")
	assert.Equal(t, "2 of 3 done, 1 failed (intro); every item is recorded; do not repeat: methods, results", itemsOf(u, named).Text())

	// Without Items in the plan: counts, no total, no next.
	u.Items = &state.Items{Done: []string{"a", "b"}}
	assert.Equal(t, "2 done; do not repeat: a, b", itemsOf(u, nil).Text())
}

// TestItemsTextStaysShort: a ledger of thousands of scattered items is a
// line of at most twenty ranges, whatever its size.
func TestItemsTextStaysShort(t *testing.T) {
	u := &state.Unit{ID: "T1", Items: &state.Items{}}
	var marks []state.ItemMark
	for i := 1; i <= 100000; i += 2 {
		marks = append(marks, state.ItemMark{Range: state.ItemRange{Lo: i, Hi: i}, State: state.ItemDone})
	}
	u.Items.Mark(marks)
	v := itemsOf(u, planUnit(t, "100000"))
	assert.Equal(t, 50000, v.Done)
	assert.Equal(t, "2", v.Next)
	text := v.Text()
	assert.Less(t, len(text), 300, text)
	assert.True(t, strings.HasSuffix(text, fmt.Sprintf("and %d more", 50000-20)), text)

	// Contiguous work stays one range.
	u.Items = &state.Items{}
	u.Items.Mark([]state.ItemMark{{Range: state.ItemRange{Lo: 1, Hi: 99999}, State: state.ItemDone}})
	assert.Equal(t, "99999 of 100000 done; next item: 100000; do not repeat: 1–99999", itemsOf(u, planUnit(t, "100000")).Text())
	assert.Equal(t, []string{"1-99999"}, u.Items.Done)
}

// TestItemsInDeclaredStates: a ledger of states the plan declares counts
// each state, the settled ones and those not recorded; done counts the
// items settled by their work; the next item is the first not settled.
func TestItemsInDeclaredStates(t *testing.T) {
	p, err := plan.Parse("plan.md", []byte("**Item states:** candidate, included, level-3, level-4\n**Settled states:** level-3, level-4\n\n## Phases\n- [ ] **R1**: papers\n  - Items: 6\n"))
	require.NoError(t, err)
	u := &state.Unit{ID: "R1", Items: &state.Items{}}
	u.Items.Mark([]state.ItemMark{{Range: state.ItemRange{Lo: 1, Hi: 2}, State: "level-3"}, {Range: state.ItemRange{Lo: 3, Hi: 3}, State: "level-4"},
		{Range: state.ItemRange{Lo: 5, Hi: 5}, State: "included"}, {Range: state.ItemRange{Lo: 4, Hi: 4}, State: state.ItemFailed}})
	u.Items.SetValue(state.ItemValue{Item: "2", Name: "finding", Text: "Wage claims exposure $12M"})
	u.Items.SetValue(state.ItemValue{Item: "1", Name: "finding", Text: "Entity consolidation required"})
	u.Items.SetValue(state.ItemValue{Item: "1", Name: "score", Text: "4"})
	u.Items.SetValue(state.ItemValue{Item: "9", Name: "finding", Text: "not one of the plan's items"})
	v := itemsIn(u, p.Unit("R1"), lifecycleOf(p, "R1", state.Knowledge))
	require.NotNil(t, v)
	assert.Equal(t, 3, v.Done, "level-3 and level-4 are done; failed is settled, not done")
	assert.Equal(t, 1, v.Failed)
	assert.Equal(t, "5", v.Next, "4 failed is settled")
	assert.Equal(t, []StateCount{{"candidate", 0, false}, {"included", 1, false}, {"level-3", 2, true}, {"level-4", 1, true}, {"skipped", 0, true}, {"failed", 1, true}}, v.States)
	assert.Equal(t, "plan.md:1", v.Where)
	assert.Equal(t, 2, v.Unsettled)
	assert.Equal(t, "included: 5; not recorded: 6", v.UnsettledItems)
	assert.True(t, v.Settle)
	assert.Equal(t, "4 of 6 settled (2 level-3, 1 level-4, 1 failed (4)), 1 included, 1 not recorded; not settled: included: 5; not recorded: 6; next item: 5; do not repeat: 1–3", v.Text())
	assert.Equal(t, "candidate|included|level-3|level-4|skipped|failed", v.StatesHint())
	assert.Equal(t, []ItemValue{{Item: "1", Values: map[string]string{"finding": "Entity consolidation required", "score": "4"}}, {Item: "2", Values: map[string]string{"finding": "Wage claims exposure $12M"}}}, v.Values,
		"only the plan's items")
	assert.Equal(t, "1 “Entity consolidation required”; 2 “Wage claims exposure $12M”", v.KeyValues(5, 80))
	assert.Equal(t, "1 “Entity consolidation required”; and 1 more", v.KeyValues(1, 80))

	// Development mode without declared states: as before, nothing added.
	d := itemsIn(u, planUnit(t, "6"), lifecycleOf(nil, "T1", state.Development))
	assert.Nil(t, d.States)
	assert.Equal(t, 0, d.Unsettled)
	assert.Equal(t, "done|skipped|failed", d.StatesHint())
}

func TestMetricsOf(t *testing.T) {
	p, err := plan.Parse("plan.md", []byte("## Phases\n- [ ] **R1**: memo\n  - Metric: words >= 2500\n  - Metric: open = 0\n"))
	require.NoError(t, err)
	u := &state.Unit{ID: "R1"}
	ms := metricsOf(u, p.Unit("R1"))
	assert.Equal(t, []MetricView{{Name: "words", Target: "words >= 2500"}, {Name: "open", Target: "open = 0"}}, ms)
	assert.Equal(t, "words (target words >= 2500: none recorded), open (target open = 0: none recorded)", MetricsText(ms))
	u.SetMetric(state.Metric{Name: "words", Value: "2847"})
	u.SetMetric(state.Metric{Name: "findings", Value: "8"})
	u.SetMetric(state.Metric{Name: "open", Value: "2"})
	ms = metricsOf(u, p.Unit("R1"))
	assert.Equal(t, "findings 8, open 2 (target open = 0: not met), words 2847 (target words >= 2500: met)", MetricsText(ms))
	assert.Nil(t, metricsOf(&state.Unit{ID: "T1"}, nil))
}
