package view

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Phases from the work (seed 000 finds its phase from the files on disk):
// on resume, the outputs of units not started yet that are on disk
// already are named, since the work that wrote them is unrecorded (done
// by hand, by a session that stopped before its first checkpoint, or by a
// tool before itr), and starting the unit would write over it. And the
// done units whose inputs changed since (verify.StaleInputs) are named
// with the way on.

// ExistingOutput is an output of a unit not started yet that is on disk
// already. Its JSON field names are part of itr's interface.
type ExistingOutput struct {
	Unit string `json:"unit"`
	// File is the output as the plan names it, Path where it was found.
	File  string `json:"file"`
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// String reads "R3's output outputs/review.md exists already (1,234
// bytes) though R3 was not started: ...".
func (e ExistingOutput) String() string {
	return fmt.Sprintf("%s's output %s exists already (%s) though %s was not started: check it; if it is %s's work, record it in %s's first checkpoint (`itr checkpoint %s --did ...` once %s may start), else move it away, or %s will overwrite it",
		e.Unit, e.File, groupedBytes(e.Bytes), e.Unit, e.Unit, e.Unit, e.Unit, e.Unit, e.Unit)
}

// groupedBytes reads "1,234 bytes", "1 byte".
func groupedBytes(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String() + store.Plural(int(min(n, 2)), " byte", " bytes")
}

// existingOutputs finds the outputs of the units not started yet (pending,
// or set aside before their first iteration) that are on disk, not empty.
func (r *statusRead) existingOutputs(s *state.State) {
	t := r.t
	if !r.active || t.Plan == nil {
		return
	}
	for _, pu := range t.Plan.Units {
		spec, ok := reconcile.OutputSpecOf(t.Plan, pu)
		if !ok {
			continue // no outputs: the unit is not looked up
		}
		u := s.Units[pu.ID]
		if u == nil || state.Val(u.IterationsUsed) > 0 || u.Status == state.Done || u.Status == state.Skipped {
			continue
		}
		for _, name := range spec.Files {
			f := r.st.FileOf(r.slug, name)
			if f.Missing || f.Size == 0 || strings.HasSuffix(name, "/") {
				continue
			}
			e := ExistingOutput{Unit: pu.ID, File: name, Path: f.Path, Bytes: f.Size}
			r.sum.Existing = append(r.sum.Existing, e)
			r.warn(e.String())
		}
	}
}

// staleInputs finds the done units whose inputs changed since they were
// done (an archived task's are in its archive: none looked at).
func (r *statusRead) staleInputs() {
	if !r.active {
		return
	}
	stale, err := verify.StaleInputs(r.st, r.t, true)
	if err != nil {
		r.warn(err.Error())
	}
	r.sum.StaleInputs = stale
	for _, s := range stale {
		r.warn("done unit " + s.String() + ": " + s.Fix())
	}
}

// staleMap is the stale inputs by unit, as the advisor takes them.
func staleMap(stale []verify.StaleInput) map[string][]string {
	if len(stale) == 0 {
		return nil
	}
	out := map[string][]string{}
	for _, s := range stale {
		out[s.Unit] = append(out[s.Unit], s.Input)
	}
	return out
}

// recheckText words the move recheck of unit id: what changed and the
// way on.
func recheckText(sum *Summary, id string) string {
	for _, s := range sum.StaleInputs {
		if s.Unit == id {
			return fmt.Sprintf("re-check %s first: it is done, but %s; %s", id, strings.TrimPrefix(s.String(), id+": "), s.Fix())
		}
	}
	return fmt.Sprintf("re-check %s first: its inputs changed since it was done; if it still holds, `itr recheck %s --did ...`, else `itr reopen %s --reason ...`", id, id, id)
}
