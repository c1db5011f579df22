package reconcile

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// TestSyncedInStep: Synced returns the view itself only when syncing it
// would change nothing (the encodings of the view and of a synced copy are
// the same bytes), and a copy otherwise, over random views of a plan with
// limits and item ledgers: units missing or extra, limits off, item totals
// off, a current unit the plan lacks, units at their limit.
func TestSyncedInStep(t *testing.T) {
	p, err := plan.Parse("tasks.md", []byte("# Demo - Tasks\n\n## Tasks\n\n"+
		"- [ ] **T1**: one\n  - Max iterations: 3\n"+
		"- [ ] **T2**: two\n  - Max iterations: 2\n  - Items: 4\n"+
		"- [ ] **T3**: three\n"))
	require.NoError(t, err)
	rng := rand.New(rand.NewSource(3))
	sawSame, sawCopy := false, false
	for round := 0; round < 2000; round++ {
		s := Synced(state.New(state.Development, "Demo", "demo", "2026-01-01T00:00:00Z"), p)
		for _, id := range []string{"T1", "T2", "T3"} {
			u := s.Units[id]
			switch rng.Intn(8) {
			case 0:
				delete(s.Units, id)
				continue
			case 1:
				u.MaxIterations = state.Ptr(1 + rng.Intn(4))
			case 2:
				u.Items = &state.Items{Total: state.Ptr(rng.Intn(5))}
			case 3:
				u.Items = &state.Items{}
			}
			if rng.Intn(2) == 0 {
				u.Status = state.InProgress
				if rng.Intn(2) == 0 {
					u.Status = state.Timeout
				}
				u.IterationsUsed = state.Ptr(rng.Intn(4))
			}
		}
		if rng.Intn(6) == 0 {
			s.Units["T9"] = &state.Unit{ID: "T9", Status: state.Pending}
		}
		if rng.Intn(4) == 0 {
			s.Current = state.Ptr(fmt.Sprintf("T%d", 1+rng.Intn(4)))
		}
		before := string(s.Encode())
		copied := s.Clone()
		sync(copied, p)
		got := Synced(s, p)
		assert.Equal(t, before, string(s.Encode()), "round %d: Synced changed the view", round)
		if got == s {
			sawSame = true
			assert.Equal(t, before, string(copied.Encode()), "round %d: the view was not in step", round)
		} else {
			sawCopy = true
			assert.Equal(t, string(copied.Encode()), string(got.Encode()), "round %d", round)
		}
	}
	assert.True(t, sawSame && sawCopy, "both ways taken")
}
