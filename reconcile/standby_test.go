package reconcile

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

const standbyMD = `# Demo - Tasks

## Tasks

- [ ] **T1**: Old service
- [ ] **T2**: New service
  - Replaces: T1
- [ ] **T3**: Clients
  - Depends: T1
`

// TestStandBy: a unit that replaces another stands by while that one may
// still succeed (not ready, work refused), may start once it failed or was
// skipped, and is not needed (settled, so archive accepts it) once it is
// done.
func TestStandBy(t *testing.T) {
	p := mustPlan(t, standbyMD)
	type St = map[string]state.Status
	view := func(t *testing.T, st St, _ string) *state.State {
		s := Seed(nil, "demo", p)
		for id, x := range st {
			s.Units[id].Status = x
			if x.Started() {
				s.Units[id].IterationsUsed = state.Ptr(1)
			}
		}
		return s
	}
	for _, c := range []struct {
		name      string
		st        St
		ready     []string
		code      Code // of work on T2; "" when allowed
		settled   bool // T2
		unsettled []string
	}{
		{"pending", nil, []string{"T1"}, StandsBy, false, []string{"T1 (pending)", "T2 (pending)", "T3 (pending)"}},
		{"in progress", St{"T1": state.InProgress}, []string{}, StandsBy, false, []string{"T1 (in_progress)", "T2 (pending)", "T3 (pending)"}},
		{"failed", St{"T1": state.Failed}, []string{"T2"}, "", false, nil},
		{"skipped", St{"T1": state.Skipped}, []string{"T2", "T3"}, "", false, nil},
		{"done", St{"T1": state.Done}, []string{"T3"}, StandsBy, true, []string{"T3 (pending)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := view(t, c.st, "")
			adv := Advise(s, p, nil)
			assert.Equal(t, c.ready, adv.Ready)
			_, err := Decide(s, p, Intent{Action: Work, Unit: "T2"})
			if c.code == "" {
				require.NoError(t, err)
			} else {
				var r *Refusal
				require.True(t, errors.As(err, &r), "%v", err)
				assert.Equal(t, c.code, r.Code)
			}
			assert.Equal(t, c.settled, Settled(s, p, "T2"))
			if c.unsettled != nil {
				assert.Equal(t, c.unsettled, Unsettled(s, p))
			}
		})
	}
	s := view(t, St{"T1": state.InProgress}, "")
	_, err := Decide(s, p, Intent{Action: Work, Unit: "T2"})
	assert.EqualError(t, err, "unit T2 stands by for T1 (in_progress): it replaces it and starts only if it fails or is skipped; nothing was recorded")
	s = view(t, St{"T1": state.Done}, "")
	_, err = Decide(s, p, Intent{Action: Work, Unit: "T2"})
	assert.EqualError(t, err, "unit T2 is not needed: it replaces T1, which is done; nothing was recorded (drop it from the plan with `itr plan --drop T2 --reason TEXT` if you like; archive accepts it as it is)")
	assert.Contains(t, stuckCodes(Advise(view(t, nil, ""), p, nil).Stuck), "T2 stands-by")
}
