package workspace

import (
	"strings"

	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
)

// ApproveRequest approves a task's plan: By is the person who approved it
// (required), Note what they said (optional).
type ApproveRequest struct {
	Slug, By, Note string
}

// Approve records a person's approval of the plan, as one Approved entry
// and one commit: a plan whose header says "**Approval:** required" takes
// no unit work before it. The rule book refuses an approval of a plan that
// asks for none, a second one, and one on a concluded task.
func (w *Workspace) Approve(req ApproveRequest) (*Outcome, error) {
	by, note := strings.TrimSpace(req.By), strings.TrimSpace(req.Note)
	if by == "" {
		return nil, record.Required("by", "name the person who approved the plan")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "by", by, "note", note); err != nil {
		return nil, err
	}
	return record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
		if t.PlanErr != nil {
			return nil, t.PlanErr
		}
		if _, err := reconcile.DecideApprove(t.State, t.Plan, by, note); err != nil {
			return nil, err
		}
		fields := []progresslog.Field{{Name: reconcile.FieldBy, Value: by}}
		if note != "" {
			fields = append(fields, progresslog.Field{Name: reconcile.FieldNote, Value: note})
		}
		e := &progresslog.Entry{Kind: progresslog.KindApproved, Stamp: w.Stamp(), Fields: fields}
		return &record.Change{Entry: e, Event: store.EventApproved, Subject: "plan approved by " + by}, nil
	})
}

// RecheckRequest records a re-check of a done unit: Did says what was
// read again and why the work still holds (required).
type RecheckRequest struct {
	Slug, Unit, Did string
}

// Recheck records that a done unit whose inputs changed after it was done
// was read again against them and still holds, as one Rechecked entry and
// one commit; the unit stays done, and its inputs are compared from this
// commit on. The rule book refuses a unit that is not done.
func (w *Workspace) Recheck(req RecheckRequest) (*Outcome, error) {
	id, did := strings.TrimSpace(req.Unit), strings.TrimSpace(req.Did)
	if id == "" {
		return nil, record.Required("unit", "name the done unit that was re-checked")
	}
	if did == "" {
		return nil, record.Required("did", "say what was read again and why the unit's work still holds")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "unit", id, "did", did); err != nil {
		return nil, err
	}
	return record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
		if _, err := reconcile.Decide(t.State, t.Plan, reconcile.Intent{Action: reconcile.Recheck, Unit: id, Reason: did}); err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: progresslog.KindRechecked, Unit: id, Stamp: w.Stamp(),
			Fields: []progresslog.Field{{Name: reconcile.FieldDid, Value: did}}}
		return &record.Change{Entry: e, Event: store.EventRechecked, Subject: "recheck " + id + ": " + did}, nil
	})
}
