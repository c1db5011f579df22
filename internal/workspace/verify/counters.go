package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

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

// Counters counts every counter of the plan in its file as on disk
// (the work may not be committed yet) and compares it with the items
// recorded done (in a settled state other than skipped and failed, under
// the unit's item states), for each unit that has started or has a
// ledger. The file is looked up in the task folder, then from the
// repository root, as outputs are. warnings are files that could not be
// read.
func Counters(st *store.Store, t *store.Task, s *state.State) ([]CounterCheck, []string) {
	if t.Plan == nil {
		return nil, nil
	}
	if !slices.ContainsFunc(t.Plan.Units, func(pu *plan.Unit) bool { return len(pu.Counters) > 0 }) {
		return nil, nil // no unit counts anything: no unit to look up
	}
	var out []CounterCheck
	var warnings []string
	ids, units := s.Ordered()
	for i, id := range ids {
		u, pu := units[i], t.Plan.Unit(id)
		if pu == nil || len(pu.Counters) == 0 || u.Status == state.Pending && u.Items.Empty() {
			continue
		}
		done := pu.ItemsIn(u.Items, t.Plan.ItemStatesOf(id).Finished).Len()
		for _, c := range pu.Counters {
			n, warns := countIn(st, t, id, c)
			warnings = append(warnings, warns...)
			chk := CounterCheck{Unit: id, Counter: c.Name, ItemsDone: done, Path: n.Path, InFile: n.InFile, Missing: n.Missing}
			chk.Agrees = !n.Missing && chk.InFile == done || n.Missing && done == 0
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

// Counts counts every counter of the plan in its file as on disk, for
// the rule book: a unit moves toward done only while its counters agree
// with its items done (where the plan says "Settle items before done").
// The write path and the advice read them alike, so advice and refusal
// agree.
func Counts(st *store.Store, t *store.Task) reconcile.Counts {
	if t.Plan == nil {
		return nil
	}
	out := reconcile.Counts{}
	for _, pu := range t.Plan.Units {
		for _, c := range pu.Counters {
			n, _ := countIn(st, t, pu.ID, c)
			out[pu.ID] = append(out[pu.ID], n)
		}
	}
	return out
}

// countIn counts counter c of unit id in its file: in the task folder,
// else from the repository root.
func countIn(st *store.Store, t *store.Task, id string, c plan.Counter) (reconcile.Count, []string) {
	n := reconcile.Count{Counter: c.Name, Path: st.Rel(t.Slug, c.Path), Missing: true}
	var warnings []string
	for _, p := range []string{st.Rel(t.Slug, c.Path), c.Path} {
		b, err := st.ReadWorktree(p)
		if err == nil {
			n.InFile, n.Path, n.Missing = c.Count(b), p, false
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("%s: counter %s: %v", id, c, err))
		}
	}
	return n, warnings
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
