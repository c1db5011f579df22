package view

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Partial outputs (seed 004's "partial_output", "restart from 0% or
// 50%?"). An iteration was interrupted when it stopped before a checkpoint
// recorded it, which itr tells from one of three facts about a unit under
// way (in_progress, confirming, verifying):
//
//   - its check was cut off: a run marker of the unit whose itr process is
//     gone (`itr checkpoint --verify` killed);
//   - its entry was appended to progress.md and never committed (a record
//     killed between its append and its commit);
//   - another session left it: the session that recorded the unit's newest
//     entry is not this command's (both known: ITR_SESSION, or the id an
//     agent's hook passes), so that session stopped before recording what
//     it did since.
//
// Its outputs (the plan's Output:) whose files in the working tree differ
// from the last commit (changed, or written and never committed) are then
// partial: half-written, or whole but unrecorded. The resume names them
// with the fix: finish them and checkpoint, or start the unit over (itr
// restart, offered where the rule book accepts it). Without one of the
// three facts, changed outputs are the work in hand, not partial.

// PartialOutput is what an interrupted iteration left of a unit's
// outputs. Its JSON field names are part of itr's interface.
type PartialOutput struct {
	Unit string `json:"unit"`
	// Files are the outputs, as the plan names them, that differ from the
	// last commit.
	Files []string `json:"files"`
	// Why says what interrupted the iteration; Fix what to do.
	Why string `json:"why"`
	Fix string `json:"fix"`
}

// partialsOf finds the units under way whose outputs an interrupted
// iteration left partial (the plan's order), with why; Fix is worded
// once the advice is known (partialFixes).
func partialsOf(st *store.Store, t *store.Task, facts *logFacts, unsaved []store.UnsavedFile) ([]PartialOutput, []string) {
	if t.State == nil || t.Plan == nil {
		return nil, nil
	}
	var out []PartialOutput
	var warnings []string
	for _, pu := range t.Plan.Units {
		spec, ok := reconcile.OutputSpecOf(t.Plan, pu)
		if !ok {
			continue // no outputs: the unit is not looked up
		}
		u := t.State.Units[pu.ID]
		if u == nil || !underWay(u.Status) {
			continue
		}
		why := interruption(st, t, facts, unsaved, pu.ID)
		if why == "" {
			continue
		}
		files, err := st.ChangedOutputs(t, spec.Files)
		if err != nil {
			warnings = append(warnings, err.Error())
		}
		if len(files) > 0 {
			out = append(out, PartialOutput{Unit: pu.ID, Files: files, Why: why})
		}
	}
	return out, warnings
}

// underWay reports whether a unit in status st is being worked on.
func underWay(st state.Status) bool {
	return st == state.InProgress || st == state.Confirming || st == state.Verifying
}

// interruption says what shows that an iteration of unit was interrupted,
// "" when nothing does.
func interruption(st *store.Store, t *store.Task, facts *logFacts, unsaved []store.UnsavedFile, unit string) string {
	if m, ok := st.RunMarker(t.Slug, unit); ok && !m.Alive() {
		return fmt.Sprintf("its check (%s, started %s) was cut off before itr could record the iteration", m.Command, m.Started)
	}
	for _, f := range unsaved {
		for _, e := range f.Appended {
			if e.Unit == unit {
				return fmt.Sprintf("its entry %s was appended to progress.md but never committed (the session stopped between the two)", entryName(e))
			}
		}
	}
	if uf := facts.Units[unit]; uf != nil && st.Session != "" && uf.Session != "" && uf.Session != st.Session {
		return fmt.Sprintf("its newest entry was recorded by session %s, and this is session %s: that session stopped before recording what it did since", uf.Session, st.Session)
	}
	return ""
}

// partialFixes words each partial output's fix with the moves the advice
// accepts: finish the outputs and checkpoint, or restart the unit where
// restart is offered; under a hold on the whole task, what clears it
// comes first.
func partialFixes(parts []PartialOutput, actions []Action, hold *Hold) {
	for i := range parts {
		p := &parts[i]
		fix := fmt.Sprintf("finish %s and checkpoint %s (itr checkpoint %s --did \"...\")", strings.Join(store.FirstN(p.Files, 3), ", "), p.Unit, p.Unit)
		if hold.Whole() {
			fix = "first " + hold.Clear + "; then " + fix
		}
		for _, a := range actions {
			if a.Offer.Op == reconcile.OpRestart && a.Unit == p.Unit {
				fix += fmt.Sprintf(", or start %s over from nothing with `%s` (its iterations stay spent)", p.Unit, a.Command)
				break
			}
		}
		p.Fix = fix
	}
}

// partialMap is the advisor's view of the partial outputs: unit → files.
func partialMap(parts []PartialOutput) map[string][]string {
	if len(parts) == 0 {
		return nil
	}
	out := make(map[string][]string, len(parts))
	for _, p := range parts {
		out[p.Unit] = p.Files
	}
	return out
}

// String words a partial output for a person: "T2's outputs
// outputs/draft.md are partial: ...".
func (p PartialOutput) String() string {
	return fmt.Sprintf("%s's output%s %s %s partial: %s; %s", p.Unit, store.Plural(len(p.Files), "", "s"), strings.Join(store.FirstN(p.Files, 5), ", "),
		store.Plural(len(p.Files), "is", "are"), p.Why, p.Fix)
}
