package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/mcpcmd"
	"github.com/itr-dev/itr/internal/mcpserver"
	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/reconcile"
)

// TestSameRefusalInCLIAndMCP sends the same bad request through the CLI
// and through MCP: both are refused by the same rule of the rule book, each
// worded in its own terms (flags and commands for the CLI, parameters and
// tools for MCP), and neither changes anything.
func TestSameRefusalInCLIAndMCP(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, kv := range [][2]string{{"GIT_AUTHOR_NAME", "T"}, {"GIT_AUTHOR_EMAIL", "t@example.com"}, {"GIT_COMMITTER_NAME", "T"}, {"GIT_COMMITTER_EMAIL", "t@example.com"}} {
		t.Setenv(kv[0], kv[1])
	}
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("commit", "-q", "--allow-empty", "-m", "initial commit")

	// cli runs itr in this process and returns what it printed on stderr
	// and the error its command returned.
	cli := func(args ...string) (string, error) {
		var errb bytes.Buffer
		g := &globals{io: IO{Out: &bytes.Buffer{}, Err: &errb, Getenv: func(string) string { return "" }}}
		root := newRoot(g)
		markUsage(root)
		root.SetArgs(append([]string{"-C", dir}, args...))
		root.SetOut(&bytes.Buffer{})
		root.SetErr(&errb)
		err := root.Execute()
		exitCode(err, &errb, nil)
		return errb.String(), err
	}
	ok := func(args ...string) {
		t.Helper()
		msg, err := cli(args...)
		require.NoError(t, err, "itr %v: %s", args, msg)
	}
	ok("init", "Demo", "--slug", "demo")
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude/iterative/demo/tasks.md"), []byte(
		"# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: one\n  - Max iterations: 5\n  - Items: 3\n- [ ] **T2**: two\n  - Depends: T1\n- [ ] **T3**: three\n- [ ] **T4**: notes\n  - Output: `outputs/notes.md`\n"), 0o644))
	ok("plan")

	// callTool runs itr-mcp's server on a session of JSON-RPC lines, as an
	// MCP client speaks it, and returns the tool's result.
	callTool := func(name string, args map[string]any) (isError bool, text string) {
		t.Helper()
		call, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
			"params": map[string]any{"name": name, "arguments": args}})
		require.NoError(t, err)
		session := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + string(call) + "\n"
		var out, errb bytes.Buffer
		code := mcpcmd.Main([]string{"-C", dir}, strings.NewReader(session), &out, &errb, func(string) string { return "" }, "test")
		require.Equal(t, 0, code, errb.String())
		for _, line := range strings.Split(out.String(), "\n") {
			var resp struct {
				ID     int `json:"id"`
				Result struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
			}
			if json.Unmarshal([]byte(line), &resp) == nil && resp.ID == 2 {
				require.NotEmpty(t, resp.Result.Content, line)
				return resp.Result.IsError, resp.Result.Content[0].Text
			}
		}
		t.Fatalf("no answer to tools/call in %s", out.String())
		return false, ""
	}

	type request struct {
		name string
		cli  []string
		tool string
		args map[string]any
		code reconcile.Code // "" for a FieldError
	}
	same := func(r request) {
		t.Helper()
		head := git("rev-parse", "HEAD")
		stderr, cliErr := cli(r.cli...)
		require.Error(t, cliErr, r.name)
		isError, mcpText := callTool(r.tool, r.args)
		t.Logf("%s\n  CLI: %s  MCP: %s", r.name, stderr, mcpText)
		require.True(t, isError, "%s: MCP accepted it: %s", r.name, mcpText)

		var ref *reconcile.Refusal
		var fe *workspace.FieldError
		switch {
		case r.code != "":
			require.True(t, errors.As(cliErr, &ref), "%s: %v", r.name, cliErr)
			assert.Equal(t, r.code, ref.Code, r.name)
		default:
			require.True(t, errors.As(cliErr, &fe), "%s: %v", r.name, cliErr)
		}
		// Each front end words the one refusal its own way.
		assert.Equal(t, "itr: "+cliMessage(cliErr)+"\n", stderr, r.name)
		assert.Equal(t, mcpserver.Worded(cliErr).Error(), mcpText, r.name)
		assert.NotContains(t, mcpText, "--", "%s: MCP names no flag", r.name)
		// Nothing changed.
		assert.Equal(t, head, git("rev-parse", "HEAD"), r.name)
		assert.Empty(t, git("status", "--porcelain"), r.name)
	}

	same(request{"unknown unit", []string{"checkpoint", "T9", "--did", "x"}, "checkpoint", map[string]any{"unit": "T9", "did": "x"}, reconcile.UnknownUnit})
	same(request{"missing did", []string{"checkpoint", "T1", "--did", " "}, "checkpoint", map[string]any{"unit": "T1", "did": " "}, ""})
	same(request{"an item the plan does not give", []string{"checkpoint", "T1", "--did", "x", "--item", "4"}, "checkpoint", map[string]any{"unit": "T1", "did": "x", "items": "4"}, reconcile.UnknownItem})
	same(request{"an item state when the plan declares none", []string{"checkpoint", "T1", "--did", "x", "--item", "2=finished"}, "checkpoint", map[string]any{"unit": "T1", "did": "x", "items": "2=finished"}, ""})
	same(request{"an item that does not read", []string{"checkpoint", "T1", "--did", "x", "--item", "2=fin.ished"}, "checkpoint", map[string]any{"unit": "T1", "did": "x", "items": "2=fin.ished"}, ""})
	same(request{"waits for a dependency", []string{"checkpoint", "T2", "--did", "x"}, "checkpoint", map[string]any{"unit": "T2", "did": "x"}, reconcile.WaitsFor})
	same(request{"block without a reason", []string{"block", "T1", "--reason", " "}, "block", map[string]any{"unit": "T1", "reason": " "}, ""})
	same(request{"reopen a pending unit", []string{"reopen", "T1", "--reason", "x"}, "reopen", map[string]any{"unit": "T1", "reason": "x"}, reconcile.NotDone})
	same(request{"reopen an unknown unit", []string{"reopen", "T9", "--reason", "x"}, "reopen", map[string]any{"unit": "T9", "reason": "x"}, reconcile.UnknownUnit})
	same(request{"decide without a title", []string{"decide", "--title", " ", "--choice", "c", "--why", "w"}, "decide", map[string]any{"title": " ", "choice": "c", "why": "w"}, ""})
	same(request{"decide with an escape", []string{"decide", "--title", "t", "--choice", "\x1b[2J", "--why", "w"}, "decide", map[string]any{"title": "t", "choice": "\x1b[2J", "why": "w"}, ""})
	same(request{"decide in an unknown unit", []string{"decide", "--title", "t", "--choice", "c", "--why", "w", "--unit", "T9"}, "decide", map[string]any{"title": "t", "choice": "c", "why": "w", "unit": "T9"}, ""})
	same(request{"summarize without did", []string{"summarize", "--did", ""}, "summarize", map[string]any{"did": ""}, ""})

	ok("checkpoint", "T1", "--did", "work", "--signal")
	same(request{"reopen a confirming unit", []string{"reopen", "T1", "--reason", "x"}, "reopen", map[string]any{"unit": "T1", "reason": "x"}, reconcile.NotDone})
	ok("checkpoint", "T1", "--did", "confirmed", "--signal")
	same(request{"reopen a verifying unit", []string{"reopen", "T1", "--reason", "x"}, "reopen", map[string]any{"unit": "T1", "reason": "x"}, reconcile.NotDone})
	same(request{"a signal in verifying", []string{"checkpoint", "T1", "--did", "x", "--signal"}, "checkpoint", map[string]any{"unit": "T1", "did": "x", "done": true}, reconcile.NeedsVerdict})
	ok("checkpoint", "T1", "--did", "verified", "--verified-by", "review")
	same(request{"a finished unit", []string{"checkpoint", "T1", "--did", "x"}, "checkpoint", map[string]any{"unit": "T1", "did": "x"}, reconcile.UnitDone})
	same(request{"block a finished unit", []string{"block", "T1", "--reason", "x"}, "block", map[string]any{"unit": "T1", "reason": "x"}, reconcile.BadMove})
	same(request{"reopen without a reason", []string{"reopen", "T1", "--reason", " "}, "reopen", map[string]any{"unit": "T1", "reason": " "}, ""})
	same(request{"reopen with NUL in the reason", []string{"reopen", "T1", "--reason", "a\x00b"}, "reopen", map[string]any{"unit": "T1", "reason": "a\x00b"}, ""})

	ok("checkpoint", "T4", "--did", "outlined the notes")
	same(request{"an output that is missing", []string{"checkpoint", "T4", "--did", "x", "--signal"}, "finish", map[string]any{"unit": "T4", "evidence": "x"}, reconcile.OutputBad})
	ok("block", "T4", "--reason", "waiting for the notes")

	ok("block", "T3", "--reason", "waiting for keys")
	same(request{"a blocked unit", []string{"checkpoint", "T3", "--did", "x"}, "checkpoint", map[string]any{"unit": "T3", "did": "x"}, reconcile.UnitBlocked})
	same(request{"block twice", []string{"block", "T3", "--reason", "y"}, "block", map[string]any{"unit": "T3", "reason": "y"}, reconcile.AlreadyBlocked})
	ok("block", "T2", "--reason", "waiting for review")
	same(request{"nothing ready", []string{"checkpoint", "--did", "x"}, "checkpoint", map[string]any{"did": "x"}, reconcile.NoneReady})
}
