package reconcile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// The advisor's property, at the rule book: in every state a random history
// reaches, with a random situation around it, (1) every offer of a unit is
// one Decide accepts, (2) a hold of the rule book (paused, budget spent, no
// unit ready, no units) comes only when Decide refuses work on every unit,
// (3) without a hold some unit takes work or everything is settled (archive
// is offered), and (4) every state has an answer: a hold, or an offer.
// cmd/itr's TestAdviceRealRepositories runs the offers through the CLI in
// real repositories; this one reaches thousands of states in a blink.

// advicePlan is a random plan of 2 to 6 units: dependencies on earlier
// units, limits, Verify lines, a unit that replaces another, and sometimes
// a budget for the task.
func advicePlan(t testing.TB, r *rand.Rand) *plan.Plan {
	var b strings.Builder
	b.WriteString("# Model - Tasks\n\n")
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, "**Max total iterations:** %d\n\n", 2+r.IntN(8))
	}
	// Item states the plan declares, and the settle rule.
	if r.IntN(3) == 0 {
		b.WriteString("**Item states:** candidate, included, final\n")
		if r.IntN(2) == 0 {
			b.WriteString("**Settled states:** included, final\n")
		}
	}
	if r.IntN(2) == 0 {
		b.WriteString("**Settle items before done:** yes\n")
	}
	b.WriteString("\n## Tasks\n\n")
	n := 2 + r.IntN(5)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] **T%d**: unit %d\n", i, i)
		replaces := i > 1 && r.IntN(6) == 0
		if i > 1 && r.IntN(2) == 0 {
			d := 1 + r.IntN(i-1)
			if !(replaces && d == i-1) {
				fmt.Fprintf(&b, "  - Depends: T%d\n", d)
			}
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "  - Max iterations: %d\n", 1+r.IntN(4))
		}
		if r.IntN(3) == 0 {
			b.WriteString("  - Verify: `go test ./...`\n")
		}
		if replaces {
			fmt.Fprintf(&b, "  - Replaces: T%d\n", i-1)
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "  - Items: %d\n", 1+r.IntN(4))
		}
		if r.IntN(5) == 0 {
			b.WriteString("  - Counter: lines in outputs/x.md\n")
		}
		if r.IntN(5) == 0 {
			b.WriteString("  - Metric: words >= 10\n")
		}
	}
	p, err := plan.Parse("tasks.md", []byte(b.String()))
	require.NoError(t, err, b.String())
	return p
}

// randomIntent is a request a front end could make of a random unit.
func randomIntent(r *rand.Rand, ids []string) Intent {
	in := Intent{Unit: ids[r.IntN(len(ids))]}
	switch r.IntN(11) {
	case 10:
		in.Action, in.Reason = Restart, "start over"
	case 0, 1, 2, 3:
		in.Action, in.Signal = Work, r.IntN(2) == 0
	case 4:
		in.Action, in.Verified, in.VerifiedBy = Work, true, "review"
	case 5:
		in.Action, in.Failed = Finish, r.IntN(3) == 0
		in.VerifiedBy = "review"
	case 6:
		in.Action, in.Reason = Block, "waits"
	case 7:
		in.Action = Unblock
	case 8:
		in.Action, in.Reason = Reopen, "found wrong"
	default:
		in.Action, in.Reason = []Action{Fail, Skip}[r.IntN(2)], "gave up"
	}
	if r.IntN(4) == 0 {
		in.Unit = "" // the unit the advisor names
	}
	if in.Action == Work || in.Action == Finish {
		// Items in any state (some the plan does not know), and metrics.
		states := []string{"candidate", "included", "final", "done", "skipped", "failed"}
		for i := r.IntN(3); i > 0; i-- {
			lo := 1 + r.IntN(4)
			in.Items = append(in.Items, state.ItemMark{Range: state.ItemRange{Lo: lo, Hi: lo + r.IntN(2)}, State: states[r.IntN(len(states))]})
		}
		if r.IntN(3) == 0 {
			in.Metrics = []state.Metric{{Name: "words", Value: strconv.Itoa(r.IntN(20))}}
		}
	}
	return in
}

// randomConclusion is an outcome a person could ask for.
func randomConclusion(r *rand.Rand) Conclusion {
	switch r.IntN(5) {
	case 0:
		return Conclusion{Result: state.ResultComplete}
	case 1:
		return Conclusion{Result: state.ResultLimited, Limitations: "no second source"}
	case 2:
		return Conclusion{Result: state.ResultAbandoned, Reason: "superseded"}
	case 3:
		return Conclusion{Result: state.ResultFailed, Reason: "the API is gone", Kind: state.FailKinds[r.IntN(len(state.FailKinds))]}
	}
	return Conclusion{Result: state.ResultLimited}
}

// randomSituation is what a workspace could find around the view.
func randomSituation(r *rand.Rand, s *state.State) Situation {
	sit := Situation{}
	ids := s.IDs()
	pick := func() string { return ids[r.IntN(len(ids))] }
	if r.IntN(5) == 0 {
		sit.Held = Held{pick(): "bob@ci until 2099-01-01T00:00:00Z"}
	}
	if r.IntN(6) == 0 {
		sit.Missing = Missing{pick(): {"outputs/in.md"}}
	}
	if r.IntN(5) == 0 {
		sit.Broken = map[string][]evidence.Problem{}
		for _, id := range ids {
			if s.Units[id].Status == state.Done && r.IntN(2) == 0 {
				sit.Broken[id] = []evidence.Problem{{Rule: "min-words", File: "outputs/x.md"}}
			}
		}
	}
	if r.IntN(5) == 0 {
		sit.Interrupted = []Interrupted{{Unit: pick(), Command: "sleep 3", Argv: []string{"sleep", "3"}}}
	}
	if r.IntN(3) == 0 {
		sit.Counts = Counts{}
		for _, id := range ids {
			sit.Counts[id] = []Count{{Counter: "lines in outputs/x.md", InFile: r.IntN(4), Missing: r.IntN(4) == 0}}
		}
	}
	if r.IntN(4) == 0 {
		// Outputs an interrupted iteration left partial: the workspace
		// names them for units under way, but any unit may come in.
		sit.Partial = map[string][]string{pick(): {"outputs/draft.md"}}
	}
	switch r.IntN(20) {
	case 0:
		sit.Operation = "merge"
	case 1:
		sit.Unsaved = []Unsaved{{Name: "progress.md", Appended: []AppendedEntry{{Unit: pick(), Iteration: 9}}}}
	case 2:
		sit.Unsaved = []Unsaved{{Name: "decisions.md"}}
	case 3:
		sit.Archived = true
		if r.IntN(2) == 0 {
			sit.InTheWay = ".claude/iterative/model"
		}
	case 4:
		sit.Unreadable = &Unreadable{File: "tasks.md", Problem: "line 3", Plan: true}
	case 5:
		sit.Undone, sit.Stale = 1, true
	}
	return sit
}

func TestAdviceProperty(t *testing.T) {
	histories, steps := 400, 25
	if n, err := strconv.Atoi(os.Getenv("ITR_ADVICE_HISTORIES")); err == nil && n > 0 {
		histories = n
	}
	states, settles, aligned := 0, 0, 0
	for h := 0; h < histories; h++ {
		seed := uint64(h)
		r := rand.New(rand.NewPCG(seed, 29))
		p := advicePlan(t, r)
		s := Seed(nil, "model", p)
		var history []string
		for i := 0; i <= steps; i++ {
			sit := randomSituation(r, s)
			checkAdvice(t, s, p, sit, fmt.Sprintf("seed %d, after %s", seed, strings.Join(history, "; ")))
			if samePositionsAdvice(t, s, p, sit, fmt.Sprintf("seed %d, after %s", seed, strings.Join(history, "; "))) {
				aligned++
			}
			states++
			for _, o := range AdviseIn(s, p, sit).Offers {
				if o.For == MoveSettle {
					settles++
					break
				}
			}
			if t.Failed() {
				return
			}
			// One more step of history: a request the rule book may
			// accept, a pause or a resume, an outcome.
			switch r.IntN(12) {
			case 0:
				if ev, err := DecidePause(s, s.Paused == nil && r.IntN(3) > 0, "review"); err == nil {
					next, err := Step(s, p, ev)
					require.NoError(t, err)
					s = next
					history = append(history, fmt.Sprint(ev.Kind))
				}
			case 1:
				if ev, err := DecideOutcome(s, p, randomConclusion(r)); err == nil {
					next, err := Step(s, p, ev)
					require.NoError(t, err, "an outcome DecideOutcome gave must fold")
					s = next
					history = append(history, fmt.Sprintf("%v %s", ev.Kind, ev.Result))
				}
			default:
				in := randomIntent(r, p.IDs())
				ev, err := Decide(s, p, in)
				if err != nil {
					continue
				}
				if ev.Kind == progresslog.KindOther {
					continue
				}
				next, err := Step(s, p, ev)
				require.NoError(t, err, "an event Decide gave must fold")
				s = next
				history = append(history, fmt.Sprintf("%v %s", ev.Kind, ev.Unit))
			}
		}
	}
	t.Logf("%d histories, %d states, %d offering to settle items, %d lined up with the plan", histories, states, settles, aligned)
	assert.Positive(t, settles, "the histories reach units whose items must settle before done")
	assert.Positive(t, aligned, "the histories reach states whose units line up with the plan's")
}

// samePositionsAdvice asserts that the advice by position, for a state
// whose units line up with the plan's, is the advice by ID; it reports
// whether they line up.
func samePositionsAdvice(t *testing.T, s *state.State, p *plan.Plan, sit Situation, where string) bool {
	t.Helper()
	ids, units := s.Ordered()
	deps, ok := p.Positions(ids)
	if !ok {
		return false
	}
	act := Activity{}
	for i, id := range ids {
		act[id] = (i * 7) % 5
	}
	assert.Equal(t, adviseByID(s, p, act, sit.Held, sit.Missing, ids, units),
		advisePositions(s, p, act, sit.Held, sit.Missing, ids, units, deps), "advice by position: %s", where)
	if active(p) {
		assert.Equal(t, recheckByID(s, p), recheckAt(s, p, ids, units, deps), "recheck by position: %s", where)
	}
	return true
}

// checkAdvice asserts the advisor's property in one state.
func checkAdvice(t *testing.T, s *state.State, p *plan.Plan, sit Situation, where string) {
	t.Helper()
	a := AdviseIn(s, p, sit)
	if !assert.True(t, a.Hold != nil || len(a.Offers) > 0, "no answer: %s", where) {
		return
	}
	for _, o := range a.Offers {
		if o.Unit == "" {
			// A task operation: the real-repository test runs each; the
			// rule book's own ones are checked here.
			switch o.Op {
			case OpDeliver:
				_, err := DecideOutcome(s, p, Conclusion{Result: state.ResultLimited, Limitations: "what is missing"})
				assert.NoError(t, err, "offer deliver refused: %s", where)
			case OpResume:
				_, err := DecidePause(s, false, "")
				assert.NoError(t, err, "offer resume refused: %s", where)
			case OpApprove:
				_, err := DecideApprove(s, p, "someone", "")
				assert.NoError(t, err, "offer approve refused: %s", where)
			case OpPhase:
				assert.NoError(t, CheckPhaseIn(s, p, o.Phase, false), "offer phase %s refused: %s", o.Phase, where)
			}
			continue
		}
		in := o.Intent
		in.Held, in.Missing, in.Counts = sit.Held, sit.Missing, sit.Counts
		_, err := Decide(s, p, in)
		assert.NoError(t, err, "offer %s %s (%s) refused: %s", o.Op, o.Unit, o.For, where)
	}
	work := acceptedWork(s, p, sit)
	if a.Hold == nil {
		if len(work) == 0 {
			assert.True(t, hasOp(a.Offers, OpArchive) || hasOp(a.Offers, OpReopen) || s.Phase == state.Complete,
				"no hold, no work accepted, nothing to archive: %s (offers %v)", where, a.Offers)
		}
		return
	}
	if s.Outcome != nil && s.Phase != state.Complete && !sit.Archived && sit.Operation == "" && sit.Unreadable == nil && len(sit.Unsaved) == 0 {
		assert.Equal(t, Concluded, a.Hold.Code, "a concluded task is held: %s", where)
		assert.True(t, hasOp(a.Offers, OpArchive) && hasOp(a.Offers, OpResume), "a concluded task offers archive and resume: %s", where)
	}
	if a.Hold.Code == BudgetSpent {
		assert.True(t, hasOp(a.Offers, OpDeliver), "the budget offers deliver: %s", where)
	}
	switch a.Hold.Code {
	case TaskPaused, BudgetSpent, NoneReady, NoUnits, Concluded:
		assert.Empty(t, work, "hold %s while the rule book accepts work on %v: %s", a.Hold.Code, work, where)
	}
	if a.Hold.Code == NoneReady {
		assert.NotEmpty(t, a.Hold.Refusal.Stuck, "none ready without a reason: %s", where)
	}
	assert.False(t, hasOp(a.Offers, OpCheckpoint), "a hold with a checkpoint offered: %s", where)
}

// acceptedWork are the units Decide accepts a plain checkpoint of.
func acceptedWork(s *state.State, p *plan.Plan, sit Situation) []string {
	var out []string
	for _, id := range s.IDs() {
		if _, err := Decide(s, p, Intent{Action: Work, Unit: id, Held: sit.Held, Missing: sit.Missing}); err == nil {
			out = append(out, id)
		}
	}
	return out
}

func hasOp(os []Offer, op Op) bool {
	for _, o := range os {
		if o.Op == op {
			return true
		}
	}
	return false
}

// TestAdviceHolds: the holds of the examples, as the rule book
// words them.
func TestAdviceHolds(t *testing.T) {
	p := mustPlan(t, "# M\n\n**Max total iterations:** 3\n\n## Tasks\n\n- [ ] **R1**: a\n  - Max iterations: 5\n- [ ] **R2**: b\n  - Depends: R1\n")
	s := Seed(nil, "m", p)
	for i := 0; i < 3; i++ {
		ev, err := Decide(s, p, Intent{Action: Work, Unit: "R1"})
		require.NoError(t, err)
		s, err = Step(s, p, ev)
		require.NoError(t, err)
	}
	a := AdviseIn(s, p, Situation{})
	require.NotNil(t, a.Hold, "budget spent")
	assert.Equal(t, BudgetSpent, a.Hold.Code)
	assert.True(t, a.Hold.Person)
	assert.Equal(t, EditBudget, a.Hold.Edit)
	assert.Equal(t, OpDeliver, a.Hold.Clear)
	assert.Equal(t, 3, a.Hold.Refusal.Line, "the budget's line in the plan")
	assert.Equal(t, []Offer{{Op: OpDeliver, For: MoveDeliver, Person: true}}, a.Offers, "wrap up what exists")

	// Raised in the plan: the plan counts at once (Decide syncs it).
	raised := mustPlan(t, "# M\n\n**Max total iterations:** 9\n\n## Tasks\n\n- [ ] **R1**: a\n  - Max iterations: 5\n- [ ] **R2**: b\n  - Depends: R1\n")
	a = AdviseIn(s, raised, Situation{})
	assert.Nil(t, a.Hold)
	require.NotEmpty(t, a.Offers)
	assert.Equal(t, OpCheckpoint, a.Offers[0].Op)
	assert.Equal(t, "R1", a.Offers[0].Unit)

	// A log appended but not committed holds every write; reconcile clears it.
	a = AdviseIn(s, raised, Situation{Unsaved: []Unsaved{{Name: "progress.md", Appended: []AppendedEntry{{Unit: "R1", Iteration: 4}}}}})
	require.NotNil(t, a.Hold)
	assert.Equal(t, HoldUnsaved, a.Hold.Code)
	assert.Equal(t, []Offer{{Op: OpReconcile, For: MoveReconcile}}, a.Offers)

	// An interrupted check is offered again with its own command.
	a = AdviseIn(s, raised, Situation{Interrupted: []Interrupted{{Unit: "R1", Command: "sleep 3", Argv: []string{"sleep", "3"}}}})
	require.NotEmpty(t, a.Offers)
	assert.Equal(t, MoveRerun, a.Move)
	assert.Equal(t, []string{"sleep", "3"}, a.Offers[0].Argv)
	assert.True(t, a.Offers[0].Verify)
}

// TestAdviceRepairAndRecheck: a done unit whose output broke is repaired
// before its dependants start; a reopened unit's done dependants are named.
func TestAdviceRepairAndRecheck(t *testing.T) {
	p := mustPlan(t, "# M\n\n## Tasks\n\n- [ ] **R1**: a\n- [ ] **R2**: b\n  - Depends: R1\n- [ ] **R3**: c\n")
	s := Seed(nil, "m", p)
	step := func(in Intent) {
		t.Helper()
		ev, err := Decide(s, p, in)
		require.NoError(t, err)
		s, err = Step(s, p, ev)
		require.NoError(t, err)
	}
	finish := func(id string) {
		step(Intent{Action: Work, Unit: id, Signal: true})
		step(Intent{Action: Work, Unit: id, Signal: true})
		step(Intent{Action: Work, Unit: id, Verified: true, VerifiedBy: "review"})
	}
	finish("R1")
	broken := Situation{Broken: map[string][]evidence.Problem{"R1": {{Rule: "truncated"}}}}
	a := AdviseIn(s, p, broken)
	assert.Equal(t, MoveRepair, a.Move)
	assert.Equal(t, "R1", a.MoveUnit)
	assert.Equal(t, OpReopen, a.Offers[0].Op)
	for _, o := range a.Offers {
		assert.NotEqual(t, "R2", o.Unit, "R2 builds on the broken output: not offered")
	}
	assert.Contains(t, unitsOf(a.Offers), "R3", "R3 does not build on R1")

	finish("R2")
	step(Intent{Action: Reopen, Unit: "R1", Reason: "wrong"})
	a = AdviseIn(s, p, Situation{})
	assert.Equal(t, []string{"R2"}, a.Recheck)
}

func unitsOf(os []Offer) []string {
	var out []string
	for _, o := range os {
		out = append(out, o.Unit)
	}
	return out
}

// TestRecheckAtReadsFromUnknownUnits: a done unit reading the outputs of a
// unit the plan has not got builds on unfinished work, by position as by
// ID; one reading a done unit's does not.
func TestRecheckAtReadsFromUnknownUnits(t *testing.T) {
	p := &plan.Plan{Mode: plan.Development, Units: []*plan.Unit{
		{ID: "T1", Title: "a"},
		{ID: "T2", Title: "b", Inputs: "T1.output"},
		{ID: "T3", Title: "c", Inputs: "X9.output"},
		{ID: "T4", Title: "d", Depends: []string{"T3"}},
	}}
	s := Seed(nil, "t", p)
	for _, id := range []string{"T1", "T2", "T3", "T4"} {
		s.Units[id].Status = state.Done
	}
	ids, units := s.Ordered()
	deps, ok := p.Positions(ids)
	require.True(t, ok)
	assert.Equal(t, []string{"T3", "T4"}, recheckByID(s, p))
	assert.Equal(t, recheckByID(s, p), recheckAt(s, p, ids, units, deps))
}
