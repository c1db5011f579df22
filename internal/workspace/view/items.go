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
// items not to repeat; where the plan declares item states, how many are
// in each and which are not settled; the values recorded per item. Its
// JSON field names are part of itr's interface.
type ItemsView struct {
	// Done, Skipped and Failed count the items recorded so, among the
	// plan's items when the plan gives them. Done counts the items in a
	// settled state other than skipped and failed (done, or the settled
	// states the plan declares).
	Done    int `json:"done"`
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
	// Total is the number of items the plan gives ("Items:"), 0 when it
	// gives none.
	Total int `json:"total,omitempty"`
	// Next is the first item in plan order not yet settled, "" when the
	// plan gives no items or every one is settled.
	Next string `json:"next,omitempty"`
	// DoNotRepeat are the items done or skipped, as ranges ("1-12").
	DoNotRepeat []string `json:"do_not_repeat"`
	// FailedItems are the items recorded failed, as ranges.
	FailedItems []string `json:"failed_items,omitempty"`
	// States count the items in each state the plan declares ("Item
	// states:"), in its order, then skipped and failed (absent when it
	// declares none); Where names the declaration ("plan.md:4").
	States []StateCount `json:"states,omitempty"`
	Where  string       `json:"declared_at,omitempty"`
	// Unsettled counts the items not settled (shown where the plan
	// declares states or asks for settling before done), and
	// UnsettledItems names them by state ("included: 5; not recorded: 6").
	Unsettled      int    `json:"unsettled,omitempty"`
	UnsettledItems string `json:"unsettled_items,omitempty"`
	// Settle says the unit moves toward done only once every item is
	// settled ("Settle items before done").
	Settle bool `json:"settle_before_done,omitempty"`
	// KeyValue is the name of the value shown as an item's key finding
	// ("Key value:", finding by default), Values the values recorded per
	// item, in item order.
	KeyValue string      `json:"key_value,omitempty"`
	Values   []ItemValue `json:"values,omitempty"`

	// states lists every state an item may be recorded in, for the
	// commands that record them.
	states []string
}

// StateCount is how many items are in a state, and whether it settles
// them.
type StateCount struct {
	State   string `json:"state"`
	Count   int    `json:"count"`
	Settled bool   `json:"settled,omitempty"`
}

// ItemValue is the values of one item: name → text.
type ItemValue struct {
	Item   string            `json:"item"`
	Values map[string]string `json:"values"`
}

// lifecycle is what a unit's ledger is read against: its item states,
// whether it settles before done, and its key value.
type lifecycle struct {
	states plan.ItemStates
	settle bool
	key    string
}

// lifecycleOf is unit id's lifecycle under plan p (nil: none) in mode m.
func lifecycleOf(p *plan.Plan, id string, m state.Mode) lifecycle {
	if p == nil || p.Placeholder() {
		return lifecycle{key: plan.DefaultKeyValue}
	}
	return lifecycle{states: p.ItemStatesOf(id), settle: p.SettleBeforeDone(id, m), key: p.KeyValueOf(id)}
}

// itemsOf is the ledger of unit u as the view shows it under the default
// lifecycle (done, skipped, failed).
func itemsOf(u *state.Unit, pu *plan.Unit) *ItemsView {
	return itemsIn(u, pu, lifecycle{key: plan.DefaultKeyValue})
}

// noItems reports whether unit u has no items and the plan gives it none
// (pu, nil: no plan unit): itemsIn is nil.
func noItems(u *state.Unit, pu *plan.Unit) bool {
	return u.Items.Empty() && (pu == nil || !pu.HasItems()) && len(u.Items.ValueItems()) == 0
}

// itemsIn is the ledger of unit u as the view shows it, nil when the unit
// has none and the plan gives it no items.
func itemsIn(u *state.Unit, pu *plan.Unit, lc lifecycle) *ItemsView {
	if noItems(u, pu) {
		return nil
	}
	hasPlan := pu != nil && pu.HasItems()
	d := lc.states
	// Only the plan's items count: a plan that gives fewer items than
	// were recorded (it changed) shows those it gives.
	done, skipped, failed := pu.ItemsIn(u.Items, d.Finished), pu.Recorded(u.Items, state.ItemSkipped), pu.Recorded(u.Items, state.ItemFailed)
	v := &ItemsView{Done: done.Len(), Skipped: skipped.Len(), Failed: failed.Len(),
		DoNotRepeat: done.Union(skipped).List(), FailedItems: failed.List()}
	if v.DoNotRepeat == nil {
		v.DoNotRepeat = []string{}
	}
	settled := pu.ItemsIn(u.Items, d.IsSettled)
	if hasPlan {
		v.Total = pu.ItemTotal()
		v.Next = firstNotIn(pu, settled)
	}
	if d.Declared() {
		v.Where, v.states = d.Where(), d.Names()
		for _, st := range d.Names() {
			v.States = append(v.States, StateCount{State: st, Count: pu.Recorded(u.Items, st).Len(), Settled: d.IsSettled(st)})
		}
	}
	if d.Declared() || lc.settle {
		groups, n := pu.Unsettled(u.Items, d)
		v.Unsettled, v.UnsettledItems, v.Settle = n, plan.UnsettledText(groups), lc.settle
	}
	if ids := u.Items.ValueItems(); len(ids) > 0 {
		v.KeyValue = lc.key
		for _, id := range ids {
			if pu == nil || !pu.HasItems() || pu.HasItem(id) {
				v.Values = append(v.Values, ItemValue{Item: id, Values: u.Items.Values[id]})
			}
		}
	}
	return v
}

// firstNotIn is the first of the plan's items, in plan order, not in set.
func firstNotIn(pu *plan.Unit, set state.ItemSet) string {
	if pu.ItemCount > 0 {
		if n := set.FirstMissing(pu.ItemCount); n > 0 {
			return fmt.Sprint(n)
		}
		return ""
	}
	for _, id := range pu.ItemNames {
		if !set.Has(id) {
			return id
		}
	}
	return ""
}

// StatesHint is the states an item may be recorded in, for a command
// line: "done|skipped|failed", or the plan's.
func (v *ItemsView) StatesHint() string {
	if len(v.states) == 0 {
		return strings.Join(state.ItemStates, "|")
	}
	return strings.Join(v.states, "|")
}

// KeyValues words the key values of the first n items that have one:
// `1 "Entity consolidation required"; 2 "Wage claims exposure $12M"`,
// then how many more; "" when none has one.
func (v *ItemsView) KeyValues(n, width int) string {
	var parts []string
	more := 0
	for _, iv := range v.Values {
		text, ok := iv.Values[v.KeyValue]
		if !ok {
			continue
		}
		if len(parts) == n {
			more++
			continue
		}
		parts = append(parts, visible(iv.Item)+" "+quote(text, width))
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(parts, "; ")
}

// maxItemRanges is how many ranges of items a line of prime or status
// words at most; the rest are counted.
const maxItemRanges = 20

// Text words the ledger on one line: "12 of 17 done, 1 skipped, 1 failed
// (14); next item: 15; do not repeat: 1–12, 13". Ranges are written with
// an en dash and cut after twenty.
func (v *ItemsView) Text() string {
	var b strings.Builder
	if len(v.States) > 0 {
		v.statesText(&b)
	} else {
		v.doneText(&b)
	}
	if len(v.States) > 0 && v.Unsettled > 0 {
		// Without declared states the counts and the next item say it.
		fmt.Fprintf(&b, "; not settled: %s", visible(v.UnsettledItems))
	}
	switch {
	case v.Next != "":
		fmt.Fprintf(&b, "; next item: %s", visible(v.Next))
	case v.Total > 0 && len(v.States) > 0:
		b.WriteString("; every item is settled")
	case v.Total > 0:
		b.WriteString("; every item is recorded")
	}
	if len(v.DoNotRepeat) > 0 {
		fmt.Fprintf(&b, "; do not repeat: %s", rangesText(v.DoNotRepeat))
	}
	return b.String()
}

// statesText writes the counts of a ledger whose states the plan
// declares: "4 of 6 settled (3 level-3, 1 skipped), 1 included, 1 not
// recorded".
func (v *ItemsView) statesText(b *strings.Builder) {
	settledN := 0
	var settled, open []string
	for _, sc := range v.States {
		if sc.Count == 0 {
			continue
		}
		part := fmt.Sprintf("%d %s", sc.Count, sc.State)
		if sc.State == state.ItemFailed {
			part += " (" + rangesText(v.FailedItems) + ")"
		}
		if sc.Settled {
			settledN += sc.Count
			settled = append(settled, part)
		} else {
			open = append(open, part)
		}
	}
	fmt.Fprintf(b, "%d", settledN)
	if v.Total > 0 {
		fmt.Fprintf(b, " of %d", v.Total)
	}
	b.WriteString(" settled")
	if len(settled) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(settled, ", "))
	}
	recorded := 0
	for _, sc := range v.States {
		recorded += sc.Count
	}
	if v.Total > recorded {
		open = append(open, fmt.Sprintf("%d not recorded", v.Total-recorded))
	}
	if len(open) > 0 {
		b.WriteString(", " + strings.Join(open, ", "))
	}
}

// doneText writes the counts of a ledger of done, skipped and failed.
func (v *ItemsView) doneText(b *strings.Builder) {
	fmt.Fprintf(b, "%d", v.Done)
	if v.Total > 0 {
		fmt.Fprintf(b, " of %d", v.Total)
	}
	b.WriteString(" done")
	if v.Skipped > 0 {
		fmt.Fprintf(b, ", %d skipped", v.Skipped)
	}
	if v.Failed > 0 {
		fmt.Fprintf(b, ", %d failed (%s)", v.Failed, rangesText(v.FailedItems))
	}
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

// MetricView is one of a unit's metrics as status and prime show it: its
// latest value and the plan's target. Its JSON field names are part of
// itr's interface.
type MetricView struct {
	Name string `json:"name"`
	// Value is the latest value recorded, "" when none is; Target the
	// plan's ("words >= 2500"), "" when it gives none, and Met whether
	// the value meets it.
	Value  string `json:"value,omitempty"`
	Target string `json:"target,omitempty"`
	Met    bool   `json:"met,omitempty"`
}

// metricsOf are unit u's metrics: those recorded, by name, then the
// plan's targets not recorded yet.
func metricsOf(u *state.Unit, pu *plan.Unit) []MetricView {
	var out []MetricView
	targets := map[string]plan.MetricTarget{}
	if pu != nil {
		for _, t := range pu.Metrics {
			targets[t.Name] = t
		}
	}
	for _, name := range u.MetricNames() {
		m := MetricView{Name: name, Value: u.Metrics[name]}
		if t, ok := targets[name]; ok {
			m.Target, m.Met = t.String(), t.Met(m.Value)
			delete(targets, name)
		}
		out = append(out, m)
	}
	if pu != nil {
		for _, t := range pu.Metrics {
			if _, left := targets[t.Name]; left {
				out = append(out, MetricView{Name: t.Name, Target: t.String()})
			}
		}
	}
	return out
}

// MetricsText words metrics on one line: "words 2847 (target words >=
// 2500: met), findings 8, open (target open = 0: none recorded)".
func MetricsText(ms []MetricView) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		switch {
		case m.Target == "":
			parts[i] = m.Name + " " + m.Value
		case m.Value == "":
			parts[i] = fmt.Sprintf("%s (target %s: none recorded)", m.Name, m.Target)
		case m.Met:
			parts[i] = fmt.Sprintf("%s %s (target %s: met)", m.Name, m.Value, m.Target)
		default:
			parts[i] = fmt.Sprintf("%s %s (target %s: not met)", m.Name, m.Value, m.Target)
		}
	}
	return strings.Join(parts, ", ")
}
