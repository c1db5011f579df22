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
// its Output sub-item names (folders left out), its Min words, whether
// they must end with a whole sentence, and its output rules: the
// truncation markers in force (evidence.DefaultMarkers, then the plan's
// header line, then the unit's own; nil when neither declares any), the
// footers of Must end with, the headings of Sections and the Max size (the
// unit's, else the header's). Without a Max size an output over
// evidence.DefaultWarnBytes gets a warning; "Max size: none" turns that
// off. ok is false when the unit names no output file (or there is no
// plan).
func OutputSpec(p *plan.Plan, id string) (spec evidence.Spec, ok bool) {
	if p == nil {
		return evidence.Spec{}, false
	}
	return OutputSpecOf(p, p.Unit(id))
}

// OutputSpecOf is OutputSpec of the plan's unit u (nil: none), for a
// caller walking the plan's units, which has each at hand.
func OutputSpecOf(p *plan.Plan, u *plan.Unit) (spec evidence.Spec, ok bool) {
	if p == nil || u == nil {
		return evidence.Spec{}, false
	}
	id := u.ID
	files := u.OutputFiles()
	if len(files) == 0 {
		return evidence.Spec{}, false
	}
	spec = evidence.Spec{Files: files, MinWords: u.MinWords, Sentences: u.Complete == "sentences",
		Footers: u.Footers(), Sections: u.SectionNames()}
	if lists := p.MarkerLists(id); len(lists) > 0 {
		spec.Markers = evidence.DefaultMarkers
		for _, l := range lists {
			spec.Markers = l.Apply(spec.Markers)
		}
	}
	switch size, declared := p.MaxSizeOf(id); {
	case !declared:
		spec.WarnBytes = evidence.DefaultWarnBytes
	case !size.None:
		spec.MaxBytes, spec.MaxText = size.Bytes, size.Text
	}
	return spec, true
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
// event that does not close, or a unit without outputs). Warnings hold
// nothing back: see GateOutputs.
func CheckOutputs(p *plan.Plan, ev Event, status state.Status, files map[string][]byte) error {
	_, err := GateOutputs(p, ev, status, files)
	return err
}

// GateOutputs is CheckOutputs that also returns the warnings of outputs
// that pass (an output over what an agent reads whole), for the record to
// say: the refusal carries the errors only.
func GateOutputs(p *plan.Plan, ev Event, status state.Status, files map[string][]byte) (warnings []evidence.Problem, err error) {
	if !Closing(ev) {
		return nil, nil
	}
	spec, ok := OutputSpec(p, ev.Unit)
	if !ok {
		return nil, nil
	}
	probs := evidence.Check(spec, files)
	if bad := evidence.Failures(probs); len(bad) > 0 {
		return nil, &Refusal{Code: OutputBad, Unit: ev.Unit, Status: status, Outputs: bad}
	}
	return evidence.Warnings(probs), nil
}

// OutputWarning words a warning of an output of unit id that let it pass,
// with the fix: "R1: outputs/survey.md: large (...) — an agent cannot read
// it whole: ...".
func OutputWarning(id string, p evidence.Problem) string {
	return id + ": " + p.String() + " — " + p.Fix()
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
