package workspace

import (
	"strings"

	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// ConcludeRequest ends a task with an outcome, as one Concluded entry and
// one commit: itr deliver (Result complete, or done with limitations when
// Limitations says what is missing), itr abandon (abandoned, with the
// Reason) and itr abandon --failed (failed, with the Reason and the Kind
// of what it needs). A task with an outcome takes no more work until `itr resume`.
type ConcludeRequest struct {
	Slug   string
	Result state.Result
	// Reason is why the task is abandoned or failed (required for both).
	Reason string
	// Kind is what a failed task needs, one of state.FailKinds ("" for
	// none).
	Kind string
	// Limitations is what a delivery lacks; with units unfinished it is
	// required, and the outcome is done with limitations.
	Limitations string
}

// Conclude records the task's outcome; see ConcludeRequest.
func (w *Workspace) Conclude(req ConcludeRequest) (*Outcome, error) {
	if err := checkConclusion(req, w.Config.FieldLimit()); err != nil {
		return nil, err
	}
	c := reconcile.Conclusion{Result: req.Result, Reason: strings.TrimSpace(req.Reason), Kind: req.Kind, Limitations: strings.TrimSpace(req.Limitations)}
	if c.Result == state.ResultComplete && c.Limitations != "" {
		c.Result = state.ResultLimited
	}
	return record.Record(w.Store, req.Slug, func(t *store.Task) (*record.Change, error) {
		ev, err := reconcile.DecideOutcome(t.State, t.Plan, c)
		if err != nil {
			return nil, err
		}
		e := reconcile.ConcludedEntry(ev, reconcile.MissingText(t.State, t.Plan), w.Stamp())
		return &record.Change{Entry: &e, Event: store.EventConcluded, Subject: conclusionSubject(ev)}, nil
	})
}

// Deliver wraps the task up with what exists: complete when every unit is
// settled, else done with limitations, which needs limitations (what is
// missing beside the unfinished units).
func (w *Workspace) Deliver(slug, limitations string) (*Outcome, error) {
	return w.Conclude(ConcludeRequest{Slug: slug, Result: state.ResultComplete, Limitations: limitations})
}

// Abandon stops the task on purpose, with the reason.
func (w *Workspace) Abandon(slug, reason string) (*Outcome, error) {
	return w.Conclude(ConcludeRequest{Slug: slug, Result: state.ResultAbandoned, Reason: reason})
}

// FailTask marks the task failed: it cannot go on (an unrecoverable
// error); kind is what it needs ("" for none; one of state.FailKinds).
func (w *Workspace) FailTask(slug, reason, kind string) (*Outcome, error) {
	return w.Conclude(ConcludeRequest{Slug: slug, Result: state.ResultFailed, Reason: reason, Kind: kind})
}

// checkConclusion refuses a request that lacks a field or holds a bad
// one, before anything is read.
func checkConclusion(req ConcludeRequest, limit int) error {
	if err := record.PlainText(limit, "reason", req.Reason, "kind", req.Kind, "limitations", req.Limitations); err != nil {
		return err
	}
	switch req.Result {
	case state.ResultAbandoned:
		if strings.TrimSpace(req.Reason) == "" {
			return record.Required("reason", "say why the task is abandoned")
		}
	case state.ResultFailed:
		if strings.TrimSpace(req.Reason) == "" {
			return record.Required("reason", "say why the task cannot go on")
		}
		return checkKind(req.Kind, "failure kind", state.FailKinds)
	case state.ResultComplete, state.ResultLimited:
	default:
		words := make([]string, len(state.Results))
		for i, r := range state.Results {
			words[i] = string(r)
		}
		return &FieldError{Field: "result", Problem: clip.Quote(string(req.Result)) + " is not an outcome", Fix: "use one of " + strings.Join(words, ", ")}
	}
	if req.Kind != "" {
		return &FieldError{Field: "kind", Problem: "only a failed task has a kind", Fix: "drop it, or fail the task instead"}
	}
	return nil
}

// conclusionSubject names the commit of an outcome.
func conclusionSubject(ev reconcile.Event) string {
	switch ev.Result {
	case state.ResultAbandoned:
		return "abandon: " + ev.Reason
	case state.ResultFailed:
		return "fail the task: " + ev.Reason
	case state.ResultLimited:
		return "deliver, done with limitations: " + ev.Limitations
	}
	return "deliver: complete"
}
