package workspace

import (
	"github.com/itr-dev/itr/internal/workspace/claims"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
)

// The claims room (package claims) as front ends see it through
// Workspace.
type (
	// ClaimRequest asks for a hold on a unit.
	ClaimRequest = claims.Request
	// ClaimReport is the claim after the request, and what it replaced.
	ClaimReport = claims.Report
	// HeldError is a unit another agent holds: who, since and until when.
	HeldError = claims.HeldError
)

// DefaultLease is how long a claim holds a unit unless renewed; see
// claims.DefaultLease.
const DefaultLease = claims.DefaultLease

// IsHeld reports whether err says another agent holds the unit; see
// claims.IsHeld.
func IsHeld(err error) bool { return claims.IsHeld(err) }

// claimRoom is the Workspace's claims room, made on first use and kept
// for the command, so that the claims remote is read once per command.
// It logs a steal as a note of the task (Note).
func (w *Workspace) claimRoom() *claims.Room {
	if w.claims == nil {
		w.claims = claims.New(w.Store, func(slug, text string) (string, error) {
			out, err := w.Note(slug, text, false)
			if err != nil {
				return "", err
			}
			return out.Commit, nil
		})
	}
	return w.claims
}

// Claim takes, renews or (after expiry, with Steal) steals a unit's claim;
// see claims.Room.Claim. A steal is logged as a note.
func (w *Workspace) Claim(req ClaimRequest) (*ClaimReport, error) { return w.claimRoom().Claim(req) }

// Release gives a unit's claim up; see claims.Room.Release.
func (w *Workspace) Release(slug, unit, agent string, force bool) (*store.Claim, error) {
	return w.claimRoom().Release(slug, unit, agent, force)
}

// RefreshClaims brings the remote's claims of a task into this repository
// and returns the remote; see claims.Room.Refresh.
func (w *Workspace) RefreshClaims(slug string) (string, error) { return w.claimRoom().Refresh(slug) }

// DropClaims deletes every claim of a task; see claims.Room.Drop.
func (w *Workspace) DropClaims(slug string) []string { return w.claimRoom().Drop(slug) }

// heldFor is the rule book's view of the claims; see claims.Room.Held.
func (w *Workspace) heldFor(slug string) (reconcile.Held, error) { return w.claimRoom().Held(slug) }

// renewClaim renews the agent's own claim on unit at a checkpoint; see
// claims.Room.Renew.
func (w *Workspace) renewClaim(slug, unit string) (string, error) {
	return w.claimRoom().Renew(slug, unit)
}

// StartClaimed is Start for an agent among others: the unit named (or the
// next one no other agent holds) is checked with the rule book and claimed
// for this agent, so the unit handed out is the agent's alone. When
// another agent claims the next unit first, the next one after it is
// tried. A claim that cannot be made for another reason (a remote that
// cannot be reached) leaves the unit handed out with claimErr set.
func (w *Workspace) StartClaimed(slug, unit string) (us *UnitStatus, claim *ClaimReport, claimErr error, err error) {
	for attempt := 0; attempt < claims.Attempts; attempt++ {
		us, err = w.Start(slug, unit)
		if err != nil {
			return nil, nil, nil, err
		}
		claim, claimErr = w.Claim(ClaimRequest{Slug: slug, Unit: us.ID})
		lost := IsHeld(claimErr)
		if !lost || unit != "" {
			if lost {
				return nil, nil, nil, claimErr
			}
			return us, claim, claimErr, nil
		}
	}
	return us, claim, claimErr, nil
}
