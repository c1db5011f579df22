package reconcile

import (
	"fmt"
	"sort"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// Reopening a unit: a done unit found wrong goes back to in_progress, as
// one Reopened entry with its reason. Only a done unit reopens: a unit in
// confirming or verifying is still open, and a checkpoint without its
// signal (or verdict) sends it back. The unit keeps its iterations (they
// were spent) and its limit (only the plan raises it, so a unit that used
// them all comes back timed out); its verification no longer holds.

// reopen applies a Reopened entry (allowed has checked the unit is done):
// the unit is in_progress and current, its verification_passed false and
// its completed_at gone; iterations_used, confirmations_used and
// max_iterations are kept. A task past execute (verify, deliver) is back
// in execute, since a unit is unfinished again.
//
// A failed or skipped unit reopens the way a blocked one unblocks: to
// in_progress (and current) when it had iterations, else to pending; its
// reason and kind are gone, the rest kept.
func reopen(s *state.State, ev Event) {
	u := unit(s, ev.Unit)
	if u.Status == state.Failed || u.Status == state.Skipped {
		u.Reason, u.ReasonKind, u.ClearWhen = nil, nil, nil
		u.Status = state.Pending
		if state.Val(u.IterationsUsed) > 0 {
			u.Status = state.InProgress
			s.Current = state.Ptr(u.ID)
			s.CurrentIteration = state.Ptr(state.Val(u.IterationsUsed))
		}
		if s.Phase == state.Verify || s.Phase == state.Deliver {
			s.Phase = state.Execute
		}
		return
	}
	u.Status = state.InProgress
	u.Outputs = nil // pinned again when it is done again
	u.VerificationPassed = state.Ptr(false)
	u.CompletedAt, u.Reason, u.VerifiedBy = nil, nil, nil
	u.ReasonKind, u.ClearWhen = nil, nil
	s.Current = state.Ptr(u.ID)
	s.CurrentIteration = state.Ptr(state.Val(u.IterationsUsed))
	if s.Phase == state.Verify || s.Phase == state.Deliver {
		s.Phase = state.Execute
	}
}

// notDone words the refusal to reopen a unit that is not done; field names
// a field of a request (signal, verified) as the front end does.
func notDone(r *Refusal, field func(string) string) string {
	u := r.Unit
	switch r.Status {
	case state.Confirming:
		return fmt.Sprintf("unit %s is confirming, not done: it is still open, so there is nothing to reopen; record its next checkpoint without %s to send it back to in_progress", u, field("signal"))
	case state.Verifying:
		return fmt.Sprintf("unit %s is verifying, not done: it is still open, so there is nothing to reopen; record its next checkpoint without %s to send it back to in_progress", u, field("verified"))
	}
	return fmt.Sprintf("unit %s is %s, not done: only a done, failed or skipped unit can be reopened", u, r.Status)
}

// Dependants lists the units that depend on id, directly or through other
// units, and were started (under way, done or timed out, or blocked after
// iterations): the work that may rest on what a reopen says is wrong.
// They are named, never changed. Natural ID order; nil without a plan.
func Dependants(s *state.State, p *plan.Plan, id string) []Dep {
	if !active(p) {
		return nil
	}
	// One build of the graph, turned around: unit → units that need it.
	needs := map[string][]string{}
	for u, deps := range p.DepMap() {
		for _, d := range deps {
			needs[d] = append(needs[d], u)
		}
	}
	seen := map[string]bool{id: true}
	queue := []string{id}
	var out []Dep
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, n := range needs[cur] {
			if seen[n] {
				continue
			}
			seen[n] = true
			queue = append(queue, n)
			if u := s.Units[n]; u != nil && (u.Status.Started() || state.Val(u.IterationsUsed) > 0) {
				out = append(out, Dep{ID: n, Status: u.Status})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return state.CompareIDs(out[i].ID, out[j].ID) < 0 })
	return out
}
