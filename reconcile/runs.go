package reconcile

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// The fields of an iteration entry that record a verification run:
//
//	**Run:** `go test ./auth/...`
//	**Run result:** failed: exit 1 after 2.41s; started 2026-11-26T14:00:00Z at 1a2b3c4; tree clean
//	**Run output:** runs/T1-3.log; the last 2 of 120 lines:
//	  ```text
//	  --- FAIL: TestLogin (0.00s)
//	  FAIL
//	  ```
//
// and of a verification no run of itr's made: **Verified by:** TEXT. A run
// that itr could not finish (itr was killed) is recorded by the unit's next
// entry as **Interrupted run:** with the same result syntax.
const (
	FieldRun            = "Run"
	FieldRunResult      = "Run result"
	FieldRunOutput      = "Run output"
	FieldVerifiedBy     = "Verified by"
	FieldInterruptedRun = "Interrupted run"
)

// RunFields renders a run as the fields of its entry.
func RunFields(r state.Run) []progresslog.Field {
	fields := []progresslog.Field{
		{Name: FieldRun, Value: code(r.Command)},
		{Name: FieldRunResult, Value: runResult(r)},
	}
	if r.Log != "" || r.Tail != "" {
		fields = append(fields, progresslog.Field{Name: FieldRunOutput, Value: runOutput(r)})
	}
	return fields
}

// InterruptedRunField renders a run that itr could not finish as the
// field the unit's next entry carries.
func InterruptedRunField(r state.Run) progresslog.Field {
	return progresslog.Field{Name: FieldInterruptedRun, Value: code(r.Command) + "; " + runResult(r)}
}

// RunLine words a run in one line: "go test ./... failed: exit 1 after
// 2.41s", as the CLI, MCP and status say it.
func RunLine(r state.Run) string { return r.Command + " " + runHead(r) }

// runHead is "failed: exit 1 after 2.41s": the outcome, the exit status
// when there is one, and the duration unless a run cut off unmeasured.
func runHead(r state.Run) string {
	s := r.Outcome
	if r.ExitCode != nil {
		s += fmt.Sprintf(": exit %d", *r.ExitCode)
	}
	if r.DurationMS > 0 || r.Outcome != state.RunInterrupted {
		s += " after " + FormatDuration(r.DurationMS)
	}
	return s
}

func runResult(r state.Run) string {
	var b strings.Builder
	b.WriteString(runHead(r))
	if r.Started != "" {
		b.WriteString("; started " + r.Started)
		if r.Commit != "" {
			b.WriteString(" at " + r.Commit)
		}
	}
	if r.Clean != nil {
		b.WriteString("; tree " + map[bool]string{true: "clean", false: "dirty"}[*r.Clean])
	}
	return b.String()
}

// FormatDuration words milliseconds as Go does ("2.41s", "12ms", "1m3.2s").
func FormatDuration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d >= time.Minute {
		d = d.Round(100 * time.Millisecond)
	} else if d >= time.Second {
		d = d.Round(10 * time.Millisecond)
	}
	return d.String()
}

func runOutput(r state.Run) string {
	head := r.Log
	lines := 0
	if r.Tail != "" {
		lines = strings.Count(r.Tail, "\n") + 1
	}
	switch {
	case head == "" && lines == 0:
		return "none"
	case head == "":
		head = fmt.Sprintf("the last %s:", lineCount(lines))
	case lines > 0:
		head += fmt.Sprintf("; the last %s:", lineCount(lines))
	}
	if r.Tail == "" {
		return head
	}
	fence := Fence(r.Tail)
	return head + "\n" + fence + "text\n" + r.Tail + "\n" + fence
}

func lineCount(n int) string {
	if n == 1 {
		return "line"
	}
	return fmt.Sprintf("%d lines", n)
}

// Fence is a backtick fence longer than any run of backticks in s, so
// that no line of s closes a block it opens.
func Fence(s string) string { return strings.Repeat("`", max(3, longestTicks(s)+1)) }

// longestTicks is the length of the longest run of backticks in s.
func longestTicks(s string) int {
	longest, n := 0, 0
	for _, c := range s {
		if c == '`' {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}

// code writes s as one inline code span.
func code(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	tick := strings.Repeat("`", longestTicks(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return tick + " " + s + " " + tick
	}
	return tick + s + tick
}

// uncode reads an inline code span back; text that is not one is taken as
// it is.
func uncode(s string) string {
	s = strings.TrimSpace(s)
	n := len(s) - len(strings.TrimLeft(s, "`"))
	if n == 0 || len(s) < 2*n || !strings.HasSuffix(s, strings.Repeat("`", n)) {
		return s
	}
	inner := s[n : len(s)-n]
	if len(inner) >= 2 && strings.HasPrefix(inner, " ") && strings.HasSuffix(inner, " ") && strings.Trim(inner, " ") != "" {
		inner = inner[1 : len(inner)-1]
	}
	return inner
}

// RunOf reads the run an entry records, nil when it records none. What
// it cannot read is left out: a hand-edited result keeps at least its
// outcome.
func RunOf(e progresslog.Entry) *state.Run {
	cmd, ok := e.Field(FieldRun)
	if !ok {
		return nil
	}
	r := &state.Run{Command: uncode(cmd), Iteration: e.Iteration}
	result, _ := e.Field(FieldRunResult)
	readResult(r, result)
	if out, ok := e.Field(FieldRunOutput); ok {
		r.Log, r.Tail = readOutput(out)
	}
	return r
}

// InterruptedRunOf reads the **Interrupted run:** field of an entry.
func InterruptedRunOf(e progresslog.Entry) *state.Run {
	v, ok := e.Field(FieldInterruptedRun)
	if !ok {
		return nil
	}
	v = strings.TrimSpace(v)
	r := &state.Run{Outcome: state.RunInterrupted}
	if strings.HasPrefix(v, "`") {
		n := len(v) - len(strings.TrimLeft(v, "`"))
		tick := strings.Repeat("`", n)
		if end := strings.Index(v[n:], tick); end >= 0 {
			r.Command = uncode(v[:n+end+n])
			v = strings.TrimPrefix(strings.TrimSpace(v[n+end+n:]), ";")
		}
	}
	readResult(r, v)
	if r.Outcome == "" {
		r.Outcome = state.RunInterrupted
	}
	return r
}

// readResult reads "failed: exit 1 after 2.41s; started TS at HASH; tree clean".
func readResult(r *state.Run, s string) {
	parts := strings.Split(strings.TrimSpace(s), ";")
	head := strings.TrimSpace(parts[0])
	word := strings.ToLower(strings.TrimRight(strings.SplitN(strings.Fields(head + " x")[0], ":", 2)[0], ".,"))
	r.Outcome = state.RunFailed // a result itr cannot read never counts as passed
	for _, o := range state.RunOutcomes {
		if word == o {
			r.Outcome = o
		}
	}
	words := strings.Fields(strings.ReplaceAll(head, ":", " "))
	for i := 0; i+1 < len(words); i++ {
		switch words[i] {
		case "exit":
			if n, err := strconv.Atoi(words[i+1]); err == nil {
				r.ExitCode = state.Ptr(n)
			}
		case "after":
			if d, err := time.ParseDuration(words[i+1]); err == nil && d >= 0 {
				r.DurationMS = d.Milliseconds()
			}
		}
	}
	for _, p := range parts[1:] {
		f := strings.Fields(p)
		switch {
		case len(f) >= 2 && f[0] == "started":
			if t, err := time.Parse(time.RFC3339, f[1]); err == nil {
				r.Started = t.UTC().Format(time.RFC3339)
			}
			if len(f) >= 4 && f[2] == "at" && leadingHash(f[3]) == f[3] {
				r.Commit = strings.ToLower(f[3])
			}
		case len(f) == 2 && f[0] == "tree":
			switch f[1] {
			case "clean":
				r.Clean = state.Ptr(true)
			case "dirty":
				r.Clean = state.Ptr(false)
			}
		}
	}
}

// readOutput reads "runs/T1-3.log; the last N lines:" and the fenced tail.
func readOutput(v string) (log, tail string) {
	first, rest, _ := strings.Cut(v, "\n")
	first = strings.TrimSpace(first)
	if name, _, ok := strings.Cut(first, ";"); ok {
		log = strings.TrimSpace(name)
	} else if !strings.HasPrefix(first, "the last ") && first != "none" {
		log = first
	}
	if log != "" && !safeRunLog(log) {
		log = ""
	}
	lines := strings.Split(rest, "\n")
	if len(lines) >= 2 && strings.HasPrefix(lines[0], "```") {
		fence := lines[0][:len(lines[0])-len(strings.TrimLeft(lines[0], "`"))]
		body := lines[1:]
		if n := len(body); n > 0 && strings.TrimSpace(body[n-1]) == fence {
			body = body[:n-1]
		}
		tail = strings.Join(body, "\n")
	}
	return log, tail
}

// safeRunLog reports whether a log name stays inside the task folder's
// runs/ folder: itr reads it back, so a hand edit must not point elsewhere.
func safeRunLog(name string) bool {
	rest, ok := strings.CutPrefix(name, "runs/")
	return ok && rest != "" && !strings.ContainsAny(rest, "/\\") && rest != "." && rest != ".."
}

// VerifiedByOf reads the **Verified by:** field of an entry.
func VerifiedByOf(e progresslog.Entry) string {
	v, _ := e.Field(FieldVerifiedBy)
	return strings.TrimSpace(v)
}
