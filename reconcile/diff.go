package reconcile

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// The sources that decide a derived value, strongest first.
const (
	SourceLog    = "progress.md"
	SourcePlan   = "plan"
	SourceFolder = "task folder"
	SourceState  = "state.json"
)

// Discrepancy is one value on which a recorded view and the folded view
// disagree. Unit is "" for task-level fields; Recorded and Derived are JSON
// text, or "absent".
type Discrepancy struct {
	Unit     string `json:"unit,omitempty"`
	Field    string `json:"field"`
	Recorded string `json:"recorded"`
	Derived  string `json:"derived"`
	Source   string `json:"source"`
}

// String reads like `T3.status: recorded "done", derived "confirming" (from progress.md)`.
func (d Discrepancy) String() string {
	name := d.Field
	if d.Unit != "" {
		name = d.Unit + "." + d.Field
	}
	return fmt.Sprintf("%s: recorded %s, derived %s (from %s)", name, d.Recorded, d.Derived, d.Source)
}

const absent = "absent"

// Diff lists every value on which recorded differs from derived, task fields
// first, then units in natural order. Keys itr does not know are carried
// into the folded view unchanged and never differ. recorded may be nil (no
// readable state.json): everything is then reported as absent.
func Diff(recorded, derived *state.State, p *plan.Plan) []Discrepancy {
	if recorded == nil {
		recorded = &state.State{Mode: derived.Mode, Units: map[string]*state.Unit{}}
	}
	var planUnits map[string]*plan.Unit
	if active(p) {
		planUnits = p.Index()
	}
	var out []Discrepancy
	add := func(unit, field string, r, d any, source string) {
		if same(r, d) {
			return // most fields agree: no need to word them
		}
		rs, ds := show(r), show(d)
		if rs != ds {
			out = append(out, Discrepancy{Unit: unit, Field: field, Recorded: rs, Derived: ds, Source: source})
		}
	}
	add("", "task", str(recorded.Task), str(derived.Task), SourceLog)
	add("", "slug", str(recorded.Slug), str(derived.Slug), SourceFolder)
	add("", "mode", str(string(recorded.Mode)), str(string(derived.Mode)), SourceLog)
	add("", "domain", recorded.Domain, derived.Domain, SourceLog)
	add("", "created", recorded.Created, derived.Created, SourceLog)
	add("", "updated", recorded.Updated, derived.Updated, SourceLog)
	add("", "phase", str(string(recorded.Phase)), str(string(derived.Phase)), SourceLog)
	add("", "paused", recorded.Paused, derived.Paused, SourceLog)
	add("", "approval", recorded.Approval, derived.Approval, SourceLog)
	add("", "outcome", recorded.Outcome, derived.Outcome, SourceLog)
	add("", derived.Mode.CurrentKey(), recorded.Current, derived.Current, SourceLog)
	add("", "current_iteration", recorded.CurrentIteration, derived.CurrentIteration, SourceLog)
	add("", "commits", list(recorded.Commits), list(derived.Commits), SourceLog)

	unitSource := SourceLog
	if active(p) {
		unitSource = SourcePlan
	}
	sorted := diffIDs(recorded, derived)
	for _, id := range sorted {
		r, d := recorded.Units[id], derived.Units[id]
		switch {
		case r == nil:
			out = append(out, Discrepancy{Unit: id, Field: "unit", Recorded: absent, Derived: show(str(string(d.Status))), Source: unitSource})
			continue
		case d == nil:
			out = append(out, Discrepancy{Unit: id, Field: "unit", Recorded: show(str(string(r.Status))), Derived: absent, Source: unitSource})
			continue
		}
		add(id, "status", str(string(r.Status)), str(string(d.Status)), SourceLog)
		add(id, "reason", r.Reason, d.Reason, SourceLog)
		add(id, "reason_kind", r.ReasonKind, d.ReasonKind, SourceLog)
		add(id, "clear_when", r.ClearWhen, d.ClearWhen, SourceLog)
		add(id, "iterations_used", r.IterationsUsed, d.IterationsUsed, SourceLog)
		add(id, "confirmations_used", r.ConfirmationsUsed, d.ConfirmationsUsed, SourceLog)
		add(id, "restarts", r.Restarts, d.Restarts, SourceLog)
		add(id, "verification_passed", r.VerificationPassed, d.VerificationPassed, SourceLog)
		limitSource := SourceState
		if pu := planUnits[id]; pu != nil && pu.MaxIterations > 0 {
			limitSource = SourcePlan
		}
		add(id, "max_iterations", r.MaxIterations, d.MaxIterations, limitSource)
		add(id, "started_at", r.StartedAt, d.StartedAt, SourceLog)
		add(id, "completed_at", r.CompletedAt, d.CompletedAt, SourceLog)
		add(id, "verified_by", r.VerifiedBy, d.VerifiedBy, SourceLog)
		add(id, "progress", r.Progress, d.Progress, SourceLog)
		add(id, "progress_detail", r.ProgressDetail, d.ProgressDetail, SourceLog)
		add(id, "last_run", r.LastRun, d.LastRun, SourceLog)
		add(id, "checks", checksText(r.Checks), checksText(d.Checks), SourceLog)
		add(id, "gate_rounds", gateText(r.GateRounds), gateText(d.GateRounds), SourceLog)
		add(id, "items", ledgerText(r.Items), ledgerText(d.Items), SourceLog)
		add(id, "metrics", metricsText(r.Metrics), metricsText(d.Metrics), SourceLog)
		add(id, "outputs", pinsText(r.Outputs), pinsText(d.Outputs), SourceLog)
	}
	return out
}

func str(s string) *string { return &s }

// ledgerText words an item ledger for a discrepancy: "done 1-12; skipped
// 13; total 17", nil when there is none.
func ledgerText(it *state.Items) *string {
	if it == nil {
		return nil
	}
	var parts []string
	for _, st := range state.ItemStates {
		if l := it.List(st); l != nil {
			parts = append(parts, st+" "+strings.Join(l, ", "))
		}
	}
	for _, st := range it.StateNames() {
		if !state.ValidItemState(st) {
			parts = append(parts, st+" "+strings.Join(it.List(st), ", "))
		}
	}
	if it.Total != nil {
		parts = append(parts, fmt.Sprintf("total %d", *it.Total))
	}
	for _, id := range it.ValueItems() {
		vs := it.Values[id]
		names := make([]string, 0, len(vs))
		for n := range vs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s:%s=%q", id, n, vs[n]))
		}
	}
	return str(strings.Join(parts, "; "))
}

// metricsText words a unit's metrics for a discrepancy: "findings=8,
// words=2847", nil when there are none.
// checksText is a unit's checks as one JSON text, nil for none.
func checksText(m map[string]*state.CheckResult) *string {
	if m == nil {
		return nil
	}
	return str(mustJSON(m))
}

// gateText is a unit's gate rounds as one text, nil for none.
func gateText(g *state.GateRounds) *string {
	if g == nil {
		return nil
	}
	return str(fmt.Sprintf("confirm %d, verify %d", g.Confirm, g.Verify))
}

func metricsText(m map[string]string) *string {
	if m == nil {
		return nil
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + m[n]
	}
	return str(strings.Join(parts, ", "))
}

func list(l []string) *[]string {
	if l == nil {
		return nil
	}
	return &l
}

// show renders a pointer's value as JSON, or "absent" for nil.
// same reports whether two values of a field are equal without wording
// them; false when it cannot tell (show then decides).
func same(a, b any) bool {
	switch x := a.(type) {
	case *string:
		y, ok := b.(*string)
		return ok && (x == nil) == (y == nil) && (x == nil || *x == *y)
	case *int:
		y, ok := b.(*int)
		return ok && (x == nil) == (y == nil) && (x == nil || *x == *y)
	case *bool:
		y, ok := b.(*bool)
		return ok && (x == nil) == (y == nil) && (x == nil || *x == *y)
	}
	return false
}

func show(v any) string {
	switch p := v.(type) {
	case *string:
		if p == nil {
			return absent
		}
		return mustJSON(*p)
	case *int:
		if p == nil {
			return absent
		}
		return mustJSON(*p)
	case *bool:
		if p == nil {
			return absent
		}
		return mustJSON(*p)
	case *[]string:
		if p == nil {
			return absent
		}
		return mustJSON(*p)
	case *state.Run:
		if p == nil {
			return absent
		}
		return mustJSON(*p)
	case *state.Pause:
		if p == nil {
			return absent
		}
		return mustJSON(*p)
	case *state.Outcome:
		if p == nil {
			return absent
		}
		return mustJSON(*p)
	case *state.Approval:
		if p == nil {
			return absent
		}
		return mustJSON(*p)
	}
	return mustJSON(v)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// diffIDs are the IDs of the units of recorded and derived together, in
// natural order. Mostly both hold the same units: then they are
// recorded's IDs, which a decoded state gives without sorting again.
func diffIDs(recorded, derived *state.State) []string {
	ids := recorded.IDs()
	same := len(ids) == len(derived.Units)
	for _, id := range ids {
		if !same {
			break
		}
		_, same = derived.Units[id]
	}
	if same {
		return ids
	}
	for id := range derived.Units {
		if _, ok := recorded.Units[id]; !ok {
			ids = append(ids, id)
		}
	}
	state.SortIDs(ids)
	return ids
}
