package workspace

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Failure, skipping and typed blocks (see reconcile's settle.go): each is
// one entry of progress.md and one commit.

// BlockTyped marks a unit blocked with a reason, the kind of what it waits
// for ("" for none; one of state.BlockKinds) and when the block clears
// ("" when unsaid), as one Blocked entry with **Reason:**, **Kind:** and
// **Clear when:** fields.
func (w *Workspace) BlockTyped(slug, id, reason, kind, clearWhen string) (*Outcome, error) {
	if strings.TrimSpace(id) == "" {
		return nil, record.Required("unit", "name the unit to block")
	}
	if strings.TrimSpace(reason) == "" {
		return nil, record.Required("reason", "say what the unit waits for")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "reason", reason, "unit", id, "kind", kind, "clear-when", clearWhen); err != nil {
		return nil, err
	}
	if err := checkKind(kind, "block kind", state.BlockKinds); err != nil {
		return nil, err
	}
	if strings.ContainsAny(clearWhen, "\r\n") {
		return nil, &FieldError{Field: "clear-when", Problem: "holds a line break", Fix: "say when the block clears in one line"}
	}
	fields := []progresslog.Field{{Name: "Reason", Value: reason}}
	if kind != "" {
		fields = append(fields, progresslog.Field{Name: reconcile.FieldKind, Value: kind})
	}
	if c := strings.TrimSpace(clearWhen); c != "" {
		fields = append(fields, progresslog.Field{Name: reconcile.FieldClearWhen, Value: c})
	}
	in := reconcile.Intent{Action: reconcile.Block, Unit: id, Reason: reason, ReasonKind: kind, ClearWhen: strings.TrimSpace(clearWhen)}
	return w.decided(slug, in, store.EventBlocked, "block "+id+": "+reason, fields)
}

// Fail marks a unit failed: it cannot go on without someone. kind is what
// it needs ("" for none; one of state.FailKinds). Failed is final until
// itr reopen; dependants wait unless a done unit replaces it.
func (w *Workspace) Fail(slug, id, reason, kind string) (*Outcome, error) {
	if strings.TrimSpace(id) == "" {
		return nil, record.Required("unit", "name the unit that failed")
	}
	if strings.TrimSpace(reason) == "" {
		return nil, record.Required("reason", "say why the unit cannot go on")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "reason", reason, "unit", id, "kind", kind); err != nil {
		return nil, err
	}
	if err := checkKind(kind, "failure kind", state.FailKinds); err != nil {
		return nil, err
	}
	fields := []progresslog.Field{{Name: "Reason", Value: reason}}
	if kind != "" {
		fields = append(fields, progresslog.Field{Name: reconcile.FieldKind, Value: kind})
	}
	in := reconcile.Intent{Action: reconcile.Fail, Unit: id, Reason: reason, ReasonKind: kind}
	return w.settledBy(slug, id)(w.decided(slug, in, store.EventFailed, "fail "+id+": "+reason, fields))
}

// Skip marks a unit skipped, with the reason: it stays in the plan and the
// history, and its dependants may proceed. A failed unit may be skipped.
func (w *Workspace) Skip(slug, id, reason string) (*Outcome, error) {
	if strings.TrimSpace(id) == "" {
		return nil, record.Required("unit", "name the unit to skip")
	}
	if strings.TrimSpace(reason) == "" {
		return nil, record.Required("reason", "say why the unit is left out")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "reason", reason, "unit", id); err != nil {
		return nil, err
	}
	in := reconcile.Intent{Action: reconcile.Skip, Unit: id, Reason: reason}
	return w.settledBy(slug, id)(w.decided(slug, in, store.EventSkipped, "skip "+id+": "+reason, []progresslog.Field{{Name: "Reason", Value: reason}}))
}

// settledBy returns what follows a failure or a skip that was recorded:
// the claim this agent held on the unit is released (its work is over
// until someone reopens it), or a warning says why it could not be.
func (w *Workspace) settledBy(slug, id string) func(*Outcome, error) (*Outcome, error) {
	return func(out *Outcome, err error) (*Outcome, error) {
		if err != nil {
			return out, err
		}
		claims, cerr := w.Claims(out.Slug)
		if cerr != nil {
			out.Warnings = append(out.Warnings, "its claim was not looked at: "+cerr.Error())
			return out, nil
		}
		if c, ok := claims[id]; !ok || c.Finished != "" || c.Agent != w.AgentName() {
			return out, nil
		}
		if _, rerr := w.Release(out.Slug, id, "", false); rerr != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("its claim stays: %v (release it with `itr release %s`)", rerr, id))
			return out, nil
		}
		out.Released = id
		return out, nil
	}
}

// decided records the event the rule book gives for in, with fields, as
// one entry and one commit; a refusal records nothing.
func (w *Workspace) decided(slug string, in reconcile.Intent, event, subject string, fields []progresslog.Field) (*Outcome, error) {
	return record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		ev, err := reconcile.Decide(t.State, t.Plan, in)
		if err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: ev.Kind, Unit: ev.Unit, Stamp: w.Stamp(), Fields: fields}
		return &record.Change{Entry: e, Event: event, Subject: subject}, nil
	})
}

// checkKind refuses a kind that is not one of kinds ("" is none).
func checkKind(kind, what string, kinds []string) error {
	if kind == "" {
		return nil
	}
	if _, err := state.ParseKind(what, kind, kinds); err != nil {
		return &FieldError{Field: "kind", Problem: fmt.Sprintf("%s is not a %s", clip.Quote(kind), what), Fix: "use one of " + strings.Join(kinds, ", ")}
	}
	return nil
}
