package reconcile

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const tasksMD = `# User auth - Tasks

## Dependencies

T1 → T2 → T3 (sequential)
T4 (independent)

## Tasks

- [ ] **T1**: Add User model
  - Max iterations: 5
- [ ] **T2**: Create auth service
  - Max iterations: 8
- [ ] **T3**: Sessions
  - Max iterations: 10
- [ ] **T4**: Docs
  - Max iterations: 5
- [ ] **T5**: Load tests
  - Depends: T3
  - Max iterations: 5
`

func mustPlan(t testing.TB, text string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse("tasks.md", []byte(text))
	require.NoError(t, err)
	return p
}

// TestGoldenFold folds testdata/*.progress.md with their plans and compares
// the result with the golden state.json.
func TestGoldenFold(t *testing.T) {
	files, err := filepath.Glob("testdata/*.progress.md")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".progress.md")
		t.Run(name, func(t *testing.T) {
			log, err := os.ReadFile(f)
			require.NoError(t, err)
			var p *plan.Plan
			if data, err := os.ReadFile(filepath.Join("testdata", name+".tasks.md")); err == nil {
				p = mustPlan(t, string(data))
			}
			var base *state.State
			if data, err := os.ReadFile(filepath.Join("testdata", name+".base.json")); err == nil {
				base, err = state.Decode(data)
				require.NoError(t, err)
			}
			s, problems := Fold(Input{Slug: name, Base: base, Plan: p, Entries: progresslog.Parse(log).Entries})
			var out strings.Builder
			out.Write(s.Encode())
			for _, pr := range problems {
				out.WriteString("problem: " + pr.Error() + "\n")
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(out.String()), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./reconcile -update")
			assert.Equal(t, string(want), out.String())

			// The fold of a fold is the same view: reconcile on a healthy
			// task changes nothing.
			again, _ := Fold(Input{Slug: name, Base: s, Plan: p, Entries: progresslog.Parse(log).Entries})
			assert.Equal(t, string(s.Encode()), string(again.Encode()))
			assert.Empty(t, Diff(s, again, p))
		})
	}
}

type scenario struct {
	t       *testing.T
	p       *plan.Plan
	s       *state.State
	clock   time.Time
	entries []progresslog.Entry
}

func newScenario(t *testing.T, planText string) *scenario {
	sc := &scenario{t: t, clock: time.Date(2026, 1, 14, 10, 30, 0, 0, time.UTC)}
	if planText != "" {
		sc.p = mustPlan(t, planText)
	}
	sc.s = Seed(nil, "user-auth", sc.p)
	sc.must(progresslog.Entry{Kind: progresslog.KindCreated, Fields: []progresslog.Field{{Name: "Name", Value: "User auth"}, {Name: "Mode", Value: "development"}}})
	return sc
}

func (sc *scenario) step(e progresslog.Entry) error {
	sc.clock = sc.clock.Add(10 * time.Minute)
	e.Stamp = sc.clock.Format(time.RFC3339)
	ev, err := EventFrom(e, nil)
	if err != nil {
		return err
	}
	next, err := Step(sc.s, sc.p, ev)
	if err != nil {
		return err
	}
	sc.s = next
	sc.entries = append(sc.entries, e)
	return nil
}

func (sc *scenario) must(e progresslog.Entry) {
	sc.t.Helper()
	require.NoError(sc.t, sc.step(e))
}

func iter(unit string, n int, fields ...string) progresslog.Entry {
	e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: n}
	e.Fields = append(e.Fields, progresslog.Field{Name: "Did", Value: "work"})
	for i := 0; i+1 < len(fields); i += 2 {
		e.Fields = append(e.Fields, progresslog.Field{Name: fields[i], Value: fields[i+1]})
	}
	return e
}

func (sc *scenario) unit(id string) *state.Unit { return sc.s.Units[id] }

func TestLifecycleThroughCheckpoints(t *testing.T) {
	sc := newScenario(t, tasksMD)
	assert.Equal(t, state.Discover, sc.s.Phase)
	assert.Equal(t, []string{"T1", "T2", "T3", "T4", "T5"}, sc.s.IDs())
	sc.must(progresslog.Entry{Kind: progresslog.KindPlanned})
	assert.Equal(t, state.Plan, sc.s.Phase)

	sc.must(iter("T1", 1, "Commit", "abc1234: feat(user-auth): Add User model"))
	u := sc.unit("T1")
	assert.Equal(t, state.InProgress, u.Status)
	assert.Equal(t, 1, state.Val(u.IterationsUsed))
	assert.Equal(t, 0, state.Val(u.ConfirmationsUsed))
	assert.Equal(t, "T1", state.Val(sc.s.Current))
	assert.Equal(t, 1, state.Val(sc.s.CurrentIteration))
	assert.Equal(t, state.Execute, sc.s.Phase)
	assert.Equal(t, []string{"abc1234: feat(user-auth): Add User model"}, sc.s.Commits)

	sc.must(iter("T1", 2, "Signal", "T1_DONE"))
	assert.Equal(t, state.Confirming, sc.unit("T1").Status)
	sc.must(iter("T1", 3)) // the confirmation found problems
	assert.Equal(t, state.InProgress, sc.unit("T1").Status)
	assert.Equal(t, 0, state.Val(sc.unit("T1").ConfirmationsUsed))
	sc.must(iter("T1", 4, "Signal", "T1_DONE"))
	sc.must(iter("T1", 5, "Signal", "T1_DONE")) // confirmed, past the limit is fine while finishing
	assert.Equal(t, state.Verifying, sc.unit("T1").Status)
	assert.Equal(t, 1, state.Val(sc.unit("T1").ConfirmationsUsed))
	sc.must(iter("T1", 6, "Verification", "passed"))
	u = sc.unit("T1")
	assert.Equal(t, state.Done, u.Status)
	assert.True(t, state.Val(u.VerificationPassed))
	assert.Equal(t, sc.clock.Format(time.RFC3339), state.Val(u.CompletedAt))
	assert.Nil(t, sc.s.Current, "a finished unit is no longer current")
	assert.Nil(t, sc.s.CurrentIteration)

	err := sc.step(iter("T1", 7))
	assert.EqualError(t, err, "unit T1 is done; a finished unit takes no more iterations (if it was found wrong, send it back with `itr reopen T1 reason TEXT`)")

	// Verification failing sends the unit back to in_progress.
	sc.must(iter("T4", 1, "Signal", "T4_DONE"))
	sc.must(iter("T4", 2, "Signal", "T4_DONE"))
	sc.must(iter("T4", 3, "Verification", "failed: lint"))
	assert.Equal(t, state.InProgress, sc.unit("T4").Status)
	assert.False(t, state.Val(sc.unit("T4").VerificationPassed))
	assert.NotNil(t, sc.unit("T4").VerificationPassed)

	// Two more iterations reach the limit of 5 without finishing: timeout.
	sc.must(iter("T4", 4))
	sc.must(iter("T4", 5))
	assert.Equal(t, state.Timeout, sc.unit("T4").Status)
	err = sc.step(iter("T4", 6))
	assert.EqualError(t, err, "unit T4 reached its limit of 5 iterations; raise its Max iterations in the plan and run `itr plan`")

	// Raising the limit in the plan resumes the unit.
	sc.p = mustPlan(t, strings.Replace(tasksMD, "- [ ] **T4**: Docs\n  - Max iterations: 5", "- [ ] **T4**: Docs\n  - Max iterations: 7", 1))
	sc.must(progresslog.Entry{Kind: progresslog.KindPlanned})
	assert.Equal(t, state.InProgress, sc.unit("T4").Status)
	assert.Equal(t, 7, state.Val(sc.unit("T4").MaxIterations))

	// Block and unblock: back to pending when never started, in_progress when started.
	sc.must(progresslog.Entry{Kind: progresslog.KindBlocked, Unit: "T3", Fields: []progresslog.Field{{Name: "Reason", Value: "Waiting on T2"}}})
	assert.Equal(t, state.Blocked, sc.unit("T3").Status)
	assert.Equal(t, "Waiting on T2", state.Val(sc.unit("T3").Reason))
	assert.EqualError(t, sc.step(iter("T3", 1)), "unit T3 is blocked (Waiting on T2); run `itr unblock T3` first")
	sc.must(progresslog.Entry{Kind: progresslog.KindUnblocked, Unit: "T3"})
	assert.Equal(t, state.Pending, sc.unit("T3").Status)
	assert.Nil(t, sc.unit("T3").Reason)
	sc.must(progresslog.Entry{Kind: progresslog.KindBlocked, Unit: "T4"})
	assert.Equal(t, "blocked", state.Val(sc.unit("T4").Reason))
	sc.must(progresslog.Entry{Kind: progresslog.KindUnblocked, Unit: "T4"})
	assert.Equal(t, state.InProgress, sc.unit("T4").Status)
	assert.EqualError(t, sc.step(progresslog.Entry{Kind: progresslog.KindUnblocked, Unit: "T4"}),
		"unit T4 is in_progress, not blocked; there is nothing to unblock")
	assert.EqualError(t, sc.step(progresslog.Entry{Kind: progresslog.KindBlocked, Unit: "T1"}),
		"unit T1: cannot move from done to blocked: done is final")

	// Wrong signal, unknown unit.
	assert.EqualError(t, sc.step(iter("T2", 1, "Signal", "T1_DONE")), `signal "T1_DONE" is not the completion signal of T2 (T2_DONE)`)
	assert.EqualError(t, sc.step(iter("T9", 1)), "unit T9 is not in tasks.md (units: T1, T2, T3, T4, T5)")

	// Phases.
	sc.must(progresslog.Entry{Kind: progresslog.KindPhase, Phase: "verify"})
	assert.Equal(t, state.Verify, sc.s.Phase)
	sc.must(progresslog.Entry{Kind: progresslog.KindArchived})
	assert.Equal(t, state.Complete, sc.s.Phase)
	sc.must(progresslog.Entry{Kind: progresslog.KindRestored})
	assert.Equal(t, state.Execute, sc.s.Phase)
	assert.Equal(t, sc.clock.Format(time.RFC3339), state.Val(sc.s.Updated))

	// The fold of everything equals the view built step by step.
	folded, problems := Fold(Input{Slug: "user-auth", Plan: sc.p, Entries: sc.entries})
	assert.Empty(t, problems)
	assert.Equal(t, string(sc.s.Encode()), string(folded.Encode()))
}

func TestSignalFromPlanCompletion(t *testing.T) {
	sc := newScenario(t, "## Tasks\n\n- [ ] **T1**: x\n  - Completion: `<signal>MODEL_READY</signal>`\n")
	assert.Error(t, sc.step(iter("T1", 1, "Signal", "T1_DONE")))
	sc.must(iter("T1", 1, "Signal", "MODEL_READY"))
	assert.Equal(t, state.Confirming, sc.unit("T1").Status)
}

func TestNoPlanCreatesUnitsFromTheLog(t *testing.T) {
	sc := newScenario(t, "")
	sc.must(iter("T2", 1))
	sc.must(iter("T10", 1))
	assert.Equal(t, []string{"T2", "T10"}, sc.s.IDs())
	assert.Nil(t, sc.unit("T2").MaxIterations)
	sc.must(iter("IV-A", 1))
	assert.Equal(t, []string{"IV-A", "T2", "T10"}, sc.s.IDs())
	assert.EqualError(t, sc.step(iter("IV.A", 1)), `"IV.A" is not a unit ID: an ID starts with a letter and holds letters, digits, - and _ (such as T1, IV-A, PHASE_3)`)
}

func TestPlanDropsUnitsItDoesNotHave(t *testing.T) {
	sc := newScenario(t, "")
	sc.must(iter("T1", 1))
	sc.must(iter("T9", 1))
	p := mustPlan(t, "## Tasks\n\n- [ ] **T1**: a\n- [ ] **T2**: b\n  - Max iterations: 3\n")
	s, err := Step(sc.s, p, Event{Kind: progresslog.KindOther})
	require.NoError(t, err)
	assert.Equal(t, []string{"T1", "T2"}, s.IDs())
	assert.Nil(t, s.Current, "the current unit T9 left the plan")
	assert.Equal(t, "T9", state.Val(sc.s.Current), "Step does not change its input")
}

func TestFoldReportsAndSkipsBadEntries(t *testing.T) {
	p := mustPlan(t, tasksMD)
	log := `# Progress Log

## Task - Created - 2026-01-14T10:30:00Z
**Name:** User auth
**Mode:** development

## T1 - Iteration 1 - 2026-01-14T10:40:00Z
**Did:** a

## T1 - Iteration 3 - 2026-01-14T10:50:00Z
**Did:** numbered wrong

## T9 - Iteration 1 - 2026-01-14T11:00:00Z
**Did:** unknown unit

## T1 - Iteration 3 - yesterday
**Did:** bad time

## Task - Phase shipping - 2026-01-14T11:10:00Z

## Notes from the stand-up
Not an iteration.
`
	s, problems := Fold(Input{Slug: "user-auth", Plan: p, Entries: progresslog.Parse([]byte(log)).Entries})
	var msgs []string
	for _, pr := range problems {
		msgs = append(msgs, pr.Error())
	}
	joined := strings.Join(msgs, "\n")
	assert.Contains(t, joined, "progress.md:10: T1 iteration 3 is the 2nd iteration of T1 in the log; counted as 2")
	assert.Contains(t, joined, "progress.md:13: unit T9 is not in tasks.md")
	assert.Contains(t, joined, `"yesterday" is not a time`)
	assert.Contains(t, joined, `phase "shipping" is not a phase`)
	assert.Equal(t, 3, state.Val(s.Units["T1"].IterationsUsed), "bad-time entries still count")
	assert.Equal(t, "2026-01-14T10:50:00Z", state.Val(s.Updated), "an unreadable time leaves updated alone")
	assert.Equal(t, state.Execute, s.Phase)
}

func TestSeedCarriesWhatNoEventKnows(t *testing.T) {
	base, err := state.Decode([]byte(`{
  "task": "From state",
  "slug": "x",
  "mode": "knowledge",
  "domain": "research",
  "created": "2026-01-01T00:00:00Z",
  "phase": "verify",
  "owner": {"name": "sam"},
  "phases": {
    "R1": { "status": "done", "iterations_used": 9, "max_iterations": 4, "color": "red" },
    "R2": { "status": "blocked", "reason": "x", "max_iterations": 6 }
  }
}`))
	require.NoError(t, err)
	s := Seed(base, "x", nil)
	assert.Equal(t, "From state", s.Task)
	assert.Equal(t, state.Knowledge, s.Mode)
	assert.Equal(t, "research", state.Val(s.Domain))
	assert.Equal(t, state.Verify, s.Phase)
	assert.Nil(t, s.Commits, "knowledge mode has no commits key until a commit is named")
	raw, ok := s.Extra("owner")
	require.True(t, ok)
	assert.JSONEq(t, `{"name":"sam"}`, string(raw))
	r1 := s.Units["R1"]
	assert.Equal(t, state.Pending, r1.Status, "statuses come from the log")
	assert.Nil(t, r1.IterationsUsed)
	assert.Equal(t, 4, state.Val(r1.MaxIterations), "a limit the plan does not give is carried over")
	color, _ := r1.Extra("color")
	assert.Equal(t, `"red"`, string(color))
	assert.Nil(t, s.Units["R2"].Reason)

	// A plan limit beats the carried one.
	p := mustPlan(t, "## Phases\n\n- [ ] **R1**: a\n  - Max iterations: 7\n- [ ] **R2**: b\n")
	s = Seed(base, "x", p)
	assert.Equal(t, 7, state.Val(s.Units["R1"].MaxIterations))
	assert.Equal(t, 6, state.Val(s.Units["R2"].MaxIterations))
}

func TestWorkCommits(t *testing.T) {
	facts := []Commit{{Hash: "def5678aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Subject: "feat: service"}}
	cases := []struct {
		in   string
		want []string
	}{
		{"abc1234: feat(user-auth): Add User model", []string{"abc1234: feat(user-auth): Add User model"}},
		{"abc1234 feat: x, y and z", []string{"abc1234: feat: x, y and z"}},
		{"abc1234, def5678", []string{"abc1234", "def5678: feat: service"}},
		{"DEF5678AAAAAAAA (feat: paren)", []string{"def5678: feat: paren"}},
		{"abc1234: a\n  def5678", []string{"abc1234: a", "def5678: feat: service"}},
		{"None", nil}, {"-", nil}, {"{hash}", nil}, {"", nil}, {"abc12: short", nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, workCommits(c.in, facts), c.in)
	}
	// Named twice (a merge of two clones): kept once.
	sc := newScenario(t, "")
	sc.must(iter("T1", 1, "Commit", "abc1234: a"))
	sc.must(iter("T1", 2, "Commit", "abc1234def: a again"))
	assert.Equal(t, []string{"abc1234: a"}, sc.s.Commits)
}

func TestVerificationWords(t *testing.T) {
	for in, want := range map[string]string{"passed": "passed", "Yes.": "passed", "OK": "passed", "failed": "failed", "no: lint": "failed", "": ""} {
		assert.Equal(t, want, verification(in), in)
	}
}

func TestCreatedModeChange(t *testing.T) {
	sc := newScenario(t, "")
	sc.must(iter("T1", 1))
	err := sc.step(progresslog.Entry{Kind: progresslog.KindCreated, Fields: []progresslog.Field{{Name: "Mode", Value: "knowledge"}}})
	assert.EqualError(t, err, "the task already has units in development mode; its mode cannot become knowledge")
	fresh := Seed(nil, "k", nil)
	ev, err := EventFrom(progresslog.Entry{Kind: progresslog.KindCreated, Stamp: "2026-01-01T00:00:00Z", Fields: []progresslog.Field{{Name: "Mode", Value: "knowledge"}, {Name: "Domain", Value: "writing"}}}, nil)
	require.NoError(t, err)
	s, err := Step(fresh, nil, ev)
	require.NoError(t, err)
	assert.Equal(t, state.Knowledge, s.Mode)
	assert.Nil(t, s.Commits)
	assert.Equal(t, "writing", state.Val(s.Domain))
	_, err = EventFrom(progresslog.Entry{Kind: progresslog.KindCreated, Stamp: "2026-01-01T00:00:00Z", Fields: []progresslog.Field{{Name: "Mode", Value: "dev"}}}, nil)
	assert.ErrorContains(t, err, `mode "dev" is not a mode`)
}

// randomEntries makes a random but plausible log: mostly iterations with
// signals and verifications, some blocks, phases, plans and notes, and
// some entries the lifecycle refuses.
func randomEntries(r *rand.Rand, n int) []progresslog.Entry {
	units := []string{"T1", "T2", "T3", "T4", "T5"}
	clock := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	out := []progresslog.Entry{{Kind: progresslog.KindCreated, Stamp: clock.Format(time.RFC3339),
		Fields: []progresslog.Field{{Name: "Name", Value: "R"}, {Name: "Mode", Value: "development"}}}}
	count := map[string]int{}
	for i := 0; i < n; i++ {
		clock = clock.Add(time.Duration(r.Intn(120)) * time.Minute)
		u := units[r.Intn(len(units))]
		e := progresslog.Entry{Stamp: clock.Format(time.RFC3339), Unit: u}
		switch k := r.Intn(27); {
		case k < 12:
			count[u]++
			e.Kind, e.Iteration = progresslog.KindIteration, count[u]
			e.Fields = []progresslog.Field{{Name: "Did", Value: fmt.Sprint("step ", i)}}
			if r.Intn(2) == 0 {
				e.Fields = append(e.Fields, progresslog.Field{Name: "Signal", Value: u + "_DONE"})
			}
			if r.Intn(3) == 0 {
				e.Fields = append(e.Fields, progresslog.Field{Name: "Verification", Value: []string{"passed", "failed"}[r.Intn(2)]})
			}
			if r.Intn(4) == 0 {
				e.Fields = append(e.Fields, progresslog.Field{Name: "Commit", Value: fmt.Sprintf("%07x: change %d", r.Intn(1<<28), i)})
			}
		case k < 14:
			e.Kind = progresslog.KindBlocked
			e.Fields = []progresslog.Field{{Name: "Reason", Value: "waiting"}}
		case k < 15:
			e.Kind = progresslog.KindUnblocked
		case k < 16:
			e.Kind = progresslog.KindReopened
			e.Fields = []progresslog.Field{{Name: "Reason", Value: "found wrong"}}
		case k < 17:
			e.Kind, e.Unit, e.Phase = progresslog.KindPhase, "", string(state.Phases[r.Intn(5)])
		case k < 18:
			e.Kind, e.Unit = progresslog.KindPlanned, ""
		case k < 19:
			e.Kind, e.Unit = progresslog.KindReconciled, ""
		case k < 20:
			e.Kind, e.Unit, e.Heading = progresslog.KindOther, "", "A note"
		case k < 21:
			e.Kind = progresslog.KindFailed
			e.Fields = []progresslog.Field{{Name: "Reason", Value: "broke"}, {Name: "Kind", Value: []string{"needs-human", "tool-error", "external"}[r.Intn(3)]}}
		case k < 22:
			e.Kind = progresslog.KindSkipped
			e.Fields = []progresslog.Field{{Name: "Reason", Value: "not needed"}}
		case k == 24 || k == 25:
			// How the task ends (a word that is no outcome is reported).
			e.Kind, e.Unit = progresslog.KindConcluded, ""
			e.Fields = []progresslog.Field{{Name: "Outcome", Value: []string{"complete", "done with limitations", "abandoned", "failed", "finished"}[r.Intn(5)]},
				{Name: "Reason", Value: "over"}, {Name: "Missing", Value: u + " (pending)"}}
		case k == 26:
			e.Kind, e.Unit = progresslog.KindResumed, ""
		default:
			e.Kind = progresslog.KindBlocked
			e.Fields = []progresslog.Field{{Name: "Reason", Value: "no key"}, {Name: "Kind", Value: "missing-input"}, {Name: "Clear when", Value: "the key is set"}}
		}
		out = append(out, e)
	}
	return out
}

// TestFoldEqualsStepByStep is the property at the heart of itr: folding
// the whole log at once equals folding one event at a time onto the
// previous result as written to state.json, byte for byte. So Step keeps
// no memory outside state.json, and checkpoint and reconcile agree.
func TestFoldEqualsStepByStep(t *testing.T) {
	p := mustPlan(t, strings.Replace(tasksMD, "  - Max iterations: 5\n- [ ] **T5**", "  - Max iterations: 3\n- [ ] **T5**", 1))
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		var pl *plan.Plan
		if seed%3 != 0 {
			pl = p
		}
		checkFoldProperty(t, pl, randomEntries(r, 5+r.Intn(60)), fmt.Sprint("seed ", seed))
	}
}

func checkFoldProperty(t *testing.T, p *plan.Plan, entries []progresslog.Entry, name string) {
	t.Helper()
	all, _ := Fold(Input{Slug: "prop", Plan: p, Entries: entries})
	s := Seed(nil, "prop", p)
	for i, e := range entries {
		decoded, err := state.Decode(s.Encode())
		require.NoError(t, err, "%s: entry %d: the view must always be valid state.json", name, i)
		ev, err := EventFrom(e, nil)
		if err != nil && ev.Kind == progresslog.KindOther {
			continue
		}
		if next, err := Step(decoded, p, ev); err == nil {
			s = next
		}
	}
	require.Equal(t, string(all.Encode()), string(s.Encode()), name)
	checkOneUnitSync(t, p, entries, name)
	again, problems := Fold(Input{Slug: "prop", Base: all, Plan: p, Entries: entries})
	require.Equal(t, string(all.Encode()), string(again.Encode()), "%s: reconcile of a healthy view is a no-op", name)
	require.Empty(t, Diff(all, again, p), name)
	_ = problems
}

// checkOneUnitSync steps through entries as Fold does and checks after
// every step that a full sync would change nothing: the sync of the one
// unit an event changed (oneUnit, syncUnit) is the whole sync.
func checkOneUnitSync(t *testing.T, p *plan.Plan, entries []progresslog.Entry, name string) {
	t.Helper()
	s := Seed(nil, "prop", p)
	for i, e := range entries {
		ev, err := EventFrom(e, nil)
		if err != nil && ev.Kind == progresslog.KindOther {
			continue
		}
		if stepSynced(s, p, ev) != nil {
			sync(s, p) // as Fold does after a refused event: in step again
			continue
		}
		full := s.Clone()
		sync(full, p)
		require.Equal(t, string(full.Encode()), string(s.Encode()), "%s: entry %d (%s %s): a full sync changes the view", name, i, ev.Kind, ev.Unit)
	}
}

func FuzzFold(f *testing.F) {
	for _, s := range []int64{1, 2, 3, 42} {
		f.Add(s, uint8(20), true)
	}
	p := mustPlan(f, tasksMD)
	f.Fuzz(func(t *testing.T, seed int64, n uint8, withPlan bool) {
		r := rand.New(rand.NewSource(seed))
		pl := p
		if !withPlan {
			pl = nil
		}
		checkFoldProperty(t, pl, randomEntries(r, int(n)), fmt.Sprint("seed ", seed))
	})
}

func TestFoldAndStepWriteTheCurrentSchema(t *testing.T) {
	for _, name := range []string{"state-development.json", "state-knowledge.json"} {
		data, err := os.ReadFile(filepath.Join("..", "state", "testdata", name))
		require.NoError(t, err)
		old, err := state.Decode(data)
		require.NoError(t, err)
		require.True(t, old.Outdated(), "%s: the seed's files have no schema_version", name)

		folded, _ := Fold(Input{Slug: old.Slug, Base: old})
		assert.Equal(t, state.CurrentSchema, folded.SchemaVersion, "%s: the fold migrates", name)
		assert.True(t, strings.HasPrefix(string(folded.Encode()), "{\n  \"schema_version\": 1,\n"), "%s", name)
		assert.True(t, old.Outdated(), "%s: the base is not changed", name)

		stepped, err := Step(old, nil, Event{Kind: progresslog.KindNote, Time: "2026-01-20T00:00:00Z"})
		require.NoError(t, err)
		assert.Equal(t, state.CurrentSchema, stepped.SchemaVersion, "%s: a step migrates", name)
		assert.Equal(t, 0, old.SchemaVersion, "%s: Step does not change its input", name)
	}
	// A fold from nothing is current too.
	s, _ := Fold(Input{Slug: "x"})
	assert.Equal(t, state.CurrentSchema, s.SchemaVersion)
}
