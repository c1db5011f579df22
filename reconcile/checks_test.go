package reconcile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

func TestCheckFieldsRoundTrip(t *testing.T) {
	checks := []CheckRun{
		{Name: "words", Result: state.CheckResult{Command: "wc -w outputs/memo.md", Outcome: state.CheckPassed, ExitCode: state.Ptr(0), Target: ">= 800", Actual: "812",
			DurationMS: 12, Started: "2026-01-18T10:00:00Z", Commit: "1a2b3c4", Tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904", Inputs: "0123456789abcdef", Iteration: 3, Log: "runs/M1-3-words.log"}},
		{Name: "footer", Result: state.CheckResult{Command: "sh `footer`.sh", Outcome: state.CheckError, ExitCode: state.Ptr(2), DurationMS: 3, Iteration: 3}},
		{Name: "hang", Result: state.CheckResult{Command: "sleep 99", Outcome: state.CheckError, DurationMS: 1000, Iteration: 3}, Why: "timeout"},
		{Name: "short", Result: state.CheckResult{Command: "wc -w a.md", Outcome: state.CheckFailed, ExitCode: state.Ptr(0), Target: "= 5", Iteration: 3}},
		{Name: "again", Skipped: true, Result: state.CheckResult{Command: "true", Outcome: state.CheckPassed, Commit: "9f8e7d6", Iteration: 2}},
	}
	e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "M1", Iteration: 3, Stamp: "2026-01-18T10:00:00Z",
		Fields: append([]progresslog.Field{{Name: "Did", Value: "checked"}}, CheckFields(checks)...)}
	data, err := progresslog.Append(nil, e)
	require.NoError(t, err)
	assert.Contains(t, string(data), "**Check words:** `wc -w outputs/memo.md` passed: exit 0 after 12ms; started 2026-01-18T10:00:00Z at 1a2b3c4; actual 812 (target >= 800); tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904; inputs 0123456789abcdef; output runs/M1-3-words.log\n")
	assert.Contains(t, string(data), "**Check hang:** `sleep 99` error: timeout after 1s\n")
	assert.Contains(t, string(data), "**Check again:** `true` not run: passed on this tree at 9f8e7d6 (iteration 2)\n")
	l := progresslog.Parse(data)
	require.Len(t, l.Entries, 1)
	got := ChecksOf(l.Entries[0])
	// "actual none" is written for a target with no number.
	checks[3].Result.Actual = ""
	assert.Equal(t, checks, got)
}

func TestChecksOfHandEdits(t *testing.T) {
	e := iter("M1", 2, "Check words", "`wc -w m.md` looked fine; output ../../etc/passwd; tree not-a-hash",
		"Check 9bad", "`x` passed: exit 0 after 1ms", "Checks", "not a check")
	got := ChecksOf(e)
	require.Len(t, got, 1)
	assert.Equal(t, state.CheckFailed, got[0].Result.Outcome, "an outcome itr cannot read is never passed")
	assert.Empty(t, got[0].Result.Log)
	assert.Empty(t, got[0].Result.Tree)
}

func TestChecksHoldAndPass(t *testing.T) {
	passed := CheckRun{Name: "a", Result: state.CheckResult{Outcome: state.CheckPassed}}
	failed := CheckRun{Name: "b", Result: state.CheckResult{Outcome: state.CheckFailed}}
	broke := CheckRun{Name: "c", Result: state.CheckResult{Outcome: state.CheckError}}
	skipped := CheckRun{Name: "d", Skipped: true}
	for _, tt := range []struct {
		checks       []CheckRun
		hold, passes bool
	}{
		{nil, false, false},
		{[]CheckRun{passed, skipped}, false, true},
		{[]CheckRun{skipped}, false, true},
		{[]CheckRun{passed, broke}, true, false},
		{[]CheckRun{broke, failed}, false, false},
		{[]CheckRun{failed}, false, false},
	} {
		assert.Equal(t, tt.hold, ChecksHold(tt.checks), "%v", tt.checks)
		assert.Equal(t, tt.passes, ChecksPassed(tt.checks), "%v", tt.checks)
	}
}

// A broken check holds the unit at its gate; a failed one sends it back;
// the checks and the gate rounds fold from the entries, a check not run
// again keeping its result.
func TestChecksFold(t *testing.T) {
	sc := newScenario(t, "## Tasks\n- [ ] **T1**: x\n  - Check words: wc -w m.md (target >= 3)\n  - Check footer: sh footer.sh\n  - Max iterations: 20\n")
	pass := func(name string, n int) []string {
		return []string{"Check " + name, "`cmd " + name + "` passed: exit 0 after 1ms; started 2026-01-14T10:00:00Z at 1a2b3c4; tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904"}
	}
	sc.must(iter("T1", 1, "Signal", "T1_DONE"))
	require.Equal(t, state.Confirming, sc.unit("T1").Status)
	// Confirming: footer broke (exit 2): held, a confirm round counted.
	sc.must(iter("T1", 2, append(pass("words", 2), "Check footer", "`sh footer.sh` error: exit 2 after 2ms")...))
	u := sc.unit("T1")
	assert.Equal(t, state.Confirming, u.Status)
	assert.Equal(t, state.CheckError, u.Checks["footer"].Outcome)
	assert.Equal(t, &state.GateRounds{Confirm: 1}, u.GateRounds)
	// Words passed on this tree: not run again; footer passes: verifying.
	sc.must(iter("T1", 3, append([]string{"Signal", "T1_DONE", "Check words", "`cmd words` not run: passed on this tree at 1a2b3c4 (iteration 2)"}, pass("footer", 3)...)...))
	u = sc.unit("T1")
	assert.Equal(t, state.Verifying, u.Status)
	assert.Equal(t, 1, u.Checks["words"].Runs)
	assert.Equal(t, 2, u.Checks["words"].Iteration)
	assert.Equal(t, 2, u.Checks["footer"].Runs)
	// Verifying: footer broke: no verdict, held.
	sc.must(iter("T1", 4, "Check footer", "`sh footer.sh` error: killed after 5ms"))
	assert.Equal(t, state.Verifying, sc.unit("T1").Status)
	// A failed check sends it back, as a failed verification does.
	sc.must(iter("T1", 5, "Verification", "failed", "Check words", "`cmd words` failed: exit 1 after 1ms"))
	u = sc.unit("T1")
	assert.Equal(t, state.InProgress, u.Status)
	assert.Equal(t, &state.GateRounds{Confirm: 2, Verify: 2}, u.GateRounds)
	assert.Equal(t, 2, u.Checks["words"].Runs)

	folded, problems := Fold(Input{Slug: "user-auth", Plan: sc.p, Entries: sc.entries})
	assert.Empty(t, problems)
	assert.Empty(t, Diff(sc.s, folded, sc.p))
}

// Decide: a broken check holds the unit (no signal, no verdict), a failed
// one takes the signal back, checks that passed before are evidence.
func TestDecideWithChecks(t *testing.T) {
	p := mustPlan(t, "## Tasks\n- [ ] **T1**: x\n  - Check words: wc -w m.md\n")
	s := Seed(nil, "x", p)
	s.Units["T1"].Status, s.Units["T1"].IterationsUsed = state.Verifying, state.Ptr(3)
	broke := []CheckRun{{Name: "words", Result: state.CheckResult{Outcome: state.CheckError}}}
	ev, err := Decide(s, p, Intent{Action: Work, Unit: "T1", Verified: true, Checks: broke, Run: &state.Run{Outcome: state.RunError}})
	require.NoError(t, err)
	assert.Equal(t, "", ev.Verification)
	failed := []CheckRun{{Name: "words", Result: state.CheckResult{Outcome: state.CheckFailed}}}
	ev, err = Decide(s, p, Intent{Action: Work, Unit: "T1", Verified: true, Checks: failed, Run: &state.Run{Outcome: state.RunFailed}})
	require.NoError(t, err)
	assert.Equal(t, "failed", ev.Verification)
	skipped := []CheckRun{{Name: "words", Skipped: true, Result: state.CheckResult{Outcome: state.CheckPassed}}}
	ev, err = Decide(s, p, Intent{Action: Work, Unit: "T1", Verified: true, Checks: skipped})
	require.NoError(t, err, "checks that passed on this tree are evidence")
	assert.Equal(t, "passed", ev.Verification)
}

// FuzzChecksOf: any **Check NAME:** field reads without a panic, never as
// passed unless it says so, with a log that stays in runs/.
func FuzzChecksOf(f *testing.F) {
	f.Add("words", "`wc -w m.md` passed: exit 0 after 12ms; started 2026-01-18T10:00:00Z at 1a2b3c4; actual 812 (target >= 800); tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904; inputs 0123456789abcdef; output runs/M1-3-words.log")
	f.Add("footer", "`sh footer.sh` error: exit 2 after 2ms")
	f.Add("x", "`true` not run: passed on this tree at 1a2b3c4 (iteration 2)")
	f.Add("y", "error: killed by signal after; output runs/../x; actual (target")
	f.Fuzz(func(t *testing.T, name, value string) {
		e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 1, Fields: []progresslog.Field{{Name: FieldCheck + " " + name, Value: value}}}
		for _, c := range ChecksOf(e) {
			r := c.Result
			if r.Log != "" && !safeRunLog(r.Log) {
				t.Fatalf("log %q escapes runs/", r.Log)
			}
			if !c.Skipped && r.Outcome == state.CheckPassed && !strings.Contains(value, "passed") {
				t.Fatalf("%q read as passed", value)
			}
		}
	})
}
