package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// runUnitEvent records an event of the selected task and prints its outcome.
func runUnitEvent(g *globals, do func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error)) error {
	return g.withTask(func(ws *workspace.Workspace, slug string) error {
		out, err := do(ws, slug)
		if err != nil {
			return err
		}
		return printEvent(g, out)
	})
}

// printEvent prints the outcome of one recorded event.
func printEvent(g *globals, out *workspace.Outcome) error {
	v := outcomeJSON(out)
	return g.emit(v, func(w io.Writer) {
		printRepaired(w, out)
		switch e := out.Entry; {
		case out.Guardrail != "":
			fmt.Fprintf(w, "Guardrail %q added to guardrails.md\n", out.Guardrail)
		case out.Decision != "":
			fmt.Fprintf(w, "Decision %q recorded in decisions.md\n", out.Decision)
		case e != nil && e.Kind == progresslog.KindSummary:
			covers, _ := e.Field("Covers")
			fmt.Fprintf(w, "Summary recorded (it covers %s); readers may start from it\n", covers)
		case e != nil && e.Kind == progresslog.KindRechecked:
			fmt.Fprintf(w, "%s: re-checked against its inputs; it stays %s\n", v.Unit, v.Status)
		case v.Unit != "":
			fmt.Fprintf(w, "%s: %s → %s\n", v.Unit, v.From, v.Status)
			printReason(w, v)
		case e != nil && e.Kind == progresslog.KindPaused && v.Paused != nil:
			fmt.Fprintf(w, "Paused since %s", v.Paused.Since)
			if v.Paused.Reason != "" {
				fmt.Fprintf(w, ": %s", v.Paused.Reason)
			}
			fmt.Fprintf(w, " (phase %s; `itr resume` resumes)\n", v.Phase)
		case e != nil && e.Kind == progresslog.KindResumed:
			fmt.Fprintf(w, "Resumed; phase %s\n", v.Phase)
		case e != nil && e.Kind == progresslog.KindConcluded && v.Outcome != nil:
			fmt.Fprintf(w, "Concluded: %s; phase %s\n", terminalSafe(v.Outcome.Text()), v.Phase)
			fmt.Fprintf(w, "Next: `itr archive` (no --force needed), or `itr resume` to take it back to work\n")
		case e != nil && e.Kind == progresslog.KindNote:
			fmt.Fprintln(w, "Noted")
		case e != nil && e.Kind == progresslog.KindApproved && out.After.Approval != nil:
			fmt.Fprintf(w, "Plan approved by %s; unit work may begin (phase %s)\n", terminalSafe(out.After.Approval.By), v.Phase)
		default:
			fmt.Fprintf(w, "Phase %s\n", v.Phase)
		}
		fmt.Fprintf(w, "Committed %s\n", short(out.Commit))
		if out.Released != "" {
			fmt.Fprintf(w, "Released your claim on %s\n", out.Released)
		}
		for _, warn := range out.Warnings {
			fmt.Fprintf(w, "Warning: %s\n", terminalSafe(warn))
		}
	})
}

func newBlockCmd(g *globals) *cobra.Command {
	var reason, kind, clearWhen string
	cmd := &cobra.Command{
		Use:   "block UNIT --reason TEXT [--kind KIND] [--clear-when TEXT]",
		Short: "Mark a unit blocked, with the reason",
		Long: `Mark a unit blocked, as one Blocked entry in progress.md and one commit. --kind says what
the unit waits for (` + strings.Join(state.BlockKinds, ", ") + `) and --clear-when
how the next session can tell that the block is over; both are kept in state.json
(reason_kind, clear_when), and prime and status show them.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.BlockTyped(slug, args[0], reason, kind, clearWhen)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "what the unit waits for (required)")
	cmd.Flags().StringVar(&kind, "kind", "", "what kind of block: "+strings.Join(state.BlockKinds, ", "))
	cmd.Flags().StringVar(&clearWhen, "clear-when", "", "how to tell the block is over")
	return cmd
}

func newUnblockCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "unblock UNIT",
		Short: "Return a blocked unit to pending, or to in_progress if it had started",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Unblock(slug, args[0])
			})
		},
	}
}

func newPhaseCmd(g *globals) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "phase PHASE [--force]",
		Short: "Move the task to a phase: discover, plan, execute, verify or deliver",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.SetPhase(slug, args[0], force)
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "move to verify or deliver although units are unfinished")
	return cmd
}

func newGuardrailCmd(g *globals) *cobra.Command {
	var req workspace.GuardrailRequest
	cmd := &cobra.Command{
		Use:   "guardrail --name N --when W --problem P --solution S",
		Short: "Append a lesson to guardrails.md",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				req.Slug = slug
				return ws.Guardrail(req)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "the pattern's name (required)")
	f.StringVar(&req.When, "when", "", "when it applies (required)")
	f.StringVar(&req.Problem, "problem", "", "what went wrong (required)")
	f.StringVar(&req.Solution, "solution", "", "how to avoid it (required)")
	f.StringVar(&req.Learned, "learned", "", "where it was learned, e.g. \"T3 iteration 2\" (written only when given)")
	return cmd
}
