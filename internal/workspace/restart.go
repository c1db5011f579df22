package workspace

import (
	"strings"

	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// RestartRequest starts a unit's work over from nothing (itr restart, seed
// 004's "restart from 0%"): a unit under way or failed goes back to
// pending, as one Restarted entry with the reason.
type RestartRequest struct {
	Slug   string // "" is the selected task
	Unit   string
	Reason string
}

// RestartReport is what itr restart did.
type RestartReport struct {
	Outcome *Outcome
	// From is the unit's status before the restart; Spent the iterations
	// it keeps (they count for its limit and the task's budget).
	From  state.Status
	Spent int
	// Outputs are the unit's outputs (as the plan names them) whose files
	// differed from the last commit: the restart leaves them as they
	// are (those in the task folder are committed with its entry, so the
	// interrupted work stays in git's history); the new attempt rewrites
	// them.
	Outputs []string
}

// Restart records a restart of a unit the rule book accepts: one under way
// (in_progress, confirming, verifying) or failed, that no other agent
// holds. The unit goes back to pending; its progress, items, last run and
// verification no longer hold; its iterations stay spent, so a restart
// never escapes a limit (see reconcile's restart.go). Its log entries are
// kept, and a new attempt numbers its iterations after them.
func (w *Workspace) Restart(req RestartRequest) (*RestartReport, error) {
	id := strings.TrimSpace(req.Unit)
	if id == "" {
		return nil, record.Required("unit", "name the unit to start over (one under way or failed)")
	}
	if strings.TrimSpace(req.Reason) == "" {
		return nil, record.Required("reason", "say why the unit starts over (what was wrong with the work so far)")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "reason", req.Reason, "unit", id); err != nil {
		return nil, err
	}
	slug, err := w.Select(req.Slug)
	if err != nil {
		return nil, err
	}
	rep := &RestartReport{}
	out, err := record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		held, err := w.heldFor(t.Slug)
		if err != nil {
			return nil, err
		}
		// The rule book decides before anything is written.
		ev, err := reconcile.Decide(t.State, t.Plan, reconcile.Intent{Action: reconcile.Restart, Unit: id, Reason: req.Reason, Held: held})
		if err != nil {
			return nil, err
		}
		u := t.State.Units[ev.Unit]
		rep.From, rep.Spent = u.Status, state.Val(u.IterationsUsed)
		if spec, ok := reconcile.OutputSpec(t.Plan, ev.Unit); ok {
			if rep.Outputs, err = w.ChangedOutputs(t, spec.Files); err != nil {
				return nil, err
			}
		}
		e := &progresslog.Entry{Kind: progresslog.KindRestarted, Unit: ev.Unit, Stamp: w.Stamp(),
			Fields: []progresslog.Field{{Name: "Reason", Value: req.Reason}}}
		return &record.Change{Entry: e, Event: store.EventRestarted, Subject: "restart " + ev.Unit + ": " + req.Reason}, nil
	})
	if err != nil {
		return nil, err
	}
	rep.Outcome = out
	return rep, nil
}
