package view

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/workspace/store"
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
	done, skipped, failed := u.Items.Set(state.ItemDone), u.Items.Set(state.ItemSkipped), u.Items.Set(state.ItemFailed)
	if hasPlan {
		// Only the plan's items count: a plan that gives fewer items
		// than were recorded (it changed) shows those it gives.
		cut := func(s state.ItemSet) state.ItemSet {
			if pu.ItemCount > 0 {
				return s.Within(pu.ItemCount, nil)
			}
			return s.Within(0, pu.HasItem)
		}
		done, skipped, failed = cut(done), cut(skipped), cut(failed)
	}
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

// CounterCheck is one "Counter:" of the plan checked against the file on
// disk: the count in the file and the items recorded done. Its JSON field
// names are part of itr's interface.
type CounterCheck struct {
	Unit    string `json:"unit"`
	Counter string `json:"counter"`
	// Path is the file counted, as the repository names it.
	Path string `json:"path"`
	// InFile is the count in the file (0 when it is missing); ItemsDone
	// the items the unit's ledger records done.
	InFile    int  `json:"in_file"`
	ItemsDone int  `json:"items_done"`
	Missing   bool `json:"missing,omitempty"`
	Agrees    bool `json:"agrees"`
	// Text says what disagrees ("footnotes in outputs/memo.md: 85 in the
	// file, 87 items done"); Fix which to trust and what to do.
	Text string `json:"text"`
	Fix  string `json:"fix,omitempty"`
}

// String reads "T2: footnotes in outputs/memo.md: 85 in the file, 87 items
// done".
func (c CounterCheck) String() string { return c.Unit + ": " + c.Text }

// counterChecks counts every counter of the plan in its file as on disk
// (the work may not be committed yet) and compares it with the items
// recorded done, for each unit that has started or has a ledger. The
// file is looked up in the task folder, then from the repository root,
// as outputs are.
func counterChecks(st *store.Store, t *store.Task, s *state.State) ([]CounterCheck, []string) {
	if t.Plan == nil {
		return nil, nil
	}
	var out []CounterCheck
	var warnings []string
	for _, id := range s.IDs() {
		u, pu := s.Units[id], t.Plan.Unit(id)
		if pu == nil || len(pu.Counters) == 0 || u.Status == state.Pending && u.Items.Empty() {
			continue
		}
		done := 0
		if v := itemsOf(u, pu); v != nil {
			done = v.Done
		}
		for _, c := range pu.Counters {
			chk := CounterCheck{Unit: id, Counter: c.Name, ItemsDone: done, Path: st.Rel(t.Slug, c.Path)}
			var data []byte
			found := false
			for _, p := range []string{st.Rel(t.Slug, c.Path), c.Path} {
				b, err := st.ReadWorktree(p)
				if err == nil {
					data, chk.Path, found = b, p, true
					break
				}
				if !errors.Is(err, fs.ErrNotExist) {
					warnings = append(warnings, fmt.Sprintf("%s: counter %s: %v", id, c, err))
				}
			}
			chk.Missing = !found
			chk.InFile = c.Count(data)
			chk.Agrees = found && chk.InFile == done || !found && done == 0
			what := fmt.Sprintf("%s in %s", c.Name, chk.Path)
			switch {
			case chk.Missing:
				chk.Text = fmt.Sprintf("%s: the file is missing, %d item%s done", what, done, store.Plural(done, "", "s"))
			default:
				chk.Text = fmt.Sprintf("%s: %d in the file, %d item%s done", what, chk.InFile, done, store.Plural(done, "", "s"))
			}
			if !chk.Agrees {
				chk.Fix = counterFix(id, chk)
			}
			out = append(out, chk)
		}
	}
	return out, warnings
}

// counterFix says which to trust and how to bring the two together: the
// file, as seed 001's recovery rule says ("use the file's count as the
// authoritative source"), since the ledger only records what was said.
func counterFix(unit string, c CounterCheck) string {
	switch {
	case c.Missing:
		return fmt.Sprintf("trust the file: its work is gone, so put it back from git (`git log -- %s` finds it) or redo the items; the ledger records what was done, not where it went", c.Path)
	case c.InFile < c.ItemsDone:
		n := c.ItemsDone - c.InFile
		return fmt.Sprintf("trust the file: %d item%s recorded done %s not in it (lost or overwritten after the checkpoint); find which, redo %s in the file (or put the file back from git), and do not record %s again: the ledger has %s done",
			n, store.Plural(n, "", "s"), store.Plural(n, "is", "are"), store.Plural(n, "it", "them"), store.Plural(n, "it", "them"), store.Plural(n, "it", "them"))
	}
	return fmt.Sprintf("trust the file: it holds %d more than the ledger (work written after the last checkpoint, or a stop before it); record the items it holds with `itr checkpoint %s --item ID`, or take out what should not be there",
		c.InFile-c.ItemsDone, unit)
}
