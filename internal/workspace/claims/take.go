package claims

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
)

// Request asks for a hold on a unit.
type Request struct {
	Slug  string
	Unit  string // "" is the unit itr next names for this agent
	Agent string // "" is the store's AgentName
	For   time.Duration
	// Steal takes a unit whose holder's lease has ended (never one that
	// still holds), and logs it as a note.
	Steal bool
}

// Report is the claim after the request, and what it replaced.
type Report struct {
	Claim   store.Claim
	Renewed bool   // the agent already held it
	Stole   string // the agent whose expired lease was taken
	Note    string // the commit of the note that logs a steal
	Remote  string // the remote the claim went through ("" this repository only)
}

// Claim takes, renews or (after expiry, with Steal) steals a unit's claim
// by compare-and-swap on its ref, on the claims remote when there is one
// (git push --atomic --force-with-lease) and in this repository: of two
// agents racing for one unit, in two worktrees or on two machines, exactly
// one holds it and the other is told who does. A steal is logged with the
// Room's NoteFunc.
func (r *Room) Claim(req Request) (*Report, error) {
	agent := strings.TrimSpace(req.Agent)
	if agent == "" {
		agent = r.st.AgentName()
	}
	if err := record.PlainText(r.st.Config.FieldLimit(), "agent", agent); err != nil {
		return nil, err
	}
	lease := req.For
	if lease <= 0 {
		lease = DefaultLease
	}
	t, err := record.LoadReadable(r.st, req.Slug)
	if err != nil {
		return nil, err
	}
	remote, n, err := r.via()
	if err != nil {
		return nil, err
	}
	a := &taking{r: r, req: req, t: t, agent: agent, lease: lease, remote: remote, n: n}
	for i := 0; ; i++ {
		rep, again, err := a.try(i)
		if err != nil {
			return rep, err
		}
		if !again {
			return rep, nil
		}
	}
}

// taking is a Claim under way: what it asks for, where claims are
// decided, and whether the remote's claims were fetched during it.
type taking struct {
	r      *Room
	req    Request
	t      *store.Task
	agent  string
	lease  time.Duration
	remote string
	n      *gitstate.Network
	fresh  bool
	// lost are the units whose claim ref another agent moved during this
	// claim, to a value not fetched yet: held, by someone not known.
	lost reconcile.Held
}

// refetch brings the remote's claims of the task once more, to decide
// again on what it holds now.
func (a *taking) refetch() error {
	if err := fetch(a.n, a.remote, a.t.Slug); err != nil {
		return err
	}
	a.fresh, a.lost = true, nil
	return nil
}

// try is one attempt at the claim: it picks the unit, decides how the
// claim is taken and moves its ref. again is set when fresher claims are
// to be decided on first.
func (a *taking) try(attempt int) (rep *Report, again bool, err error) {
	r, t := a.r, a.t
	claims, err := r.st.Claims(t.Slug)
	if err != nil {
		return nil, false, err
	}
	now := r.st.Now()
	unit, old, held, err := pick(r.st, t, choice{unit: a.req.Unit, agent: a.agent, steal: a.req.Steal, attempt: attempt, lost: a.lost}, claims, now)
	if err != nil {
		// A remote's claims may have moved since they were last
		// fetched: look once more before telling the agent no.
		if a.remote != "" && !a.fresh && isHeldOrNoneReady(err) {
			return nil, true, a.refetch()
		}
		return nil, false, err
	}
	next := store.Claim{Unit: unit, Agent: a.agent, Since: now.Format(time.RFC3339), Until: now.Add(a.lease).Format(time.RFC3339), For: a.lease.String()}
	rep = &Report{Remote: a.remote}
	if again, err := a.terms(&next, rep, unit, old, held, now); err != nil || again {
		return nil, again, err
	}
	id, err := r.st.Repo.WriteBlob(next.Encode())
	if err != nil {
		return nil, false, fmt.Errorf("write the claim of %s: %w", unit, err)
	}
	if again, err := a.move(unit, id, old.ID, attempt); err != nil || again {
		return nil, again, err
	}
	next.ID = id
	rep.Claim = next
	if rep.Stole != "" && r.note != nil {
		commit, err := r.note(t.Slug, fmt.Sprintf("%s took %s from %s, whose lease ended %s", a.agent, unit, old.Agent, old.Until))
		if err != nil {
			return rep, false, fmt.Errorf("%s now holds %s, but logging the steal failed: %w", a.agent, unit, err)
		}
		rep.Note = commit
	}
	return rep, false, nil
}

// terms decides how the claim next of unit is taken over its current
// claim old (held when there is one): anew, renewed, or stolen, into
// next and rep. again is set when the remote is to be looked at first.
func (a *taking) terms(next *store.Claim, rep *Report, unit string, old store.Claim, held bool, now time.Time) (bool, error) {
	switch {
	case !held:
	case old.Finished != "" && a.req.Steal:
		// A unit finished elsewhere and reopened: taken over, logged.
		next.StolenFrom, rep.Stole = old.Agent, old.Agent
	case old.Agent == a.agent && old.Finished == "":
		next.Since, rep.Renewed = old.Since, true
	case !old.Expired(now):
		return false, heldBy(unit, old) // pick refuses this; kept for safety
	case !a.req.Steal && a.remote != "" && !a.fresh:
		// The lease may have been renewed on the remote: look first.
		return true, a.refetch()
	case !a.req.Steal:
		return false, fmt.Errorf("%s was held by %s until %s, which has passed; take it with `itr claim %s --steal` (the steal is logged)", unit, old.Agent, old.Until, unit)
	default:
		next.StolenFrom, rep.Stole = old.Agent, old.Agent
	}
	return false, nil
}

// move moves the claim ref of unit from oldID to id. again is set when
// another agent moved it first and attempts are left: the claim is then
// decided again on what it holds now (a claim of a named unit then names
// its holder).
func (a *taking) move(unit, id, oldID string, attempt int) (bool, error) {
	err := a.r.move(a.n, a.remote, a.t.Slug, unit, id, oldID)
	if errors.Is(err, gitstate.ErrRefChanged) && attempt+1 < Attempts {
		if a.req.Unit == "" && a.remote != "" && len(a.lost) == 0 {
			// The first race lost for a unit nobody named: another agent
			// holds it now. Reach for another unit at once, without the
			// round trip of a fetch; a second lost race fetches.
			a.lost = reconcile.Held{unit: "another agent (who claimed it a moment ago)"}
			return true, nil
		}
		return true, a.refetch()
	}
	if err != nil && a.req.Unit == "" && errors.Is(err, gitstate.ErrRefChanged) {
		return false, fmt.Errorf("other agents claimed each unit this claim reached for first (%d tries, the last %s); run `itr claim` again: %w", Attempts, unit, err)
	}
	if err != nil {
		return false, a.r.lostRace(a.t.Slug, unit, err)
	}
	return false, nil
}

// isHeldOrNoneReady reports a refusal that fresher claims could change.
func isHeldOrNoneReady(err error) bool {
	var r *reconcile.Refusal
	return IsHeld(err) || errors.As(err, &r) && r.Code == reconcile.NoneReady
}

// choice is what pick decides with besides the claims: the unit named
// ("" the next one), the agent, whether it steals, the attempt, and the
// units lost to another agent during this claim (held, though not
// fetched yet).
type choice struct {
	unit    string
	agent   string
	steal   bool
	attempt int
	lost    reconcile.Held
}

// pick resolves the unit to claim (the one named, else the next one no
// other agent holds) with the rule book, and its current claim. After a
// lost race, a claim that names no unit reaches for one spread by the
// agent's name (see spread).
func pick(st *store.Store, t *store.Task, c choice, claims map[string]store.Claim, now time.Time) (string, store.Claim, bool, error) {
	held := store.HeldByOthers(claims, c.agent, now)
	unit := c.unit
	if cl, ok := claims[unit]; ok && c.steal && cl.Finished != "" {
		delete(held, unit) // --steal takes a finished unit that was reopened
	}
	others := atWork(claims, c.agent, now)
	for u, who := range c.lost {
		if held == nil {
			held = reconcile.Held{}
		}
		held[u] = who
	}
	missing := st.MissingInputs(t)
	if unit == "" && c.attempt > 0 {
		unit = spread(t, held, missing, c.agent, c.attempt, others)
	}
	in := reconcile.Intent{Action: reconcile.Start, Unit: unit, Activity: activity(t), Held: held, Missing: missing}
	ev, err := reconcile.Decide(t.State, t.Plan, in)
	if err != nil {
		return "", store.Claim{}, false, err
	}
	old, ok := claims[ev.Unit]
	return ev.Unit, old, ok, nil
}

// atWork counts the other agents that hold a unit of the task under a
// lease that still runs (a finished claim is no agent at work).
func atWork(claims map[string]store.Claim, agent string, now time.Time) int {
	agents := map[string]bool{}
	for _, c := range claims {
		if c.Agent != agent && c.Finished == "" && c.Until != "" && !c.Expired(now) {
			agents[c.Agent] = true
		}
	}
	return len(agents)
}

// spreadWindow is how many of the first ready units agents spread over
// when they claim without naming one, at least: with more agents at work
// than that, they spread over one unit per agent.
const spreadWindow = 8

// spread picks the unit an agent claims when it names none and has just
// lost a race for the one itr next named: a unit under way that nobody
// holds comes first (as itr next says); else one of the first ready units
// (spreadWindow, or one per other agent at work when there are more),
// chosen by the agent's name and the attempt, so that agents racing from
// the same view reach for different units instead of all for the next one
// again (each lost race costs a round trip to the remote). "" leaves the
// choice to the rule book.
func spread(t *store.Task, held reconcile.Held, missing reconcile.Missing, agent string, attempt, others int) string {
	adv := reconcile.AdviseFor(t.State, t.Plan, activity(t)(), held, missing)
	if adv.Unit == "" || len(adv.Ready) < 2 || adv.Unit != adv.Ready[0] {
		return ""
	}
	h := fnv.New32a()
	h.Write([]byte(agent))
	window := min(len(adv.Ready), max(spreadWindow, others+1))
	return adv.Ready[(int(h.Sum32())%window+attempt)%window]
}

// activity gives the rule book the order of the units' last entries, read
// from the committed log only when it asks.
func activity(t *store.Task) func() reconcile.Activity {
	return func() reconcile.Activity { return reconcile.ActivityOf(t.Log().Entries) }
}
