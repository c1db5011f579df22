// Package record is itr's write path: it takes itr's lock on a
// repository, repairs what must be repaired first (entries a plain commit
// took out, a folder written without itr, a view that is not the fold of
// its log), steps the view with the shared reducer (reconcile.Step), and
// commits the change as one commit with itr's trailers, redone on the new
// HEAD when a git commit lands meanwhile. Reconcile, the rebuild of
// state.json from the log by the rule "trust git over state", lives here
// too: a record runs it first when it must.
//
// The use cases above it (package workspace) decide what one request
// becomes and hand it over as a Change; nothing here decides what may
// happen.
package record

import (
	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/state"
)

// writer is the store the write path works on; its methods are the
// path's steps, reached from outside through the functions below.
type writer struct{ *store.Store }

// Record runs one event on the task slug as lock → read → reduce → write
// → commit; build sees the task as committed and returns the change, or
// an error that leaves everything as it was. When HEAD moves between the
// read and the commit the whole record is redone on the new HEAD.
func Record(st *store.Store, slug string, build func(t *store.Task) (*Change, error)) (*Outcome, error) {
	return (&writer{st}).record(slug, build)
}

// RecordLocked is Record, once, for a caller that holds itr's lock and
// retries itself (see RetryMoved).
func RecordLocked(st *store.Store, slug string, build func(t *store.Task) (*Change, error)) (*Outcome, error) {
	return (&writer{st}).recordOnce(slug, build)
}

// Lock takes itr's lock on the repository and recovers a commit a killed
// itr left half-written; the returned function releases the lock.
func Lock(st *store.Store) (func(), error) { return (&writer{st}).lock() }

// LockIdle is Lock for a write that may not land in the middle of a git
// merge, rebase or cherry-pick.
func LockIdle(st *store.Store) (func(), error) { return (&writer{st}).lockIdle() }

// NoOperation refuses, naming the fix, while a git merge, cherry-pick,
// revert or rebase is in progress.
func NoOperation(st *store.Store) error { return (&writer{st}).noOperation() }

// Commit writes one commit of changes for the task slug, on top of
// expect, with itr's trailers for c and the view after; INDEX.md follows
// when it is kept.
func Commit(st *store.Store, expect, slug string, c *Change, after *state.State, changes []gitstate.FileChange) (gitstate.Commit, error) {
	return (&writer{st}).commit(expect, slug, c, after, changes)
}

// Identity is the author .itr.yaml names for itr's commits, nil for git's
// own configuration.
func Identity(st *store.Store) *gitstate.Signature { return (&writer{st}).identity() }

// IndexChanges are the changes that keep INDEX.md in step with a commit
// that leaves the task slug as s (archived in the tag archive, when set);
// none unless .itr.yaml says `index: true`, none already in have.
func IndexChanges(st *store.Store, rev, slug string, s *state.State, archive string, have []gitstate.FileChange) ([]gitstate.FileChange, error) {
	return (&writer{st}).indexChanges(rev, slug, s, archive, have)
}

// WriteIndex rebuilds INDEX.md from every task and commits it when it
// differs from HEAD's.
func WriteIndex(st *store.Store) (*IndexReport, error) { return (&writer{st}).WriteIndex() }

// Reconcile rebuilds a task's state.json from its log and commits the
// result, by the rule "trust git over state"; on a healthy task it
// commits nothing.
func Reconcile(st *store.Store, opts ReconcileOptions) (*ReconcileReport, error) {
	return (&writer{st}).Reconcile(opts)
}

// ReconcileLocked is Reconcile of one task for a caller that holds itr's
// lock (sync, between its merge and its push).
func ReconcileLocked(st *store.Store, slug string) (*ReconcileReport, error) {
	return (&writer{st}).reconcileLocked(slug)
}

// LoadReadable loads a task whose state.json and plan are readable, the
// ground every record builds on.
func LoadReadable(st *store.Store, slug string) (*store.Task, error) {
	return (&writer{st}).loadReadable(slug)
}

// RepairsDue are what a record reconciles first, each as its own commit:
// the entries plain commits took out of the logs, else a folder written
// without itr to adopt.
func RepairsDue(st *store.Store, t *store.Task) (undos []*verify.Undo, adopt bool, err error) {
	return (&writer{st}).repairsDue(t)
}
