package reconcile

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// roundTrip writes a run into an entry, appends it to a log, parses the
// log back and reads the run.
func roundTrip(t testing.TB, r state.Run) *state.Run {
	t.Helper()
	e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: r.Iteration, Stamp: "2026-11-26T14:00:00Z",
		Fields: append([]progresslog.Field{{Name: "Did", Value: "ran it"}}, RunFields(r)...)}
	data, err := progresslog.Append(nil, e)
	require.NoError(t, err)
	l := progresslog.Parse(data)
	require.Len(t, l.Entries, 1, "%s", data)
	return RunOf(l.Entries[0])
}

func TestRunFieldsRoundTrip(t *testing.T) {
	for _, r := range []state.Run{
		{Command: "go test ./auth/...", Outcome: state.RunPassed, ExitCode: state.Ptr(0), DurationMS: 2410,
			Started: "2026-11-26T14:00:00Z", Commit: "1a2b3c4", Clean: state.Ptr(true), Iteration: 3,
			Log: "runs/T1-3.log", Tail: "ok  \tgithub.com/x/auth\t0.01s"},
		{Command: "sh -c 'exit 3'", Outcome: state.RunFailed, ExitCode: state.Ptr(3), DurationMS: 12, Iteration: 2, Clean: state.Ptr(false),
			Tail: "--- FAIL: TestLogin\n**Did:** not a field\n## T9 - Iteration 1 - not a heading\n```\nfenced inside\n```\n=======\n\n  indented"},
		{Command: "sleep 5", Outcome: state.RunTimeout, DurationMS: 300, Iteration: 1},
		{Command: "make `check`", Outcome: state.RunInterrupted, Iteration: 4},
		{Command: "nope", Outcome: state.RunError, DurationMS: 1, Iteration: 1, Tail: `exec: "nope": executable file not found in $PATH`},
		{Command: "go vet ./...", Outcome: state.RunPassed, ExitCode: state.Ptr(0), DurationMS: 83_400, Iteration: 9, Log: "runs/T1-9.log"},
	} {
		t.Run(r.Command, func(t *testing.T) {
			got := roundTrip(t, r)
			require.NotNil(t, got)
			assert.Equal(t, r, *got)
		})
	}
}

func TestRunOfHandEdits(t *testing.T) {
	entry := func(fields ...string) progresslog.Entry {
		e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2}
		for i := 0; i+1 < len(fields); i += 2 {
			e.Fields = append(e.Fields, progresslog.Field{Name: fields[i], Value: fields[i+1]})
		}
		return e
	}
	// No Run field: no run.
	assert.Nil(t, RunOf(entry("Did", "x")))
	// A result itr cannot read never counts as passed.
	r := RunOf(entry(FieldRun, "`go test`", FieldRunResult, "looked fine to me"))
	require.NotNil(t, r)
	assert.Equal(t, state.RunFailed, r.Outcome)
	assert.False(t, r.Passed())
	// Only the outcome is needed; the rest is read where it can be.
	r = RunOf(entry(FieldRun, "go test", FieldRunResult, "passed"))
	assert.Equal(t, &state.Run{Command: "go test", Outcome: state.RunPassed, Iteration: 2}, r)
	r = RunOf(entry(FieldRun, "x", FieldRunResult, "PASSED: exit zero after soon; started yesterday at nothex; tree maybe"))
	assert.Equal(t, &state.Run{Command: "x", Outcome: state.RunPassed, Iteration: 2}, r, "what cannot be read is left out")
	// A log outside runs/ is not followed.
	r = RunOf(entry(FieldRun, "x", FieldRunResult, "failed", FieldRunOutput, "../../../etc/passwd; the last line:\n```text\nboom\n```"))
	assert.Equal(t, "", r.Log)
	assert.Equal(t, "boom", r.Tail)
	// An interrupted run recorded by the next entry.
	f := InterruptedRunField(state.Run{Command: "go test ./...", Outcome: state.RunInterrupted, Started: "2026-11-26T14:00:00Z", Commit: "abcdef1"})
	r = InterruptedRunOf(entry(f.Name, f.Value))
	assert.Equal(t, &state.Run{Command: "go test ./...", Outcome: state.RunInterrupted, Started: "2026-11-26T14:00:00Z", Commit: "abcdef1"}, r)
}

// TestRunFold: the fold keeps the newest run of a unit, whatever became of
// its status, and a passed verification without a run records who did it.
func TestRunFold(t *testing.T) {
	p := mustPlan(t, tasksMD)
	plan3 := func(testing.TB) *plan.Plan { return p }
	s := view(t, map[string]state.Status{"T1": state.Verifying}, "T1")
	failed := &state.Run{Command: "go test", Outcome: state.RunFailed, ExitCode: state.Ptr(1)}
	ev, err := Decide(s, plan3(t), Intent{Action: Work, Verified: true, Run: failed})
	require.NoError(t, err)
	assert.Equal(t, "failed", ev.Verification)
	next, err := Step(s, plan3(t), ev)
	require.NoError(t, err)
	assert.Equal(t, state.InProgress, next.Units["T1"].Status)
	assert.Equal(t, failed, next.Units["T1"].LastRun)

	s = view(t, map[string]state.Status{"T1": state.Verifying}, "T1")
	ev, err = Decide(s, plan3(t), Intent{Action: Work, Verified: true, VerifiedBy: "Ana"})
	require.NoError(t, err)
	next, err = Step(s, plan3(t), ev)
	require.NoError(t, err)
	assert.Equal(t, state.Done, next.Units["T1"].Status)
	assert.Equal(t, "Ana", state.Val(next.Units["T1"].VerifiedBy))
	// Reopening takes the verification back, and who made it.
	next, err = Step(next, plan3(t), Event{Kind: progresslog.KindReopened, Unit: "T1", Reason: "broken"})
	require.NoError(t, err)
	assert.Nil(t, next.Units["T1"].VerifiedBy)
}

func FuzzRunOf(f *testing.F) {
	f.Add("`go test ./...`", "failed: exit 1 after 2.41s; started 2026-11-26T14:00:00Z at 1a2b3c4; tree clean", "runs/T1-3.log; the last line:\n```text\nFAIL\n```")
	f.Add("``a`b``", "passed", "none")
	f.Add("x", "timeout after 10m0s", "the last 2 lines:\n````text\n```\n````")
	f.Add("", "interrupted; started nope", "runs/../x")
	f.Fuzz(func(t *testing.T, cmd, result, output string) {
		e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 1, Fields: []progresslog.Field{
			{Name: FieldRun, Value: cmd}, {Name: FieldRunResult, Value: result}, {Name: FieldRunOutput, Value: output}}}
		r := RunOf(e)
		if r == nil {
			t.Fatal("an entry with a Run field has a run")
		}
		known := false
		for _, o := range state.RunOutcomes {
			known = known || r.Outcome == o
		}
		if !known {
			t.Fatalf("outcome %q", r.Outcome)
		}
		if r.Log != "" && !safeRunLog(r.Log) {
			t.Fatalf("log %q escapes runs/", r.Log)
		}
		if r.Outcome == state.RunPassed && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(result)), "passed") {
			t.Fatalf("%q read as passed", result)
		}
		// What itr reads, it writes back the same way (valid text only:
		// the log normalises what it stores).
		if utf8.ValidString(r.Command+r.Tail) && !strings.ContainsAny(r.Command+r.Tail, "\r\x00") && strings.TrimSpace(r.Tail) == r.Tail && strings.TrimSpace(r.Command) == r.Command {
			_ = roundTrip(t, *r) // must not fail
		}
	})
}
