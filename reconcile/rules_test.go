package reconcile

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// view builds a view of the tasksMD plan with the given statuses (units
// not named are pending); started units have one iteration.
func view(t *testing.T, statuses map[string]state.Status, current string) *state.State {
	t.Helper()
	s := Seed(nil, "demo", mustPlan(t, tasksMD))
	for id, st := range statuses {
		u := s.Units[id]
		require.NotNil(t, u, id)
		u.Status = st
		if st.Started() {
			u.IterationsUsed = state.Ptr(1)
		}
		if st == state.Blocked {
			u.Reason = state.Ptr("keys")
		}
		if st == state.Timeout {
			u.IterationsUsed = u.MaxIterations
		}
	}
	if current != "" {
		s.Current = state.Ptr(current)
	}
	return s
}

func TestDecide(t *testing.T) {
	p := mustPlan(t, tasksMD)
	S := func(m map[string]state.Status, cur string) *state.State { return view(t, m, cur) }
	type St = map[string]state.Status
	for _, c := range []struct {
		name string
		s    *state.State
		in   Intent
		// want: the event's kind, unit, signal, verification; or a refusal
		kind         progresslog.Kind
		unit         string
		signal       bool
		verification string
		code         Code
		noPlan       bool
	}{
		{name: "first iteration of a ready unit", s: S(nil, ""), in: Intent{Action: Work, Unit: "T1"}, kind: progresslog.KindIteration, unit: "T1"},
		{name: "default unit is the first ready", s: S(nil, ""), in: Intent{Action: Work}, kind: progresslog.KindIteration, unit: "T1"},
		{name: "default unit is the current one", s: S(St{"T1": state.Done, "T4": state.InProgress}, "T4"), in: Intent{Action: Work}, kind: progresslog.KindIteration, unit: "T4"},
		{name: "signal declares the work done", s: S(St{"T1": state.InProgress}, "T1"), in: Intent{Action: Work, Signal: true}, kind: progresslog.KindIteration, unit: "T1", signal: true},
		{name: "verified in verifying by a person", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Work, Verified: true, VerifiedBy: "Ana"}, kind: progresslog.KindIteration, unit: "T1", verification: "passed"},
		{name: "verified with a passing run", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Work, Verified: true, Run: &state.Run{Outcome: state.RunPassed}}, kind: progresslog.KindIteration, unit: "T1", verification: "passed"},
		{name: "verified with a run to make", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Work, Verified: true, WillRun: true}, kind: progresslog.KindIteration, unit: "T1", verification: "passed"},
		{name: "verified with a failing run fails it", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Work, Verified: true, Run: &state.Run{Outcome: state.RunFailed}}, kind: progresslog.KindIteration, unit: "T1", verification: "failed"},
		{name: "verified with an interrupted run fails it", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Work, Verified: true, VerifiedBy: "Ana", Run: &state.Run{Outcome: state.RunInterrupted}}, kind: progresslog.KindIteration, unit: "T1", verification: "failed"},
		{name: "verified on a claim", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Work, Verified: true}, code: NoEvidence},
		{name: "signal with a failing run keeps working", s: S(St{"T1": state.InProgress}, "T1"), in: Intent{Action: Work, Signal: true, Run: &state.Run{Outcome: state.RunTimeout}}, kind: progresslog.KindIteration, unit: "T1"},
		{name: "confirmation with a failing run goes back", s: S(St{"T1": state.Confirming}, "T1"), in: Intent{Action: Work, Signal: true, Run: &state.Run{Outcome: state.RunFailed}}, kind: progresslog.KindIteration, unit: "T1"},
		{name: "no verdict in verifying fails it", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Work}, kind: progresslog.KindIteration, unit: "T1", verification: "failed"},
		{name: "signal in verifying", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Work, Signal: true}, code: NeedsVerdict},
		{name: "verified too early", s: S(St{"T1": state.Confirming}, "T1"), in: Intent{Action: Work, Verified: true}, code: VerifiedEarly},
		{name: "unknown unit", s: S(nil, ""), in: Intent{Action: Work, Unit: "T9"}, code: UnknownUnit},
		{name: "no units", s: Seed(nil, "demo", nil), in: Intent{Action: Work, Unit: "T1"}, code: NoUnits, noPlan: true},
		{name: "waits for a dependency", s: S(nil, ""), in: Intent{Action: Work, Unit: "T2"}, code: WaitsFor},
		{name: "done", s: S(St{"T1": state.Done}, ""), in: Intent{Action: Work, Unit: "T1"}, code: UnitDone},
		{name: "blocked", s: S(St{"T1": state.Blocked}, "T1"), in: Intent{Action: Work, Unit: "T1"}, code: UnitBlocked},
		{name: "timed out", s: S(St{"T1": state.Timeout}, "T1"), in: Intent{Action: Work, Unit: "T1"}, code: UnitTimedOut},
		{name: "none ready", s: S(St{"T1": state.Blocked, "T4": state.Blocked}, ""), in: Intent{Action: Work}, code: NoneReady},
		{name: "start a ready unit records nothing", s: S(nil, ""), in: Intent{Action: Start}, kind: progresslog.KindOther, unit: "T1"},
		{name: "start a done unit", s: S(St{"T1": state.Done}, ""), in: Intent{Action: Start, Unit: "T1"}, code: UnitDone},
		{name: "finish in_progress declares done", s: S(St{"T1": state.InProgress}, "T1"), in: Intent{Action: Finish}, kind: progresslog.KindIteration, unit: "T1", signal: true},
		{name: "finish confirming confirms", s: S(St{"T1": state.Confirming}, "T1"), in: Intent{Action: Finish}, kind: progresslog.KindIteration, unit: "T1", signal: true},
		{name: "failed confirmation", s: S(St{"T1": state.Confirming}, "T1"), in: Intent{Action: Finish, Failed: true}, kind: progresslog.KindIteration, unit: "T1"},
		{name: "finish verifying passes", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Finish, Run: &state.Run{Outcome: state.RunPassed}}, kind: progresslog.KindIteration, unit: "T1", verification: "passed"},
		{name: "finish verifying on a claim", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Finish}, code: NoEvidence},
		{name: "failed verification", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Finish, Failed: true}, kind: progresslog.KindIteration, unit: "T1", verification: "failed"},
		{name: "finish a pending unit", s: S(nil, ""), in: Intent{Action: Finish, Unit: "T1"}, code: NotStarted},
		{name: "failed check in in_progress", s: S(St{"T1": state.InProgress}, "T1"), in: Intent{Action: Finish, Failed: true}, code: FailedEarly},
		{name: "block", s: S(nil, ""), in: Intent{Action: Block, Unit: "T2", Reason: "keys"}, kind: progresslog.KindBlocked, unit: "T2"},
		{name: "block twice", s: S(St{"T1": state.Blocked}, ""), in: Intent{Action: Block, Unit: "T1"}, code: AlreadyBlocked},
		{name: "block a done unit", s: S(St{"T1": state.Done}, ""), in: Intent{Action: Block, Unit: "T1"}, code: BadMove},
		{name: "unblock", s: S(St{"T1": state.Blocked}, ""), in: Intent{Action: Unblock, Unit: "T1"}, kind: progresslog.KindUnblocked, unit: "T1"},
		{name: "unblock what is not blocked", s: S(nil, ""), in: Intent{Action: Unblock, Unit: "T1"}, code: NotBlocked},
		{name: "block an unknown unit", s: S(nil, ""), in: Intent{Action: Block, Unit: "T9"}, code: UnknownUnit},
		{name: "reopen a done unit", s: S(St{"T1": state.Done}, ""), in: Intent{Action: Reopen, Unit: "T1", Reason: "wrong"}, kind: progresslog.KindReopened, unit: "T1"},
		{name: "reopen an in_progress unit", s: S(St{"T1": state.InProgress}, "T1"), in: Intent{Action: Reopen, Unit: "T1", Reason: "x"}, code: NotDone},
		{name: "reopen a confirming unit", s: S(St{"T1": state.Confirming}, "T1"), in: Intent{Action: Reopen, Unit: "T1", Reason: "x"}, code: NotDone},
		{name: "reopen a verifying unit", s: S(St{"T1": state.Verifying}, "T1"), in: Intent{Action: Reopen, Unit: "T1", Reason: "x"}, code: NotDone},
		{name: "reopen a pending unit", s: S(nil, ""), in: Intent{Action: Reopen, Unit: "T1", Reason: "x"}, code: NotDone},
		{name: "reopen a blocked unit", s: S(St{"T1": state.Blocked}, ""), in: Intent{Action: Reopen, Unit: "T1", Reason: "x"}, code: NotDone},
		{name: "reopen an unknown unit", s: S(nil, ""), in: Intent{Action: Reopen, Unit: "T9", Reason: "x"}, code: UnknownUnit},
		{name: "reopen names its unit", s: S(St{"T1": state.Done}, ""), in: Intent{Action: Reopen, Reason: "x"}, code: UnknownUnit},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := string(c.s.Encode())
			p := p
			if c.noPlan {
				p = nil
			}
			ev, err := Decide(c.s, p, c.in)
			assert.Equal(t, before, string(c.s.Encode()), "Decide changed the view")
			if c.code != "" {
				var r *Refusal
				require.True(t, errors.As(err, &r), "want refusal %s, got %v", c.code, err)
				assert.Equal(t, c.code, r.Code)
				assert.NotEmpty(t, r.Error())
				assert.NotContains(t, r.Error(), "--", "the domain's words name no flag")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.kind, ev.Kind)
			assert.Equal(t, c.unit, ev.Unit)
			assert.Equal(t, c.signal, ev.Signal != "", "signal %q", ev.Signal)
			assert.Equal(t, c.verification, ev.Verification)
			if ev.Kind == progresslog.KindIteration {
				assert.Equal(t, state.Val(c.s.Units[c.unit].IterationsUsed)+1, ev.Iteration)
				// What the rule book allows, the reducer applies.
				_, err := Step(c.s, p, ev)
				assert.NoError(t, err)
			}
		})
	}
}

// TestStepRefusesWhatDecideRefuses: the reducer checks events with the same
// rules, so an entry written by hand that the rule book refuses is not
// applied, and the refusal says why.
func TestStepRefusesWhatDecideRefuses(t *testing.T) {
	p := mustPlan(t, tasksMD)
	for _, c := range []struct {
		s    *state.State
		ev   Event
		code Code
	}{
		{view(t, map[string]state.Status{"T1": state.Done}, ""), Event{Kind: progresslog.KindIteration, Unit: "T1"}, UnitDone},
		{view(t, map[string]state.Status{"T1": state.Blocked}, ""), Event{Kind: progresslog.KindIteration, Unit: "T1"}, UnitBlocked},
		{view(t, map[string]state.Status{"T1": state.Timeout}, ""), Event{Kind: progresslog.KindIteration, Unit: "T1"}, UnitTimedOut},
		{view(t, nil, ""), Event{Kind: progresslog.KindIteration, Unit: "T1", Signal: "WRONG"}, WrongSignal},
		{view(t, nil, ""), Event{Kind: progresslog.KindIteration, Unit: "T9"}, UnknownUnit},
		{view(t, map[string]state.Status{"T1": state.Blocked}, ""), Event{Kind: progresslog.KindBlocked, Unit: "T1"}, AlreadyBlocked},
		{view(t, nil, ""), Event{Kind: progresslog.KindUnblocked, Unit: "T1"}, NotBlocked},
		{Seed(nil, "demo", nil), Event{Kind: progresslog.KindIteration, Unit: "t.1"}, NotAnID},
		{view(t, map[string]state.Status{"T1": state.Verifying}, ""), Event{Kind: progresslog.KindReopened, Unit: "T1"}, NotDone},
		{view(t, nil, ""), Event{Kind: progresslog.KindReopened, Unit: "T9"}, UnknownUnit},
	} {
		_, err := Step(c.s, p, c.ev)
		if c.code == NotAnID {
			_, err = Step(c.s, nil, c.ev)
		}
		var r *Refusal
		require.True(t, errors.As(err, &r), "%v: %v", c.ev, err)
		assert.Equal(t, c.code, r.Code)
	}
	// Without a plan, the first event of a unit brings it in.
	s, err := Step(Seed(nil, "demo", nil), nil, Event{Kind: progresslog.KindIteration, Unit: "T1"})
	require.NoError(t, err)
	assert.Equal(t, state.InProgress, s.Units["T1"].Status)
}

func TestAdvise(t *testing.T) {
	p := mustPlan(t, tasksMD)
	type St = map[string]state.Status
	for _, c := range []struct {
		name     string
		s        *state.State
		unit     string
		ready    []string
		move     Move
		moveUnit string
		stuck    []Code
	}{
		{"fresh plan", view(t, nil, ""), "T1", []string{"T1", "T4"}, MoveStart, "T1", []Code{WaitsFor, WaitsFor, WaitsFor}},
		{"current in progress", view(t, St{"T1": state.InProgress}, "T1"), "T1", []string{"T4"}, MoveContinue, "T1", []Code{WaitsFor, WaitsFor, WaitsFor}},
		{"confirming", view(t, St{"T1": state.Confirming}, "T1"), "T1", []string{"T4"}, MoveConfirm, "T1", []Code{WaitsFor, WaitsFor, WaitsFor}},
		{"verifying", view(t, St{"T1": state.Verifying}, "T1"), "T1", []string{"T4"}, MoveVerify, "T1", []Code{WaitsFor, WaitsFor, WaitsFor}},
		{"current blocked: the next ready unit", view(t, St{"T1": state.Blocked}, "T1"), "T4", []string{"T4"}, MoveUnblock, "T1", []Code{UnitBlocked, WaitsFor, WaitsFor, WaitsFor}},
		{"current timed out", view(t, St{"T1": state.Timeout}, "T1"), "T4", []string{"T4"}, MoveRaiseLimit, "T1", []Code{UnitTimedOut, WaitsFor, WaitsFor, WaitsFor}},
		{"done unlocks the next", view(t, St{"T1": state.Done}, ""), "T2", []string{"T2", "T4"}, MoveStart, "T2", []Code{WaitsFor, WaitsFor}},
		{"all blocked", view(t, St{"T1": state.Blocked, "T4": state.Blocked}, ""), "", nil, MoveUnblock, "T1", []Code{UnitBlocked, WaitsFor, WaitsFor, UnitBlocked, WaitsFor}},
		{"timed out before blocked", view(t, St{"T1": state.Blocked, "T4": state.Timeout}, ""), "", nil, MoveRaiseLimit, "T4", []Code{UnitBlocked, WaitsFor, WaitsFor, UnitTimedOut, WaitsFor}},
		{"all done", view(t, St{"T1": state.Done, "T2": state.Done, "T3": state.Done, "T4": state.Done, "T5": state.Done}, ""), "", nil, MoveVerifyTask, "", nil},
		{"all done, in verify", inPhase(view(t, St{"T1": state.Done, "T2": state.Done, "T3": state.Done, "T4": state.Done, "T5": state.Done}, ""), state.Verify), "", nil, MoveArchive, "", nil},
		{"no units", Seed(nil, "demo", nil), "", nil, MoveWritePlan, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := Advise(c.s, p, nil)
			if len(c.s.Units) == 0 {
				a = Advise(c.s, nil, nil)
			}
			assert.Equal(t, c.unit, a.Unit)
			assert.Equal(t, c.ready, a.Ready)
			assert.Equal(t, c.move, a.Move)
			assert.Equal(t, c.moveUnit, a.MoveUnit)
			var codes []Code
			for _, r := range a.Stuck {
				codes = append(codes, r.Code)
			}
			assert.Equal(t, c.stuck, codes)
			if a.Unit != "" {
				assert.Equal(t, state.AllowedNext(a.Status), a.Allowed)
				// The unit Advise names is one Decide lets a session start.
				ev, err := Decide(c.s, p, Intent{Action: Start})
				require.NoError(t, err)
				assert.Equal(t, a.Unit, ev.Unit)
			}
		})
	}
	archived := view(t, nil, "")
	archived.Phase = state.Complete
	assert.Equal(t, MoveRestore, Advise(archived, p, nil).Move)
}

// TestRefusalWording: every code words itself, with the fields named as
// the caller asks.
func TestRefusalWording(t *testing.T) {
	flag := func(f string) string { return "--" + f }
	for _, c := range []struct {
		r    Refusal
		want string
	}{
		{Refusal{Code: NeedsVerdict, Unit: "T1", Status: state.Verifying}, "unit T1 is verifying: pass --verified when verification passed"},
		{Refusal{Code: VerifiedEarly, Unit: "T1", Status: state.Confirming}, "unit T1 is confirming: --verified applies only in verifying, after the confirmation (--signal) passed"},
		{Refusal{Code: NoneReady}, "no unit is ready; name one: itr checkpoint UNIT --did"},
		{Refusal{Code: WaitsFor, Unit: "T2", Waiting: []Dep{{ID: "T1", Status: state.Pending}, {ID: "T0"}}}, "unit T2 cannot start: it depends on T1 (pending), T0 (missing)"},
		{Refusal{Code: UnknownUnit, Unit: "T9", Units: []string{"T1"}, PlanFile: "tasks.md", Active: true}, "unit T9 is not in tasks.md (units: T1)"},
		{Refusal{Code: UnknownUnit, Unit: "iv-a", Units: []string{"IV-A", "W2-001"}, PlanFile: "tasks.md"}, "unit iv-a is not in the task: unit IDs are case-sensitive; did you mean IV-A? (units: IV-A, W2-001)"},
		{Refusal{Code: UnknownUnit, Unit: "iv-a", Units: []string{"IV-A"}, PlanFile: "tasks.md", Active: true}, "unit iv-a is not in tasks.md: unit IDs are case-sensitive; did you mean IV-A? (units: IV-A)"},
		{Refusal{Code: UnknownUnit, Unit: "IV.A", Units: []string{"IV-A"}, PlanFile: "tasks.md", Active: true}, `unit ID "IV.A" is not valid: an ID starts with a letter and holds letters, digits, - and _ (such as T1, IV-A, PHASE_3); the units of tasks.md: IV-A`},
		{Refusal{Code: NotAnID, Unit: "x.1"}, `"x.1" is not a unit ID: an ID starts with a letter and holds letters, digits, - and _ (such as T1, IV-A, PHASE_3)`},
		{Refusal{Code: FailedEarly, Unit: "T1", Status: state.InProgress}, "a failed check applies only in confirming or verifying"},
		{Refusal{Code: NotStarted, Unit: "T1", Status: state.Pending}, "unit T1 is pending: record its first iteration"},
		{Refusal{Code: BadMove, Unit: "T1", Status: state.Done, To: state.Blocked}, "unit T1: cannot move from done to blocked: done is final"},
		{Refusal{Code: "other", Unit: "T1"}, "unit T1: other"},
	} {
		assert.Contains(t, c.r.Worded(flag), c.want)
	}
}

// TestAdviseNeverLosesAStartedUnit: a unit started and not finished stays
// the unit to work on when other work finished around it, the oldest
// activity first, and Decide picks it for a request that names no unit.
func TestAdviseNeverLosesAStartedUnit(t *testing.T) {
	p := mustPlan(t, tasksMD)
	type St = map[string]state.Status
	// T1 half done, T4 (independent) taken to done: no current unit.
	s := view(t, St{"T1": state.InProgress, "T4": state.Done}, "")
	a := Advise(s, p, nil)
	assert.Equal(t, "T1", a.Unit)
	assert.Equal(t, []string{"T1"}, a.Started)
	assert.Equal(t, MoveContinue, a.Move)
	assert.Equal(t, "T1", a.MoveUnit)
	ev, err := Decide(s, p, Intent{Action: Work, Activity: func() Activity { return nil }})
	require.NoError(t, err)
	assert.Equal(t, "T1", ev.Unit)

	// Two started units: the one touched longest ago first.
	s = view(t, St{"T1": state.Confirming, "T4": state.InProgress}, "")
	act := Activity{"T1": 7, "T4": 3}
	a = Advise(s, p, act)
	assert.Equal(t, []string{"T4", "T1"}, a.Started)
	assert.Equal(t, "T4", a.Unit)
	called := 0
	ev, err = Decide(s, p, Intent{Action: Work, Activity: func() Activity { called++; return act }})
	require.NoError(t, err)
	assert.Equal(t, "T4", ev.Unit)
	assert.Equal(t, 1, called)

	// The current unit comes first, and then the log is not read at all.
	s = view(t, St{"T1": state.Confirming, "T4": state.InProgress}, "T1")
	a = Advise(s, p, act)
	assert.Equal(t, []string{"T1", "T4"}, a.Started)
	assert.Equal(t, MoveConfirm, a.Move)
	called = 0
	ev, err = Decide(s, p, Intent{Action: Work, Activity: func() Activity { called++; return act }})
	require.NoError(t, err)
	assert.Equal(t, "T1", ev.Unit)
	assert.Zero(t, called, "the current unit needs no log")

	// A timed-out unit revived by a raised limit is under way again.
	s = view(t, St{"T1": state.Timeout, "T4": state.Done}, "")
	raised := mustPlan(t, strings.Replace(tasksMD, "- [ ] **T1**: Add User model\n  - Max iterations: 5", "- [ ] **T1**: Add User model\n  - Max iterations: 9", 1))
	next, err := Step(s, raised, Event{Kind: progresslog.KindPlanned})
	require.NoError(t, err)
	a = Advise(next, raised, nil)
	assert.Equal(t, state.InProgress, next.Units["T1"].Status)
	assert.Equal(t, "T1", a.Unit)
	assert.Equal(t, MoveContinue, a.Move)
}

// inPhase is s in phase ph.
func inPhase(s *state.State, ph state.Phase) *state.State {
	s.Phase = ph
	return s
}
