package view

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// ItemsView is a unit's item ledger as status and prime show it: how many
// of the plan's items are done, skipped and failed, the next item and the
// items not to repeat. Its JSON field names are part of itr's interface.
type ItemsView struct {
	// Done, Skipped and Failed count the items recorded so, among the
	// plan's items when the plan gives them.
	Done    int `json:"done"`
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
	// Total is the number of items the plan gives ("Items:"), 0 when it
	// gives none.
	Total int `json:"total,omitempty"`
	// Next is the first item in plan order not yet recorded, "" when the
	// plan gives no items or every one is recorded.
	Next string `json:"next,omitempty"`
	// DoNotRepeat are the items done or skipped, as ranges ("1-12").
	DoNotRepeat []string `json:"do_not_repeat"`
	// FailedItems are the items recorded failed, as ranges.
	FailedItems []string `json:"failed_items,omitempty"`
}

// itemsOf is the ledger of unit u as the view shows it, nil when the unit
// has none and the plan gives it no items.
func itemsOf(u *state.Unit, pu *plan.Unit) *ItemsView {
	hasPlan := pu != nil && pu.HasItems()
	if u.Items.Empty() && !hasPlan {
		return nil
	}
	// Only the plan's items count: a plan that gives fewer items than
	// were recorded (it changed) shows those it gives.
	done, skipped, failed := pu.Recorded(u.Items, state.ItemDone), pu.Recorded(u.Items, state.ItemSkipped), pu.Recorded(u.Items, state.ItemFailed)
	v := &ItemsView{Done: done.Len(), Skipped: skipped.Len(), Failed: failed.Len(),
		DoNotRepeat: done.Union(skipped).List(), FailedItems: failed.List()}
	if v.DoNotRepeat == nil {
		v.DoNotRepeat = []string{}
	}
	if hasPlan {
		v.Total = pu.ItemTotal()
		recorded := done.Union(skipped).Union(failed)
		if pu.ItemCount > 0 {
			if n := recorded.FirstMissing(pu.ItemCount); n > 0 {
				v.Next = fmt.Sprint(n)
			}
		} else {
			for _, id := range pu.ItemNames {
				if !recorded.Has(id) {
					v.Next = id
					break
				}
			}
		}
	}
	return v
}

// maxItemRanges is how many ranges of items a line of prime or status
// words at most; the rest are counted.
const maxItemRanges = 20

// Text words the ledger on one line: "12 of 17 done, 1 skipped, 1 failed
// (14); next item: 15; do not repeat: 1–12, 13". Ranges are written with
// an en dash and cut after twenty.
func (v *ItemsView) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", v.Done)
	if v.Total > 0 {
		fmt.Fprintf(&b, " of %d", v.Total)
	}
	b.WriteString(" done")
	if v.Skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", v.Skipped)
	}
	if v.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed (%s)", v.Failed, rangesText(v.FailedItems))
	}
	switch {
	case v.Next != "":
		fmt.Fprintf(&b, "; next item: %s", visible(v.Next))
	case v.Total > 0:
		b.WriteString("; every item is recorded")
	}
	if len(v.DoNotRepeat) > 0 {
		fmt.Fprintf(&b, "; do not repeat: %s", rangesText(v.DoNotRepeat))
	}
	return b.String()
}

// rangesText writes ranges with an en dash ("1–12, 14"), the first
// twenty, then how many more.
func rangesText(list []string) string {
	out := make([]string, 0, min(len(list), maxItemRanges+1))
	for i, r := range list {
		if i == maxItemRanges {
			out = append(out, fmt.Sprintf("and %d more", len(list)-i))
			break
		}
		if lo, hi, ok := strings.Cut(r, "-"); ok {
			if _, okLo := state.ItemNumber(lo); okLo {
				if _, okHi := state.ItemNumber(hi); okHi {
					r = lo + "–" + hi
				}
			}
		}
		out = append(out, visible(r))
	}
	return strings.Join(out, ", ")
}

// CounterCheck is one "Counter:" of the plan checked against its file
// (verify.CounterCheck).
type CounterCheck = verify.CounterCheck
