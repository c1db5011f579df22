package reconcile

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

func TestDiffNamesEveryDiscrepancy(t *testing.T) {
	data, err := os.ReadFile("../state/testdata/state-development.json")
	require.NoError(t, err)
	derived, err := state.Decode(data)
	require.NoError(t, err)
	recorded := derived.Clone()
	recorded.Units["T3"].Status = state.Done
	recorded.Units["T2"].IterationsUsed = state.Ptr(9)
	recorded.Units["T1"].MaxIterations = state.Ptr(50)
	recorded.Current = state.Ptr("T4")
	recorded.Units["T9"] = &state.Unit{ID: "T9", Status: state.Pending}
	delete(recorded.Units, "T5")
	recorded.Commits = nil
	recorded.SetExtra("custom", []byte(`1`))

	p := mustPlan(t, tasksMD)
	got := Diff(recorded, derived, p)
	var lines []string
	for _, d := range got {
		lines = append(lines, d.String())
	}
	assert.Equal(t, []string{
		`current_task: recorded "T4", derived "T3" (from progress.md)`,
		`commits: recorded absent, derived ["abc1234: feat(user-auth): Add User model","def5678: feat(user-auth): Create auth service"] (from progress.md)`,
		`T1.max_iterations: recorded 50, derived 5 (from plan)`,
		`T2.iterations_used: recorded 9, derived 5 (from progress.md)`,
		`T3.status: recorded "done", derived "confirming" (from progress.md)`,
		`T5.unit: recorded absent, derived "blocked" (from plan)`,
		`T9.unit: recorded "pending", derived absent (from plan)`,
	}, lines)
	assert.Empty(t, Diff(derived, derived.Clone(), p))

	// Without a plan, limits are state.json's own and units come from the log.
	got = Diff(recorded, derived, nil)
	assert.Contains(t, got, Discrepancy{Unit: "T1", Field: "max_iterations", Recorded: "50", Derived: "5", Source: SourceState})
	assert.Contains(t, got, Discrepancy{Unit: "T9", Field: "unit", Recorded: `"pending"`, Derived: "absent", Source: SourceLog})

	// No readable state.json: everything is absent.
	all := Diff(nil, derived, p)
	assert.Contains(t, all, Discrepancy{Field: "task", Recorded: `""`, Derived: `"user-authentication"`, Source: SourceLog})
	assert.Contains(t, all, Discrepancy{Unit: "T1", Field: "unit", Recorded: "absent", Derived: `"done"`, Source: SourcePlan})
}
