package workspace

import "github.com/itr-dev/itr/internal/workspace/create"

// InitRequest starts a task; see create.Request.
type InitRequest = create.Request

// Init creates the task folder from the templates, with state.json in
// phase discover and a Created entry in progress.md, as one commit; see
// create.Init.
func (w *Workspace) Init(req InitRequest) (*Outcome, error) { return create.Init(w.Store, req) }

// FieldEarlierTask is the field of a Created entry that names the archive
// of an abandoned or failed task whose slug the new task takes; see
// create.FieldEarlierTask.
const FieldEarlierTask = create.FieldEarlierTask
