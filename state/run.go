package state

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Run is a unit's last verification run, last_run in state.json: the
// command itr ran to check the unit, how it ended and against what. It is
// folded from the **Run** fields of the unit's newest entry that has them.
type Run struct {
	// Command is the command line as a shell would read it.
	Command string `json:"command"`
	// Outcome is passed, failed, timeout, interrupted or error.
	Outcome string `json:"outcome"`
	// ExitCode is the exit status; nil when there is none (killed, never
	// started, interrupted).
	ExitCode *int `json:"exit_code"`
	// DurationMS is how long the command ran, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Started is when it started (RFC 3339, UTC).
	Started string `json:"started,omitempty"`
	// Commit is the commit HEAD named when it started.
	Commit string `json:"commit,omitempty"`
	// Clean says whether the work tree held no uncommitted work then.
	Clean *bool `json:"clean_tree,omitempty"`
	// Iteration is the unit's iteration whose entry records the run.
	Iteration int `json:"iteration,omitempty"`
	// Log is the file, relative to the task folder, that keeps the whole
	// output.
	Log string `json:"log,omitempty"`
	// Tail is the last lines of the output, escapes removed.
	Tail string `json:"output_tail,omitempty"`
}

// The outcomes of a run.
const (
	RunPassed      = "passed"
	RunFailed      = "failed"
	RunTimeout     = "timeout"
	RunInterrupted = "interrupted"
	RunError       = "error"
)

// RunOutcomes lists the outcomes a run may have.
var RunOutcomes = []string{RunPassed, RunFailed, RunTimeout, RunInterrupted, RunError}

// Passed reports whether the run passed.
func (r *Run) Passed() bool { return r != nil && r.Outcome == RunPassed }

// Clone returns a deep copy of r.
func (r *Run) Clone() *Run {
	if r == nil {
		return nil
	}
	c := *r
	c.ExitCode = clonePtr(r.ExitCode)
	c.Clean = clonePtr(r.Clean)
	return &c
}

// decodeRun reads last_run.
func decodeRun(path string, raw json.RawMessage) (*Run, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var r Run
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, typeErr(path, raw, `an object such as {"command": "go test ./...", "outcome": "passed", "exit_code": 0, "duration_ms": 1200}`)
	}
	if err := dec.Decode(&r); err != nil {
		return nil, &DecodeError{Path: path, Msg: fmt.Sprintf("not a run record: %v", err), Err: err}
	}
	known := false
	for _, o := range RunOutcomes {
		known = known || r.Outcome == o
	}
	if !known {
		return nil, &DecodeError{Path: path + ".outcome", Msg: fmt.Sprintf("%q is not an outcome (one of passed, failed, timeout, interrupted, error)", r.Outcome)}
	}
	return &r, nil
}

// encode is the run as JSON without HTML escaping.
func (r *Run) encode() []byte { return plainJSON(r) }

// plainJSON is v as compact JSON without HTML escaping; v always encodes.
func plainJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSpace(b.Bytes())
}
