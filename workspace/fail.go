package workspace

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/workspace/store"
)

// Failure, skipping and typed blocks (see reconcile's settle.go): each is
// one entry of progress.md and one commit.

// BlockTyped marks a unit blocked with a reason, the kind of what it waits
// for ("" for none; one of state.BlockKinds) and when the block clears
// ("" when unsaid), as one Blocked entry with **Reason:**, **Kind:** and
// **Clear when:** fields.
func (w *Workspace) BlockTyped(slug, id, reason, kind, clearWhen string) (*Outcome, error) {
	if strings.TrimSpace(id) == "" {
		return nil, required("unit", "name the unit to block")
	}
	if strings.TrimSpace(reason) == "" {
		return nil, required("reason", "say what the unit waits for")
	}
	if err := plainText("reason", reason, "unit", id, "kind", kind, "clear-when", clearWhen); err != nil {
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
		return nil, required("unit", "name the unit that failed")
	}
	if strings.TrimSpace(reason) == "" {
		return nil, required("reason", "say why the unit cannot go on")
	}
	if err := plainText("reason", reason, "unit", id, "kind", kind); err != nil {
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
	return w.decided(slug, in, store.EventFailed, "fail "+id+": "+reason, fields)
}

// Skip marks a unit skipped, with the reason: it stays in the plan and the
// history, and its dependants may proceed. A failed unit may be skipped.
func (w *Workspace) Skip(slug, id, reason string) (*Outcome, error) {
	if strings.TrimSpace(id) == "" {
		return nil, required("unit", "name the unit to skip")
	}
	if strings.TrimSpace(reason) == "" {
		return nil, required("reason", "say why the unit is left out")
	}
	if err := plainText("reason", reason, "unit", id); err != nil {
		return nil, err
	}
	in := reconcile.Intent{Action: reconcile.Skip, Unit: id, Reason: reason}
	return w.decided(slug, in, store.EventSkipped, "skip "+id+": "+reason, []progresslog.Field{{Name: "Reason", Value: reason}})
}

// decided records the event the rule book gives for in, with fields, as
// one entry and one commit; a refusal records nothing.
func (w *Workspace) decided(slug string, in reconcile.Intent, event, subject string, fields []progresslog.Field) (*Outcome, error) {
	return w.record(slug, func(t *store.Task) (*change, error) {
		ev, err := reconcile.Decide(t.State, t.Plan, in)
		if err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: ev.Kind, Unit: ev.Unit, Stamp: w.Stamp(), Fields: fields}
		return &change{entry: e, event: event, subject: subject}, nil
	})
}

// checkKind refuses a kind that is not one of kinds ("" is none).
func checkKind(kind, what string, kinds []string) error {
	if kind == "" {
		return nil
	}
	if _, err := state.ParseKind(what, kind, kinds); err != nil {
		return &FieldError{Field: "kind", Problem: fmt.Sprintf("%q is not a %s", kind, what), Fix: "use one of " + strings.Join(kinds, ", ")}
	}
	return nil
}
