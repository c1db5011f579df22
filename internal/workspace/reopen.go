package workspace

import (
	"strings"

	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
)

// ReopenReport is what itr reopen did: the recorded event, and the units
// that depend on the reopened one and were started, which it names and
// never changes.
type ReopenReport struct {
	Outcome *Outcome
	// Dependants are the started units that depend on the reopened one,
	// directly or not, with their statuses, in natural ID order.
	Dependants []reconcile.Dep
}

// Reopen sends a done unit found wrong back to in_progress, with the
// reason, as one Reopened entry and one commit; a failed or skipped unit
// goes back to in_progress (pending when it never had an iteration). The
// rule book refuses a unit that is none of these (reconcile.NotDone) or
// not in the task.
func (w *Workspace) Reopen(slug, id, reason string) (*ReopenReport, error) {
	if strings.TrimSpace(id) == "" {
		return nil, record.Required("unit", "name the done, failed or skipped unit to reopen")
	}
	if strings.TrimSpace(reason) == "" {
		return nil, record.Required("reason", "say what was found wrong with the unit")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "reason", reason, "unit", id); err != nil {
		return nil, err
	}
	rep := &ReopenReport{}
	out, err := record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		// The rule book decides before anything is written.
		if _, err := reconcile.Decide(t.State, t.Plan, reconcile.Intent{Action: reconcile.Reopen, Unit: id, Reason: reason}); err != nil {
			return nil, err
		}
		rep.Dependants = reconcile.Dependants(t.State, t.Plan, id)
		e := &progresslog.Entry{Kind: progresslog.KindReopened, Unit: id, Stamp: w.Stamp(),
			Fields: []progresslog.Field{{Name: "Reason", Value: reason}}}
		return &record.Change{Entry: e, Event: store.EventReopened, Subject: "reopen " + id + ": " + reason}, nil
	})
	if err != nil {
		return nil, err
	}
	rep.Outcome = out
	return rep, nil
}
