package mcpserver

import (
	"regexp"
	"strings"
	"testing"
)

var xs = regexp.MustCompile(`x{300,}`)

// TestErrorsQuoteLittle: an argument of a megabyte, in any string
// parameter of any tool, is refused (the text fields by the entry field
// limit), and the error quotes at most a few hundred bytes of it (with its
// size), however the call fails; nothing is recorded.
func TestErrorsQuoteLittle(t *testing.T) {
	dir := newTask(t)
	cs := connect(t, dir)
	huge := strings.Repeat("x", 1<<20)
	base := map[string][]string{ // the required parameters
		"checkpoint": {"did"}, "finish": {"evidence"}, "block": {"unit", "reason"}, "reopen": {"unit", "reason"},
		"decide": {"title", "choice", "why"}, "summarize": {"did"},
	}
	for tool, params := range map[string][]string{
		"resume":     {"task", "unit", "ready"},
		"start":      {"task", "unit"},
		"checkpoint": {"task", "unit", "did", "remaining", "blockers", "items", "values", "metrics", "commits", "done"},
		"finish":     {"task", "unit", "evidence", "verified_by", "items", "passed"},
		"block":      {"task", "unit", "reason", "as", "kind", "clear_when"},
		"reopen":     {"task", "unit", "reason"},
		"decide":     {"task", "title", "choice", "why", "unit"},
		"summarize":  {"task", "did", "outcome"}, // kind goes only with outcome failed
	} {
		for _, p := range params {
			args := map[string]any{}
			for _, q := range base[tool] {
				args[q] = "T1"
			}
			args[p] = huge
			switch p {
			case "values", "metrics", "commits", "verify":
				args[p] = []string{huge}
			}
			head := git(t, dir, "rev-parse", "HEAD")
			res := call(t, cs, tool, args)
			if tool != "resume" && !res.IsError {
				t.Errorf("%s %s: a megabyte was taken", tool, p)
			}
			if git(t, dir, "rev-parse", "HEAD") != head {
				t.Errorf("%s %s: the refusal recorded something", tool, p)
			}
			if n := len(text(res)); res.IsError && n > 1000 {
				t.Errorf("%s %s: the error is %d bytes: %s", tool, p, n, xs.ReplaceAllString(text(res), "x…x"))
			}
		}
	}
}
