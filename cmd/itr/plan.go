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
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				slug, err := ws.Select("")
				if err != nil {
					return err
				}
				rep, err := ws.Plan(workspace.PlanRequest{Slug: slug, Drop: drop, Reason: reason})
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
