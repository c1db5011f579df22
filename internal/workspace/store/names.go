package store

import "time"

// Trailers of itr's commits. Itr-Task and Itr-Event are on every commit
// itr makes; Itr-Unit and Itr-Iteration on the ones about a unit.
const (
	TrailerTask      = "Itr-Task"
	TrailerEvent     = "Itr-Event"
	TrailerUnit      = "Itr-Unit"
	TrailerIteration = "Itr-Iteration"
	TrailerStatus    = "Itr-Status"
	// TrailerLog is "<length> <sha256>" of progress.md as the commit left
	// it; itr verify uses it to check the history in one pass.
	TrailerLog = "Itr-Log"
)

// Event names in the Itr-Event trailer.
const (
	EventCreated    = "created"
	EventIteration  = "iteration"
	EventBlocked    = "blocked"
	EventUnblocked  = "unblocked"
	EventPhase      = "phase"
	EventPlanned    = "planned"
	EventGuardrail  = "guardrail"
	EventReconciled = "reconciled"
	EventArchived   = "archived"
	EventRestored   = "restored"
	EventAdopted    = "adopted"
	EventReopened   = "reopened"
	EventPaused     = "paused"
	EventResumed    = "resumed"
	EventNote       = "note"
	EventDecision   = "decision"
	EventSummary    = "summary"
	// EventIndex is a commit that only rewrites INDEX.md (itr list
	// --write-index); it belongs to no task.
	EventIndex   = "index"
	EventFailed  = "failed"
	EventSkipped = "skipped"
	// EventRestarted is itr restart's commit.
	EventRestarted = "restarted"
	// EventPinned is the commit of itr checkpoint --accept-outputs: a
	// done unit's outputs pinned again.
	EventPinned = "pinned"
	// EventConcluded records the task's outcome (itr deliver, itr
	// abandon, itr abandon --failed).
	EventConcluded = "concluded"
	// EventApproved is itr approve's commit: the plan approved.
	EventApproved = "approved"
	// EventRechecked is itr recheck's commit: a done unit re-checked
	// against its changed inputs.
	EventRechecked = "rechecked"
)

// Stamp is the entry timestamp of now.
func (s *Store) Stamp() string { return s.Now().Format(time.RFC3339) }

// The refs of archived tasks. A task archived on 2026-01-14 lives on as
// the branch refs/heads/itr/archive/<slug> (the newest archive of the slug)
// and the annotated tag refs/tags/itr/archive/<slug>/2026-01-14 (one per
// archive; a second archive of the slug on the same day gets -2, then -3).
// Both point at the commit that recorded the Archived entry, so the
// archived task is read, logged and restored from them.
const (
	ArchiveBranchPrefix = "refs/heads/itr/archive/"
	ArchiveTagPrefix    = "refs/tags/itr/archive/"
	// ArchiveFolder is the folder under the root that holds the plain
	// copies `itr archive --keep` leaves.
	ArchiveFolder = "archive"
)

// TrailerArchive names the archive tag on the commits of archive and
// restore.
const TrailerArchive = "Itr-Archive"
