package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// CheckResult is the last run of one of a unit's named checks, an entry of
// its checks in state.json, folded from the **Check NAME:** fields of its
// iterations.
type CheckResult struct {
	// Command is the command line as a shell would read it.
	Command string `json:"command"`
	// Outcome is passed, failed (exit 1, or a target missed: the work
	// does not hold) or error (exit 2 and above, a signal, a timeout, a
	// command that did not start: the check itself broke).
	Outcome string `json:"outcome"`
	// ExitCode is the exit status; nil when there is none.
	ExitCode *int `json:"exit_code"`
	// Target is the target the plan gives (">= 800"), Actual the number
	// the output ended with; "" when none.
	Target string `json:"target,omitempty"`
	Actual string `json:"actual,omitempty"`
	// DurationMS is how long the command ran, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Started is when it started (RFC 3339, UTC); Commit the commit HEAD
	// named then.
	Started string `json:"started,omitempty"`
	Commit  string `json:"commit,omitempty"`
	// Tree is the tree the check saw: HEAD's tree with the task folder
	// left out, "" when the working tree held uncommitted work outside the
	// task folder. Inputs is a digest of the unit's inputs and outputs as
	// the check read them. A check that passed is not run again while both
	// are the same.
	Tree   string `json:"tree,omitempty"`
	Inputs string `json:"inputs,omitempty"`
	// Iteration is the unit's iteration whose entry records the run.
	Iteration int `json:"iteration,omitempty"`
	// Runs counts the runs the log records (the seed's iteration_count).
	Runs int `json:"runs"`
	// Log is the file, relative to the task folder, that keeps the output.
	Log string `json:"log,omitempty"`
}

// The outcomes of a named check.
const (
	CheckPassed = "passed"
	CheckFailed = "failed"
	CheckError  = "error"
)

// CheckOutcomes lists the outcomes a named check may have.
var CheckOutcomes = []string{CheckPassed, CheckFailed, CheckError}

// Clone returns a deep copy of c.
func (c *CheckResult) Clone() *CheckResult {
	if c == nil {
		return nil
	}
	x := *c
	x.ExitCode = clonePtr(c.ExitCode)
	return &x
}

// GateRounds counts the rounds of a unit's gates in which its named checks
// ran: Confirm while it was confirming, Verify while it was verifying
// (gate_rounds in state.json).
type GateRounds struct {
	Confirm int `json:"confirm"`
	Verify  int `json:"verify"`
}

// cloneChecks returns a deep copy of m.
func cloneChecks(m map[string]*CheckResult) map[string]*CheckResult {
	if m == nil {
		return nil
	}
	out := make(map[string]*CheckResult, len(m))
	for k, v := range m {
		out[k] = v.Clone()
	}
	return out
}

// CheckNames are the names of the checks in m, sorted.
func CheckNames(m map[string]*CheckResult) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checksValue writes checks as one object, names in byte order.
type checksValue map[string]*CheckResult

func (v checksValue) write(b *bytes.Buffer, indent string) {
	writeRaw(b, indent, plainJSON(map[string]*CheckResult(v)))
}

// decodeChecks reads checks.
func decodeChecks(path string, raw json.RawMessage) (map[string]*CheckResult, error) {
	kvs, err := decodeMap(path, raw, `an object of check names and results such as {"words": {"command": "wc -w memo.md", "outcome": "passed", "exit_code": 0, "runs": 1}}`)
	if err != nil {
		return nil, err
	}
	out := map[string]*CheckResult{}
	for _, kv := range kvs {
		fp := path + "." + kv.key
		if !ValidName(kv.key) {
			return nil, &DecodeError{Path: fp, Msg: fmt.Sprintf("%q is not a check's name (letters, digits, '-' or '_', starting with a letter, at most %d)", kv.key, MaxName)}
		}
		if t := bytes.TrimSpace(kv.raw); len(t) == 0 || t[0] != '{' {
			return nil, typeErr(fp, kv.raw, `an object such as {"command": "wc -w memo.md", "outcome": "passed", "exit_code": 0, "runs": 1}`)
		}
		var c CheckResult
		if err := json.Unmarshal(kv.raw, &c); err != nil {
			return nil, &DecodeError{Path: fp, Msg: fmt.Sprintf("not a check's result: %v", err), Err: err}
		}
		known := false
		for _, o := range CheckOutcomes {
			known = known || c.Outcome == o
		}
		if !known {
			return nil, &DecodeError{Path: fp + ".outcome", Msg: fmt.Sprintf("%q is not an outcome (one of passed, failed, error)", c.Outcome)}
		}
		out[kv.key] = &c
	}
	return out, nil
}

// decodeGateRounds reads gate_rounds.
func decodeGateRounds(path string, raw json.RawMessage) (*GateRounds, error) {
	want := `an object such as {"confirm": 1, "verify": 2}`
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, typeErr(path, raw, want)
	}
	var g GateRounds
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil || g.Confirm < 0 || g.Verify < 0 {
		return nil, typeErr(path, raw, want+" (whole numbers of at least 0)")
	}
	return &g, nil
}
