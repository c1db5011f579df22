package workspace

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
)

// DefaultLease is how long a claim holds a unit unless renewed (each
// checkpoint of the holder renews it) or given with --for.
const DefaultLease = 2 * time.Hour

// casAttempts bounds how often a claim is decided again after another
// agent moved the claim ref first.
const casAttempts = 4

// ClaimRequest asks for a hold on a unit.
type ClaimRequest struct {
	Slug  string
	Unit  string // "" is the unit itr next names for this agent
	Agent string // "" is the store's AgentName
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
	Remote  string // the remote the claim went through ("" this repository only)
}

// claimsVia is where claims are decided: a remote (through git push
// --atomic with a lease per ref, so clones on other machines see them) or
// "" for this repository's worktrees alone. .itr.yaml's claims_remote
// names it ("none": this repository); else the branch's remote, the only
// remote, or origin. It is read once per command.
func (w *Workspace) claimsVia() (string, *gitstate.Network, error) {
	if w.claimsRead {
		return w.claimsRemote, w.net, w.claimsErr
	}
	w.claimsRead = true
	want := w.Config.ClaimsRemote
	if want == "none" {
		return "", nil, nil
	}
	n, err := gitstate.NetworkOf(w.Repo)
	if err != nil {
		if errors.Is(err, gitstate.ErrNoNetwork) {
			return "", nil, nil
		}
		w.claimsErr = err
		return "", nil, err
	}
	up, err := n.Upstream()
	if err != nil {
		w.claimsErr = err
		return "", nil, err
	}
	remote := up.Remote
	if want != "" {
		if !slices.Contains(up.Remotes, want) {
			w.claimsErr = fmt.Errorf("%s: claims_remote %q is not a remote of this repository (remotes: %s); add it with `git remote add %s URL`, or write claims_remote: none", store.ConfigFile, want, orNoneList(up.Remotes), want)
			return "", nil, w.claimsErr
		}
		remote = want
	}
	w.claimsRemote, w.net = remote, n
	return remote, n, nil
}

func orNoneList(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// RefreshClaims brings the remote's claims of a task into this
// repository (refs/itr/claims/<slug>/, pruned to what the remote has) and
// returns the remote ("" when claims stay in this repository).
func (w *Workspace) RefreshClaims(slug string) (string, error) {
	remote, n, err := w.claimsVia()
	if err != nil {
		return remote, err
	}
	return remote, w.fetchClaims(n, remote, slug)
}

// fetchClaims brings the remote's claims of a task into this repository;
// without a claims remote there is nothing to bring.
func (w *Workspace) fetchClaims(n *gitstate.Network, remote, slug string) error {
	if remote == "" {
		return nil
	}
	prefix := store.ClaimRefPrefix + slug + "/"
	if err := n.Fetch(remote, []string{"+" + prefix + "*:" + prefix + "*"}, true); err != nil {
		return claimsUnreachable(remote, err)
	}
	return nil
}

// claimsUnreachable words a remote that claims could not go through.
func claimsUnreachable(remote string, err error) error {
	return fmt.Errorf("claims go through the remote %s, so that agents in every clone see them, and it could not be used: %w; fix the remote (git fetch %s), or keep claims in this repository with claims_remote: none in %s", remote, err, remote, store.ConfigFile)
}

// heldFor is the rule book's view of the claims: the units other agents
// hold at now, from the claims this repository has (no network).
func (w *Workspace) heldFor(slug string) (reconcile.Held, error) {
	claims, err := w.Claims(slug)
	if err != nil {
		return nil, err
	}
	return store.HeldByOthers(claims, w.AgentName(), w.Now()), nil
}

// Claim takes, renews or (after expiry, with Steal) steals a unit's claim
// by compare-and-swap on its ref, on the claims remote when there is one
// (git push --atomic --force-with-lease) and in this repository: of two
// agents racing for one unit, in two worktrees or on two machines, exactly
// one holds it and the other is told who does.
func (w *Workspace) Claim(req ClaimRequest) (*ClaimReport, error) {
	agent := strings.TrimSpace(req.Agent)
	if agent == "" {
		agent = w.AgentName()
	}
	if err := record.PlainText("agent", agent); err != nil {
		return nil, err
	}
	lease := req.For
	if lease <= 0 {
		lease = DefaultLease
	}
	t, err := record.LoadReadable(w.Store, req.Slug)
	if err != nil {
		return nil, err
	}
	remote, n, err := w.claimsVia()
	if err != nil {
		return nil, err
	}
	a := &claimAttempt{w: w, req: req, t: t, agent: agent, lease: lease, remote: remote, n: n}
	for attempt := 0; ; attempt++ {
		rep, again, err := a.try(attempt)
		if err != nil {
			return rep, err
		}
		if !again {
			return rep, nil
		}
	}
}

// claimAttempt is a Claim under way: what it asks for, where claims are
// decided, and whether the remote's claims were fetched during it.
type claimAttempt struct {
	w      *Workspace
	req    ClaimRequest
	t      *store.Task
	agent  string
	lease  time.Duration
	remote string
	n      *gitstate.Network
	fresh  bool
}

// refetch brings the remote's claims of the task once more, to decide
// again on what it holds now.
func (a *claimAttempt) refetch() error {
	if err := a.w.fetchClaims(a.n, a.remote, a.t.Slug); err != nil {
		return err
	}
	a.fresh = true
	return nil
}

// try is one attempt at the claim: it picks the unit, decides how the
// claim is taken and moves its ref. again is set when fresher claims are
// to be decided on first.
func (a *claimAttempt) try(attempt int) (rep *ClaimReport, again bool, err error) {
	w, t := a.w, a.t
	claims, err := w.Claims(t.Slug)
	if err != nil {
		return nil, false, err
	}
	now := w.Now()
	unit, old, held, err := w.pickClaim(t, a.req.Unit, claims, a.agent, now, a.req.Steal, attempt)
	if err != nil {
		// A remote's claims may have moved since they were last
		// fetched: look once more before telling the agent no.
		if a.remote != "" && !a.fresh && isHeldOrNoneReady(err) {
			return nil, true, a.refetch()
		}
		return nil, false, err
	}
	next := store.Claim{Unit: unit, Agent: a.agent, Since: now.Format(time.RFC3339), Until: now.Add(a.lease).Format(time.RFC3339), For: a.lease.String()}
	rep = &ClaimReport{Remote: a.remote}
	if again, err := a.terms(&next, rep, unit, old, held, now); err != nil || again {
		return nil, again, err
	}
	id, err := w.Repo.WriteBlob(next.Encode())
	if err != nil {
		return nil, false, fmt.Errorf("write the claim of %s: %w", unit, err)
	}
	if again, err := a.move(unit, id, old.ID, attempt); err != nil || again {
		return nil, again, err
	}
	next.ID = id
	rep.Claim = next
	if rep.Stole != "" {
		out, err := w.Note(t.Slug, fmt.Sprintf("%s took %s from %s, whose lease ended %s", a.agent, unit, old.Agent, old.Until), false)
		if err != nil {
			return rep, false, fmt.Errorf("%s now holds %s, but logging the steal failed: %w", a.agent, unit, err)
		}
		rep.Note = out.Commit
	}
	return rep, false, nil
}

// terms decides how the claim next of unit is taken over its current
// claim old (held when there is one): anew, renewed, or stolen, into
// next and rep. again is set when the remote is to be looked at first.
func (a *claimAttempt) terms(next *store.Claim, rep *ClaimReport, unit string, old store.Claim, held bool, now time.Time) (bool, error) {
	switch {
	case !held:
	case old.Finished != "" && a.req.Steal:
		// A unit finished elsewhere and reopened: taken over, logged.
		next.StolenFrom, rep.Stole = old.Agent, old.Agent
	case old.Agent == a.agent && old.Finished == "":
		next.Since, rep.Renewed = old.Since, true
	case !old.Expired(now):
		return false, heldBy(unit, old) // pickClaim refuses this; kept for safety
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
func (a *claimAttempt) move(unit, id, oldID string, attempt int) (bool, error) {
	err := a.w.moveClaim(a.n, a.remote, a.t.Slug, unit, id, oldID)
	if errors.Is(err, gitstate.ErrRefChanged) && attempt+1 < casAttempts {
		return true, a.refetch()
	}
	if err != nil && a.req.Unit == "" && errors.Is(err, gitstate.ErrRefChanged) {
		return false, fmt.Errorf("other agents claimed each unit this claim reached for first (%d tries, the last %s); run `itr claim` again: %w", casAttempts, unit, err)
	}
	if err != nil {
		return false, a.w.lostRace(a.t.Slug, unit, err)
	}
	return false, nil
}

// isHeldOrNoneReady reports a refusal that fresher claims could change.
func isHeldOrNoneReady(err error) bool {
	var r *reconcile.Refusal
	return IsHeld(err) || errors.As(err, &r) && r.Code == reconcile.NoneReady
}

// pickClaim resolves the unit to claim (the one named, else the next one
// no other agent holds) with the rule book, and its current claim.
func (w *Workspace) pickClaim(t *store.Task, unit string, claims map[string]store.Claim, agent string, now time.Time, steal bool, attempt int) (string, store.Claim, bool, error) {
	held := store.HeldByOthers(claims, agent, now)
	if c, ok := claims[unit]; ok && steal && c.Finished != "" {
		delete(held, unit) // --steal takes a finished unit that was reopened
	}
	missing := w.MissingInputs(t)
	if unit == "" && attempt > 0 {
		unit = spread(t, held, missing, agent, attempt)
	}
	in := reconcile.Intent{Action: reconcile.Start, Unit: unit, Activity: activity(t), Held: held, Missing: missing}
	ev, err := reconcile.Decide(t.State, t.Plan, in)
	if err != nil {
		return "", store.Claim{}, false, err
	}
	old, ok := claims[ev.Unit]
	return ev.Unit, old, ok, nil
}

// spreadWindow is how many of the first ready units agents spread over
// when they claim without naming one.
const spreadWindow = 8

// spread picks the unit an agent claims when it names none and has just
// lost a race for the one itr next named: a unit under way that nobody
// holds comes first (as itr next says); else one of the first ready units,
// chosen by the agent's name and the attempt, so that agents racing from
// the same view reach for different units instead of all for the next one
// again (each lost race costs a round trip to the remote). "" leaves the
// choice to the rule book.
func spread(t *store.Task, held reconcile.Held, missing reconcile.Missing, agent string, attempt int) string {
	adv := reconcile.AdviseFor(t.State, t.Plan, activity(t)(), held, missing)
	if adv.Unit == "" || len(adv.Ready) < 2 || adv.Unit != adv.Ready[0] {
		return ""
	}
	h := fnv.New32a()
	h.Write([]byte(agent))
	window := min(len(adv.Ready), spreadWindow)
	return adv.Ready[(int(h.Sum32()%uint32(window))+attempt)%window]
}

// moveClaim moves a claim ref from oldID to id ("" deletes): on the remote
// first when there is one, then in this repository, which mirrors it.
func (w *Workspace) moveClaim(n *gitstate.Network, remote, slug, unit, id, oldID string) error {
	ref := store.ClaimRef(slug, unit)
	if remote == "" {
		return w.Repo.UpdateRef(ref, id, oldID)
	}
	if err := n.PushCAS(remote, []gitstate.RefUpdate{{Ref: ref, New: id, Old: oldID}}); err != nil {
		if errors.Is(err, gitstate.ErrRefChanged) {
			return err
		}
		return claimsUnreachable(remote, err)
	}
	return w.mirrorClaim(ref, id)
}

// mirrorClaim sets this repository's copy of a claim ref to what the
// remote now holds, whatever it held before.
func (w *Workspace) mirrorClaim(ref, id string) error {
	var err error
	for i := 0; i < casAttempts; i++ {
		cur, rerr := w.Repo.ReadRef(ref)
		if rerr != nil {
			cur = ""
		}
		if cur == id {
			return nil
		}
		if err = w.Repo.UpdateRef(ref, id, cur); err == nil || !errors.Is(err, gitstate.ErrRefChanged) {
			return err
		}
	}
	return err
}

// Release gives a unit's claim up; only its holder may, unless force.
func (w *Workspace) Release(slug, unit, agent string, force bool) (*store.Claim, error) {
	if agent = strings.TrimSpace(agent); agent == "" {
		agent = w.AgentName()
	}
	slug, err := w.Select(slug)
	if err != nil {
		return nil, err
	}
	remote, n, err := w.claimsVia()
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		claims, err := w.Claims(slug)
		if err != nil {
			return nil, err
		}
		c, held := claims[unit]
		switch {
		case !held && remote != "" && attempt == 0:
			if err := w.fetchClaims(n, remote, slug); err != nil {
				return nil, err
			}
			continue
		case !held:
			return nil, fmt.Errorf("%s is not claimed; there is nothing to release", unit)
		case c.Finished != "" && !force:
			return nil, fmt.Errorf("%s was finished by %s at %s: its claim stays so that no clone starts it again, until the task is archived (take a reopened unit with `itr claim %s --steal`)", unit, c.Agent, c.Finished, unit)
		case c.Agent != agent && !force:
			return nil, fmt.Errorf("%s is held by %s, not by %s; only its holder releases it (or `itr release %s --force`)", unit, c.Agent, agent, unit)
		}
		next := ""
		if c.Finished == "" && c.Agent == agent && w.unitDone(slug, unit) {
			// A unit released done keeps a finished claim, so that clones
			// that have not synced its entries do not start it again.
			f := c
			f.Finished, f.Until = w.Now().Format(time.RFC3339), ""
			if next, err = w.Repo.WriteBlob(f.Encode()); err != nil {
				return nil, fmt.Errorf("write the finished claim of %s: %w", unit, err)
			}
			c = f
		}
		err = w.moveClaim(n, remote, slug, unit, next, c.ID)
		if errors.Is(err, gitstate.ErrRefChanged) && attempt+1 < casAttempts {
			if ferr := w.fetchClaims(n, remote, slug); ferr != nil {
				return nil, ferr
			}
			continue
		}
		if err != nil {
			return nil, w.lostRace(slug, unit, err)
		}
		return &c, nil
	}
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

// renewClaim renews the lease of the agent's own claim on unit, which a
// checkpoint of the holder does. In this repository the lease is renewed
// every time; on a claims remote only once less than half of it is left,
// so most checkpoints cost no network. A remote that cannot be reached
// leaves a warning (the lease still runs); a claim another agent took
// meanwhile refuses the checkpoint.
func (w *Workspace) renewClaim(slug, unit string) (string, error) {
	claims, err := w.Claims(slug)
	if err != nil || len(claims) == 0 {
		return "", err
	}
	c, held := claims[unit]
	if !held || c.Agent != w.AgentName() {
		return "", nil
	}
	now := w.Now()
	lease, err := time.ParseDuration(c.For)
	if err != nil || lease <= 0 {
		lease = DefaultLease
	}
	remote, n, err := w.claimsVia()
	if err != nil {
		return "could not renew the claim of " + unit + ": " + err.Error(), nil
	}
	if until, perr := time.Parse(time.RFC3339, c.Until); remote != "" && perr == nil && until.Sub(now) > lease/2 {
		return "", nil
	}
	renewed := c
	renewed.Until = now.Add(lease).Format(time.RFC3339)
	id, err := w.Repo.WriteBlob(renewed.Encode())
	if err != nil {
		return "", err
	}
	err = w.moveClaim(n, remote, slug, unit, id, c.ID)
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, gitstate.ErrRefChanged):
		if ferr := w.fetchClaims(n, remote, slug); ferr != nil {
			return "could not renew the claim of " + unit + ": " + ferr.Error(), nil
		}
		return "", w.lostRace(slug, unit, err)
	case remote != "":
		return fmt.Sprintf("could not renew the claim of %s on %s (it holds until %s): %v", unit, remote, c.Until, err), nil
	}
	return "", err
}

// StartClaimed is Start for an agent among others: the unit named (or the
// next one no other agent holds) is checked with the rule book and claimed
// for this agent, so the unit handed out is the agent's alone. When
// another agent claims the next unit first, the next one after it is
// tried. A claim that cannot be made for another reason (a remote that
// cannot be reached) leaves the unit handed out with claimErr set.
func (w *Workspace) StartClaimed(slug, unit string) (us *UnitStatus, claim *ClaimReport, claimErr error, err error) {
	for attempt := 0; attempt < casAttempts; attempt++ {
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

// unitDone reports whether the unit is done in this clone's state.
func (w *Workspace) unitDone(slug, unit string) bool {
	t, err := w.LoadLight(slug)
	if err != nil || t.State == nil {
		return false
	}
	u := t.State.Units[unit]
	return u != nil && u.Status.Finished()
}

// DropClaims deletes every claim of a task (archive does, once the task
// is finished), on the claims remote too; what could not be deleted is
// returned as warnings.
func (w *Workspace) DropClaims(slug string) []string {
	claims, err := w.Claims(slug)
	if err != nil || len(claims) == 0 {
		return nil
	}
	var warns []string
	remote, n, err := w.claimsVia()
	if err != nil {
		return []string{"claims of " + slug + " kept: " + err.Error()}
	}
	for unit, c := range claims {
		if err := w.moveClaim(n, remote, slug, unit, "", c.ID); err != nil {
			warns = append(warns, fmt.Sprintf("claim of %s kept: %v", unit, err))
		}
	}
	sort.Strings(warns)
	return warns
}
