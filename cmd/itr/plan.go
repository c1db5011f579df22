package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/workspace"
)

func newPlanCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "plan",
		Short: "Apply tasks.md or plan.md: add new units, apply limits, report removed units",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				slug, err := ws.Select("")
				if err != nil {
					return err
				}
				rep, err := ws.Plan(slug)
				if err != nil {
					return err
				}
				view := struct {
					Task    string   `json:"task"`
					Commit  string   `json:"commit,omitempty"`
					Added   []string `json:"added"`
					Removed []string `json:"removed"`
					Changed []string `json:"changed"`
				}{Task: slug, Added: nonNil(rep.Added), Removed: nonNil(rep.Removed), Changed: nonNil(rep.Changed)}
				if rep.Outcome != nil {
					view.Commit = rep.Outcome.Commit
				}
				return g.emit(view, func(w io.Writer) {
					if rep.Outcome == nil {
						fmt.Fprintln(w, "Plan unchanged; nothing to commit.")
						return
					}
					for _, l := range []struct {
						name string
						ids  []string
					}{{"Added", rep.Added}, {"Changed", rep.Changed}, {"Removed", rep.Removed}} {
						if len(l.ids) > 0 {
							fmt.Fprintf(w, "%-8s %s\n", l.name+":", strings.Join(l.ids, ", "))
						}
					}
					fmt.Fprintf(w, "Phase %s; committed %s\n", rep.Outcome.After.Phase, short(rep.Outcome.Commit))
				})
			})
		},
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
