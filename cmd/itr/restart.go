package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

// restartView is the --json output of itr restart: the event as the other
// unit commands give it, the iterations the unit keeps, and its outputs
// left as they were.
type restartView struct {
	outcomeView
	// Spent are the iterations the unit used before the restart: they
	// stay spent (its limit and the task's budget count them).
	Spent   int      `json:"iterations_spent"`
	Outputs []string `json:"outputs"`
}

func newRestartCmd(g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "restart UNIT --reason TEXT",
		Short: "Start a unit's work over from nothing (a unit under way or failed back to pending), with the reason",
		Long: `Start a unit's work over from nothing, as one Restarted entry in progress.md and one
commit: seed 004's "restart from 0%" beside resuming from where an interrupted iteration
stopped. The unit goes back to pending; what its work had reached (its progress, items,
last run and verification) no longer holds, and its next checkpoint starts a new attempt
(started_at). The history is kept: its entries stay in the log, its iterations stay spent
(its Max iterations and the task's Max total iterations count them once, before and after),
and the next iteration is numbered after the last. A restart never gives a unit more
iterations: raise its Max iterations in the plan for that.

A unit under way (in_progress, confirming, verifying) or failed restarts. A pending unit has
nothing to restart, a blocked one is unblocked first, a timed-out one needs its limit raised
first, and a done or skipped one is reopened instead (itr reopen). Its outputs are left as
they are (those in the task folder are committed with the entry): the new attempt rewrites
them.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return g.withTask(func(ws *workspace.Workspace, slug string) error {
				rep, err := ws.Restart(workspace.RestartRequest{Slug: slug, Unit: args[0], Reason: reason})
				if err != nil {
					return err
				}
				v := restartView{outcomeView: outcomeJSON(rep.Outcome), Spent: rep.Spent, Outputs: append([]string{}, rep.Outputs...)}
				return g.emit(v, func(w io.Writer) {
					printRepaired(w, rep.Outcome)
					fmt.Fprintf(w, "%s: %s → %s (starts over; %d iteration%s spent)\n", v.Unit, v.From, v.Status, v.Spent, map[bool]string{true: " stays", false: "s stay"}[v.Spent == 1])
					if len(v.Outputs) > 0 {
						fmt.Fprintf(w, "Left as they were: %s (the new attempt rewrites %s)\n", strings.Join(v.Outputs, ", "), map[bool]string{true: "it", false: "them"}[len(v.Outputs) == 1])
					}
					fmt.Fprintf(w, "Committed %s\n", short(rep.Outcome.Commit))
				})
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the unit starts over: what was wrong with the work so far (required)")
	return cmd
}
