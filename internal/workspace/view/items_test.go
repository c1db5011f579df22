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
