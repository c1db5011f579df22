package merge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
)

const planBase = "# Demo - Tasks\n\n**Total:** 3 tasks\n**Status:** 0 done, 0 in progress, 3 pending\n\n## Tasks\n\n" +
	"- [ ] **T1**: one\n- [ ] **T2**: two\n- [ ] **T3**: three\n"

// TestDriverPlanWithoutLogs: where the state cannot be folded from both
// logs (no commit holds theirs here), each unit's box is merged on its own
// (the side that changed it wins, a reopen included) and the counts come
// from the boxes; the plan's own text is taken from the side that changed
// it, and both changing it is refused, ours left untouched.
func TestDriverPlanWithoutLogs(t *testing.T) {
	tests := []struct {
		name               string
		base, ours, theirs string
		want, err          string
	}{
		{"neighbouring boxes",
			planBase,
			"# Demo - Tasks\n\n**Total:** 3 tasks\n**Status:** 1 done, 0 in progress, 2 pending\n\n## Tasks\n\n- [x] **T1**: one\n- [ ] **T2**: two\n- [ ] **T3**: three\n",
			"# Demo - Tasks\n\n**Total:** 3 tasks\n**Status:** 1 done, 0 in progress, 2 pending\n\n## Tasks\n\n- [ ] **T1**: one\n- [x] **T2**: two\n- [ ] **T3**: three\n",
			"# Demo - Tasks\n\n**Total:** 3 tasks\n**Status:** 2 done, 0 in progress, 1 pending\n\n## Tasks\n\n- [x] **T1**: one\n- [x] **T2**: two\n- [ ] **T3**: three\n", ""},
		{"a reopen on one side wins over the unchanged box",
			"# Demo - Tasks\n\n## Tasks\n\n- [x] **T1**: one\n- [ ] **T2**: two\n",
			"# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: one\n- [ ] **T2**: two\n",
			"# Demo - Tasks\n\n## Tasks\n\n- [x] **T1**: one\n- [x] **T2**: two\n",
			"# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: one\n- [x] **T2**: two\n", ""},
		{"theirs added a unit, ours ticked a box",
			planBase,
			"# Demo - Tasks\n\n**Total:** 3 tasks\n**Status:** 1 done, 0 in progress, 2 pending\n\n## Tasks\n\n- [x] **T1**: one\n- [ ] **T2**: two\n- [ ] **T3**: three\n",
			planBase + "- [ ] **T4**: four\n",
			"# Demo - Tasks\n\n**Total:** 4 tasks\n**Status:** 1 done, 0 in progress, 3 pending\n\n## Tasks\n\n- [x] **T1**: one\n- [ ] **T2**: two\n- [ ] **T3**: three\n- [ ] **T4**: four\n", ""},
		{"neighbouring inline statuses (seed 003's DAG lines) are a view, not the plan's text",
			"# Demo - Tasks\n\n## Tasks\n\n- [ ] S1: Search: a (Status: PENDING, DependsOn: none)\n- [ ] S2: Search: b (Status: PENDING, DependsOn: S1)\n",
			"# Demo - Tasks\n\n## Tasks\n\n- [x] S1: Search: a (Status: COMPLETED, DependsOn: none)\n- [ ] S2: Search: b (Status: PENDING, DependsOn: S1)\n",
			"# Demo - Tasks\n\n## Tasks\n\n- [ ] S1: Search: a (Status: IN_PROGRESS, DependsOn: none)\n- [ ] S2: Search: b (Status: IN_PROGRESS, DependsOn: S1)\n",
			"# Demo - Tasks\n\n## Tasks\n\n- [x] S1: Search: a (Status: COMPLETED, DependsOn: none)\n- [ ] S2: Search: b (Status: PENDING, DependsOn: S1)\n", ""},
		{"both changed the text",
			planBase,
			"# Demo - Tasks\n\n**Total:** 3 tasks\n**Status:** 0 done, 0 in progress, 3 pending\n\n## Tasks\n\n- [ ] **T1**: one, our way\n- [ ] **T2**: two\n- [ ] **T3**: three\n",
			"# Demo - Tasks\n\n**Total:** 3 tasks\n**Status:** 0 done, 0 in progress, 3 pending\n\n## Tasks\n\n- [ ] **T1**: one, their way\n- [ ] **T2**: two\n- [ ] **T3**: three\n",
			"", "both sides changed the plan itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.newTask()
			req := f.request(store.TasksFile, []byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			err := Driver(f.st, req)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Equal(t, tt.ours, string(f.read(req.Ours)), "ours untouched")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(f.read(req.Ours)))
		})
	}
}
