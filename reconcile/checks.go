package reconcile

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// The field of an iteration entry that records one named check (a unit's
// "Check NAME:" line in the plan, or its Verify line as the check named
// verify, when it has named checks), one field a check:
//
//	**Check words:** `wc -w outputs/memo.md` passed: exit 0 after 12ms; started 2026-01-18T10:00:00Z at 1a2b3c4; actual 812 (target >= 800); tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904; inputs 0123456789abcdef; output runs/M1-2-words.log
//	**Check footer:** `sh footer.sh` error: exit 2 after 3ms; ...
//	**Check words:** `wc -w outputs/memo.md` not run: passed on this tree at 1a2b3c4 (iteration 2)
//
// The outcome is passed, failed (exit 1, or a target the number missed:
// the work does not hold) or error (exit 2 and above, a signal, a timeout,
// a command that did not start: the check itself broke). A check that
// passed on the same tree and inputs is not run again: its field says so,
// and its last result stands.
const FieldCheck = "Check"

// CheckRun is one named check an entry records.
type CheckRun struct {
	Name string
	// Result is the run; for a check not run again, the result that
	// stands (Command and Commit, Iteration as far as the entry says).
	Result state.CheckResult
	// Skipped says the check was not run: it passed on this tree before.
	Skipped bool
	// Why says more of an error: "timeout", "killed", "not started", ...
	Why string
}

// CheckFields renders the checks of an entry as its fields.
func CheckFields(checks []CheckRun) []progresslog.Field {
	out := make([]progresslog.Field, 0, len(checks))
	for _, c := range checks {
		out = append(out, progresslog.Field{Name: FieldCheck + " " + c.Name, Value: checkValue(c)})
	}
	return out
}

// checkValue words one check as its field's value.
func checkValue(c CheckRun) string {
	r := c.Result
	if c.Skipped {
		s := code(r.Command) + " not run: passed on this tree"
		if r.Commit != "" {
			s += " at " + r.Commit
		}
		if r.Iteration > 0 {
			s += fmt.Sprintf(" (iteration %d)", r.Iteration)
		}
		return s
	}
	var b strings.Builder
	b.WriteString(code(r.Command) + " " + CheckHead(c))
	if r.Started != "" {
		b.WriteString("; started " + r.Started)
		if r.Commit != "" {
			b.WriteString(" at " + r.Commit)
		}
	}
	if r.Target != "" || r.Actual != "" {
		b.WriteString("; actual " + orWord(r.Actual, "none"))
		if r.Target != "" {
			b.WriteString(" (target " + r.Target + ")")
		}
	}
	if r.Tree != "" {
		b.WriteString("; tree " + r.Tree)
	}
	if r.Inputs != "" {
		b.WriteString("; inputs " + r.Inputs)
	}
	if r.Log != "" {
		b.WriteString("; output " + r.Log)
	}
	return b.String()
}

// CheckHead is "error: exit 2 after 3ms": the outcome, the exit status
// when there is one, why an error has none, and the duration.
func CheckHead(c CheckRun) string {
	r := c.Result
	s := r.Outcome
	switch {
	case r.ExitCode != nil:
		s += fmt.Sprintf(": exit %d", *r.ExitCode)
	case c.Why != "":
		s += ": " + c.Why
	}
	return s + " after " + FormatDuration(r.DurationMS)
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

// ChecksOf reads the named checks an entry records, in its order; nil for
// none. What does not read is left out of a result, and an outcome itr
// cannot read counts as failed, never as passed.
func ChecksOf(e progresslog.Entry) []CheckRun {
	var out []CheckRun
	for _, f := range e.Fields {
		name, ok := strings.CutPrefix(f.Name, FieldCheck+" ")
		if !ok || !state.ValidName(name) {
			continue
		}
		c := CheckRun{Name: name}
		cmd, rest := cutCode(f.Value)
		c.Result.Command = cmd
		if tail, ok := strings.CutPrefix(rest, "not run: passed on this tree"); ok {
			c.Skipped = true
			readSkipped(&c.Result, tail)
		} else {
			c.Why = readCheck(&c.Result, rest)
			c.Result.Iteration = e.Iteration
		}
		out = append(out, c)
	}
	return out
}

// cutCode cuts the inline code span a value starts with from the rest.
func cutCode(v string) (cmd, rest string) {
	v = strings.TrimSpace(v)
	n := len(v) - len(strings.TrimLeft(v, "`"))
	if n == 0 {
		return "", v
	}
	tick := strings.Repeat("`", n)
	end := strings.Index(v[n:], tick)
	if end < 0 {
		return "", v
	}
	return uncode(v[:n+end+n]), strings.TrimSpace(v[n+end+n:])
}

// parens reads a parenthesis as a space.
var parens = strings.NewReplacer("(", " ", ")", " ")

// readSkipped reads " at 1a2b3c4 (iteration 2)".
func readSkipped(r *state.CheckResult, s string) {
	f := strings.Fields(parens.Replace(s))
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "at":
			if leadingHash(f[i+1]) == f[i+1] {
				r.Commit = strings.ToLower(f[i+1])
			}
		case "iteration":
			if n, err := strconv.Atoi(f[i+1]); err == nil && n > 0 {
				r.Iteration = n
			}
		}
	}
	r.Outcome = state.CheckPassed
}

// readCheck reads "error: exit 2 after 3ms; started TS at HASH; actual
// 812 (target >= 800); tree H; inputs H; output runs/X.log" and returns
// why an error had no exit status.
func readCheck(r *state.CheckResult, s string) (why string) {
	parts := strings.Split(s, ";")
	f := strings.Fields(strings.Replace(parts[0], ":", " ", 1))
	r.Outcome = state.CheckFailed
	if len(f) == 0 {
		return ""
	}
	for _, o := range state.CheckOutcomes {
		if f[0] == o {
			r.Outcome = o
		}
	}
	end := len(f)
	for i := 1; i+1 < len(f); i++ {
		if f[i] == "after" {
			if d, err := time.ParseDuration(f[i+1]); err == nil && d >= 0 {
				r.DurationMS = d.Milliseconds()
			}
			end = i
			break
		}
	}
	switch {
	case end >= 3 && f[1] == "exit":
		if code, err := strconv.Atoi(f[2]); err == nil {
			r.ExitCode = state.Ptr(code)
		}
	case end > 1:
		why = strings.Join(f[1:end], " ")
	}
	for _, p := range parts[1:] {
		readCheckPart(r, strings.Fields(p))
	}
	return why
}

// readCheckPart reads one part of a check's result after its head.
func readCheckPart(r *state.CheckResult, f []string) {
	if len(f) < 2 {
		return
	}
	switch f[0] {
	case "started":
		if t, err := time.Parse(time.RFC3339, f[1]); err == nil {
			r.Started = t.UTC().Format(time.RFC3339)
		}
		if len(f) >= 4 && f[2] == "at" && leadingHash(f[3]) == f[3] {
			r.Commit = strings.ToLower(f[3])
		}
	case "actual":
		if n, err := state.ParseNumber(f[1]); err == nil {
			r.Actual = n
		}
		if len(f) == 5 && f[2] == "(target" {
			r.Target = f[3] + " " + strings.TrimSuffix(f[4], ")")
		}
	case "tree", "inputs":
		if leadingHash(f[1]) != f[1] || len(f) != 2 {
			return
		}
		if f[0] == "tree" {
			r.Tree = strings.ToLower(f[1])
		} else {
			r.Inputs = strings.ToLower(f[1])
		}
	case "output":
		if safeRunLog(f[1]) && len(f) == 2 {
			r.Log = f[1]
		}
	}
}

// ChecksHold reports whether the checks of an iteration hold the unit
// where it is: one broke (error) and none found the work wanting
// (failed). A check that cannot run says nothing about the work, so the
// unit neither moves on nor goes back.
func ChecksHold(checks []CheckRun) bool {
	broke := false
	for _, c := range checks {
		switch {
		case c.Skipped:
		case c.Result.Outcome == state.CheckFailed:
			return false
		case c.Result.Outcome == state.CheckError:
			broke = true
		}
	}
	return broke
}

// ChecksPassed reports whether every check of an iteration passed (or
// passed before on the same tree and was not run again).
func ChecksPassed(checks []CheckRun) bool {
	for _, c := range checks {
		if !c.Skipped && c.Result.Outcome != state.CheckPassed {
			return false
		}
	}
	return len(checks) > 0
}

// foldChecks applies the checks an iteration records to its unit: each
// check run is its last result (runs counted), a check not run again
// keeps the one it had, and the gate the unit was at (from, before the
// iteration) counts a round.
func foldChecks(u *state.Unit, from state.Status, checks []CheckRun) {
	if len(checks) == 0 {
		return
	}
	for _, c := range checks {
		if c.Skipped {
			continue
		}
		if u.Checks == nil {
			u.Checks = map[string]*state.CheckResult{}
		}
		r := c.Result.Clone()
		if prev := u.Checks[c.Name]; prev != nil {
			r.Runs = prev.Runs
		}
		r.Runs++
		u.Checks[c.Name] = r
	}
	switch from {
	case state.Confirming, state.Verifying:
		if u.GateRounds == nil {
			u.GateRounds = &state.GateRounds{}
		}
		if from == state.Confirming {
			u.GateRounds.Confirm++
		} else {
			u.GateRounds.Verify++
		}
	}
}
