package reconcile

import (
	"fmt"

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
	var by map[string][]string
	if active(p) {
		by = p.ReplacedBy()
	}
	return func(id string) bool {
		u := s.Units[id]
		switch {
		case u == nil:
			return false
		case u.Status.Settled():
			return true
		case u.Status == state.Failed:
			return replacedDone(s, by[id])
		}
		return false
	}
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
