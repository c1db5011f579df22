// Package state is the model of a task's state.json: its units, their
// statuses, the task's phase, and the lifecycle rules between statuses.
//
// The model is lossless: decoding keeps every field, including ones itr does
// not know, in the place it was found, and Encode writes one canonical form
// (2-space indent, units in natural order T1, T2, ..., T10) that decodes and
// re-encodes to the same bytes.
//
// The package is pure: it reads no files, no clock and no environment.
package state

import (
	"fmt"
	"strings"
)

// Status is the status of one unit (a task in development mode, a phase in
// knowledge mode).
type Status string

// The statuses of the seed's lifecycle.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Confirming Status = "confirming"
	Verifying  Status = "verifying"
	Done       Status = "done"
	Blocked    Status = "blocked"
	Timeout    Status = "timeout"
	// Failed is a unit that cannot go on without someone (a person, a
	// tool fixed, an input supplied): final until `itr reopen`. Its
	// dependants wait unless a done unit replaces it (Replaces: in the plan).
	Failed Status = "failed"
	// Skipped is a unit left out on purpose, with a reason: it stays in the
	// plan and the history, and its dependants may proceed.
	Skipped Status = "skipped"
)

// Statuses lists every status in lifecycle order.
var Statuses = []Status{Pending, InProgress, Confirming, Verifying, Done, Blocked, Timeout, Failed, Skipped}

// ParseStatus returns the status named s, or an error listing the valid ones.
func ParseStatus(s string) (Status, error) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("%q is not a status (one of %s)", s, joinStatuses(Statuses))
}

// Finished reports whether s is the terminal status done.
func (s Status) Finished() bool { return s == Done }

// Settled reports whether s ends a unit's work by itself: done or skipped.
// A failed unit is settled only when a done unit replaces it, which the
// plan says (reconcile.Settled).
func (s Status) Settled() bool { return s == Done || s == Skipped }

// Started reports whether a unit in status s has begun work.
func (s Status) Started() bool {
	switch s {
	case InProgress, Confirming, Verifying, Done, Timeout:
		return true
	}
	return false
}

// transitions is the seed's lifecycle:
//
//	pending → in_progress → confirming → verifying → done
//	              ↑            │            │
//	              └────────────┴────────────┘  (issues found)
//
// plus blocked (from any unfinished status, back to pending or in_progress),
// timeout (the iteration limit reached; back to in_progress when the
// limit is raised), failed (from any unfinished status; back to pending or
// in_progress only by a reopen, or on to skipped) and skipped (from any
// unfinished status or failed; back by a reopen).
var transitions = map[Status][]Status{
	Pending:    {InProgress, Confirming, Blocked, Failed, Skipped},
	InProgress: {Confirming, Blocked, Timeout, Failed, Skipped},
	Confirming: {Verifying, InProgress, Blocked, Timeout, Failed, Skipped},
	Verifying:  {Done, InProgress, Blocked, Timeout, Failed, Skipped},
	Blocked:    {Pending, InProgress, Failed, Skipped},
	Timeout:    {InProgress, Blocked, Failed, Skipped},
	Done:       nil,
	Failed:     {Pending, InProgress, Skipped},
	Skipped:    {Pending, InProgress},
}

// AllowedNext returns the statuses a unit in status from may move to.
func AllowedNext(from Status) []Status {
	return append([]Status(nil), transitions[from]...)
}

// CanMove reports whether the lifecycle allows from → to.
func CanMove(from, to Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// TransitionError is an illegal status change of one unit.
type TransitionError struct {
	Unit     string
	From, To Status
}

// Error names the unit, both statuses and what is allowed instead.
func (e *TransitionError) Error() string {
	next := transitions[e.From]
	if len(next) == 0 {
		return fmt.Sprintf("unit %s: cannot move from %s to %s: %s is final", e.Unit, e.From, e.To, e.From)
	}
	return fmt.Sprintf("unit %s: cannot move from %s to %s (from %s it can move to %s)",
		e.Unit, e.From, e.To, e.From, joinStatuses(next))
}

// CheckMove returns a *TransitionError when unit may not move from → to.
// Staying in the same status is always allowed.
func CheckMove(unit string, from, to Status) error {
	if from == to || CanMove(from, to) {
		return nil
	}
	return &TransitionError{Unit: unit, From: from, To: to}
}

func joinStatuses(ss []Status) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

// Reason kinds: what a failed or blocked unit needs to go on. They are the
// values of an entry's **Kind:** field and of a unit's reason_kind.
const (
	KindNeedsHuman   = "needs-human"   // a person must act or answer
	KindToolError    = "tool-error"    // a tool or command failed
	KindMissingInput = "missing-input" // an input the unit needs is not there
	KindExternal     = "external"      // waits on something outside the project
	KindDecision     = "decision"      // waits on a decision to be made
)

// FailKinds are the kinds a failure may have (itr fail --kind).
var FailKinds = []string{KindNeedsHuman, KindToolError, KindMissingInput}

// BlockKinds are the kinds a block may have (itr block --kind).
var BlockKinds = []string{KindNeedsHuman, KindToolError, KindMissingInput, KindExternal, KindDecision}

// ParseKind returns k when it is one of kinds, else an error naming k and
// listing the valid ones. what names the command's field in the message
// ("failure kind", "block kind").
func ParseKind(what, k string, kinds []string) (string, error) {
	for _, v := range kinds {
		if v == k {
			return k, nil
		}
	}
	return "", fmt.Errorf("%q is not a %s (one of %s)", k, what, strings.Join(kinds, ", "))
}

// Phase is the phase of a whole task.
type Phase string

// The phases of the seed.
const (
	Discover Phase = "discover"
	Plan     Phase = "plan"
	Execute  Phase = "execute"
	Verify   Phase = "verify"
	Deliver  Phase = "deliver"
	Complete Phase = "complete"
)

// Phases lists every phase in order.
var Phases = []Phase{Discover, Plan, Execute, Verify, Deliver, Complete}

// ParsePhase returns the phase named s, or an error listing the valid ones.
func ParsePhase(s string) (Phase, error) {
	for _, p := range Phases {
		if string(p) == s {
			return p, nil
		}
	}
	parts := make([]string, len(Phases))
	for i, p := range Phases {
		parts[i] = string(p)
	}
	return "", fmt.Errorf("%q is not a phase (one of %s)", s, strings.Join(parts, ", "))
}

// Rank orders phases: discover is 0, complete is 5, an unknown phase -1.
func (p Phase) Rank() int {
	for i, q := range Phases {
		if p == q {
			return i
		}
	}
	return -1
}

// Mode is the kind of task: development (units are tasks) or knowledge
// (units are phases).
type Mode string

// The two modes.
const (
	Development Mode = "development"
	Knowledge   Mode = "knowledge"
)

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Development, Knowledge:
		return Mode(s), nil
	}
	return "", fmt.Errorf("%q is not a mode (one of development, knowledge)", s)
}

// UnitsKey is the state.json key that holds the units: "tasks" or "phases".
func (m Mode) UnitsKey() string {
	if m == Knowledge {
		return "phases"
	}
	return "tasks"
}

// CurrentKey is the state.json key of the current unit: "current_task" or
// "current_phase".
func (m Mode) CurrentKey() string {
	if m == Knowledge {
		return "current_phase"
	}
	return "current_task"
}
