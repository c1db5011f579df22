package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/state"
)

// reopenView is the --json output of itr reopen: the event as the other
// unit commands give it, and the started units that depend on the
// reopened one (named, never changed).
type reopenView struct {
	outcomeView
	Dependants []dependantView `json:"dependants"`
}

// dependantView is one started unit that depends on the reopened one.
type dependantView struct {
	Unit       string `json:"unit"`
	Status     string `json:"status"`
	Iterations int    `json:"iterations"`
}

func newReopenCmd(g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "reopen UNIT --reason TEXT",
		Short: "Send a done unit found wrong back to in_progress (or a failed or skipped unit back to work), with the reason",
		Long: `Send a done unit found wrong back to in_progress, as one Reopened entry in progress.md and
one commit. The unit keeps its iterations and its Max iterations (only the plan raises the
limit); its verification no longer holds. Only a done unit reopens: a unit in confirming or
verifying is still open (a checkpoint without --signal or --verified sends it back). Units
that depend on it and were started are named as a warning and left as they are.

A failed or skipped unit (itr fail, itr skip) reopens too, with its reason and kind gone: to
in_progress when it had iterations, else to pending.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return g.withTask(func(ws *workspace.Workspace, slug string) error {
				return reopen(g, ws, slug, args[0], reason)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "what was found wrong with the unit (required)")
	return cmd
}

// reopen runs itr reopen and prints what it did.
func reopen(g *globals, ws *workspace.Workspace, slug, unit, reason string) error {
	rep, err := ws.Reopen(slug, unit, reason)
	if err != nil {
		return err
	}
	out := rep.Outcome
	v := reopenView{outcomeView: outcomeJSON(out), Dependants: []dependantView{}}
	for _, d := range rep.Dependants {
		dv := dependantView{Unit: d.ID, Status: string(d.Status)}
		if u := out.After.Units[d.ID]; u != nil {
			dv.Iterations = state.Val(u.IterationsUsed)
		}
		v.Dependants = append(v.Dependants, dv)
	}
	return g.emit(v, func(w io.Writer) {
		printRepaired(w, out)
		fmt.Fprintf(w, "%s: %s → %s\n", v.Unit, v.From, v.Status)
		for _, d := range v.Dependants {
			fmt.Fprintf(w, "Warning: %s (%s, %d iteration%s) depends on %s and was started; it is left as it is: check that its work still holds\n",
				d.Unit, d.Status, d.Iterations, map[bool]string{true: "", false: "s"}[d.Iterations == 1], v.Unit)
		}
		fmt.Fprintf(w, "Committed %s\n", short(out.Commit))
	})
}
