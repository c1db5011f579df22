package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/reconcile"
)

// advisedCalls are the moves the rule book accepts now, as the MCP
// server words them.
func advisedCalls(t *testing.T, dir string) ([]Call, *workspace.PrimeContext) {
	t.Helper()
	ws, err := workspace.Open(workspace.Options{Dir: dir})
	require.NoError(t, err)
	defer ws.Close()
	p, err := ws.Prime("")
	require.NoError(t, err)
	return callsOf(p.Actions), p
}

// filled is a call's arguments with text written where it says "...".
func filled(c Call) map[string]any {
	args := map[string]any{}
	for k, v := range c.Args {
		if v == "..." {
			v = "as advised"
		}
		args[k] = v
	}
	return args
}

// TestFollowingTheAdvice: an agent that always makes the first call resume
// offers (the unit's check run by finish where the plan gives one) takes
// every unit to done without one refusal, and the calls resume lists in its
// text are the ones it offers as data.
func TestFollowingTheAdvice(t *testing.T) {
	dir := newTask(t)
	plan := strings.Replace(tasksMD, "  - Max iterations: 5\n", "  - Max iterations: 5\n  - Verify: `true`\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude/iterative/demo/tasks.md"), []byte(plan), 0o644))
	cs := connect(t, dir)
	made := 0
	for step := 0; step < 40; step++ {
		calls, p := advisedCalls(t, dir)
		out, text := ok[ResumeOutput](t, cs, "resume", nil)
		require.Len(t, out.Calls, len(calls))
		for i, c := range calls {
			assert.Equal(t, c.String(), out.Calls[i])
			assert.Contains(t, text, c.String())
		}
		if len(calls) == 0 || calls[0].Tool == "" {
			// Every unit done: archiving is the CLI's (a person's review).
			require.NotEmpty(t, calls, "no answer: %s", p.NextAction)
			assert.Equal(t, "itr archive", calls[0].Command)
			break
		}
		// The first call that moves the work (a block is offered too).
		c := calls[0]
		ok[Step](t, cs, c.Tool, filled(c))
		made++
	}
	assert.GreaterOrEqual(t, made, 9, "three units through the closing path")
	verifyClean(t, dir)
	checkGit(t, dir)
}

// TestAdviceHoldsThroughMCP: with the budget spent, resume offers no tool
// call, only the CLI's wrap-up (itr deliver), and says what holds the work;
// the writing tools are refused and their next names the hold when a step
// reaches it.
func TestAdviceHoldsThroughMCP(t *testing.T) {
	dir := newTask(t)
	plan := strings.Replace(tasksMD, "## Tasks", "**Max total iterations:** 2\n\n## Tasks", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude/iterative/demo/tasks.md"), []byte(plan), 0o644))
	cs := connect(t, dir)
	ok[Step](t, cs, "checkpoint", map[string]any{"did": "one"})
	st, _ := ok[Step](t, cs, "checkpoint", map[string]any{"did": "two"})
	assert.Contains(t, st.Next, "nothing can be recorded now: the task used all 2 of its iterations")
	assert.Contains(t, st.Next, "(cleared by a person)")

	out, text := ok[ResumeOutput](t, cs, "resume", nil)
	assert.Equal(t, []string{"`itr deliver --limitations \"...\"` (CLI)"}, out.Calls, "no tool wraps up: a person runs the CLI")
	assert.Contains(t, out.NextAction, "the task used all 2 of its iterations")
	assert.Contains(t, text, "Accepted now, as calls: `itr deliver --limitations \"...\"` (CLI).")
	fails(t, cs, dir, "checkpoint", map[string]any{"did": "three"}, "the task used all 2 of its iterations")
	fails(t, cs, dir, "start", map[string]any{}, "the task used all 2 of its iterations")
}

// TestCallOfKeepsCLIMoves: the moves no tool makes stay command lines: the
// acceptance of a done unit's changed outputs (checkpoint
// --accept-outputs), a person's approval, a re-check, the move to verify;
// a plain checkpoint offer is a tool call.
func TestCallOfKeepsCLIMoves(t *testing.T) {
	cases := []struct {
		name string
		a    workspace.Action
		tool string
	}{
		{"repin", workspace.Action{For: "repair", Command: `itr checkpoint R1 --accept-outputs --did "..."`,
			Offer: reconcile.Offer{Op: reconcile.OpCheckpoint, Unit: "R1", Intent: reconcile.Intent{Action: reconcile.Repin}, For: reconcile.MoveRepair}}, ""},
		{"approve", workspace.Action{For: "approve", Person: true, Command: `itr approve --by "..."`,
			Offer: reconcile.Offer{Op: reconcile.OpApprove}}, ""},
		{"recheck", workspace.Action{For: "recheck", Command: `itr recheck R2 --did "..."`,
			Offer: reconcile.Offer{Op: reconcile.OpRecheck, Unit: "R2", Intent: reconcile.Intent{Action: reconcile.Recheck}, For: reconcile.MoveRecheck}}, ""},
		{"work", workspace.Action{For: "continue", Command: `itr checkpoint R1 --did "..."`,
			Offer: reconcile.Offer{Op: reconcile.OpCheckpoint, Unit: "R1", Intent: reconcile.Intent{Action: reconcile.Work}, For: reconcile.MoveContinue}}, "checkpoint"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := callOf(tc.a)
			assert.Equal(t, tc.tool, c.Tool)
			if tc.tool == "" {
				assert.Equal(t, tc.a.Command, c.Command)
				assert.Nil(t, c.Args)
			}
		})
	}
}
