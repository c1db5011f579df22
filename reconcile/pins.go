package reconcile

import (
	"fmt"
	"slices"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// This file holds the rules of outputs pinned at done: the entry that
// makes a unit done records each output's size and blob id (**Outputs:**),
// the reducer keeps them as the unit's outputs, a reopen or a restart
// drops them, and a Pinned entry (itr checkpoint --accept-outputs) pins a
// done unit's outputs again as they are now.

// pinsOf reads an entry's **Outputs:** field into ev; it returns what did
// not read.
func pinsOf(ev *Event, e progresslog.Entry) []string {
	v, ok := e.Field(progresslog.FieldOutputs)
	if !ok {
		return nil
	}
	pins, err := progresslog.ParsePins(v)
	if err != nil {
		return []string{"**Outputs:** " + err.Error() + " (the outputs were not pinned)"}
	}
	ev.Outputs = pins
	return nil
}

// MakesDone reports whether ev, recorded on a unit whose status is from,
// makes the unit done: a passed verification of a unit in verifying. The
// entry that does pins the unit's outputs.
func MakesDone(ev Event, from state.Status) bool {
	return ev.Kind == progresslog.KindIteration && from == state.Verifying && ev.Verification == "passed"
}

// pinsText words pins for a discrepancy; nil for none.
func pinsText(pins []state.OutputPin) *string {
	if pins == nil {
		return nil
	}
	s := state.PinsText(pins)
	return &s
}

// notPinnable words the refusal to pin again the outputs of a unit that is
// not done, or whose plan names none.
func notPinnable(r *Refusal, field func(string) string) string {
	if r.Code == NoOutputs {
		return fmt.Sprintf("unit %s names no output file in the plan (its Output: line): there is nothing to pin", r.Unit)
	}
	return fmt.Sprintf("unit %s is %s, not done: only a done unit's outputs are pinned again (%s); a unit's outputs are pinned when it is done", r.Unit, r.Status, field("accept-outputs"))
}

// brokenUnits are the done units whose outputs fail their check now
// (Broken) or changed since they were pinned (Unpinned).
func brokenUnits(sit Situation) map[string]bool {
	out := map[string]bool{}
	for id, probs := range sit.Broken {
		if len(probs) > 0 {
			out[id] = true
		}
	}
	for id := range sit.Unpinned {
		out[id] = true
	}
	return out
}

// readsFrom is the plan's dependency map with, for each unit, the units
// whose outputs it reads (its Inputs name "R1.output", or a file R1's
// Output names): work that reads an output builds on its unit as work
// that depends on it does.
func readsFrom(p *plan.Plan) map[string][]string {
	deps := p.DepMap()
	writer := map[string]string{}
	for _, u := range p.Units {
		for _, n := range u.Outputs() {
			if _, ok := writer[n]; !ok {
				writer[n] = u.ID
			}
		}
	}
	for _, u := range p.Units {
		for _, in := range p.InputFiles(u.ID) {
			from := in.From
			if from == "" {
				from = writer[in.Name]
			}
			if from != "" && from != u.ID && !slices.Contains(deps[u.ID], from) {
				deps[u.ID] = append(deps[u.ID], from)
			}
		}
	}
	return deps
}

// repairOffers offers the repairs of the done units in broken: reopen
// each, and, for one whose pinned outputs changed while they still pass
// their check, accept the change (Repin).
func repairOffers(s *state.State, sit Situation, broken map[string]bool, add func(Offer)) {
	for _, id := range sortedKeys(broken) {
		if u := s.Units[id]; u != nil && u.Status == state.Done {
			add(Offer{Op: OpReopen, Unit: id, Intent: Intent{Action: Reopen}, For: MoveRepair})
			if un, ok := sit.Unpinned[id]; ok && un.Acceptable && len(sit.Broken[id]) == 0 {
				add(Offer{Op: OpCheckpoint, Unit: id, Intent: Intent{Action: Repin}, For: MoveRepair})
			}
		}
	}
}
