package reconcile

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// Task outcomes: how a task ends. A Concluded entry records one (itr
// deliver: complete, or done with limitations; itr abandon: abandoned, or
// with --failed, failed); an Archived entry of a task that has none records complete (or
// abandoned, when it was forced). While a task has an outcome the rule book
// takes no work on it: a Resumed entry (itr resume) or a Restored one takes
// it back to work.

// The fields of a Concluded entry (and the Outcome of an Archived one).
const (
	FieldOutcome     = "Outcome"
	FieldMissing     = "Missing"
	FieldLimitations = "Limitations"
)

// Conclusion is a request to end the task with an outcome.
type Conclusion struct {
	// Result is the outcome asked for. ResultComplete needs every unit
	// settled; ResultLimited needs Limitations (what the delivery lacks)
	// and counts the unsettled units as missing.
	Result state.Result
	// Reason is why the task is abandoned or failed; Kind what a failed
	// task needs (one of state.FailKinds, "" for none).
	Reason, Kind string
	// Limitations is what a delivery with limitations lacks, in someone's
	// words.
	Limitations string
}

// DecideOutcome checks a conclusion against the state and the plan and
// gives the event to record: its Result, Missing (the unsettled units'
// IDs) and the text fields. A task that has an outcome is refused
// (AlreadyConcluded); complete with unsettled units, or done with
// limitations without saying what is missing, is refused
// (NeedsLimitations, Units listing them); a kind a failure does not take
// is BadKind.
func DecideOutcome(s *state.State, p *plan.Plan, c Conclusion) (Event, error) {
	if s.Outcome != nil {
		return Event{}, &Refusal{Code: AlreadyConcluded, Outcome: s.Outcome.Clone()}
	}
	s = Synced(s, p)
	open := Unsettled(s, p)
	ev := Event{Kind: progresslog.KindConcluded, Result: c.Result, Reason: strings.TrimSpace(c.Reason),
		Limitations: strings.TrimSpace(c.Limitations), Missing: unitIDs(open)}
	switch c.Result {
	case state.ResultComplete, state.ResultLimited:
		if len(open) > 0 && ev.Limitations == "" {
			return Event{}, &Refusal{Code: NeedsLimitations, Units: open}
		}
		if ev.Limitations != "" {
			ev.Result = state.ResultLimited
		}
		ev.Reason = ""
	case state.ResultFailed:
		if err := checkKind("", c.Kind, state.Failed); err != nil {
			return Event{}, err
		}
		ev.ReasonKind = c.Kind
	case state.ResultAbandoned:
	default:
		return Event{}, fmt.Errorf("%q is not an outcome: use one of the state.Result constants", c.Result)
	}
	return ev, nil
}

// MissingText is the **Missing:** value of a conclusion's entry: the
// unsettled units with their statuses, "S2 (pending), R1 (pending)".
func MissingText(s *state.State, p *plan.Plan) string {
	return strings.Join(Unsettled(Synced(s, p), p), ", ")
}

// outcomeEvent reads the fields of a Concluded entry into ev; it returns
// what was wrong. An outcome that does not read leaves the
// entry unapplied.
func outcomeEvent(ev *Event, field func(string) string) []string {
	var problems []string
	r, err := state.ParseResult(field(FieldOutcome))
	if err != nil {
		ev.Kind = progresslog.KindOther
		return []string{"**Outcome:** " + err.Error()}
	}
	ev.Result = r
	ev.Reason, ev.Limitations = field("Reason"), field(FieldLimitations)
	ev.Missing = unitIDs(strings.Split(field(FieldMissing), ","))
	if r == state.ResultFailed {
		if msg := readKind(ev, field(FieldKind), "failure kind", state.FailKinds); msg != "" {
			problems = append(problems, msg)
		}
	}
	return problems
}

// archivedEvent reads what an Archived entry says of the outcome: its
// **Outcome:** (written since itr had outcomes), else abandoned for a
// forced archive (its **Forced:** reason, its **Unfinished:** units), else
// complete. The fold sets it only on a task that has no outcome yet.
func archivedEvent(ev *Event, field func(string) string) {
	forced := field("Forced")
	ev.Result = state.ResultComplete
	if forced != "" {
		ev.Result, ev.Reason = state.ResultAbandoned, forced
		ev.Missing = unitIDs(strings.Split(field("Unfinished"), ","))
	}
	if r, err := state.ParseResult(field(FieldOutcome)); err == nil {
		ev.Result = r
	}
}

// unitIDs are the unit IDs that start the given texts ("S2 (pending)"),
// in order, each once.
func unitIDs(texts []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		f := strings.Fields(t)
		// "S2" or "S2 (pending)": an ID, then its status in brackets.
		if len(f) == 0 || !state.ValidID(f[0]) || seen[f[0]] || len(f) > 1 && !strings.HasPrefix(f[1], "(") {
			continue
		}
		seen[f[0]] = true
		out = append(out, f[0])
	}
	return out
}

// conclude applies a Concluded event: the task's outcome, its pause over;
// a delivery moves the phase to deliver.
func conclude(s *state.State, ev Event) {
	s.Outcome = outcomeOf(ev)
	s.Paused = nil
	if ev.Result.Delivered() && s.Phase.Rank() < state.Deliver.Rank() {
		s.Phase = state.Deliver
	}
}

// outcomeOf is the outcome an event records.
func outcomeOf(ev Event) *state.Outcome {
	o := &state.Outcome{Result: ev.Result, At: ev.Time, Reason: ev.Reason, Limitations: ev.Limitations}
	if ev.Result == state.ResultFailed {
		o.Kind = ev.ReasonKind
	}
	if len(ev.Missing) > 0 {
		o.Missing = append([]string(nil), ev.Missing...)
	}
	return o
}

// reopenTask takes a task with an outcome back to work (a Resumed or
// Restored entry): the outcome is gone, and a delivered task's phase is
// execute again.
func reopenTask(s *state.State) {
	if s.Outcome == nil {
		return
	}
	s.Outcome = nil
	if s.Phase == state.Deliver {
		s.Phase = state.Execute
	}
}

// concluded is the refusal of anything but an outcome's own ways out on a
// task that has one; nil when it has none.
func concluded(s *state.State, unit string) *Refusal {
	if s.Outcome == nil {
		return nil
	}
	return &Refusal{Code: Concluded, Unit: unit, Outcome: s.Outcome.Clone()}
}

// outcomeText words an outcome for a refusal: "abandoned since
// 2026-01-14T10:30:00Z: superseded", "done with limitations (missing R1)
// since ...: one source only".
func outcomeText(o *state.Outcome) string {
	if o == nil {
		return "with an outcome"
	}
	bare := *o
	bare.Reason, bare.Limitations = "", ""
	t := bare.Text()
	if o.At != "" {
		t += " since " + o.At
	}
	var why []string
	for _, s := range []string{o.Reason, o.Limitations} {
		if s = strings.TrimSpace(s); s != "" {
			why = append(why, s)
		}
	}
	if len(why) > 0 {
		t += ": " + strings.Join(why, "; ")
	}
	return t
}

// budgetSpent is the refusal of work on a task whose Max total iterations
// are used while some unit's work is not accounted for; nil otherwise.
func budgetSpent(s *state.State, p *plan.Plan, unit string) *Refusal {
	if max, ok := p.MetaCount(plan.MetaMaxTotal); ok && TotalIterations(s) >= max && unsettledAny(s, p) {
		return &Refusal{Code: BudgetSpent, Unit: unit, Max: max, PlanFile: planFile(p), Line: p.MetaLine(plan.MetaMaxTotal), Units: Unsettled(s, p)}
	}
	return nil
}

// budgetAt is where the budget is written: "plan.md:3", the file alone
// when the line is unknown.
func (r *Refusal) budgetAt() string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d", r.PlanFile, r.Line)
	}
	return r.PlanFile
}

// BudgetWaysOut says what a person can do once the task used its budget
// (r is a BudgetSpent refusal; field names a request's field, such as a
// flag): raise it where it is written, or wrap up what exists as the
// outcome done with limitations.
func BudgetWaysOut(r *Refusal, field func(string) string) string {
	return fmt.Sprintf("a person raises it at %s to go on (it counts at once; `itr plan` records it), or wraps up what exists with `itr deliver %s TEXT` (the outcome done with limitations: the unfinished units%s, and what TEXT says is missing)",
		r.budgetAt(), field("limitations"), unitsInParens(r.Units))
}

// unitsInParens is " (S2, R1)" for the units given as "S2 (pending)",
// "" for none.
func unitsInParens(units []string) string {
	ids := unitIDs(units)
	if len(ids) == 0 {
		return ""
	}
	return " (" + strings.Join(firstOf(ids, 8), ", ") + ")"
}

// ConcludedEntry is the Concluded entry of an outcome DecideOutcome gave,
// stamped stamp: its **Outcome:** in words, and as it has them, **Kind:**,
// **Reason:**, **Missing:** (missing, the units with their statuses, from
// MissingText) and **Limitations:**.
func ConcludedEntry(ev Event, missing, stamp string) progresslog.Entry {
	e := progresslog.Entry{Kind: progresslog.KindConcluded, Stamp: stamp,
		Fields: []progresslog.Field{{Name: FieldOutcome, Value: ev.Result.Words()}}}
	add := func(name, value string) {
		if strings.TrimSpace(value) != "" {
			e.Fields = append(e.Fields, progresslog.Field{Name: name, Value: value})
		}
	}
	if ev.Result == state.ResultFailed {
		add(FieldKind, ev.ReasonKind)
	}
	add("Reason", ev.Reason)
	if len(ev.Missing) > 0 {
		add(FieldMissing, missing)
	}
	add(FieldLimitations, ev.Limitations)
	return e
}

// OutcomeOf is the task's outcome as its view and its log say: the
// view's, else, for an archived task whose view has none (archived before
// itr had outcomes), the one its last Archived entry gives (complete, or
// abandoned when it was forced). entries gives the log; it is called only
// then.
func OutcomeOf(s *state.State, log func() []progresslog.Entry) *state.Outcome {
	if s == nil {
		return nil
	}
	if s.Outcome != nil || s.Phase != state.Complete {
		return s.Outcome
	}
	entries := log()
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Kind == progresslog.KindArchived {
			ev, _ := EventFrom(entries[i], nil)
			return outcomeOf(ev)
		}
	}
	return nil
}
