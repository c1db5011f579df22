package reconcile

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// Failure and skipping. A unit that cannot go on without someone fails
// (itr fail: a Failed entry with its reason and kind); a unit left out on
// purpose is skipped (itr skip: a Skipped entry with its reason). Both are
// final until a Reopened entry, which sends the unit back to in_progress
// (pending when it never had an iteration). A unit is settled when its
// work is accounted for: done, skipped, or failed with a done unit that
// replaces it ("Replaces: T3" in the plan). Dependants of a settled unit
// may proceed, and archive accepts a task whose units are all settled.

// The fields of Blocked and Failed entries beside **Reason:**.
const (
	// FieldKind is what the unit needs to go on (state.BlockKinds).
	FieldKind = "Kind"
	// FieldClearWhen says when a block is over.
	FieldClearWhen = "Clear when"
)

// readKind reads a **Kind:** value into ev; a value that is not one of
// kinds is left out and its message returned.
func readKind(ev *Event, v, what string, kinds []string) string {
	if v == "" {
		return ""
	}
	k, err := state.ParseKind(what, v, kinds)
	if err != nil {
		return err.Error()
	}
	ev.ReasonKind = k
	return ""
}

// optional is nil for "", else a pointer to v.
func optional(v string) *string {
	if v == "" {
		return nil
	}
	return state.Ptr(v)
}

// settle applies a Failed or Skipped entry (allowed has checked the move):
// the unit takes the status with its reason (and a failure its kind); the
// current unit it was stops being current.
func settle(s *state.State, ev Event) {
	u := unit(s, ev.Unit)
	reason := ev.Reason
	u.Status, u.ReasonKind, u.ClearWhen = state.Skipped, nil, nil
	if ev.Kind == progresslog.KindFailed {
		u.Status, u.ReasonKind = state.Failed, optional(ev.ReasonKind)
		if reason == "" {
			reason = "failed"
		}
	} else if reason == "" {
		reason = "skipped"
	}
	u.Reason = state.Ptr(reason)
	if state.Val(s.Current) == u.ID {
		s.Current, s.CurrentIteration = nil, nil
	}
}

// Settled reports whether unit id's work is accounted for: done, skipped,
// or failed and replaced by a done unit (p may be nil: then no unit
// replaces another). A unit not in s is not settled.
func Settled(s *state.State, p *plan.Plan, id string) bool {
	return settledFunc(s, p)(id)
}

// SettledFunc is Settled for many units, the plan's replacements read
// once: the way to ask about every unit of a view.
func SettledFunc(s *state.State, p *plan.Plan) func(string) bool { return settledFunc(s, p) }

// settledFunc is Settled for many units, the plan's replacements read once.
func settledFunc(s *state.State, p *plan.Plan) func(string) bool {
	by := replacedBy(p)
	return func(id string) bool { return settledUnit(s, p, by, id, s.Units[id]) }
}

// SettledAt is SettledFunc for every unit at once, by position: units[i]
// is the unit of ids[i] (as State.Ordered gives them).
func SettledAt(s *state.State, p *plan.Plan, ids []string, units []*state.Unit) []bool {
	by := replacedBy(p)
	out := make([]bool, len(ids))
	for i, u := range units {
		out[i] = settledUnit(s, p, by, ids[i], u)
	}
	return out
}

// replacedBy is the plan's replacements (see plan.ReplacedBy), nil for no
// plan in force.
func replacedBy(p *plan.Plan) map[string][]string {
	if active(p) {
		return p.ReplacedBy()
	}
	return nil
}

// settledUnit is what settledFunc answers for unit id, u its unit in s
// (nil: none), by the plan's replacements.
func settledUnit(s *state.State, p *plan.Plan, by map[string][]string, id string, u *state.Unit) bool {
	switch {
	case u == nil:
		return false
	case u.Status.Settled():
		return true
	case u.Status == state.Failed:
		return replacedDone(s, by[id])
	}
	_, notNeeded := standBy(s, p, u)
	return notNeeded
}

// replacedDone reports whether one of the units by is done.
func replacedDone(s *state.State, by []string) bool {
	for _, r := range by {
		if u := s.Units[r]; u != nil && u.Status == state.Done {
			return true
		}
	}
	return false
}

// Unsettled lists the units whose work is not accounted for, in natural
// ID order, as "T2 (in_progress)"; a failed unit no done unit replaces
// reads "T2 (failed: needs-human: the reason)".
func Unsettled(s *state.State, p *plan.Plan) []string {
	settled := settledFunc(s, p)
	out := []string{}
	for _, id := range s.IDs() {
		if settled(id) {
			continue
		}
		u := s.Units[id]
		if u.Status == state.Failed {
			out = append(out, fmt.Sprintf("%s (failed: %s)", id, kindReason(state.Val(u.ReasonKind), state.Val(u.Reason))))
			continue
		}
		out = append(out, fmt.Sprintf("%s (%s)", id, u.Status))
	}
	return out
}

// Replacements are the units that replace id in the plan, in document
// order; nil without a plan.
func Replacements(p *plan.Plan, id string) []string {
	if !active(p) {
		return nil
	}
	return p.ReplacedBy()[id]
}

// kindReason reads "needs-human: the reason", or the reason alone.
func kindReason(kind, reason string) string {
	if kind == "" {
		return reason
	}
	return kind + ": " + reason
}

// FailedFix is what to do about a failed unit no done unit replaces, the
// words every front end uses: reopen it, skip it, or add a unit that
// replaces it.
func FailedFix(id string, m state.Mode, field func(string) string) string {
	return fmt.Sprintf("reopen it once the cause is fixed (`itr reopen %s %s TEXT`), skip it (`itr skip %s %s TEXT`), or add a unit with \"Replaces: %s\" to %s and run `itr plan`",
		id, field("reason"), id, field("reason"), id, PlanName(m))
}

// blockText reads a block's reason with its kind and when it clears:
// "missing-input: no key; clear when: the key is in .env".
func blockText(r *Refusal) string {
	t := kindReason(r.ReasonKind, r.Reason)
	if r.ClearWhen != "" {
		t += "; clear when: " + r.ClearWhen
	}
	return t
}

// A unit with "Replaces: T3" is a compensating unit: it stands by while
// T3 may still succeed, and starts only once T3 failed or was skipped. It
// is not ready while it stands by (an orchestrator never runs it beside
// the unit it would replace), and a unit that stands by for units that
// are all done is not needed: it counts as settled, so archive accepts
// the task without it.

// standBy returns the units a pending unit stands by for (with their
// statuses) while none of them has failed or been skipped; nil when it
// replaces nothing, is not pending, or may start. notNeeded says every
// unit it replaces is done.
func standBy(s *state.State, p *plan.Plan, u *state.Unit) (replaced []Dep, notNeeded bool) {
	if u == nil || u.Status != state.Pending || !active(p) || !p.AnyReplaces() {
		return nil, false
	}
	pu := p.Unit(u.ID)
	if pu == nil || len(pu.Replaces) == 0 {
		return nil, false
	}
	notNeeded = true
	for _, id := range pu.Replaces {
		r := s.Units[id]
		if r == nil {
			continue // a unit dropped from the plan: nothing to stand by for
		}
		if r.Status == state.Failed || r.Status == state.Skipped {
			return nil, false
		}
		replaced = append(replaced, Dep{ID: id, Status: r.Status})
		notNeeded = notNeeded && r.Status == state.Done
	}
	if len(replaced) == 0 {
		return nil, false
	}
	return replaced, notNeeded
}

// standingBy is standBy as the refusal work on the unit gets, or nil.
func standingBy(s *state.State, p *plan.Plan, u *state.Unit) *Refusal {
	replaced, notNeeded := standBy(s, p, u)
	if replaced == nil {
		return nil
	}
	return &Refusal{Code: StandsBy, Unit: u.ID, Status: u.Status, Waiting: replaced, NotNeeded: notNeeded}
}

func standsByText(r *Refusal) string {
	if r.NotNeeded {
		return fmt.Sprintf("unit %s is not needed: it replaces %s, which %s done; nothing was recorded (drop it from the plan with `itr plan --drop %s --reason TEXT` if you like; archive accepts it as it is)",
			r.Unit, joinIDs(r.Waiting), map[bool]string{true: "is", false: "are"}[len(r.Waiting) == 1], r.Unit)
	}
	return fmt.Sprintf("unit %s stands by for %s: it replaces %s and starts only if %s fails or is skipped; nothing was recorded",
		r.Unit, joinDeps(r.Waiting), map[bool]string{true: "it", false: "them"}[len(r.Waiting) == 1], map[bool]string{true: "it", false: "one of them"}[len(r.Waiting) == 1])
}

// joinIDs reads "T2, T3".
func joinIDs(ds []Dep) string {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	return strings.Join(ids, ", ")
}

// StandingBy reports whether unit id of s replaces units ("Replaces:")
// none of which has failed or been skipped yet, so it may not start:
// graphs draw it as waiting.
func StandingBy(s *state.State, p *plan.Plan, id string) bool {
	return StandingByUnit(s, p, s.Units[id])
}

// StandingByUnit is StandingBy of the unit u of s (nil: none), for a
// caller that holds it.
func StandingByUnit(s *state.State, p *plan.Plan, u *state.Unit) bool {
	replaced, _ := standBy(s, p, u)
	return replaced != nil
}
