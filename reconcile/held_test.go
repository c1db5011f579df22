package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

const bob = "bob@ci:wt until 2026-01-14T12:00:00Z"

// stuckCodes is each Stuck refusal as "unit code".
func stuckCodes(rs []*Refusal) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Unit+" "+string(r.Code))
	}
	return out
}

func TestAdviseHeldWithoutHeldIsAdvise(t *testing.T) {
	p := mustPlan(t, tasksMD)
	type St = map[string]state.Status
	for name, s := range map[string]*state.State{
		"fresh":                 view(t, nil, ""),
		"current started":       view(t, St{"T1": state.InProgress, "T4": state.Confirming}, "T1"),
		"started, none current": view(t, St{"T1": state.InProgress, "T4": state.Verifying}, ""),
		"current blocked":       view(t, St{"T1": state.Blocked}, "T1"),
		"current timed out":     view(t, St{"T1": state.Timeout, "T4": state.InProgress}, "T1"),
		"all done":              view(t, St{"T1": state.Done, "T2": state.Done, "T3": state.Done, "T4": state.Done, "T5": state.Done}, ""),
		"no units":              Seed(nil, "demo", nil),
	} {
		t.Run(name, func(t *testing.T) {
			for _, act := range []Activity{nil, {"T4": 1, "T1": 2}} {
				want := Advise(s, p, act)
				assert.Equal(t, want, AdviseHeld(s, p, act, nil))
				assert.Equal(t, want, AdviseHeld(s, p, act, Held{}))
				assert.Empty(t, want.Held)
			}
		})
	}
}

func TestAdviseHeld(t *testing.T) {
	p := mustPlan(t, tasksMD)
	type St = map[string]state.Status
	for _, c := range []struct {
		name     string
		s        *state.State
		held     Held
		act      Activity
		unit     string
		ready    []string
		started  []string
		move     Move
		moveUnit string
		heldOut  []string
		stuck    []string
	}{
		{
			name: "a held ready unit is skipped for the next ready one",
			s:    view(t, nil, ""), held: Held{"T1": bob},
			unit: "T4", ready: []string{"T4"}, move: MoveStart, moveUnit: "T4",
			heldOut: []string{"T1"}, stuck: []string{"T1 held", "T2 waits", "T3 waits", "T5 waits"},
		},
		{
			name: "a held current unit gives way to another started one",
			s:    view(t, St{"T1": state.InProgress, "T4": state.Confirming}, "T1"), held: Held{"T1": bob},
			unit: "T4", started: []string{"T4"}, move: MoveConfirm, moveUnit: "T4",
			heldOut: []string{"T1"}, stuck: []string{"T1 held", "T2 waits", "T3 waits", "T5 waits"},
		},
		{
			name: "a held current unit gives way to a ready one",
			s:    view(t, St{"T1": state.Verifying}, "T1"), held: Held{"T1": bob},
			unit: "T4", ready: []string{"T4"}, move: MoveStart, moveUnit: "T4",
			heldOut: []string{"T1"}, stuck: []string{"T1 held", "T2 waits", "T3 waits", "T5 waits"},
		},
		{
			name: "started units held are left out, the others by activity",
			s:    view(t, St{"T1": state.InProgress, "T4": state.InProgress}, ""), held: Held{"T4": bob}, act: Activity{"T4": 1, "T1": 2},
			unit: "T1", started: []string{"T1"}, move: MoveContinue, moveUnit: "T1",
			heldOut: []string{"T4"}, stuck: []string{"T2 waits", "T3 waits", "T4 held", "T5 waits"},
		},
		{
			name: "every workable unit held: wait",
			s:    view(t, nil, ""), held: Held{"T1": bob, "T4": "ana until tomorrow"},
			unit: "", move: MoveWait,
			heldOut: []string{"T1", "T4"}, stuck: []string{"T1 held", "T2 waits", "T3 waits", "T4 held", "T5 waits"},
		},
		{
			name: "held done units are ignored",
			s:    view(t, St{"T1": state.Done}, ""), held: Held{"T1": bob},
			unit: "T2", ready: []string{"T2", "T4"}, move: MoveStart, moveUnit: "T2",
			stuck: []string{"T3 waits", "T5 waits"},
		},
		{
			name: "a held blocked unit says why it is blocked",
			s:    view(t, St{"T1": state.Blocked}, ""), held: Held{"T1": bob},
			unit: "T4", ready: []string{"T4"}, move: MoveStart, moveUnit: "T4",
			heldOut: []string{"T1"}, stuck: []string{"T1 blocked", "T2 waits", "T3 waits", "T5 waits"},
		},
		{
			name: "a unit not in the task is ignored",
			s:    view(t, nil, ""), held: Held{"T9": bob},
			unit: "T1", ready: []string{"T1", "T4"}, move: MoveStart, moveUnit: "T1",
			stuck: []string{"T2 waits", "T3 waits", "T5 waits"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := AdviseHeld(c.s, p, c.act, c.held)
			assert.Equal(t, c.unit, a.Unit)
			assert.ElementsMatch(t, c.ready, a.Ready)
			assert.ElementsMatch(t, c.started, a.Started)
			assert.Equal(t, c.move, a.Move)
			assert.Equal(t, c.moveUnit, a.MoveUnit)
			assert.Equal(t, c.heldOut, a.Held)
			assert.Equal(t, c.stuck, stuckCodes(a.Stuck))
			for _, r := range a.Stuck {
				if r.Code == HeldElsewhere {
					assert.Equal(t, c.held[r.Unit], r.Reason, r.Unit)
					assert.Equal(t, c.s.Units[r.Unit].Status, r.Status, r.Unit)
				}
			}
			for _, id := range append(append([]string{a.Unit}, a.Ready...), a.Started...) {
				_, isHeld := c.held[id]
				assert.False(t, isHeld, "%s is held yet offered", id)
			}

			// Decide agrees: the unit Advise names is the one Start gives,
			// and none is a NoneReady refusal listing the holders.
			ev, err := Decide(c.s, p, Intent{Action: Start, Activity: func() Activity { return c.act }, Held: c.held})
			if c.unit != "" {
				require.NoError(t, err)
				assert.Equal(t, c.unit, ev.Unit)
				return
			}
			var r *Refusal
			require.ErrorAs(t, err, &r)
			assert.Equal(t, NoneReady, r.Code)
			assert.Equal(t, c.stuck, stuckCodes(r.Stuck))
		})
	}
}

func TestDecideHeld(t *testing.T) {
	p := mustPlan(t, tasksMD)
	type St = map[string]state.Status
	for _, c := range []struct {
		name string
		s    *state.State
		in   Intent
		unit string // the event's unit when allowed
		code Code   // the refusal's code otherwise
	}{
		{name: "work on a held unit", s: view(t, nil, ""), in: Intent{Action: Work, Unit: "T1", Held: Held{"T1": bob}}, code: HeldElsewhere},
		{name: "work on a held unit under way", s: view(t, St{"T1": state.InProgress}, "T1"), in: Intent{Action: Work, Unit: "T1", Held: Held{"T1": bob}}, code: HeldElsewhere},
		{name: "finish a held unit", s: view(t, St{"T1": state.InProgress}, "T1"), in: Intent{Action: Finish, Unit: "T1", Held: Held{"T1": bob}}, code: HeldElsewhere},
		{name: "start a held unit", s: view(t, nil, ""), in: Intent{Action: Start, Unit: "T1", Held: Held{"T1": bob}}, code: HeldElsewhere},
		{name: "work on a unit not held", s: view(t, nil, ""), in: Intent{Action: Work, Unit: "T4", Held: Held{"T1": bob}}, unit: "T4"},
		{name: "work on the unit Advise picks", s: view(t, nil, ""), in: Intent{Action: Work, Held: Held{"T1": bob}}, unit: "T4"},
		{name: "work past a held current unit", s: view(t, St{"T1": state.InProgress, "T4": state.InProgress}, "T1"), in: Intent{Action: Work, Held: Held{"T1": bob}}, unit: "T4"},
		{name: "a held done unit is done", s: view(t, St{"T1": state.Done}, ""), in: Intent{Action: Work, Unit: "T1", Held: Held{"T1": bob}}, code: UnitDone},
		{name: "a held blocked unit is blocked", s: view(t, St{"T1": state.Blocked}, "T1"), in: Intent{Action: Work, Unit: "T1", Held: Held{"T1": bob}}, code: UnitBlocked},
		{name: "none ready when all are held", s: view(t, nil, ""), in: Intent{Action: Work, Held: Held{"T1": bob, "T4": bob}}, code: NoneReady},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev, err := Decide(c.s, p, c.in)
			if c.code == "" {
				require.NoError(t, err)
				assert.Equal(t, c.unit, ev.Unit)
				if c.in.Action == Work {
					assert.Equal(t, progresslog.KindIteration, ev.Kind)
				}
				return
			}
			var r *Refusal
			require.ErrorAs(t, err, &r)
			assert.Equal(t, c.code, r.Code)
			if c.code == HeldElsewhere {
				assert.Equal(t, c.in.Unit, r.Unit)
				assert.Equal(t, bob, r.Reason)
				assert.Equal(t, c.s.Units[c.in.Unit].Status, r.Status)
				assert.Contains(t, r.Error(), "unit "+c.in.Unit+" is held by "+bob)
				assert.Contains(t, r.Error(), "itr release "+c.in.Unit)
			}
		})
	}
}

func TestDecideNoneReadyListsHolders(t *testing.T) {
	p := mustPlan(t, tasksMD)
	s := view(t, nil, "")
	held := Held{"T1": bob, "T4": "ana until tomorrow"}
	_, err := Decide(s, p, Intent{Action: Start, Held: held})
	var r *Refusal
	require.ErrorAs(t, err, &r)
	assert.Equal(t, NoneReady, r.Code)
	assert.Equal(t, "", r.Unit)
	var holders []string
	for _, st := range r.Stuck {
		if st.Code == HeldElsewhere {
			holders = append(holders, st.Unit+": "+st.Reason)
			assert.Contains(t, st.Error(), "itr release "+st.Unit)
		}
	}
	assert.Equal(t, []string{"T1: " + bob, "T4: ana until tomorrow"}, holders)

	// Released, the same request goes ahead.
	ev, err := Decide(s, p, Intent{Action: Start, Held: Held{"T1": bob}})
	require.NoError(t, err)
	assert.Equal(t, "T4", ev.Unit)
}
