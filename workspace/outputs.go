package workspace

import (
	"errors"
	"io/fs"

	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/workspace/store"
)

// checkOutputs asks the rule book whether an event may move its unit
// toward done given the outputs its plan names, read from the working tree
// (those in the task folder are committed with the record; see
// store.NamePaths for where a name is looked up). It returns the
// OutputBad refusal, or nil.
func (w *Workspace) checkOutputs(t *store.Task, ev reconcile.Event) error {
	if !reconcile.Closing(ev) {
		return nil
	}
	spec, ok := reconcile.OutputSpec(t.Plan, ev.Unit)
	if !ok {
		return nil
	}
	files := make(map[string][]byte, len(spec.Files))
	for _, name := range spec.Files {
		for _, p := range w.NamePaths(t.Slug, name) {
			data, err := w.ReadWorktree(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			files[name] = data
			break
		}
	}
	var status state.Status
	if u := t.State.Units[ev.Unit]; u != nil {
		status = u.Status
	}
	return reconcile.CheckOutputs(t.Plan, ev, status, files)
}
