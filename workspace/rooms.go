package workspace

import "github.com/itr-dev/itr/workspace/verify"

// The types of the rooms that front ends see through Workspace.
type (
	// Finding is one problem itr verify found.
	Finding = verify.Finding
	// VerifyReport is the result of itr verify.
	VerifyReport = verify.Report
	// UndoReport is one undo by a commit made without itr, as reported.
	UndoReport = verify.UndoReport
)

// Verify checks a task without changing anything; see verify.Task.
func (w *Workspace) Verify(slug string) (*VerifyReport, error) { return verify.Task(w.Store, slug) }
