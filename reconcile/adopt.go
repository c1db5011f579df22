package reconcile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// Adoption. A task folder written without itr (by the seed's skill, by
// hand) holds a state.json whose facts its log has no evidence for: the
// seed's entries carry no line for a verification or a block, so a fold of
// them alone would demote done units to verifying, drop blocks and
// confirmations. By the order of sources, where the log holds no evidence
// the committed state is the evidence: the first reconcile of such a folder
// records those facts as one Adopted entry, and every later fold starts
// from them, so nothing is lost.

// AdoptedUnit is what an Adopted entry keeps of one unit.
type AdoptedUnit struct {
	ID                 string
	Status             state.Status
	Iterations         int
	Confirmations      int
	VerificationPassed *bool
	CompletedAt        string
	Reason             string
}

// Line is the unit as an Adopted entry writes it:
// "T1: status=done iterations=3 confirmations=1 verification=passed
// completed=2026-01-14T11:15:00Z", a reason last ("reason=Waiting on T3").
func (a AdoptedUnit) Line() string {
	parts := []string{"status=" + string(a.Status), "iterations=" + strconv.Itoa(a.Iterations), "confirmations=" + strconv.Itoa(a.Confirmations)}
	if a.VerificationPassed != nil {
		v := "failed"
		if *a.VerificationPassed {
			v = "passed"
		}
		parts = append(parts, "verification="+v)
	}
	if a.CompletedAt != "" {
		parts = append(parts, "completed="+a.CompletedAt)
	}
	if a.Reason != "" {
		parts = append(parts, "reason="+strings.Join(strings.Fields(a.Reason), " "))
	}
	return a.ID + ": " + strings.Join(parts, " ")
}

// parseAdopted reads the Units field of an Adopted entry.
func parseAdopted(value string) ([]AdoptedUnit, error) {
	var out []AdoptedUnit
	for _, line := range strings.Split(value, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		id, rest, ok := strings.Cut(line, ": ")
		if !ok || !state.ValidID(id) {
			return nil, fmt.Errorf("adopted unit %q is not \"T1: status=...\"", line)
		}
		a := AdoptedUnit{ID: id}
		for rest != "" {
			if r, ok := strings.CutPrefix(rest, "reason="); ok {
				a.Reason = r
				break
			}
			tok, more, _ := strings.Cut(rest, " ")
			rest = more
			k, v, _ := strings.Cut(tok, "=")
			switch k {
			case "status":
				st, err := state.ParseStatus(v)
				if err != nil {
					return nil, fmt.Errorf("adopted unit %s: %w", id, err)
				}
				a.Status = st
			case "iterations":
				a.Iterations, _ = strconv.Atoi(v)
			case "confirmations":
				a.Confirmations, _ = strconv.Atoi(v)
			case "verification":
				a.VerificationPassed = state.Ptr(v == "passed")
			case "completed":
				a.CompletedAt = v
			}
		}
		if a.Status == "" {
			return nil, fmt.Errorf("adopted unit %s has no status", id)
		}
		out = append(out, a)
	}
	return out, nil
}

// NeedsAdoption reports whether a log was written without itr and never
// adopted: it has no Created entry and no Adopted entry.
func NeedsAdoption(entries []progresslog.Entry) bool {
	for _, e := range entries {
		if e.Kind == progresslog.KindCreated || e.Kind == progresslog.KindAdopted {
			return false
		}
	}
	return true
}

// Adoption returns the fields of the Adopted entry that keeps what the
// committed view knows and the fold of the log does not (nil when the
// fold already knows everything): each unit whose status, iterations,
// confirmations, verification, completion or block differs, the current
// unit, the phase, and the work commits the fold lacks.
func Adoption(committed, folded *state.State, p *plan.Plan) []progresslog.Field {
	var units []string
	for _, id := range committed.IDs() {
		c, f := committed.Units[id], folded.Units[id]
		if f == nil && active(p) {
			continue // not in the plan: nothing to keep it in
		}
		a := AdoptedUnit{ID: id, Status: c.Status, Iterations: state.Val(c.IterationsUsed), Confirmations: state.Val(c.ConfirmationsUsed),
			VerificationPassed: c.VerificationPassed, CompletedAt: state.Val(c.CompletedAt), Reason: state.Val(c.Reason)}
		if f != nil && f.Status == a.Status && state.Val(f.IterationsUsed) >= a.Iterations &&
			state.Val(f.ConfirmationsUsed) >= a.Confirmations && state.Val(f.CompletedAt) == a.CompletedAt &&
			state.Val(f.Reason) == a.Reason && equalBool(f.VerificationPassed, a.VerificationPassed) {
			continue
		}
		units = append(units, a.Line())
	}
	var commits []string
	for _, c := range committed.Commits {
		if !slices.Contains(folded.Commits, c) { // missing, or named by hash alone
			commits = append(commits, c)
		}
	}
	if len(units) == 0 && len(commits) == 0 {
		return nil
	}
	fields := []progresslog.Field{}
	if len(units) > 0 {
		fields = append(fields, progresslog.Field{Name: "Units", Value: strings.Join(units, "\n")})
	}
	if cur := state.Val(committed.Current); cur != "" && committed.Units[cur] != nil {
		fields = append(fields, progresslog.Field{Name: "Current", Value: cur})
	}
	if committed.Phase.Rank() > folded.Phase.Rank() {
		fields = append(fields, progresslog.Field{Name: "Phase", Value: string(committed.Phase)})
	}
	if len(commits) > 0 {
		fields = append(fields, progresslog.Field{Name: "Commits", Value: strings.Join(commits, "\n")})
	}
	return fields
}

func equalBool(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// adopt applies an Adopted event: the kept facts, never fewer iterations
// or confirmations than the log gives.
func adopt(s *state.State, ev Event) {
	for _, a := range ev.Adopted {
		u := s.Units[a.ID]
		if u == nil {
			u = &state.Unit{ID: a.ID}
			s.Units[a.ID] = u
		}
		u.Status = a.Status
		// Counts that neither side has stay absent, as the seed leaves them.
		if n := max(state.Val(u.IterationsUsed), a.Iterations); n > 0 || u.IterationsUsed != nil {
			u.IterationsUsed = state.Ptr(n)
		}
		if n := max(state.Val(u.ConfirmationsUsed), a.Confirmations); n > 0 || u.ConfirmationsUsed != nil {
			u.ConfirmationsUsed = state.Ptr(n)
		}
		if a.VerificationPassed != nil {
			u.VerificationPassed = state.Ptr(*a.VerificationPassed)
		}
		u.CompletedAt, u.Reason = nil, nil
		if a.CompletedAt != "" {
			u.CompletedAt = state.Ptr(a.CompletedAt)
		}
		if a.Reason != "" {
			u.Reason = state.Ptr(a.Reason)
		}
	}
	if ev.Current != "" && s.Units[ev.Current] != nil && s.Units[ev.Current].Status != state.Done {
		s.Current = state.Ptr(ev.Current)
		s.CurrentIteration = state.Ptr(state.Val(s.Units[ev.Current].IterationsUsed))
	} else if c := state.Val(s.Current); c != "" && (s.Units[c] == nil || s.Units[c].Status == state.Done) {
		s.Current, s.CurrentIteration = nil, nil
	}
	if ev.Phase != "" && ev.Phase.Rank() > s.Phase.Rank() {
		s.Phase = ev.Phase
	}
	for _, c := range ev.Commits {
		i := slices.IndexFunc(s.Commits, func(x string) bool { return commitHash(x) == commitHash(c) })
		switch {
		case i < 0:
			s.Commits = append(s.Commits, c)
		case len(c) > len(s.Commits[i]):
			s.Commits[i] = c // the subject the log did not give
		}
	}
}
