package workspace

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/workspace/store"
)

// DefaultLease is how long a claim holds a unit unless renewed (each
// checkpoint of the holder renews it) or given with --for.
const DefaultLease = 2 * time.Hour

// ClaimRequest asks for a hold on a unit.
type ClaimRequest struct {
	Slug  string
	Unit  string // "" is the unit itr next names
	Agent string // "" is DefaultAgent
	For   time.Duration
	// Steal takes a unit whose holder's lease has ended (never one that
	// still holds), and logs it as a note.
	Steal bool
}

// ClaimReport is the claim after the request, and what it replaced.
type ClaimReport struct {
	Claim   store.Claim
	Renewed bool   // the agent already held it
	Stole   string // the agent whose expired lease was taken
	Note    string // the commit of the note that logs a steal
}

// DefaultAgent names this agent when neither --agent nor ITR_AGENT does:
// user@host:worktree, stable across the sessions of one checkout.
func (w *Workspace) DefaultAgent() string {
	name := "agent"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	return name + "@" + host + ":" + filepath.Base(w.Repo.Root())
}

// Agent is the name this command acts as: ITR_AGENT (Options.Agent),
// else DefaultAgent.
func (w *Workspace) Agent() string {
	if w.agent != "" {
		return w.agent
	}
	return w.DefaultAgent()
}

// Claim takes, renews or (after expiry, with Steal) steals a unit's claim
// by compare-and-swap on its ref: of two agents racing for one unit,
// exactly one holds it and the other is told who does.
func (w *Workspace) Claim(req ClaimRequest) (*ClaimReport, error) {
	agent := strings.TrimSpace(req.Agent)
	if agent == "" {
		agent = w.Agent()
	}
	if err := plainText("agent", agent); err != nil {
		return nil, err
	}
	lease := req.For
	if lease <= 0 {
		lease = DefaultLease
	}
	t, err := w.loadReadable(req.Slug)
	if err != nil {
		return nil, err
	}
	ev, err := reconcile.Decide(t.State, t.Plan, reconcile.Intent{Action: reconcile.Start, Unit: req.Unit, Activity: activity(t)})
	if err != nil {
		return nil, err
	}
	unit := ev.Unit
	claims, err := w.Claims(req.Slug)
	if err != nil {
		return nil, err
	}
	now := w.Now()
	next := store.Claim{Unit: unit, Agent: agent, Since: now.Format(time.RFC3339), Until: now.Add(lease).Format(time.RFC3339), For: lease.String()}
	rep := &ClaimReport{}
	old, held := claims[unit]
	switch {
	case !held:
	case old.Agent == agent:
		next.Since, rep.Renewed = old.Since, true
	case !old.Expired(now):
		return nil, heldBy(unit, old)
	case !req.Steal:
		return nil, fmt.Errorf("%s was held by %s until %s, which has passed; take it with `itr claim %s --steal` (the steal is logged)", unit, old.Agent, old.Until, unit)
	default:
		next.StolenFrom, rep.Stole = old.Agent, old.Agent
	}
	id, err := w.Repo.WriteBlob(next.Encode())
	if err != nil {
		return nil, fmt.Errorf("write the claim of %s: %w", unit, err)
	}
	if err := w.Repo.UpdateRef(store.ClaimRef(req.Slug, unit), id, old.ID); err != nil {
		return nil, w.lostRace(req.Slug, unit, err)
	}
	next.ID = id
	rep.Claim = next
	if rep.Stole != "" {
		out, err := w.Note(req.Slug, fmt.Sprintf("%s took %s from %s, whose lease ended %s", agent, unit, old.Agent, old.Until), false)
		if err != nil {
			return rep, fmt.Errorf("%s now holds %s, but logging the steal failed: %w", agent, unit, err)
		}
		rep.Note = out.Commit
	}
	return rep, nil
}

// Release gives a unit's claim up; only its holder may, unless force.
func (w *Workspace) Release(slug, unit, agent string, force bool) (*store.Claim, error) {
	if agent = strings.TrimSpace(agent); agent == "" {
		agent = w.Agent()
	}
	claims, err := w.Claims(slug)
	if err != nil {
		return nil, err
	}
	c, held := claims[unit]
	switch {
	case !held:
		return nil, fmt.Errorf("%s is not claimed; there is nothing to release", unit)
	case c.Agent != agent && !force:
		return nil, fmt.Errorf("%s is held by %s, not by %s; only its holder releases it (or `itr release %s --force`)", unit, c.Agent, agent, unit)
	}
	if err := w.Repo.UpdateRef(store.ClaimRef(slug, unit), "", c.ID); err != nil {
		return nil, w.lostRace(slug, unit, err)
	}
	return &c, nil
}

// heldBy is the refusal of a unit another agent holds.
func heldBy(unit string, c store.Claim) error {
	return fmt.Errorf("%s is held by %s until %s (since %s); pick another unit (itr next), or ask them to release it", unit, c.Agent, c.Until, c.Since)
}

// lostRace words a compare-and-swap that another agent won.
func (w *Workspace) lostRace(slug, unit string, err error) error {
	if !errors.Is(err, gitstate.ErrRefChanged) {
		return err
	}
	claims, rerr := w.Claims(slug)
	if c, ok := claims[unit]; rerr == nil && ok {
		return fmt.Errorf("another agent claimed %s first: %w", unit, heldBy(unit, c))
	}
	return fmt.Errorf("the claim of %s changed meanwhile (released); run it again", unit)
}

// checkClaim refuses an iteration of a unit another agent holds, and
// renews the lease of the holder's own claim. agent "" skips it (no claims
// are in use).
func (w *Workspace) checkClaim(slug, unit, agent string) error {
	claims, err := w.Claims(slug)
	if err != nil || len(claims) == 0 {
		return err
	}
	c, held := claims[unit]
	if !held {
		return nil
	}
	now := w.Now()
	if agent == "" {
		agent = w.Agent()
	}
	if c.Agent != agent {
		if c.Expired(now) {
			return nil // an ended lease holds nothing back
		}
		return heldBy(unit, c)
	}
	lease, err := time.ParseDuration(c.For)
	if err != nil || lease <= 0 {
		lease = DefaultLease
	}
	renewed := c
	renewed.Until = now.Add(lease).Format(time.RFC3339)
	id, err := w.Repo.WriteBlob(renewed.Encode())
	if err != nil {
		return err
	}
	if err := w.Repo.UpdateRef(store.ClaimRef(slug, unit), id, c.ID); err != nil {
		return w.lostRace(slug, unit, err)
	}
	return nil
}
