package workspace

import (
	"github.com/itr-dev/itr/internal/workspace/archive"
)

// The types of archive and restore (package archive) that front ends see
// through Workspace.
type (
	// ArchiveRequest archives a task.
	ArchiveRequest = archive.Request
	// ArchiveReport says what itr archive did.
	ArchiveReport = archive.Report
	// UnfinishedError is why itr archive refused: units whose work is not
	// accounted for.
	UnfinishedError = archive.UnfinishedError
	// RestoreRequest brings an archived task back.
	RestoreRequest = archive.RestoreRequest
	// RestoreReport says what itr restore did.
	RestoreReport = archive.RestoreReport
)

// Archive archives a task as the archive branch and a dated tag, then
// removes its folder; its claims go with it. See archive.Archive.
func (w *Workspace) Archive(req ArchiveRequest) (*ArchiveReport, error) {
	return archive.Archive(w.Store, req, w.DropClaims)
}

// Restore brings an archived task back onto the current branch; see
// archive.Restore.
func (w *Workspace) Restore(req RestoreRequest) (*RestoreReport, error) {
	return archive.Restore(w.Store, req)
}
