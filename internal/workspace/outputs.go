package workspace

import (
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// checkOutputs asks the rule book whether an event may move its unit
// toward done given the outputs its plan names, read from the working tree
// (those in the task folder are committed with the record; see
// store.NamePaths for where a name is looked up). It returns the
// OutputBad refusal, or the warnings of outputs that pass (each worded
// with its fix, for the record to say).
func (w *Workspace) checkOutputs(t *store.Task, ev reconcile.Event) ([]string, error) {
	if !reconcile.Closing(ev) {
		return nil, nil
	}
	spec, ok := reconcile.OutputSpec(t.Plan, ev.Unit)
	if !ok {
		return nil, nil
	}
	files, err := w.OutputFiles(t.Slug, spec.Files)
	if err != nil {
		return nil, err
	}
	var status state.Status
	if u := t.State.Units[ev.Unit]; u != nil {
		status = u.Status
	}
	probs, err := reconcile.GateOutputs(t.Plan, ev, status, files)
	if err != nil {
		return nil, err
	}
	var warnings []string
	for _, p := range probs {
		warnings = append(warnings, reconcile.OutputWarning(ev.Unit, p))
	}
	return warnings, nil
}
