package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Result is how a task ended: the result of its outcome.
type Result string

// The results a task can end with.
const (
	// ResultComplete is a task whose every unit is settled (done, skipped, or
	// failed and replaced): `itr deliver` of such a task, or its archive.
	ResultComplete Result = "complete"
	// ResultLimited is "done with limitations": what exists is delivered, and
	// the outcome says what is missing (`itr deliver --limitations`),
	// such as when the task's budget ran out.
	ResultLimited Result = "done_with_limitations"
	// ResultAbandoned is a task stopped on purpose, with the reason (`itr
	// abandon`, `itr archive --force`).
	ResultAbandoned Result = "abandoned"
	// ResultFailed is a task that cannot go on (an unrecoverable error), with
	// the reason and the kind of what it needs (`itr abandon --failed`).
	ResultFailed Result = "failed"
)

// Results lists every result, in the order a task may end: complete first.
var Results = []Result{ResultComplete, ResultLimited, ResultAbandoned, ResultFailed}

// Words is the result as a person reads it: "done with limitations" for
// ResultLimited, the value itself for the others.
func (r Result) Words() string { return strings.ReplaceAll(string(r), "_", " ") }

// Delivered reports whether the result hands over what exists (complete,
// or done with limitations), as opposed to stopping (abandoned, failed).
func (r Result) Delivered() bool { return r == ResultComplete || r == ResultLimited }

// ParseResult reads a result as state.json writes it
// ("done_with_limitations") or as a person does ("done with
// limitations", any case); an error lists the valid ones.
func ParseResult(s string) (Result, error) {
	w := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "_", " ")), " "))
	for _, r := range Results {
		if r.Words() == w {
			return r, nil
		}
	}
	words := make([]string, len(Results))
	for i, r := range Results {
		words[i] = r.Words()
	}
	return "", fmt.Errorf("%q is not an outcome (one of %s)", s, strings.Join(words, ", "))
}

// Outcome is how the task ended, outcome in state.json: absent while the
// task runs. Reason says why a task was abandoned or failed, Kind what a
// failed one needs (one of FailKinds), Missing the units whose work was
// not accounted for when it ended, and Limitations what a delivery with
// limitations lacks, in someone's words. At is when it ended. `itr
// resume` (and `itr restore`) take a task with an outcome back to work.
type Outcome struct {
	Result      Result   `json:"result"`
	At          string   `json:"at,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Kind        string   `json:"kind,omitempty"`
	Missing     []string `json:"missing,omitempty"`
	Limitations string   `json:"limitations,omitempty"`
}

// Text is the outcome in a few words: "abandoned: superseded by v2",
// "failed (tool-error): the API is gone", "done with limitations (missing
// S2, R1): no second source".
func (o *Outcome) Text() string {
	if o == nil {
		return ""
	}
	out := o.Result.Words()
	var detail []string
	if o.Kind != "" {
		detail = append(detail, o.Kind)
	}
	if len(o.Missing) > 0 {
		detail = append(detail, "missing "+strings.Join(o.Missing, ", "))
	}
	if len(detail) > 0 {
		out += " (" + strings.Join(detail, "; ") + ")"
	}
	var why []string
	for _, s := range []string{o.Reason, o.Limitations} {
		if s = strings.TrimSpace(s); s != "" {
			why = append(why, s)
		}
	}
	if len(why) > 0 {
		out += ": " + strings.Join(why, "; ")
	}
	return out
}

// Clone returns a copy of o.
func (o *Outcome) Clone() *Outcome {
	if o == nil {
		return nil
	}
	c := *o
	c.Missing = append([]string(nil), o.Missing...)
	if o.Missing == nil {
		c.Missing = nil
	}
	return &c
}

func decodeOutcome(path string, raw json.RawMessage) (*Outcome, error) {
	var o struct {
		Outcome
		Result *string `json:"result"`
	}
	want := `an object such as {"result": "abandoned", "at": "2026-01-14T10:30:00Z", "reason": "superseded"}`
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(raw, &o) != nil || o.Result == nil {
		return nil, typeErr(path, raw, want)
	}
	r, err := ParseResult(*o.Result)
	if err != nil || string(r) != *o.Result {
		words := make([]string, len(Results))
		for i, r := range Results {
			words[i] = string(r)
		}
		return nil, &DecodeError{Path: path + ".result", Msg: fmt.Sprintf("%q is not a result (one of %s)", *o.Result, strings.Join(words, ", "))}
	}
	out := o.Outcome
	out.Result = r
	return &out, nil
}

func (o *Outcome) encode() []byte { return plainJSON(o) }
