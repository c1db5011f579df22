package workspace

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// pinsOf reads the outputs the plan names for unit id from the working
// tree as git would store them (after the line-ending conversions and
// clean filters of their attributes) and pins each: its path from the
// repository top, its size and its blob id. An output that is not there
// is left out (the evidence rule refuses a done unit without it).
func (w *Workspace) pinsOf(t *store.Task, id string) ([]state.OutputPin, error) {
	spec, ok := reconcile.OutputSpec(t.Plan, id)
	if !ok {
		return nil, nil
	}
	var pins []state.OutputPin
	for _, name := range spec.Files {
		for _, p := range w.NamePaths(t.Slug, name) {
			data, err := w.ReadWorktree(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			pins = append(pins, state.OutputPin{Path: p, Bytes: int64(len(data)), Blob: w.Repo.BlobID(data)})
			break
		}
	}
	return pins, nil
}

// pinField is the **Outputs:** field of the entry that makes its unit done
// (ev on the unit as t holds it), nil for any other entry or a unit whose
// plan names no output.
func (w *Workspace) pinField(t *store.Task, ev reconcile.Event) (*progresslog.Field, error) {
	u := t.State.Units[ev.Unit]
	if u == nil || !reconcile.MakesDone(ev, u.Status) {
		return nil, nil
	}
	pins, err := w.pinsOf(t, ev.Unit)
	if err != nil || len(pins) == 0 {
		return nil, err
	}
	return &progresslog.Field{Name: progresslog.FieldOutputs, Value: progresslog.FormatPins(pins)}, nil
}

// RepinRequest accepts on purpose a change to a done unit's outputs made
// after it was done (itr checkpoint UNIT --accept-outputs --did WHY): the
// outputs are pinned again as the working tree holds them, in one Pinned
// entry with the reason.
type RepinRequest struct {
	Slug   string // "" is the selected task
	Unit   string
	Reason string
}

// Repin records a Pinned entry for a done unit whose plan names outputs,
// while each output passes the output check (a change accepted on purpose
// is still a finished output). Nothing is recorded otherwise.
func (w *Workspace) Repin(req RepinRequest) (*Outcome, error) {
	id := strings.TrimSpace(req.Unit)
	if id == "" {
		return nil, record.Required("unit", "name the done unit whose outputs changed on purpose")
	}
	if strings.TrimSpace(req.Reason) == "" {
		return nil, record.Required("did", "say why the change to the outputs is accepted")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "did", req.Reason, "unit", id); err != nil {
		return nil, err
	}
	slug, err := w.Select(req.Slug)
	if err != nil {
		return nil, err
	}
	return record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		ev, err := reconcile.Decide(t.State, t.Plan, reconcile.Intent{Action: reconcile.Repin, Unit: id, Reason: req.Reason})
		if err != nil {
			return nil, err
		}
		spec, _ := reconcile.OutputSpec(t.Plan, ev.Unit)
		files, err := w.OutputFiles(t.Slug, spec.Files)
		if err != nil {
			return nil, err
		}
		probs := evidence.Check(spec, files)
		if bad := evidence.Failures(probs); len(bad) > 0 {
			return nil, &reconcile.Refusal{Code: reconcile.OutputBad, Unit: ev.Unit, Status: state.Done, Outputs: bad}
		}
		var warnings []string
		for _, p := range evidence.Warnings(probs) {
			warnings = append(warnings, reconcile.OutputWarning(ev.Unit, p))
		}
		pins, err := w.pinsOf(t, ev.Unit)
		if err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: progresslog.KindPinned, Unit: ev.Unit, Stamp: w.Stamp(), Fields: []progresslog.Field{
			{Name: "Reason", Value: req.Reason},
			{Name: progresslog.FieldOutputs, Value: progresslog.FormatPins(pins)},
		}}
		return &record.Change{Entry: e, Event: store.EventPinned, Subject: "pin outputs of " + ev.Unit + ": " + req.Reason, Warnings: warnings}, nil
	})
}
