package plan

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/state"
)

// Item states, values and metrics a plan declares.
//
// "Item states: candidate, included, level-2, level-3, level-4" gives the
// states an item of a unit's ledger moves through, in order; "Settled
// states: level-3, level-4" says which of them count as settled (the last
// one when the line is left out). skipped and failed are always states
// too, and always settled. Without "Item states" an item is done, skipped
// or failed, and done is the settled one. Both lines may stand in the
// plan's header ("**Item states:** ...", for every unit) and as a unit's
// sub-items ("- Item states: ...", for that unit): a unit's own line wins.
// A unit that declares its own states takes its own settled states (the
// last of them by default); a unit may also declare only "Settled states"
// for the plan's states.
//
// "Settle items before done: yes" (or no), in the header or for a unit,
// says whether a unit moves toward done (a signal, a verification) only
// while every item of its ledger is settled, every "Counter:" agrees with
// the items done and every "Metric:" target is met. It is yes by default
// in knowledge mode and no in development mode.
//
// "Key value: finding" names the value of an item that INDEX.md and the
// report show as its key finding (finding by default).
//
// "Metric: words >= 2500" is a target for a number the unit's iterations
// record (itr checkpoint --metric words=812); the operators are >=, <=
// and =. A unit may give several.

// The header lines (and sub-item keys) of item states, values and metrics.
const (
	MetaItemStates    = "Item states"
	MetaSettledStates = "Settled states"
	MetaSettleItems   = "Settle items before done"
	MetaKeyValue      = "Key value"
	keyMetric         = "Metric"
)

// DefaultKeyValue is the value shown as an item's key finding when the
// plan names none.
const DefaultKeyValue = "finding"

// ItemStates is the item lifecycle in force for a unit: the states the
// plan declares for it, in order, and the settled ones among them.
type ItemStates struct {
	// States are the declared states in order; nil when none are
	// declared (done is then the one state beside skipped and failed).
	States []string
	// Settled are the settled states among States (nil when none are
	// declared: done is).
	Settled []string
	// File and Line say where States are declared (Line 0: nowhere).
	File string
	Line int
}

// Declared reports whether the plan declares the unit's item states.
func (d ItemStates) Declared() bool { return len(d.States) > 0 }

// Names are every state an item may be recorded in: the declared states
// (or done), then skipped and failed.
func (d ItemStates) Names() []string {
	if !d.Declared() {
		return slices.Clone(state.ItemStates)
	}
	return append(slices.Clone(d.States), state.ItemSkipped, state.ItemFailed)
}

// Known matches st against the states an item may be in, ignoring case,
// and returns the state as declared; ok is false for any other.
func (d ItemStates) Known(st string) (string, bool) {
	for _, n := range d.Names() {
		if strings.EqualFold(n, st) {
			return n, true
		}
	}
	return "", false
}

// IsSettled reports whether an item in state st is settled: skipped,
// failed, and the settled states (done when none are declared).
func (d ItemStates) IsSettled(st string) bool {
	switch {
	case st == state.ItemSkipped || st == state.ItemFailed:
		return true
	case !d.Declared():
		return st == state.ItemDone
	}
	return slices.Contains(d.Settled, st)
}

// Finished reports whether an item in state st is settled by its work
// (not skipped, not failed): the items a counter counts and status calls
// done.
func (d ItemStates) Finished(st string) bool {
	return st != state.ItemSkipped && st != state.ItemFailed && d.IsSettled(st)
}

// SettledNames are the settled states an item's work reaches: the
// declared settled states, or done.
func (d ItemStates) SettledNames() []string {
	if !d.Declared() {
		return []string{state.ItemDone}
	}
	return d.Settled
}

// Rank is the place of st in the declared order (0 first), -1 for
// skipped, failed and states not declared.
func (d ItemStates) Rank(st string) int {
	return slices.Index(d.States, st)
}

// Text words the lifecycle: "candidate, included, level-3 (settled:
// level-3), and skipped, failed".
func (d ItemStates) Text() string {
	if !d.Declared() {
		return "done, skipped, failed"
	}
	return fmt.Sprintf("%s (settled: %s), and skipped, failed", strings.Join(d.States, ", "), strings.Join(d.Settled, ", "))
}

// Where is "plan.md:5", where the states are declared; "" when they are
// not.
func (d ItemStates) Where() string {
	if d.Line == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d", d.File, d.Line)
}

// ItemStatesOf is the item lifecycle in force for unit id: its own "Item
// states" and "Settled states", else the header's.
func (p *Plan) ItemStatesOf(id string) ItemStates {
	if p == nil {
		return ItemStates{}
	}
	var u *Unit
	if id != "" {
		u = p.Unit(id)
	}
	d, _ := p.itemStates(u)
	return d
}

// itemStates resolves the lifecycle of unit u (nil: the header's), with
// the line of its settled states (0 when it is the default).
func (p *Plan) itemStates(u *Unit) (ItemStates, int) {
	d := ItemStates{File: p.File}
	raw, line := p.metaValue(MetaItemStates)
	settledRaw, settledLine := p.metaValue(MetaSettledStates)
	if u != nil {
		if u.ItemStatesRaw != "" {
			raw, line = u.ItemStatesRaw, u.lines.at(MetaItemStates)
			settledRaw, settledLine = "", 0
		}
		if u.SettledRaw != "" {
			settledRaw, settledLine = u.SettledRaw, u.lines.at(MetaSettledStates)
		}
	}
	states, _ := parseStateList(raw)
	if len(states) == 0 {
		return ItemStates{}, settledLine
	}
	d.States, d.Line = states, line
	d.Settled = []string{states[len(states)-1]}
	if settled, _ := parseStateList(settledRaw); len(settled) > 0 {
		d.Settled = nil
		for _, s := range settled {
			for _, n := range states {
				if strings.EqualFold(n, s) {
					d.Settled = append(d.Settled, n)
				}
			}
		}
	}
	return d, settledLine
}

// metaValue is the value of header line key and its line, "" and 0 when
// the plan lacks it.
func (p *Plan) metaValue(key string) (string, int) {
	for i, f := range p.Meta {
		if strings.EqualFold(f.Key, key) {
			line := 0
			if i < len(p.metaLines) {
				line = p.metaLines[i]
			}
			return strings.TrimSpace(f.Value), line
		}
	}
	return "", 0
}

// SettleBeforeDone reports whether unit id moves toward done only while
// its items are settled, its counters agree and its metric targets are
// met: its own "Settle items before done", else the header's, else yes in
// knowledge mode (m) and no in development mode.
func (p *Plan) SettleBeforeDone(id string, m state.Mode) bool {
	if p != nil {
		if u := p.Unit(id); u != nil && u.SettleItems != "" {
			yes, _ := yesNo(u.SettleItems)
			return yes
		}
		if v, _ := p.metaValue(MetaSettleItems); v != "" {
			if yes, ok := yesNo(v); ok {
				return yes
			}
		}
	}
	return m == state.Knowledge
}

// KeyValueOf is the name of the value shown as an item's key finding for
// unit id: its own "Key value", else the header's, else finding.
func (p *Plan) KeyValueOf(id string) string {
	if p != nil {
		if u := p.Unit(id); u != nil && u.KeyValue != "" {
			return u.KeyValue
		}
		if v, _ := p.metaValue(MetaKeyValue); v != "" && state.ValidName(strings.Trim(v, "`")) {
			return strings.Trim(v, "`")
		}
	}
	return DefaultKeyValue
}

// parseStateList reads an "Item states" or "Settled states" value: state
// names separated by commas and/or white space, in order, without
// duplicates (ignoring case); skipped and failed are not declared, being
// always there. bad says what is wrong, "" when it reads.
func parseStateList(v string) (names []string, bad string) {
	for _, tok := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		n := strings.Trim(tok, "`")
		switch {
		case !state.ValidItemStateName(n):
			return nil, fmt.Sprintf("%q is not a state name (letters, digits, '-' or '_', starting with a letter, at most %d)", tok, state.MaxItemState)
		case strings.EqualFold(n, state.ItemSkipped) || strings.EqualFold(n, state.ItemFailed):
			return nil, fmt.Sprintf("%s is always a state, and a settled one (skipped and failed need no declaring); leave it out", n)
		}
		for _, seen := range names {
			if strings.EqualFold(seen, n) {
				return nil, fmt.Sprintf("state %q is listed twice", n)
			}
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, "it names no state"
	}
	return names, ""
}

// yesNo reads yes or no (also true or false), ignoring case.
func yesNo(v string) (yes, ok bool) {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(v), "`")) {
	case "yes", "true":
		return true, true
	case "no", "false":
		return false, true
	}
	return false, false
}

const (
	statesForm  = `write the states in order, such as "Item states: candidate, included, level-3, level-4"`
	settledForm = `write the settled ones among the item states, such as "Settled states: level-3, level-4" (the last state when left out)`
	settleForm  = `write "Settle items before done: yes" or "no"`
	keyForm     = `write the name of an item's value, such as "Key value: finding"`
)

// checkMeta says what is wrong with a header line of item states,
// values or settling ("" when nothing is, or the line is another).
func checkMeta(f Field) string {
	v := strings.TrimSpace(f.Value)
	if isTemplate(v) {
		return ""
	}
	switch {
	case strings.EqualFold(f.Key, MetaApproval):
		return checkApproval(f)
	case strings.EqualFold(f.Key, MetaItemStates):
		if _, bad := parseStateList(v); bad != "" {
			return fmt.Sprintf("%s %q: %s; %s", MetaItemStates, v, bad, statesForm)
		}
	case strings.EqualFold(f.Key, MetaSettledStates):
		if _, bad := parseStateList(v); bad != "" {
			return fmt.Sprintf("%s %q: %s; %s", MetaSettledStates, v, bad, settledForm)
		}
	case strings.EqualFold(f.Key, MetaSettleItems):
		if _, ok := yesNo(v); !ok {
			return fmt.Sprintf("%s %q is neither yes nor no; %s", MetaSettleItems, v, settleForm)
		}
	case strings.EqualFold(f.Key, MetaKeyValue):
		if !state.ValidName(strings.Trim(v, "`")) {
			return fmt.Sprintf("%s %q is not a value's name (letters, digits, '-' or '_', starting with a letter); %s", MetaKeyValue, v, keyForm)
		}
	}
	return ""
}

// setStates sets a unit's "Item states" (settled false) or "Settled
// states" from v, on line n.
func (ps *parser) setStates(u *Unit, key, v string, n int) {
	form := statesForm
	if key == MetaSettledStates {
		form = settledForm
	}
	if _, bad := parseStateList(v); bad != "" {
		ps.errorf(n, "%s: %s %q: %s; %s", u.ID, key, strings.TrimSpace(v), bad, form)
		return
	}
	if key == MetaSettledStates {
		u.SettledRaw = strings.TrimSpace(v)
	} else {
		u.ItemStatesRaw = strings.TrimSpace(v)
	}
}

// setSettle sets a unit's "Settle items before done" from v, on line n.
func (ps *parser) setSettle(u *Unit, v string, n int) {
	if _, ok := yesNo(v); !ok {
		ps.errorf(n, "%s: %s %q is neither yes nor no; %s", u.ID, MetaSettleItems, strings.TrimSpace(v), settleForm)
		return
	}
	u.SettleItems = strings.TrimSpace(v)
}

// setKeyValue sets a unit's "Key value" from v, on line n.
func (ps *parser) setKeyValue(u *Unit, v string, n int) {
	name := strings.Trim(strings.TrimSpace(v), "`")
	if !state.ValidName(name) {
		ps.errorf(n, "%s: %s %q is not a value's name (letters, digits, '-' or '_', starting with a letter); %s", u.ID, MetaKeyValue, strings.TrimSpace(v), keyForm)
		return
	}
	u.KeyValue = name
}

// itemStateErrors checks that the settled states are among the item
// states in force, for the header and for every unit.
func (p *Plan) itemStateErrors() []*Error {
	var errs []*Error
	settledRaw, line := p.metaValue(MetaSettledStates)
	if statesRaw, _ := p.metaValue(MetaItemStates); settledRaw != "" && !isTemplate(settledRaw) {
		if statesRaw == "" {
			errs = append(errs, p.errorf(line, "%s without %s: declare the item states first, such as \"**%s:** candidate, included, level-3\"", MetaSettledStates, MetaItemStates, MetaItemStates))
		} else if msg := notAmong(settledRaw, statesRaw); msg != "" {
			errs = append(errs, p.errorf(line, "%s", msg))
		}
	}
	for _, u := range p.Units {
		if u.SettledRaw == "" {
			continue
		}
		n := u.lines.at(MetaSettledStates)
		statesRaw := u.ItemStatesRaw
		if statesRaw == "" {
			statesRaw, _ = p.metaValue(MetaItemStates)
		}
		if statesRaw == "" {
			errs = append(errs, p.errorf(n, "%s: %s without %s: declare the item states first, for the unit (\"- %s: ...\") or the plan (\"**%s:** ...\")", u.ID, MetaSettledStates, MetaItemStates, MetaItemStates, MetaItemStates))
			continue
		}
		if msg := notAmong(u.SettledRaw, statesRaw); msg != "" {
			errs = append(errs, p.errorf(n, "%s: %s", u.ID, msg))
		}
	}
	return errs
}

// notAmong says which settled state is not an item state, "" when all are.
func notAmong(settledRaw, statesRaw string) string {
	states, _ := parseStateList(statesRaw)
	settled, _ := parseStateList(settledRaw)
	for _, s := range settled {
		if !slices.ContainsFunc(states, func(n string) bool { return strings.EqualFold(n, s) }) {
			return fmt.Sprintf("settled state %q is not one of the item states (%s); %s", s, strings.Join(states, ", "), settledForm)
		}
	}
	return ""
}

// MetricTarget is one "Metric:" sub-item of a unit: a target for a
// number its iterations record ("words >= 2500").
type MetricTarget struct {
	// Raw is the value as written; Render writes it back.
	Raw string
	// Name is the metric, Op one of >=, <= and =, Number the target in
	// canonical form (state.ParseNumber).
	Name, Op, Number string
}

// String reads "words >= 2500".
func (m MetricTarget) String() string { return m.Name + " " + m.Op + " " + m.Number }

// Met reports whether the canonical number v meets the target.
func (m MetricTarget) Met(v string) bool {
	a, b := state.NumberValue(v), state.NumberValue(m.Number)
	switch m.Op {
	case ">=":
		return a >= b
	case "<=":
		return a <= b
	}
	return a == b
}

const metricForm = `write it as "Metric: words >= 2500" (the operators are >=, <= and =)`

// ParseMetricTarget reads a Metric value: "NAME OP NUMBER".
func ParseMetricTarget(v string) (MetricTarget, error) {
	raw := strings.TrimSpace(v)
	m := MetricTarget{Raw: raw}
	s := strings.ReplaceAll(strings.ReplaceAll(raw, "≥", ">="), "≤", "<=")
	i := strings.IndexAny(s, "<>=")
	if i < 0 {
		return MetricTarget{}, fmt.Errorf("metric %q has no target; %s", raw, metricForm)
	}
	m.Name = strings.Trim(strings.TrimSpace(s[:i]), "`")
	rest := s[i:]
	for _, op := range []string{">=", "<=", "="} {
		if strings.HasPrefix(rest, op) {
			m.Op, rest = op, rest[len(op):]
			break
		}
	}
	switch {
	case !state.ValidName(m.Name):
		return MetricTarget{}, fmt.Errorf("metric %q: %q is not a metric's name (letters, digits, '-' or '_', starting with a letter); %s", raw, m.Name, metricForm)
	case m.Op == "":
		return MetricTarget{}, fmt.Errorf("metric %q: the operator is not >=, <= or =; %s", raw, metricForm)
	}
	n, err := state.ParseNumber(strings.Trim(strings.TrimSpace(rest), "`"))
	if err != nil {
		return MetricTarget{}, fmt.Errorf("metric %q: %w", raw, err)
	}
	m.Number = n
	return m, nil
}

// addMetric adds the metric sub-item it to unit u.
func (ps *parser) addMetric(u *Unit, it *item) {
	m, err := ParseMetricTarget(it.value)
	if err != nil {
		ps.errorf(it.line, "%s: %v", u.ID, err)
		return
	}
	for _, o := range u.Metrics {
		if o.Name == m.Name {
			ps.errorf(it.line, "%s: metric %s has a target already (%s); keep one", u.ID, m.Name, o.Raw)
			return
		}
	}
	u.Metrics = append(u.Metrics, m)
}

// ItemsIn are the unit's recorded items (among the plan's items when it
// gives them) in the states keep picks.
func (u *Unit) ItemsIn(it *state.Items, keep func(st string) bool) state.ItemSet {
	var out state.ItemSet
	for _, st := range it.StateNames() {
		if keep(st) {
			out = out.Union(u.Recorded(it, st))
		}
	}
	return out
}

// StateItems are the items of a ledger in one state; State "" stands for
// the plan's items not recorded in any.
type StateItems struct {
	State string
	Items state.ItemSet
}

// Unsettled are the unit's items that are not settled under lifecycle d,
// by state in the lifecycle's order (states it does not know, after a
// plan change, next; the plan's items not recorded last, State ""), and
// how many there are together. Without "Items:" only recorded items count.
func (u *Unit) Unsettled(it *state.Items, d ItemStates) ([]StateItems, int) {
	var out []StateItems
	n := 0
	add := func(st string, s state.ItemSet) {
		if s.Len() > 0 {
			out = append(out, StateItems{State: st, Items: s})
			n += s.Len()
		}
	}
	held := it.StateNames()
	for _, st := range d.Names() {
		if slices.Contains(held, st) && !d.IsSettled(st) {
			add(st, u.Recorded(it, st))
		}
	}
	for _, st := range held {
		if _, known := d.Known(st); !known || !slices.Contains(d.Names(), st) {
			add(st, u.Recorded(it, st))
		}
	}
	if u != nil && u.HasItems() {
		var all state.ItemSet
		if u.ItemCount > 0 {
			all.Add(state.ItemRange{Lo: 1, Hi: u.ItemCount})
		}
		for _, name := range u.ItemNames {
			all.Add(state.ItemRange{Name: name})
		}
		add("", all.Minus(u.ItemsIn(it, func(string) bool { return true })))
	}
	return out, n
}

// UnsettledText words unsettled items for a message: "included: 5;
// not recorded: 6", each state's first ranges.
func UnsettledText(groups []StateItems) string {
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		name := g.State
		if name == "" {
			name = "not recorded"
		}
		list := g.Items.List()
		if len(list) > 5 {
			list = append(list[:5:5], fmt.Sprintf("and %d more", len(list)-5))
		}
		parts = append(parts, name+": "+strings.Join(list, ", "))
	}
	return strings.Join(parts, "; ")
}
