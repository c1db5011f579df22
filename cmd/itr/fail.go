package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/state"
)

func newFailCmd(g *globals) *cobra.Command {
	var reason, kind string
	cmd := &cobra.Command{
		Use:   "fail UNIT --reason TEXT [--kind KIND]",
		Short: "Mark a unit failed: it cannot go on without someone",
		Long: `Mark a unit failed, as one Failed entry in progress.md (with its Reason and Kind) and one
commit. A failed unit takes no work and stays failed until ` + "`itr reopen`" + `; its dependants wait,
unless a unit with "Replaces: UNIT" in the plan is done, which lets them proceed as if the
failed unit were done. --kind says what it needs: ` + strings.Join(state.FailKinds, ", ") + `.
status, next, prime, graph and the report show failed units apart from those in progress.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Fail(slug, args[0], reason, kind)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the unit cannot go on (required)")
	cmd.Flags().StringVar(&kind, "kind", "", "what it needs: "+strings.Join(state.FailKinds, ", "))
	return cmd
}

func newSkipCmd(g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "skip UNIT --reason TEXT",
		Short: "Mark a unit skipped, with the reason; its dependants may proceed",
		Long: `Mark a unit skipped, as one Skipped entry in progress.md (with its Reason) and one commit.
The unit stays in the plan and the history; its dependants may proceed as if it were done,
and archive accepts it. Its box in the plan stays unchecked. A failed unit may be skipped;
a done one may not. ` + "`itr reopen`" + ` brings a skipped unit back.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Skip(slug, args[0], reason)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the unit is left out (required)")
	return cmd
}

// printReason says why a unit is failed, skipped or blocked after the
// event, with its kind and when it clears, when the event gave them.
func printReason(w io.Writer, v outcomeView) {
	if v.Reason == "" || (v.Status != string(state.Failed) && v.Status != string(state.Skipped) && v.ReasonKind == "" && v.ClearWhen == "") {
		return
	}
	fmt.Fprintf(w, "Reason: %s\n", terminalSafe(v.Reason))
	if v.ReasonKind != "" {
		fmt.Fprintf(w, "Kind: %s\n", terminalSafe(v.ReasonKind))
	}
	if v.ClearWhen != "" {
		fmt.Fprintf(w, "Clear when: %s\n", terminalSafe(v.ClearWhen))
	}
}

// reasonSuffix ends a unit's title in the status table: why it is
// blocked, failed or skipped, with the kind, when a block clears, and the
// units that replace a failed one.
func reasonSuffix(u workspace.UnitStatus) string {
	if u.Reason == "" {
		return ""
	}
	word := "blocked"
	switch u.Status {
	case string(state.Failed), string(state.Skipped):
		word = u.Status
	}
	out := " — " + word
	if u.ReasonKind != "" {
		out += " (" + u.ReasonKind + ")"
	}
	out += ": " + u.Reason
	if u.ClearWhen != "" {
		out += "; clear when: " + u.ClearWhen
	}
	if len(u.ReplacedBy) > 0 && u.Status == string(state.Failed) {
		out += "; replaced by " + strings.Join(u.ReplacedBy, ", ")
	}
	return out
}

// orNone is s, or "no kind given" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "no kind given"
	}
	return s
}
