package workspace

import syncer "github.com/itr-dev/itr/internal/workspace/sync"

// The types of itr sync (package syncer) that front ends see through
// Workspace.
type (
	// SyncRequest asks to sync the current branch with a remote.
	SyncRequest = syncer.Request
	// SyncReport says what a sync fetched, integrated and pushed.
	SyncReport = syncer.Report
	// SyncStopped is a sync that stopped on conflicts in files other than
	// itr's, with the merge or rebase left in progress.
	SyncStopped = syncer.Stopped
	// RefspecAdvice is what a clone adds to its remote's configuration so
	// that plain git fetch and git push carry itr's refs too.
	RefspecAdvice = syncer.RefspecAdvice
)

// Sync fetches, integrates and pushes the current branch with its tasks,
// claims and archives; see syncer.Sync.
func (w *Workspace) Sync(req SyncRequest) (*SyncReport, error) { return syncer.Sync(w.Store, req) }

// Refspecs returns the refspecs for the branch's remote; see
// syncer.Refspecs.
func (w *Workspace) Refspecs() RefspecAdvice { return syncer.Refspecs(w.Store) }
