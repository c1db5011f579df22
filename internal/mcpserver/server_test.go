package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace"
)

// toolsListLimit is the size check of every tool definition together (the
// JSON of tools/list's "tools"). The budget of issue #7 is 1,500 tokens,
// 6,000 bytes at 4 characters a token. The six tools of issue #7 were held
// to 4,800 bytes (the budget at 3.2 characters a token, nearer what JSON
// full of punctuation runs); issue #19's orchestrator tools (decide,
// summarize, block's as/kind/clear_when, items, resume's unit and ready)
// take the definitions to the budget by the usual count, and no further.
const toolsListLimit = 6000

const tasksMD = testrepo.ModelUseDocs

// isolate points git's config at empty folders and sets an identity.
func isolate(t *testing.T) { testgit.Isolate(t) }

// git runs the real git in dir and returns its stdout.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testgit.Out(t, dir, args...)
}

// checkGit asserts what every itr command leaves: git fsck --strict clean
// and git status --porcelain empty.
func checkGit(t *testing.T, dir string) {
	t.Helper()
	testgit.Check(t, dir)
}

// verifyClean requires itr verify of the task "demo" in dir to find
// nothing: what the CLI sees agrees with what the tools wrote.
func verifyClean(t *testing.T, dir string) {
	t.Helper()
	ws, err := workspace.Open(workspace.Options{Dir: dir})
	require.NoError(t, err)
	defer ws.Close()
	rep, err := ws.Verify("demo")
	require.NoError(t, err)
	assert.Empty(t, rep.Findings)
}

// newTask makes a repository with the real git and a task "demo" planned
// with the workspace code, as `itr init` and `itr plan` do.
func newTask(t *testing.T) string {
	t.Helper()
	isolate(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	ws, err := workspace.Open(workspace.Options{Dir: dir})
	require.NoError(t, err)
	defer ws.Close()
	_, err = ws.Init(workspace.InitRequest{Name: "Demo", Slug: "demo"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude/iterative/demo/tasks.md"), []byte(tasksMD), 0o644))
	_, err = ws.Plan(workspace.PlanRequest{Slug: "demo"})
	require.NoError(t, err)
	checkGit(t, dir)
	return dir
}

// connect serves New over the SDK's in-memory transports and returns the
// client's session.
func connect(t *testing.T, dir string) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, func() (*workspace.Workspace, error) { return workspace.Open(workspace.Options{Dir: dir}) })
}

// connectWith serves New with open over the SDK's in-memory transports
// and returns the client's session, closed when the test ends.
func connectWith(t *testing.T, open func() (*workspace.Workspace, error)) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(open, "test").Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// call calls a tool and returns its result; a protocol error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s: a protocol error", name)
	return res
}

// text is the text content of a result.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok calls a tool that must succeed and decodes its structured output.
func ok[T any](t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (T, string) {
	t.Helper()
	res := call(t, cs, name, args)
	require.False(t, res.IsError, "%s: %s", name, text(res))
	var out T
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &out), "%s", data)
	return out, text(res)
}

// fails calls a tool that must fail as a tool result (never a protocol
// error), change nothing in the repository, and say want.
func fails(t *testing.T, cs *mcp.ClientSession, dir, name string, args map[string]any, want string) {
	t.Helper()
	head := git(t, dir, "rev-parse", "HEAD")
	res := call(t, cs, name, args)
	require.True(t, res.IsError, "%s succeeded: %s", name, text(res))
	assert.Contains(t, text(res), want)
	assert.Equal(t, head, git(t, dir, "rev-parse", "HEAD"), "%s changed HEAD", name)
	checkGit(t, dir)
}

func TestToolsListSize(t *testing.T) {
	cs := connect(t, t.TempDir())
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		assert.NotEmpty(t, tool.Description, tool.Name)
		assert.NotNil(t, tool.OutputSchema, "%s has typed output", tool.Name)
	}
	slices.Sort(names)
	assert.Equal(t, []string{"block", "checkpoint", "decide", "finish", "reopen", "resume", "start", "summarize"}, names)
	assert.LessOrEqual(t, len(res.Tools), 8)
	data, err := json.Marshal(res.Tools)
	require.NoError(t, err)
	t.Logf("tools/list: %d tools, %d bytes, about %d tokens", len(res.Tools), len(data), len(data)/4)
	assert.LessOrEqual(t, len(data), toolsListLimit, "the tool definitions outgrew the token budget of issue #7")
}

func TestToolsEndToEnd(t *testing.T) {
	dir := newTask(t)
	cs := connect(t, dir)

	p, md := ok[ResumeOutput](t, cs, "resume", nil)
	assert.Equal(t, "demo", p.Task)
	assert.Equal(t, "T1", p.Next)
	assert.Contains(t, md, "# itr: resuming task `demo`")
	assert.Contains(t, md, "Through MCP:")

	u, _ := ok[UnitInfo](t, cs, "start", nil)
	assert.Equal(t, UnitInfo{Task: "demo", Unit: "T1", Title: "Add the model", Status: "pending", MaxIterations: 5,
		Next: u.Next, ClaimedUntil: u.ClaimedUntil}, u)
	assert.NotEmpty(t, u.ClaimedUntil, "start claims the unit it hands out")
	assert.Contains(t, git(t, dir, "for-each-ref", "--format=%(refname)", "refs/itr/claims/"), "refs/itr/claims/demo/T1")
	assert.Contains(t, u.Next, "first checkpoint makes it in_progress")
	assert.Equal(t, "3", strings.TrimSpace(git(t, dir, "rev-list", "--count", "HEAD")), "start writes nothing")

	// A work commit, named by the first checkpoint.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.go"), []byte("package app\n"), 0o644))
	git(t, dir, "add", "model.go")
	git(t, dir, "commit", "-q", "-m", "add the model")

	st, _ := ok[Step](t, cs, "checkpoint", map[string]any{"did": "Added the model", "remaining": "tests"})
	assert.Equal(t, Step{Task: "demo", Unit: "T1", Iteration: 1, From: "pending", Status: "in_progress", Commit: st.Commit, Next: st.Next}, st)
	assert.Equal(t, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")), st.Commit)
	checkGit(t, dir)

	st, _ = ok[Step](t, cs, "finish", map[string]any{"evidence": "go test ./... passes"})
	assert.Equal(t, []string{"in_progress", "confirming"}, []string{st.From, st.Status})
	assert.Contains(t, st.Next, "call finish again")
	st, _ = ok[Step](t, cs, "finish", map[string]any{"evidence": "re-ran the tests: still pass"})
	assert.Equal(t, []string{"confirming", "verifying"}, []string{st.From, st.Status})
	// A failed verification sends it back, then the gates again.
	// A check that does not pass is recorded and sends it back too.
	st, _ = ok[Step](t, cs, "finish", map[string]any{"evidence": "review", "verify": []string{"sh", "-c", "echo a nil check is missing; exit 1"}})
	assert.Equal(t, []string{"verifying", "in_progress"}, []string{st.From, st.Status})
	assert.Contains(t, st.Check, "failed: exit 1")
	assert.Contains(t, st.Check, "a nil check is missing")
	assert.Contains(t, st.Next, "the check did not pass")
	for _, want := range []string{"confirming", "verifying", "done"} {
		st, _ = ok[Step](t, cs, "finish", map[string]any{"unit": "T1", "evidence": "fixed; tests and review pass", "verify": []string{"test", "-f", "model.go"}})
		assert.Equal(t, want, st.Status)
		assert.Contains(t, st.Check, "test -f model.go passed: exit 0")
	}
	assert.Contains(t, git(t, dir, "show", "HEAD:.claude/iterative/demo/state.json"), `"command": "test -f model.go"`)
	assert.Equal(t, 7, st.Iteration)
	assert.Contains(t, st.Next, "the next unit is T2")
	checkGit(t, dir)

	u, _ = ok[UnitInfo](t, cs, "start", nil)
	assert.Equal(t, "T2", u.Unit)
	assert.Equal(t, []string{"T1"}, u.Depends)

	st, _ = ok[Step](t, cs, "block", map[string]any{"unit": "T3", "reason": "waiting on the API"})
	assert.Equal(t, Step{Task: "demo", Unit: "T3", From: "pending", Status: "blocked", Commit: st.Commit, Next: st.Next}, st)

	// git sees one commit per event, with itr's trailers.
	subjects := strings.Split(strings.TrimSpace(git(t, dir, "log", "--format=%s")), "\n")
	assert.Equal(t, "itr(demo): block T3: waiting on the API", subjects[0])
	assert.Len(t, subjects, 12) // initial commit, init, plan, the work, 7 iterations, block
	body := git(t, dir, "log", "-1", "--skip=1", "--format=%B")
	for _, trailer := range []string{"Itr-Task: demo", "Itr-Event: iteration", "Itr-Unit: T1", "Itr-Iteration: 7", "Itr-Status: done"} {
		assert.Contains(t, body, trailer+"\n")
	}
	progress, err := os.ReadFile(filepath.Join(dir, ".claude/iterative/demo/progress.md"))
	require.NoError(t, err)
	assert.Contains(t, string(progress), "**Did:** Added the model")
	assert.Regexp(t, `\*\*Commit:\*\* [0-9a-f]{7}: add the model`, string(progress))
	assert.Contains(t, string(progress), "**Signal:** T1_DONE")
	assert.Contains(t, string(progress), "**Verification:** failed")
	checkGit(t, dir)

	// What the CLI sees agrees: the state is the fold of the log.
	verifyClean(t, dir)

	// A done unit found wrong reopens, keeping its iterations and its
	// limit: T1 used 7 of 5, so it comes back timed out. A started unit
	// that depends on it is named, never changed.
	ok[Step](t, cs, "checkpoint", map[string]any{"unit": "T2", "did": "the service"})
	ro, _ := ok[Reopened](t, cs, "reopen", map[string]any{"unit": "T1", "reason": "the model drops emails"})
	assert.Equal(t, Reopened{Unit: "T1", Status: "timeout", Commit: strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")), Next: ro.Next}, ro)
	assert.Contains(t, ro.Next, "T1 used all its iterations: raise its Max iterations in the plan")
	assert.Contains(t, ro.Next, "started units that depend on T1, left as they are: T2 (in_progress)")
	assert.Equal(t, "itr(demo): reopen T1: the model drops emails", strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s")))
	fails(t, cs, dir, "start", map[string]any{"unit": "T1"}, "unit T1 used all 5 iterations")
	checkGit(t, dir)
	verifyClean(t, dir)
}

func TestToolErrors(t *testing.T) {
	dir := newTask(t)
	cs := connect(t, dir)

	fails(t, cs, dir, "checkpoint", map[string]any{"unit": "T9", "did": "x"}, "unit T9 is not in the task (units: T1, T2, T3)")
	fails(t, cs, dir, "start", map[string]any{"unit": "T9"}, "unit T9 is not in the task (units: T1, T2, T3)")
	fails(t, cs, dir, "finish", map[string]any{"unit": "T9", "evidence": "x"}, "unit T9 is not in the task")
	fails(t, cs, dir, "block", map[string]any{"unit": "T9", "reason": "x"}, "unit T9 is not in the task")
	// Missing and empty required fields.
	fails(t, cs, dir, "checkpoint", map[string]any{}, "did")
	// The same refusal as the CLI's (workspace.FieldError), worded with
	// the parameter's name where the CLI names its flag (--did).
	fails(t, cs, dir, "checkpoint", map[string]any{"did": " "}, "did is required: say what this iteration did")
	fails(t, cs, dir, "block", map[string]any{"unit": "T1", "reason": " "}, "reason is required: say what the unit waits for")
	fails(t, cs, dir, "finish", map[string]any{"evidence": ""}, "evidence is required")
	fails(t, cs, dir, "block", map[string]any{"unit": "T1"}, "reason")
	// Dependencies and the lifecycle.
	fails(t, cs, dir, "start", map[string]any{"unit": "T2"}, "unit T2 cannot start: it depends on T1 (pending)")
	fails(t, cs, dir, "checkpoint", map[string]any{"unit": "T2", "did": "too early"}, "unit T2 cannot start: it depends on T1 (pending)")
	fails(t, cs, dir, "finish", map[string]any{"evidence": "x"}, "unit T1 is pending: start it with a checkpoint first")
	fails(t, cs, dir, "resume", map[string]any{"task": "nope"}, `"nope"`)

	ok[Step](t, cs, "checkpoint", map[string]any{"did": "started"})
	fails(t, cs, dir, "finish", map[string]any{"evidence": "x", "passed": false}, "passed=false applies only in confirming or verifying")
	fails(t, cs, dir, "reopen", map[string]any{"unit": "T1", "reason": "x"}, "unit T1 is in_progress, not done: only a done, failed or skipped unit can be reopened")
	ok[Step](t, cs, "finish", map[string]any{"evidence": "done"})
	fails(t, cs, dir, "reopen", map[string]any{"unit": "T1", "reason": "x"}, "unit T1 is confirming, not done: it is still open, so there is nothing to reopen; call finish with passed=false to send it back to in_progress")
	ok[Step](t, cs, "finish", map[string]any{"evidence": "holds"})
	fails(t, cs, dir, "checkpoint", map[string]any{"did": "x", "done": true}, "unit T1 is verifying")
	fails(t, cs, dir, "finish", map[string]any{"evidence": "reviewed"}, "unit T1 cannot be verified on a claim")
	fails(t, cs, dir, "finish", map[string]any{"evidence": "reviewed", "verify": []string{}}, "unit T1 names no check to run")
	fails(t, cs, dir, "finish", map[string]any{"evidence": "reviewed", "verify": []string{"sh", "-c", "exit 0"}, "verified_by": "Ana\x00"}, "verified_by holds a NUL byte")
	ok[Step](t, cs, "finish", map[string]any{"evidence": "reviewed", "verified_by": "Ana (code review)"})
	assert.Contains(t, git(t, dir, "show", "HEAD:.claude/iterative/demo/progress.md"), "**Verified by:** Ana (code review)")
	fails(t, cs, dir, "finish", map[string]any{"unit": "T1", "evidence": "again"}, "unit T1 is done: do not repeat it")
	fails(t, cs, dir, "start", map[string]any{"unit": "T1"}, "unit T1 is done: do not repeat it")
	fails(t, cs, dir, "reopen", map[string]any{"unit": "T9", "reason": "x"}, "unit T9 is not in the task (units: T1, T2, T3)")
	fails(t, cs, dir, "reopen", map[string]any{"unit": "T1", "reason": " "}, "reason is required: say what was found wrong with the unit")
	fails(t, cs, dir, "reopen", map[string]any{"unit": "T1", "reason": "a\x00b"}, "reason holds a NUL byte")

	ok[Step](t, cs, "block", map[string]any{"unit": "T2", "reason": "waiting"})
	fails(t, cs, dir, "block", map[string]any{"unit": "T2", "reason": "again"}, "T2")
	fails(t, cs, dir, "start", map[string]any{"unit": "T2"}, "unit T2 is blocked (waiting)")
	fails(t, cs, dir, "finish", map[string]any{"unit": "T2", "evidence": "x"}, "unit T2 is blocked")
}

func TestResumeWithoutTask(t *testing.T) {
	isolate(t)
	notRepo := t.TempDir()
	_, md := ok[ResumeOutput](t, connect(t, notRepo), "resume", nil)
	assert.Contains(t, md, "There is no itr task here")

	repo := t.TempDir()
	git(t, repo, "init", "-q")
	cs := connect(t, repo)
	p, md := ok[ResumeOutput](t, cs, "resume", nil)
	assert.Contains(t, md, "There is no itr task here")
	assert.Equal(t, md, p.Markdown)
	// The tools that need a task say how to get one.
	res := call(t, cs, "start", nil)
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "itr init")
}

func TestResumeSeveralTasks(t *testing.T) {
	dir := newTask(t)
	ws, err := workspace.Open(workspace.Options{Dir: dir})
	require.NoError(t, err)
	_, err = ws.Init(workspace.InitRequest{Name: "Other", Slug: "other"})
	require.NoError(t, err)
	ws.Close()
	cs := connect(t, dir)
	p, md := ok[ResumeOutput](t, cs, "resume", nil)
	assert.Len(t, p.Tasks, 2)
	assert.NotContains(t, md, "Through MCP:")
	p, _ = ok[ResumeOutput](t, cs, "resume", map[string]any{"task": "other"})
	assert.Equal(t, "other", p.Task)
	// Without a task the writing tools refuse, naming the choice.
	fails(t, cs, dir, "checkpoint", map[string]any{"did": "x"}, "--task")
	u, _ := ok[UnitInfo](t, cs, "start", map[string]any{"task": "demo"})
	assert.Equal(t, "T1", u.Unit)
}

// TestServeAnswersBeforeTheEnd writes every request at once and closes the
// input: each is answered before Serve returns.
func TestServeAnswersBeforeTheEnd(t *testing.T) {
	dir := newTask(t)
	open := func() (*workspace.Workspace, error) { return workspace.Open(workspace.Options{Dir: dir}) }
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3.0,"method":"tools/call","params":{"name":"checkpoint","arguments":{"did":"one"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"resume","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`,
	}, "\n") + "\n"
	var out strings.Builder
	require.NoError(t, Serve(context.Background(), New(open, "test"), strings.NewReader(in), &out))
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     any             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		ids[fmt.Sprint(m.ID)] = true
		if m.ID == float64(5) {
			assert.NotEmpty(t, m.Error, "an unknown method is a protocol error")
		} else {
			assert.NotEmpty(t, m.Result, line)
		}
	}
	assert.Equal(t, map[string]bool{"1": true, "list": true, "3": true, "4": true, "5": true}, ids)
	assert.Contains(t, git(t, dir, "log", "-1", "--format=%s"), "T1 iteration 1: one")
	checkGit(t, dir)

	// A line that is not JSON gets a parse error and the session goes on:
	// the request after it is answered.
	out.Reset()
	in = "{not json\n" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	require.NoError(t, Serve(context.Background(), New(open, "test"), strings.NewReader(in), &out))
	assert.Contains(t, out.String(), `"code":-32700`)
	assert.Contains(t, out.String(), `"id":1,"result":{`)
}

// TestArchivedTask: resume reads an archived task by slug and offers no
// tool; the writing tools refuse, changing nothing.
func TestArchivedTask(t *testing.T) {
	dir := newTask(t)
	ws, err := workspace.Open(workspace.Options{Dir: dir})
	require.NoError(t, err)
	_, err = ws.Archive(workspace.ArchiveRequest{Slug: "demo", Force: true, Reason: "dropped"})
	require.NoError(t, err)
	ws.Close()
	cs := connect(t, dir)

	_, md := ok[ResumeOutput](t, cs, "resume", nil)
	assert.Contains(t, md, "There is no itr task here")
	p, md := ok[ResumeOutput](t, cs, "resume", map[string]any{"task": "demo"})
	assert.NotEmpty(t, p.Archive)
	assert.Contains(t, md, "itr restore demo")
	assert.NotContains(t, md, "Through MCP:")
	fails(t, cs, dir, "start", map[string]any{"task": "demo"}, "demo")
	fails(t, cs, dir, "checkpoint", map[string]any{"task": "demo", "did": "x"}, "demo")
	fails(t, cs, dir, "finish", map[string]any{"task": "demo", "unit": "T1", "evidence": "x"}, "demo")
}

// TestStartSkipsUnitsOthersHold: start hands out a unit no other agent
// holds and claims it for the server's agent (ITR_AGENT); a unit named
// that another agent holds is refused with the holder's name, and resume's
// Markdown shows who holds what.
func TestStartSkipsUnitsOthersHold(t *testing.T) {
	dir := newTask(t)
	other, err := workspace.Open(workspace.Options{Dir: dir, Agent: "bob"})
	require.NoError(t, err)
	_, err = other.Claim(workspace.ClaimRequest{Slug: "demo", Unit: "T1"})
	require.NoError(t, err)
	other.Close()

	t.Setenv("ITR_AGENT", "alice")
	cs := connectWith(t, func() (*workspace.Workspace, error) {
		return workspace.Open(workspace.Options{Dir: dir, Agent: os.Getenv("ITR_AGENT")})
	})

	u, _ := ok[UnitInfo](t, cs, "start", nil)
	assert.Equal(t, "T3", u.Unit, "T1 is bob's and T2 waits for T1")
	assert.NotEmpty(t, u.ClaimedUntil)
	blob := git(t, dir, "cat-file", "blob", "refs/itr/claims/demo/T3")
	assert.Contains(t, blob, `"agent":"alice"`)

	fails(t, cs, dir, "start", map[string]any{"unit": "T1"}, "unit T1 is held by bob until")

	_, md := ok[ResumeOutput](t, cs, "resume", nil)
	assert.Contains(t, md, "You act as agent “alice”. You hold: T3 until")
	assert.Contains(t, md, "Held by other agents (leave these to them): T1 by “bob” until")
}
