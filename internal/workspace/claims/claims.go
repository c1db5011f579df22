// Package claims is the room of itr's claims: an agent's hold on a unit,
// the ref refs/itr/claims/<slug>/<unit> holding a blob with the claim,
// moved only by compare-and-swap. Of two agents racing for one unit, in
// two worktrees or, through a claims remote (git push --atomic with a
// lease per ref), on two machines, exactly one holds it and the other is
// told who does.
//
// A Room is the claims of one command: it reads where claims are decided
// (the claims remote) once and keeps it. The use cases above it (package
// workspace) make one per Workspace and compose it with their own: the
// start of a claimed unit, and the note that logs a steal, which the Room
// asks of them through a NoteFunc.
package claims

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
)

// DefaultLease is how long a claim holds a unit unless renewed (each
// checkpoint of the holder renews it) or given with --for.
const DefaultLease = 2 * time.Hour

// Attempts bounds how often a claim is decided again after another agent
// moved the claim ref first.
const Attempts = 4

// NoteFunc logs text as a note in the task slug's log and returns the
// commit of the note; a Room logs each steal with it.
type NoteFunc func(slug, text string) (commit string, err error)

// Room is the claims of one command on a store: where they are decided,
// read once (see New), and how a steal is logged. It is not for
// concurrent use.
type Room struct {
	st   *store.Store
	note NoteFunc

	// The claims remote, read once (via).
	read   bool
	remote string
	net    *gitstate.Network
	err    error
}

// New is the claims room of one command on st; note logs a steal (nil
// logs none, and the report then names no note).
func New(st *store.Store, note NoteFunc) *Room { return &Room{st: st, note: note} }

// via is where claims are decided: a remote (through git push --atomic
// with a lease per ref, so clones on other machines see them) or "" for
// this repository's worktrees alone. .itr.yaml's claims_remote names it
// ("none": this repository); else the branch's remote, the only remote,
// or origin. It is read once per Room.
func (r *Room) via() (string, *gitstate.Network, error) {
	if r.read {
		return r.remote, r.net, r.err
	}
	r.read = true
	want := r.st.Config.ClaimsRemote
	if want == "none" {
		return "", nil, nil
	}
	n, err := gitstate.NetworkOf(r.st.Repo)
	if err != nil {
		if errors.Is(err, gitstate.ErrNoNetwork) {
			return "", nil, nil
		}
		r.err = err
		return "", nil, err
	}
	up, err := n.Upstream()
	if err != nil {
		r.err = err
		return "", nil, err
	}
	remote := up.Remote
	if want != "" {
		if !slices.Contains(up.Remotes, want) {
			r.err = fmt.Errorf("%s: claims_remote %q is not a remote of this repository (remotes: %s); add it with `git remote add %s URL`, or write claims_remote: none", store.ConfigFile, want, store.ListOrNone(up.Remotes), want)
			return "", nil, r.err
		}
		remote = want
	}
	r.remote, r.net = remote, n
	return remote, n, nil
}

// Refresh brings the remote's claims of a task into this repository
// (refs/itr/claims/<slug>/, pruned to what the remote has) and returns the
// remote ("" when claims stay in this repository).
func (r *Room) Refresh(slug string) (string, error) {
	remote, n, err := r.via()
	if err != nil {
		return remote, err
	}
	return remote, fetch(n, remote, slug)
}

// fetch brings the remote's claims of a task into this repository;
// without a claims remote there is nothing to bring.
func fetch(n *gitstate.Network, remote, slug string) error {
	if remote == "" {
		return nil
	}
	prefix := store.ClaimRefPrefix + slug + "/"
	if err := n.Fetch(remote, []string{"+" + prefix + "*:" + prefix + "*"}, true); err != nil {
		return unreachable(remote, err)
	}
	return nil
}

// unreachable words a remote that claims could not go through.
func unreachable(remote string, err error) error {
	return fmt.Errorf("claims go through the remote %s, so that agents in every clone see them, and it could not be used: %w; fix the remote (git fetch %s), or keep claims in this repository with claims_remote: none in %s", remote, err, remote, store.ConfigFile)
}

// Held is the rule book's view of the claims: the units other agents hold
// at now, from the claims this repository has (no network).
func (r *Room) Held(slug string) (reconcile.Held, error) {
	claims, err := r.st.Claims(slug)
	if err != nil {
		return nil, err
	}
	return store.HeldByOthers(claims, r.st.AgentName(), r.st.Now()), nil
}

// move moves a claim ref from oldID to id ("" deletes): on the remote
// first when there is one, then in this repository, which mirrors it.
func (r *Room) move(n *gitstate.Network, remote, slug, unit, id, oldID string) error {
	ref := store.ClaimRef(slug, unit)
	if remote == "" {
		return r.st.Repo.UpdateRef(ref, id, oldID)
	}
	if err := n.PushCAS(remote, []gitstate.RefUpdate{{Ref: ref, New: id, Old: oldID}}); err != nil {
		if errors.Is(err, gitstate.ErrRefChanged) {
			return err
		}
		return unreachable(remote, err)
	}
	return r.mirror(ref, id)
}

// mirror sets this repository's copy of a claim ref to what the remote
// now holds, whatever it held before.
func (r *Room) mirror(ref, id string) error {
	var err error
	for i := 0; i < Attempts; i++ {
		cur, rerr := r.st.Repo.ReadRef(ref)
		if rerr != nil {
			cur = ""
		}
		if cur == id {
			return nil
		}
		if err = r.st.Repo.UpdateRef(ref, id, cur); err == nil || !errors.Is(err, gitstate.ErrRefChanged) {
			return err
		}
	}
	return err
}

// HeldError is a unit another agent holds: who, since and until when.
type HeldError struct {
	Unit  string
	Claim store.Claim
}

// Error implements error.
func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is held by %s; pick another unit (itr next), or ask them to release it", e.Unit, e.Claim.Holding())
}

// heldBy is the refusal of a unit another agent holds.
func heldBy(unit string, c store.Claim) error { return &HeldError{Unit: unit, Claim: c} }

// IsHeld reports whether err says another agent holds the unit (a claim
// lost to a faster agent, or the rule book's refusal of a held unit).
func IsHeld(err error) bool {
	var he *HeldError
	var r *reconcile.Refusal
	return errors.As(err, &he) || errors.As(err, &r) && r.Code == reconcile.HeldElsewhere
}

// lostRace words a compare-and-swap that another agent won.
func (r *Room) lostRace(slug, unit string, err error) error {
	if !errors.Is(err, gitstate.ErrRefChanged) {
		return err
	}
	claims, rerr := r.st.Claims(slug)
	if c, ok := claims[unit]; rerr == nil && ok {
		return fmt.Errorf("another agent claimed %s first: %w", unit, heldBy(unit, c))
	}
	return fmt.Errorf("the claim of %s changed meanwhile (released); run it again", unit)
}

// Drop deletes every claim of a task (archive does, once the task is
// finished), on the claims remote too; what could not be deleted is
// returned as warnings.
func (r *Room) Drop(slug string) []string {
	claims, err := r.st.Claims(slug)
	if err != nil || len(claims) == 0 {
		return nil
	}
	var warns []string
	remote, n, err := r.via()
	if err != nil {
		return []string{"claims of " + slug + " kept: " + err.Error()}
	}
	for unit, c := range claims {
		if err := r.move(n, remote, slug, unit, "", c.ID); err != nil {
			warns = append(warns, fmt.Sprintf("claim of %s kept: %v", unit, err))
		}
	}
	sort.Strings(warns)
	return warns
}
