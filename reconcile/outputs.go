package reconcile

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// OutputSpec is what the plan asks of the outputs of unit id: the files
// its Output sub-item names (folders left out), its Min words and whether
// they must end with a whole sentence. ok is false when the unit names no
// output file (or there is no plan).
func OutputSpec(p *plan.Plan, id string) (spec evidence.Spec, ok bool) {
	if p == nil {
		return evidence.Spec{}, false
	}
	u := p.Unit(id)
	if u == nil {
		return evidence.Spec{}, false
	}
	files := u.OutputFiles()
	if len(files) == 0 {
		return evidence.Spec{}, false
	}
	return evidence.Spec{Files: files, MinWords: u.MinWords, Sentences: u.Complete == "sentences"}, true
}

// Closing reports whether an event moves its unit toward done: a
// completion signal (in_progress → confirming, confirming → verifying) or
// a verification that passed (verifying → done).
func Closing(ev Event) bool {
	return ev.Kind == progresslog.KindIteration && (ev.Signal != "" || ev.Verification == "passed")
}

// CheckOutputs is the rule that a unit whose plan names outputs moves
// toward done only while each of them passes evidence.Check. files holds
// the bytes of each output that exists, by the name the plan gives it. It
// returns an OutputBad *Refusal carrying the problems, or nil (also for an
// event that does not close, or a unit without outputs).
func CheckOutputs(p *plan.Plan, ev Event, status state.Status, files map[string][]byte) error {
	if !Closing(ev) {
		return nil
	}
	spec, ok := OutputSpec(p, ev.Unit)
	if !ok {
		return nil
	}
	if probs := evidence.Check(spec, files); len(probs) > 0 {
		return &Refusal{Code: OutputBad, Unit: ev.Unit, Status: status, Outputs: probs}
	}
	return nil
}

// OutputProblems words problems of outputs on one line each, with the fix:
// "outputs/review.md: truncated (ends in \"...\") — finish the output where
// it breaks off".
func OutputProblems(ps []evidence.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String() + " — " + p.Fix()
	}
	n := len(ps)
	return fmt.Sprintf("%d output problem%s:\n  %s", n, map[bool]string{true: "", false: "s"}[n == 1], strings.Join(parts, "\n  "))
}
