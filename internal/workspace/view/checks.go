package view

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Check is a verification run that needs attention: the last run of an
// unfinished unit that did not pass, or a run under way or interrupted
// (itr was stopped before it could record it).
type Check struct {
	Unit    string `json:"unit"`
	Command string `json:"command"`
	// Outcome is failed, timeout, error or interrupted as recorded, or
	// running while an itr runs it now.
	Outcome    string `json:"outcome"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	Started    string `json:"started,omitempty"`
	Commit     string `json:"commit,omitempty"`
	Iteration  int    `json:"iteration,omitempty"`
	// Log is the file, from the repository top, with the whole output.
	Log string `json:"log,omitempty"`
	// Tail is the last lines of the output.
	Tail string `json:"output_tail,omitempty"`
	// Recorded is false for a run no entry records yet (running, or
	// interrupted before itr could record it).
	Recorded bool `json:"recorded"`
	// Rerun is the command that makes an interrupted run again, as the
	// rule book accepts it now; "" when it cannot be made again as it was
	// (or no checkpoint of the unit is accepted now).
	Rerun string `json:"rerun,omitempty"`
}

// checksOf lists the checks of a task that need attention: unrecorded
// runs first, then each unfinished unit whose last run did not pass.
func checksOf(st *store.Store, slug string, ids []string, units []*state.Unit, active bool) []Check {
	out := []Check{}
	if active {
		for _, m := range st.RunMarkers(slug) {
			c := Check{Unit: m.Unit, Command: m.Command, Outcome: "running", Started: m.Started, Commit: m.Commit}
			if !m.Alive() {
				c.Outcome = state.RunInterrupted
			}
			out = append(out, c)
		}
	}
	for i, id := range ids {
		u := units[i]
		r := u.LastRun
		if r == nil || r.Passed() || u.Status == state.Done {
			continue
		}
		c := Check{Unit: id, Command: r.Command, Outcome: r.Outcome, ExitCode: r.ExitCode, DurationMS: r.DurationMS,
			Started: r.Started, Commit: r.Commit, Iteration: r.Iteration, Tail: r.Tail, Recorded: true}
		if r.Log != "" {
			c.Log = st.Rel(slug, r.Log)
		}
		out = append(out, c)
	}
	return out
}

// String words the check on one line: "T1: `go test ./...` failed: exit 1
// after 2.41s (iteration 3, at 1a2b3c4); whole output in DIR/runs/T1-3.log".
func (c Check) String() string {
	switch c.Outcome {
	case "running":
		return fmt.Sprintf("%s: %s is running since %s", c.Unit, c.Command, c.Started)
	case state.RunInterrupted:
		if !c.Recorded {
			s := fmt.Sprintf("%s: %s (started %s at %s) was interrupted before itr could record it", c.Unit, c.Command, c.Started, c.Commit)
			if c.Rerun != "" {
				return s + "; run it again with `" + c.Rerun + "`"
			}
			return s + "; the unit's next checkpoint records the interruption"
		}
	}
	s := c.Unit + ": " + reconcile.RunLine(state.Run{Command: c.Command, Outcome: c.Outcome, ExitCode: c.ExitCode, DurationMS: c.DurationMS})
	var where []string
	if c.Iteration > 0 {
		where = append(where, fmt.Sprintf("iteration %d", c.Iteration))
	}
	if c.Commit != "" {
		where = append(where, "at "+c.Commit)
	}
	if len(where) > 0 {
		s += " (" + strings.Join(where, ", ") + ")"
	}
	if c.Log != "" {
		s += "; whole output in " + c.Log
	}
	return s
}

// fenced writes text as a fenced block no line of it can close.
func fenced(text string) string {
	fence := reconcile.Fence(text)
	return fence + "text\n" + text + "\n" + fence + "\n"
}

// lastLines keeps the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// visibleLines is visible applied line by line: the line breaks stay.
func visibleLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = visible(l)
	}
	return strings.Join(lines, "\n")
}
