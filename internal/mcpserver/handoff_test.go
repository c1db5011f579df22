package mcpserver

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace"
)

const handoffMD = `# Research - Plan

## Phases

- [ ] **R1**: Gather the cases
  - Output: outputs/cases.md
- [ ] **R2**: Gather the statutes
- [ ] **R3**: Write the memo
  - Inputs: R1.output, sources/brief.md
  - Depends: R2
`

// TestResumeReadyAndUnit: an orchestrator asks which units can start and
// gets each one's brief; a subagent asks for its unit's context; a unit
// whose inputs are missing is not offered, and starting it is refused
// with the missing files named and nothing changed.
func TestResumeReadyAndUnit(t *testing.T) {
	dir := newTask(t)
	plan := filepath.Join(dir, ".claude/iterative/demo/plan.md")
	require.NoError(t, os.Remove(filepath.Join(dir, ".claude/iterative/demo/tasks.md")))
	require.NoError(t, os.WriteFile(plan, []byte(handoffMD), 0o644))
	ws, err := workspace.Open(workspace.Options{Dir: dir})
	require.NoError(t, err)
	_, err = ws.Plan(workspace.PlanRequest{Slug: "demo"})
	ws.Close()
	require.NoError(t, err)
	cs := connect(t, dir)

	out, md := ok[ResumeOutput](t, cs, "resume", map[string]any{"ready": true})
	assert.Equal(t, []string{"R1", "R2"}, keys(out.Ready))
	assert.Contains(t, out.Ready["R1"], "# itr: unit R1 of task `demo`")
	assert.Contains(t, md, "R3 waits for R1 (pending), R2 (pending)")

	// Both done; R3's brief file is missing.
	for _, u := range []string{"R1", "R2"} {
		if u == "R1" {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude/iterative/demo/outputs"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude/iterative/demo/outputs/cases.md"), []byte("# Cases\n\nSmith v Jones held the clause binding.\n"), 0o644))
		}
		ok[Step](t, cs, "checkpoint", map[string]any{"unit": u, "did": "gathered " + u, "done": true})
		ok[Step](t, cs, "finish", map[string]any{"unit": u, "evidence": "reviewed"})
		ok[Step](t, cs, "finish", map[string]any{"unit": u, "evidence": "checked", "verified_by": "reviewer"})
	}
	out, md = ok[ResumeOutput](t, cs, "resume", map[string]any{"ready": true})
	assert.Empty(t, out.Ready)
	assert.Contains(t, md, "R3 cannot start: its inputs are missing (sources/brief.md)")
	fails(t, cs, dir, "start", map[string]any{"unit": "R3"}, "unit R3 cannot start: 1 of its inputs is missing (sources/brief.md)")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sources"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sources/brief.md"), []byte("Does the clause bind?\n"), 0o644))
	git(t, dir, "add", "sources")
	git(t, dir, "commit", "-q", "-m", "the client's brief")
	out, _ = ok[ResumeOutput](t, cs, "resume", map[string]any{"unit": "R3"})
	assert.Equal(t, "R3", out.Unit)
	assert.Contains(t, out.Markdown, "Reads: `sources/brief.md` (22 B)")
	assert.Contains(t, out.Markdown, "From R1 (done): wrote `outputs/cases.md` (48 B); last did “checked”")
	assert.Contains(t, out.Markdown, "From R2 (done)")
	info, _ := ok[UnitInfo](t, cs, "start", map[string]any{"unit": "R3"})
	assert.Contains(t, info.Handoff, "Reads: `sources/brief.md` (22 B)")
	fails(t, cs, dir, "resume", map[string]any{"unit": "R9"}, "unit R9 is not in the task (units: R1, R2, R3)")
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
