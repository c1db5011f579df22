package reconcile

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

const pinsPlan = `# Survey - Tasks

## Tasks

- [ ] **R1**: the survey
  - Output: ` + "`outputs/survey.md`" + `
- [ ] **R2**: the synthesis
  - Inputs: ` + "`outputs/survey.md`" + `
- [ ] **R3**: the glossary
`

const (
	blobA = "23995d357b9956133c308eea9e95d927e4b4e922"
	blobB = "6626362c415d95d01c641b4881e2f2448b076133"
)

func pinsLog() []progresslog.Entry {
	return []progresslog.Entry{
		entry(progresslog.KindCreated, "", 0, "2026-02-03T14:00:00Z", "Name", "Survey", "Mode", "development"),
		entry(progresslog.KindIteration, "R1", 1, "2026-02-03T14:01:00Z", "Did", "written", "Signal", "R1_DONE"),
		entry(progresslog.KindIteration, "R1", 2, "2026-02-03T14:02:00Z", "Did", "checked", "Signal", "R1_DONE"),
		entry(progresslog.KindIteration, "R1", 3, "2026-02-03T14:03:00Z", "Did", "reviewed", "Verification", "passed", "Verified by", "review",
			"Outputs", "outputs/survey.md: 3047 bytes, blob "+blobA),
	}
}

// TestFoldPins: the entry that makes a unit done pins its outputs; a
// Pinned entry pins them again; a reopen drops them; a Pinned entry on a
// unit that is not done is not applied; the fold gives Step's bytes.
func TestFoldPins(t *testing.T) {
	p := mustPlan(t, pinsPlan)
	entries := pinsLog()
	s, problems := Fold(Input{Slug: "survey", Plan: p, Entries: entries})
	require.Empty(t, problems)
	r1 := s.Units["R1"]
	require.Equal(t, state.Done, r1.Status)
	assert.Equal(t, []state.OutputPin{{Path: "outputs/survey.md", Bytes: 3047, Blob: blobA}}, r1.Outputs)
	assert.Contains(t, string(s.Encode()), `{"path":"outputs/survey.md","bytes":3047,"blob":"`+blobA+`"}`)

	entries = append(entries, entry(progresslog.KindPinned, "R1", 0, "2026-02-03T15:00:00Z", "Reason", "cut on purpose",
		"Outputs", "outputs/survey.md: 59 bytes, blob "+blobB))
	s, problems = Fold(Input{Slug: "survey", Plan: p, Entries: entries})
	require.Empty(t, problems)
	assert.Equal(t, int64(59), s.Units["R1"].Outputs[0].Bytes)
	assert.Equal(t, state.Done, s.Units["R1"].Status, "a Pinned entry changes no status")

	entries = append(entries, entry(progresslog.KindReopened, "R1", 0, "2026-02-03T16:00:00Z", "Reason", "rewrite"))
	s, problems = Fold(Input{Slug: "survey", Plan: p, Entries: entries})
	require.Empty(t, problems)
	assert.Nil(t, s.Units["R1"].Outputs, "a reopened unit has no pins until it is done again")

	entries = append(entries, entry(progresslog.KindPinned, "R1", 0, "2026-02-03T16:10:00Z", "Reason", "x",
		"Outputs", "outputs/survey.md: 59 bytes, blob "+blobB))
	s, problems = Fold(Input{Slug: "survey", Plan: p, Entries: entries})
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Msg, "not done")
	assert.Nil(t, s.Units["R1"].Outputs)

	// Step on the view before each entry gives the fold's bytes.
	view := Seed(nil, "survey", p)
	for _, e := range entries[:len(entries)-1] {
		ev, err := EventFrom(e, nil)
		require.NoError(t, err)
		view, err = Step(view, p, ev)
		require.NoError(t, err)
	}
	folded, _ := Fold(Input{Slug: "survey", Plan: p, Entries: entries[:len(entries)-1]})
	assert.Equal(t, string(folded.Encode()), string(view.Encode()))
}

// TestFoldBadPins: an Outputs field that does not read is reported and
// pins nothing; the unit is done all the same.
func TestFoldBadPins(t *testing.T) {
	p := mustPlan(t, pinsPlan)
	entries := pinsLog()
	entries[3] = entry(progresslog.KindIteration, "R1", 3, "2026-02-03T14:03:00Z", "Did", "reviewed", "Verification", "passed",
		"Outputs", "outputs/survey.md: many bytes")
	s, problems := Fold(Input{Slug: "survey", Plan: p, Entries: entries})
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0].Msg, "**Outputs:**")
	assert.Equal(t, state.Done, s.Units["R1"].Status)
	assert.Nil(t, s.Units["R1"].Outputs)
}

// TestDecideRepin: the rule book pins again only a done unit whose plan
// names outputs.
func TestDecideRepin(t *testing.T) {
	p := mustPlan(t, pinsPlan+"- [ ] **R4**: no output\n")
	entries := append(pinsLog(),
		entry(progresslog.KindIteration, "R4", 1, "2026-02-03T14:05:00Z", "Did", "x", "Signal", "R4_DONE"),
		entry(progresslog.KindIteration, "R4", 2, "2026-02-03T14:06:00Z", "Did", "x", "Signal", "R4_DONE"),
		entry(progresslog.KindIteration, "R4", 3, "2026-02-03T14:07:00Z", "Did", "x", "Verification", "passed", "Verified by", "review"))
	s, problems := Fold(Input{Slug: "survey", Plan: p, Entries: entries})
	require.Empty(t, problems)
	for _, tc := range []struct {
		unit string
		code Code
	}{
		{"R1", ""},
		{"R2", NotPinnable},
		{"R4", NoOutputs},
		{"R9", UnknownUnit},
	} {
		ev, err := Decide(s, p, Intent{Action: Repin, Unit: tc.unit, Reason: "on purpose"})
		if tc.code == "" {
			require.NoError(t, err, tc.unit)
			assert.Equal(t, progresslog.KindPinned, ev.Kind)
			assert.Equal(t, "on purpose", ev.Reason)
			continue
		}
		var r *Refusal
		require.True(t, errors.As(err, &r), tc.unit)
		assert.Equal(t, tc.code, r.Code, tc.unit)
		assert.NotEmpty(t, r.Error())
	}
}

// TestAdviseUnpinned: a done unit whose pinned output changed is repaired
// first; the unit that reads it (Inputs) waits while an independent one
// may go on; the change may be accepted (a Repin offer) only while the
// outputs pass their check.
func TestAdviseUnpinned(t *testing.T) {
	p := mustPlan(t, pinsPlan)
	s, problems := Fold(Input{Slug: "survey", Plan: p, Entries: pinsLog()})
	require.Empty(t, problems)
	for _, acceptable := range []bool{false, true} {
		a := AdviseIn(s, p, Situation{Unpinned: map[string]Unpinned{"R1": {Paths: []string{"outputs/survey.md"}, Acceptable: acceptable}}})
		assert.Equal(t, MoveRepair, a.Move)
		assert.Equal(t, "R1", a.MoveUnit)
		assert.Equal(t, []string{"R1"}, a.Broken)
		var repin, r2, r3 bool
		for _, o := range a.Offers {
			repin = repin || o.Intent.Action == Repin
			r2 = r2 || o.Unit == "R2" && o.Op == OpCheckpoint
			r3 = r3 || o.Unit == "R3" && o.Op == OpCheckpoint
			_, err := Decide(s, p, Intent{Action: o.Intent.Action, Unit: o.Unit, Signal: o.Intent.Signal})
			if o.Op == OpCheckpoint || o.Op == OpReopen {
				assert.NoError(t, err, "offer %+v", o)
			}
		}
		assert.Equal(t, acceptable, repin)
		assert.False(t, r2, "R2 reads R1's output: it waits for the repair")
		assert.True(t, r3, "R3 builds on nothing broken")
	}
}

func TestReadsFrom(t *testing.T) {
	p, err := plan.Parse("tasks.md", []byte(pinsPlan+"- [ ] **R5**: more\n  - Inputs: R1.output\n  - Depends: R3\n"))
	require.NoError(t, err)
	deps := readsFrom(p)
	assert.Contains(t, deps["R2"], "R1")
	assert.ElementsMatch(t, []string{"R3", "R1"}, deps["R5"])
	assert.Empty(t, deps["R3"])
}
