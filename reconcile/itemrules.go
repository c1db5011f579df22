package reconcile

import (
	"errors"
	"fmt"
	"strings"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// The rules of a unit's item ledger beyond the items the plan gives
// (knownItems): an item moves only to a state the unit's lifecycle knows
// (the plan's "Item states", else done; skipped and failed always), and
// may move back to an earlier one (the entry says so, **Moved back:**);
// values belong to the unit's items; and, where the plan says "Settle
// items before done" (yes by default in knowledge mode), a unit moves
// toward done (a signal, a passed verification) only while every item is
// settled, every counter agrees with the items done and every metric
// target is met, all counted after the request's own items and metrics.
// The fold does not ask for settling (like outputs, it needs what only the
// request's moment knows), so a log written before the rule still folds.

// Count is a plan counter of a unit counted in its file, as the workspace
// found it: the rule book reads no files.
type Count struct {
	// Counter is the counter's name ("footnotes") and Path its file as
	// the repository names it.
	Counter, Path string
	// InFile is the count in the file (0 when Missing).
	InFile  int
	Missing bool
}

// Counts are each unit's counters counted in their files (nil: not
// counted, and not checked).
type Counts map[string][]Count

// The refusals of the item rules.
const (
	UnknownItemState Code = "unknown-item-state" // an item state the unit's lifecycle does not know
	ItemsUnsettled   Code = "items-unsettled"    // toward done while items are not settled
	CounterDisagrees Code = "counter-disagrees"  // toward done while a counter disagrees with the ledger
	MetricShort      Code = "metric-short"       // toward done while a metric misses its target
)

// ItemRefusal is what an item refusal says beyond the common fields.
type ItemRefusal struct {
	// State is the state asked for (UnknownItemState); States the
	// unit's lifecycle in words and Where its declaration ("plan.md:4",
	// "" when the plan declares none).
	State, States, Where string
	// Settled are the settled states an item's work reaches
	// (ItemsUnsettled), Unsettled the unsettled items by state in words,
	// and Count, Total how many are unsettled of how many.
	Settled      []string
	Unsettled    string
	Count, Total int
	// Next is an unsettled item, for the fix.
	Next string
	// Counter is the counter that disagrees with the items done
	// (CounterDisagrees).
	Counter *Count
	Done    int
	// Metric is the target missed (MetricShort) and Value the metric's
	// value ("" when none is recorded).
	Metric, Value string
}

// knownStates refuses a mark whose state the unit's lifecycle does not
// know, and returns the marks with each state as the plan declares it.
func knownStates(p *plan.Plan, id string, marks []state.ItemMark) ([]state.ItemMark, error) {
	if len(marks) == 0 {
		return marks, nil
	}
	d := itemStatesOf(p, id)
	out := make([]state.ItemMark, len(marks))
	for i, m := range marks {
		st, ok := d.Known(m.State)
		if !ok {
			return nil, &Refusal{Code: UnknownItemState, Unit: id, Item: m.Range.String(), PlanFile: planFileOr(p),
				Items: &ItemRefusal{State: m.State, States: d.Text(), Where: d.Where()}}
		}
		out[i] = state.ItemMark{Range: m.Range, State: st}
	}
	return out, nil
}

// itemStatesOf is unit id's lifecycle under plan p (none without a plan
// in force).
func itemStatesOf(p *plan.Plan, id string) plan.ItemStates {
	if !active(p) {
		return plan.ItemStates{}
	}
	return p.ItemStatesOf(id)
}

// planFileOr is the plan's file, or tasks.md without a plan.
func planFileOr(p *plan.Plan) string {
	if p == nil {
		return "tasks.md"
	}
	return planFile(p)
}

// knownValueItems refuses a value of an item the unit's plan does not
// give, as knownItems refuses a mark.
func knownValueItems(p *plan.Plan, id string, values []state.ItemValue) error {
	marks := make([]state.ItemMark, 0, len(values))
	for _, v := range values {
		r, err := state.ParseItemRange(v.Item)
		if err != nil || r.Lo != r.Hi {
			return &Refusal{Code: UnknownItem, Unit: id, Item: v.Item, PlanFile: planFileOr(p)}
		}
		marks = append(marks, state.ItemMark{Range: r, State: state.ItemDone})
	}
	return knownItems(p, id, marks)
}

// settledBeforeDone is the settle rule for an event ev that moves unit u
// toward done: its ledger after the event's marks, its counters (counts)
// against the items done after them, and its metrics after the event's
// against the plan's targets.
func settledBeforeDone(s *state.State, p *plan.Plan, u *state.Unit, ev Event, counts Counts) error {
	if !Closing(ev) || !active(p) || !p.SettleBeforeDone(u.ID, s.Mode) {
		return nil
	}
	pu := p.Unit(u.ID)
	if pu == nil {
		return nil
	}
	d := p.ItemStatesOf(u.ID)
	items := u.Items.Clone()
	if len(ev.Items) > 0 {
		if items == nil {
			items = &state.Items{}
		}
		items.Mark(ev.Items)
	}
	if groups, n := pu.Unsettled(items, d); n > 0 {
		total := pu.ItemTotal()
		if total == 0 {
			total = pu.ItemsIn(items, func(string) bool { return true }).Len()
		}
		next := groups[0].Items.Ranges()[0]
		if next.Name == "" {
			next.Hi = next.Lo
		}
		return &Refusal{Code: ItemsUnsettled, Unit: u.ID, Status: u.Status, PlanFile: planFile(p),
			Items: &ItemRefusal{Settled: d.SettledNames(), Unsettled: plan.UnsettledText(groups), Count: n, Total: total, Next: next.String(), Where: d.Where()}}
	}
	done := pu.ItemsIn(items, d.Finished).Len()
	for _, c := range counts[u.ID] {
		if len(pu.Counters) == 0 || c.Missing && done == 0 || !c.Missing && c.InFile == done {
			continue
		}
		c := c
		return &Refusal{Code: CounterDisagrees, Unit: u.ID, Status: u.Status, PlanFile: planFile(p), Items: &ItemRefusal{Counter: &c, Done: done}}
	}
	metrics := map[string]string{}
	for k, v := range u.Metrics {
		metrics[k] = v
	}
	for _, m := range ev.Metrics {
		metrics[m.Name] = m.Value
	}
	for _, t := range pu.Metrics {
		if v, ok := metrics[t.Name]; !ok || !t.Met(v) {
			return &Refusal{Code: MetricShort, Unit: u.ID, Status: u.Status, PlanFile: planFile(p), Items: &ItemRefusal{Metric: t.String(), Value: metrics[t.Name]}}
		}
	}
	return nil
}

// MovedBack words the items an event moves back to an earlier state of
// the unit's lifecycle, or from a settled state to an unsettled one:
// "5 level-3 → included". Moving back is allowed; the entry says so.
func MovedBack(s *state.State, p *plan.Plan, ev Event) []string {
	u := s.Units[ev.Unit]
	if u == nil || u.Items.Empty() || len(ev.Items) == 0 {
		return nil
	}
	d := itemStatesOf(p, ev.Unit)
	var out []string
	for _, m := range ev.Items {
		for _, from := range u.Items.StateNames() {
			if from == m.State {
				continue
			}
			var r state.ItemSet
			r.Add(m.Range)
			moved := u.Items.Set(from).Intersect(r)
			if moved.Len() == 0 {
				continue
			}
			back := d.Rank(m.State) >= 0 && d.Rank(m.State) < d.Rank(from) || d.IsSettled(from) && !d.IsSettled(m.State)
			if back {
				out = append(out, fmt.Sprintf("%s %s → %s", strings.Join(moved.List(), ", "), from, m.State))
			}
		}
	}
	return out
}

// itemWords words the item refusals; "" for the others.
func (r *Refusal) itemWords(field func(string) string) string {
	u, it := r.Unit, r.Items
	if it == nil {
		it = &ItemRefusal{}
	}
	switch r.Code {
	case UnknownItemState:
		if it.Where == "" {
			return fmt.Sprintf("item %s: %q is not an item state of %s: its items are done, skipped or failed; nothing was recorded: write %s %s=done, or declare the states its items move through in %s (\"Item states: candidate, included, level-3\", for the plan or the unit)",
				r.Item, it.State, u, field("item"), r.Item, r.PlanFile)
		}
		return fmt.Sprintf("item %s: %q is not an item state of %s (its states, declared at %s: %s); nothing was recorded: write %s %s=STATE with one of them",
			r.Item, it.State, u, it.Where, it.States, field("item"), r.Item)
	case ItemsUnsettled:
		return fmt.Sprintf("unit %s cannot move toward done while %d of its %d items %s not settled (%s); nothing was recorded: move %s to a settled state (%s %s=%s; settled: %s, skipped, failed) or skip %s (%s %s=skipped), then try again (\"Settle items before done: no\" in %s turns the rule off)",
			u, it.Count, it.Total, isAre(it.Count), it.Unsettled, them(it.Count), field("item"), it.Next, it.Settled[0], strings.Join(it.Settled, ", "), them(it.Count), field("item"), it.Next, r.PlanFile)
	case CounterDisagrees:
		c := it.Counter
		have := fmt.Sprintf("%d in the file", c.InFile)
		if c.Missing {
			have = "the file is missing"
		}
		return fmt.Sprintf("unit %s cannot move toward done while counter %s in %s disagrees with its ledger: %s, %d item%s done; nothing was recorded: trust the file: record the items it holds (%s ID) or redo those it lost, then try again",
			u, c.Counter, c.Path, have, it.Done, plural1(it.Done), field("item"))
	case MetricShort:
		name, _, _ := strings.Cut(it.Metric, " ")
		if it.Value == "" {
			return fmt.Sprintf("unit %s cannot move toward done: metric %s has no value yet (its target in %s: %s); nothing was recorded: record it with %s %s=N",
				u, name, r.PlanFile, it.Metric, field("metric"), name)
		}
		return fmt.Sprintf("unit %s cannot move toward done: metric %s is %s, short of its target in %s (%s); nothing was recorded: go on with the work and record the metric with %s %s=N, then try again",
			u, name, it.Value, r.PlanFile, it.Metric, field("metric"), name)
	}
	return ""
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func plural1(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// settleOffer is the item work advice offers for a unit whose move toward
// done the settle rule refuses: its first unsettled item moved to the
// first settled state. ok is false when the refusal is another.
func settleOffer(err error, u *state.Unit) (Offer, bool) {
	var r *Refusal
	if !errors.As(err, &r) || r.Code != ItemsUnsettled || r.Items == nil || r.Items.Next == "" || len(r.Items.Settled) == 0 {
		return Offer{}, false
	}
	rg, perr := state.ParseItemRange(r.Items.Next)
	if perr != nil {
		return Offer{}, false
	}
	in := Intent{Action: Work, Items: []state.ItemMark{{Range: rg, State: r.Items.Settled[0]}}}
	return Offer{Op: OpCheckpoint, Unit: u.ID, Intent: in, For: MoveSettle}, true
}

// settleCode reports whether c is a refusal of the settle rule.
func settleCode(c Code) bool {
	return c == ItemsUnsettled || c == CounterDisagrees || c == MetricShort
}

// MoveSettle is the move that settles a unit's items before it moves
// toward done.
const MoveSettle Move = "settle-items"

// ItemFields are the fields an iteration entry records for its values
// and metrics (after its **Items:**).
func ItemFields(ev Event) []progresslog.Field {
	var out []progresslog.Field
	if len(ev.Values) > 0 {
		out = append(out, progresslog.Field{Name: progresslog.FieldValues, Value: progresslog.FormatValues(ev.Values)})
	}
	if len(ev.Metrics) > 0 {
		out = append(out, progresslog.Field{Name: progresslog.FieldMetrics, Value: progresslog.FormatMetrics(ev.Metrics)})
	}
	return out
}
