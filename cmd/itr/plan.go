package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newPlanCmd(g *globals) *cobra.Command {
	var drop []string
	var reason string
	cmd := &cobra.Command{
		Use:   "plan [--drop UNIT --reason TEXT]",
		Short: "Apply tasks.md or plan.md: add new units, apply limits, report removed units",
		Long: `Apply tasks.md (development) or plan.md (knowledge): new units become pending, changed
limits apply, removed units are reported (a started one only goes with --drop UNIT --reason).
One commit; none when nothing changed. A plan with errors is refused at its file:line and
nothing changes.

Units are checkbox lines under "## Tasks" (or "## Phases"), in any of these forms:

  - [ ] **T1**: Add the User model
  - [ ] IV-A: Corporate structure
  - [ ] S1: Search: Find sources (Status: PENDING, DependsOn: P1, P2)

A unit ID starts with a letter and holds letters, digits, - and _ (T1, IV-A, W2-001,
PHASE_3_HIGH_SEVERITY); never a dot (IV.A), and two IDs that differ only in case clash.
The last form is seed 003's: DependsOn is the unit's dependencies (as a "- Depends: P1, P2"
sub-item, which may also be given if it lists the same units), and Status is PENDING,
BLOCKED, IN_PROGRESS, COMPLETED or FAILED, COMPLETED exactly when the box is [x]. Like the
box, the Status is a view of the log: every event rewrites it.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				slug, err := ws.Select("")
				if err != nil {
					return err
				}
				progress := startProgress(g, "plan")
				rep, err := ws.Plan(workspace.PlanRequest{Slug: slug, Drop: drop, Reason: reason})
				progress.stop()
				if err != nil {
					return err
				}
				view := struct {
					Task     string   `json:"task"`
					Commit   string   `json:"commit,omitempty"`
					Added    []string `json:"added"`
					Removed  []string `json:"removed"`
					Changed  []string `json:"changed"`
					Dropped  []string `json:"dropped"`
					Warnings []string `json:"warnings,omitempty"`
				}{Task: slug, Added: nonNil(rep.Added), Removed: nonNil(rep.Removed), Changed: nonNil(rep.Changed), Dropped: nonNil(rep.Dropped), Warnings: rep.Warnings}
				if rep.Outcome != nil {
					view.Commit = rep.Outcome.Commit
				}
				return g.emit(view, func(w io.Writer) {
					defer func() {
						for _, warn := range rep.Warnings {
							fmt.Fprintf(w, "Warning: %s\n", warn)
						}
					}()
					if rep.Outcome == nil {
						fmt.Fprintln(w, "Plan unchanged; nothing to commit.")
						return
					}
					for _, l := range []struct {
						name string
						ids  []string
					}{{"Added", rep.Added}, {"Changed", rep.Changed}, {"Removed", rep.Removed}, {"Dropped", rep.Dropped}} {
						if len(l.ids) > 0 {
							fmt.Fprintf(w, "%-8s %s\n", l.name+":", strings.Join(l.ids, ", "))
						}
					}
					fmt.Fprintf(w, "Phase %s; committed %s\n", rep.Outcome.After.Phase, short(rep.Outcome.Commit))
				})
			})
		},
	}
	cmd.Flags().StringArrayVar(&drop, "drop", nil, "drop a started `UNIT` that the plan file no longer has (repeatable; needs --reason)")
	cmd.Flags().StringVar(&reason, "reason", "", "why the units given with --drop are dropped")
	return cmd
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
