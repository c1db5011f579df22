package reconcile

import (
	"fmt"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// The approval gate (seed 003: execute only after the plan is approved). A
// plan whose header says "**Approval:** required" takes no unit work (no
// checkpoint, start or finish) until a person approves it with itr
// approve --by WHO, one Approved entry that state.json keeps as approval
// {by, at, note}. Setting a unit aside (block, skip, fail) is not work and
// stays open. An approval stays once given: a later edit of the plan does
// not take it back (the Approved entry's commit says which plan was
// approved; `git diff` from it shows what changed since).
//
// Re-checking: a done unit whose inputs changed after it was done (the
// workspace finds that in git) is read again against them; when it still
// holds, itr recheck records that as one Rechecked entry, and the unit
// stays done. The entry's commit is the new point its inputs are compared
// from.

// The refusals of the approval gate and of a re-check.
const (
	// NeedsApproval refuses unit work while the plan asks for approval
	// and has none.
	NeedsApproval Code = "needs-approval"
	// NoApprovalAsked refuses an approval of a plan that asks for none.
	NoApprovalAsked Code = "no-approval-asked"
	// AlreadyApproved refuses a second approval.
	AlreadyApproved Code = "already-approved"
	// RecheckNotDone refuses a re-check of a unit that is not done.
	RecheckNotDone Code = "recheck-not-done"
)

// The fields of Approved and Rechecked entries.
const (
	FieldBy   = "By"
	FieldNote = "Note"
	FieldDid  = "Did"
)

// approvalNeeded is the refusal of unit work while the plan asks for
// approval and the task has none, nil otherwise.
func approvalNeeded(s *state.State, p *plan.Plan, unit string) *Refusal {
	if !active(p) || !p.ApprovalRequired() || s.Approval != nil {
		return nil
	}
	return &Refusal{Code: NeedsApproval, Unit: unit, PlanFile: planFile(p), Line: p.MetaLine(plan.MetaApproval)}
}

// ApprovalNeeded reports whether the plan asks for approval before unit
// work and the task has none yet.
func ApprovalNeeded(s *state.State, p *plan.Plan) bool { return approvalNeeded(s, p, "") != nil }

// DecideApprove checks an approval of the plan by who (note is what they
// said) and gives the event to record: refused on a concluded task, when
// the plan asks for no approval, or when it has one already.
func DecideApprove(s *state.State, p *plan.Plan, by, note string) (Event, error) {
	if r := concluded(s, ""); r != nil {
		return Event{}, r
	}
	if !active(p) || !p.ApprovalRequired() {
		file := PlanName(s.Mode)
		if active(p) {
			file = planFile(p)
		}
		return Event{}, &Refusal{Code: NoApprovalAsked, PlanFile: file}
	}
	if a := s.Approval; a != nil {
		return Event{}, &Refusal{Code: AlreadyApproved, Reason: a.By, Since: a.At, PlanFile: planFile(p)}
	}
	return Event{Kind: progresslog.KindApproved, By: by, Note: note}, nil
}

// approvalWords words the refusals of the approval gate and of a
// re-check; "" for the others.
func (r *Refusal) approvalWords(field func(string) string) string {
	switch r.Code {
	case NeedsApproval:
		return fmt.Sprintf("the plan asks for approval before any unit work (\"**Approval:** required\" at %s) and nobody has approved it; nothing was recorded: a person reads %s and approves it with `itr approve %s WHO`",
			r.budgetAt(), r.PlanFile, field("by"))
	case NoApprovalAsked:
		return fmt.Sprintf("%s asks for no approval; nothing was recorded: to gate the work on one, add \"**Approval:** required\" to its header", r.PlanFile)
	case AlreadyApproved:
		return fmt.Sprintf("the plan was already approved by %s (%s); nothing was recorded", r.Reason, r.Since)
	case RecheckNotDone:
		return fmt.Sprintf("unit %s is %s, not done: only a done unit is re-checked; nothing was recorded (a unit under way records its work with `itr checkpoint %s`)", r.Unit, r.Status, r.Unit)
	}
	return ""
}
