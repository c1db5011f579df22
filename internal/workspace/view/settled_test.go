package view

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// replaced is T1 ← T2 ← T3, T4 replacing T2, and T5 ← T6.
const replaced = `- [ ] **T1**: Model
- [ ] **T2**: Service
  - Depends: T1
- [ ] **T3**: Handler
  - Depends: T2
- [ ] **T4**: Other service
  - Depends: T1
  - Replaces: T2
- [ ] **T5**: Scan
- [ ] **T6**: Report
  - Depends: T5
`

func TestGraphFailedAndSkipped(t *testing.T) {
	g := graphOf(t, replaced, map[string]state.Status{"T1": state.Done, "T2": state.Failed, "T5": state.Skipped}, nil, nil)
	class := map[string]string{}
	for _, n := range g.Nodes {
		class[n.ID] = n.Class
	}
	assert.Equal(t, map[string]string{"T1": ClassDone, "T2": ClassFailed, "T3": ClassWaiting, "T4": ClassReady, "T5": ClassSkipped, "T6": ClassReady}, class,
		"a skipped dependency lets T6 start; T3 waits on the failed T2 until T4 is done")
	require.Equal(t, []string{"T4"}, g.Nodes[1].ReplacedBy)

	ascii := g.ASCII(0)
	assert.Contains(t, ascii, "[F] failed  [-] skipped")
	assert.Contains(t, ascii, "[F] T2  Service  ← T1 *  (failed · replaced by T4")
	assert.Contains(t, ascii, "[-] T5  Scan  (skipped")
	assert.Contains(t, g.Mermaid(), "classDef failed")
	assert.Contains(t, g.Dot(), "failed")

	// Once T4 is done, T3 is ready: drawn as the rule book decides.
	g = graphOf(t, replaced, map[string]state.Status{"T1": state.Done, "T2": state.Failed, "T4": state.Done, "T5": state.Skipped}, nil, nil)
	for _, n := range g.Nodes {
		if n.ID == "T3" {
			assert.Equal(t, ClassReady, n.Class)
		}
	}
	assert.NotContains(t, strings.Join(g.Critical, " "), "T2", "a settled unit is off the critical path")

	// A plan with neither keeps the legend it had.
	plain := graphOf(t, chain, nil, nil, nil).ASCII(0)
	assert.NotContains(t, plain, "failed")
}

// TestGraphByPositionIsByID: the graph of a state whose units line up
// with the plan's, walked by position, is the graph looked up by ID, over
// every status of a few plans (replacements, estimates, branches).
func TestGraphByPositionIsByID(t *testing.T) {
	statuses := []state.Status{state.Pending, state.InProgress, state.Done, state.Blocked, state.Timeout, state.Failed, state.Skipped, state.Confirming}
	for _, units := range []string{replaced, chain} {
		p, err := plan.Parse("tasks.md", []byte("# Demo - Tasks\n\n## Tasks\n\n"+units))
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			s := state.New(state.Development, "demo", "demo", "")
			for _, u := range p.Units {
				s.Units[u.ID] = &state.Unit{ID: u.ID, Status: statuses[r.IntN(len(statuses))], IterationsUsed: state.Ptr(1), MaxIterations: state.Ptr(5)}
			}
			claims := map[string]store.Claim{p.Units[r.IntN(len(p.Units))].ID: {Agent: "a"}}
			ids, _ := s.Ordered()
			_, ok := p.Positions(ids)
			require.True(t, ok, "the units line up")
			assert.Equal(t, graphByID("demo", s, p, claims), GraphOf("demo", s, p, claims))
		}
	}
}
