package mcpcmd_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/npmtest"
)

// TestTypeScriptClient drives the itr-mcp binary with the official MCP
// TypeScript SDK's client (@modelcontextprotocol/sdk from npm) over stdio,
// as Claude Code and other Node clients do: initialize, tools/list, then
// resume, start and checkpoint, judged by the real git. The SDK comes from
// ITR_MCP_TS_DIR (a folder whose node_modules holds it; .ci/run makes one)
// or is installed with npm into a temporary folder; without node or npm,
// or offline, the test is skipped and says why.
func TestTypeScriptClient(t *testing.T) {
	dir, node := npmtest.Dir(t, "ITR_MCP_TS_DIR", "@modelcontextprotocol/sdk@1")
	src, err := os.ReadFile(filepath.Join("testdata", "tsclient.mjs"))
	require.NoError(t, err)
	script := filepath.Join(dir, "itr-tsclient-"+strings.ReplaceAll(t.Name(), "/", "_")+".mjs")
	require.NoError(t, os.WriteFile(script, src, 0o644))
	t.Cleanup(func() { os.Remove(script) })

	bin := filepath.Join(t.TempDir(), "itr-mcp")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/itr-mcp").CombinedOutput()
	require.NoError(t, err, "%s", out)
	itr := filepath.Join(filepath.Dir(bin), "itr")
	out, err = exec.Command("go", "build", "-o", itr, "../../cmd/itr").CombinedOutput()
	require.NoError(t, err, "%s", out)

	home := t.TempDir()
	repo := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "ITR_AGENT=ts-client",
		"GIT_AUTHOR_NAME=TS", "GIT_AUTHOR_EMAIL=ts@example.com", "GIT_COMMITTER_NAME=TS", "GIT_COMMITTER_EMAIL=ts@example.com")
	run := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %v: %s", name, args, out)
		return string(out)
	}
	run("git", "init", "-q", "-b", "main")
	run("git", "commit", "-q", "--allow-empty", "-m", "init")
	run(itr, "init", "Demo", "--slug", "demo")
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".claude/iterative/demo/tasks.md"), []byte("# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: Add the model\n- [ ] **T2**: Use it\n  - Depends: T1\n"), 0o644))
	run(itr, "plan")

	calls := `[{"name":"resume","arguments":{}},{"name":"start","arguments":{}},{"name":"checkpoint","arguments":{"did":"from the TypeScript client","remaining":"tests"}},{"name":"checkpoint","arguments":{"unit":"T9","did":"x"}},{"name":"resume","arguments":{"ready":true}},{"name":"resume","arguments":{"unit":"T2"}},{"name":"block","arguments":{"unit":"T2","reason":"out of scope","as":"skipped"}}]`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, bin, repo, calls)
	cmd.Dir, cmd.Env = dir, env
	raw, err := cmd.Output()
	require.NoError(t, err, "%s", raw)
	var res struct {
		Server struct{ Name, Version string }
		Tools  []string
		Calls  []struct {
			Name       string
			IsError    bool
			Structured map[string]any
			Text       string
		}
		Error string
	}
	require.NoError(t, json.Unmarshal(raw, &res), "%s", raw)
	require.Empty(t, res.Error)
	assert.Equal(t, "itr", res.Server.Name)
	assert.Equal(t, []string{"block", "checkpoint", "decide", "finish", "reopen", "resume", "start", "summarize"}, res.Tools)
	require.Len(t, res.Calls, 7)
	assert.Equal(t, "demo", res.Calls[0].Structured["task"])
	assert.Equal(t, "T1", res.Calls[1].Structured["unit"])
	assert.NotEmpty(t, res.Calls[1].Structured["claimed_until"], "start claims the unit")
	assert.False(t, res.Calls[2].IsError)
	assert.Equal(t, "in_progress", res.Calls[2].Structured["status"])
	assert.True(t, res.Calls[3].IsError, "an unknown unit is a tool error, not a protocol error")
	assert.Contains(t, res.Calls[3].Text, "unit T9 is not in the task")
	// An orchestrator's calls: the units that can start, each with its
	// brief (the client checks the output against the tool's schema), one
	// unit's brief, and a unit skipped through block's "as".
	require.False(t, res.Calls[4].IsError, "%s", res.Calls[4].Text)
	ready, _ := res.Calls[4].Structured["ready"].(map[string]any)
	require.Contains(t, ready, "T1")
	assert.Contains(t, ready["T1"], "# itr: unit T1 of task `demo`")
	assert.Contains(t, res.Calls[4].Text, "T2 waits for T1 (in_progress)")
	require.False(t, res.Calls[5].IsError, "%s", res.Calls[5].Text)
	assert.Contains(t, res.Calls[5].Structured["markdown"], "**Not now:** unit T2 cannot start: it depends on T1 (in_progress)")
	require.False(t, res.Calls[6].IsError, "%s", res.Calls[6].Text)
	assert.Equal(t, "skipped", res.Calls[6].Structured["status"])

	assert.Contains(t, run("git", "log", "-2", "--format=%B"), "itr(demo): T1 iteration 1: from the TypeScript client")
	assert.Contains(t, run("git", "log", "-1", "--format=%B"), "itr(demo): skip T2: out of scope")
	assert.Empty(t, run("git", "status", "--porcelain"))
	run("git", "fsck", "--strict")
	run(itr, "verify")
}
