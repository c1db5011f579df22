// Package archive is itr archive and itr restore: a finished task becomes
// an archive branch and a dated annotated tag at the commit of its
// Archived entry, read back before its folder leaves the working branch
// in one commit; a restore brings the folder back from an archive as one
// commit with a Restored entry appended. The lessons of an active or
// archived task for itr init --guardrails-from are read here too.
//
// The room writes through the write path (package record): its lock, its
// commits and its INDEX.md. What an archive does to the task's claims is
// not its business: the use cases above it (package workspace) hand
// Archive a function that drops them once the folder is gone.
package archive

import (
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// archiver is the store the room works on; its methods are the steps of
// archive and restore, reached from outside through the functions below.
type archiver struct{ *store.Store }

// Archive records the task's final checkpoint (an Archived entry, phase
// complete), points the archive branch and a new dated annotated tag at
// that commit, reads both back, and only then removes the task folder from
// the working branch in one commit that touches nothing else (with Keep,
// the same commit adds the plain copy). An interrupted archive is finished
// by running it again: the Archived entry is not recorded twice.
//
// dropClaims, when not nil, runs once the folder is gone, still under
// itr's lock, with the task's slug; what it returns (the claims that could
// not be dropped) becomes the report's ClaimWarnings.
func Archive(st *store.Store, req Request, dropClaims func(slug string) []string) (*Report, error) {
	return (&archiver{st}).archive(req, dropClaims)
}

// Restore brings an archived task's folder back onto the current branch as
// one commit, with a Restored entry appended (phase execute), so work can
// go on. It refuses when an active task has the slug, or when something
// other than the deliverables an archive left in place is in the way.
func Restore(st *store.Store, req RestoreRequest) (*RestoreReport, error) {
	return (&archiver{st}).restore(req)
}

// GuardrailsFrom returns the lessons of another task, active (as committed
// at HEAD) or archived, for itr init --guardrails-from, and where they
// were read: the task's folder or the archive's ref.
func GuardrailsFrom(st *store.Store, slug string) ([]progresslog.Guardrail, string, error) {
	return (&archiver{st}).guardrailsFrom(slug)
}
