package view

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// kindReason reads "needs-human: the reason", or the reason alone.
func kindReason(kind, reason string) string {
	if kind == "" {
		return reason
	}
	return kind + ": " + reason
}

// blockWords reads a block with its kind and when it clears:
// "missing-input: no key; clear when: the key is in .env".
func blockWords(u UnitStatus) string {
	t := kindReason(u.ReasonKind, u.Reason)
	if u.ClearWhen != "" {
		t += "; clear when: " + u.ClearWhen
	}
	return t
}

// settledLine adds the failed, replaced and skipped units to the progress
// line: ", 1 failed (needs someone), 1 replaced, 2 skipped"; "" when none.
func settledLine(adv reconcile.Advice) string {
	var parts []string
	if n := len(adv.Failed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d failed (needs someone)", n))
	}
	if n := len(adv.Replaced); n > 0 {
		parts = append(parts, fmt.Sprintf("%d failed and replaced", n))
	}
	if n := len(adv.Skipped); n > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// orUnsaid is s, or "not given".
func orUnsaid(s string) string {
	if s == "" {
		return "not given"
	}
	return s
}

// clearText says how a block clears: when it does (quoted, as the
// collaborator's text it is) and the command after.
func clearText(u UnitStatus) string {
	if u.ClearWhen == "" {
		return fmt.Sprintf("Clear it with `itr unblock %s` once it is resolved.", u.ID)
	}
	return fmt.Sprintf("Clear when: %s; then `itr unblock %s`.", quote(u.ClearWhen, 200), u.ID)
}

// settledSection is prime's "## Failed" and "## Skipped": the failed
// units that need someone, with their kind and the fixes (never worked on
// until then), and the units left out on purpose (not to be worked on).
func (p *PrimeContext) settledSection() string {
	if len(p.Failed) == 0 && len(p.Skipped) == 0 {
		return ""
	}
	var b strings.Builder
	if len(p.Failed) > 0 {
		b.WriteString("## Failed (needs someone; do not work on these)\n")
		for _, u := range p.Failed {
			fmt.Fprintf(&b, "- %s %s: %s (kind: %s)\n", u.ID, quote(u.Title, 80), quote(u.Reason, 200), orUnsaid(u.ReasonKind))
		}
		b.WriteString("A person decides: `itr reopen UNIT --reason ...` once the cause is fixed, `itr skip UNIT --reason ...`, or a unit with \"Replaces: UNIT\" in the plan.\n")
	}
	if len(p.Skipped) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("## Skipped (left out on purpose; do not work on these)\n")
		for _, u := range p.Skipped {
			fmt.Fprintf(&b, "- %s %s: %s\n", u.ID, quote(u.Title, 80), quote(u.Reason, 200))
		}
	}
	return b.String()
}

// replacedText says what the units that replace a failed one do:
// "T4 replaces it: once T4 is done, its dependants proceed".
func replacedText(by []string) string {
	return fmt.Sprintf("%s replace%s it: once %s done, its dependants proceed", strings.Join(by, ", "),
		map[bool]string{true: "s", false: ""}[len(by) == 1], map[bool]string{true: "it is", false: "one of them is"}[len(by) == 1])
}

// live are the units of by that may still be done: not failed or skipped
// (a replacement that was itself given up settles nothing).
func live(s *state.State, by []string) []string {
	var out []string
	for _, id := range by {
		if u := s.Units[id]; u != nil && u.Status != state.Failed && u.Status != state.Skipped {
			out = append(out, id)
		}
	}
	return out
}
