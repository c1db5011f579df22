package reconcile

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/state"
)

// Missing maps a unit to the inputs its plan entry names that are not
// there, each as "outputs/sources.md" or "outputs/sources.md (R1.output)".
// The caller looks them up (the rule book reads no files).
type Missing map[string][]string

// missingInputs refuses starting a pending unit whose inputs are missing;
// a unit already under way keeps going (its inputs were there when it
// started), and nil is returned for it.
func missingInputs(u *state.Unit, missing Missing) *Refusal {
	if u == nil || u.Status != state.Pending || len(missing[u.ID]) == 0 {
		return nil
	}
	return &Refusal{Code: InputsMissing, Unit: u.ID, Status: u.Status, Missing: missing[u.ID]}
}

func inputsMissing(r *Refusal) string {
	n := len(r.Missing)
	return fmt.Sprintf("unit %s cannot start: %d of its inputs %s missing (%s); finish the unit that writes %s or add %s, or change the unit's Inputs line in the plan",
		r.Unit, n, map[bool]string{true: "is", false: "are"}[n == 1], strings.Join(firstOf(r.Missing, 5), ", "),
		map[bool]string{true: "it", false: "them"}[n == 1], map[bool]string{true: "it", false: "them"}[n == 1])
}
