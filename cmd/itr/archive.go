package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newArchiveCmd(g *globals) *cobra.Command {
	var req workspace.ArchiveRequest
	cmd := &cobra.Command{
		Use:   "archive [SLUG] [--force --reason TEXT] [--keep] [--remove-outputs]",
		Short: "Archive a finished task as a git branch and tag, and remove its folder (but its outputs)",
		Long: `Record the task's final checkpoint (an Archived entry, phase complete), point the branch
itr/archive/<slug> and a new annotated tag itr/archive/<slug>/<YYYY-MM-DD> (then -2, -3 on the
same day) at it, read both back, and only then remove the task folder from the working branch
in one commit. Unfinished units are refused (and listed) unless the task has an outcome (itr
deliver, itr abandon) or --force --reason TEXT, which records the outcome abandoned first (a
Concluded entry and its own commit) and is logged. The archive keeps the outcome: complete for
a finished task. The slug of an abandoned or failed task may start a new task (itr init); the
old one stays reachable by its tag (itr restore SLUG --from TAG). --keep also commits a plain copy under <root>/archive/<slug>-YYYYMMDD/ in that commit.

The task's outputs/ and sources/ are its deliverables: they stay in the working tree, still
tracked, and the commit removes every other file of the folder (a folder holding only them is
not a task: list, status and prime pass it by; itr init of the slug and itr restore use it).
--remove-outputs takes them out too. The archive refs hold every file either way.

Share archives with itr sync, which pushes the archive refs the remote lacks, or with: git push origin
'refs/heads/itr/archive/*:refs/heads/itr/archive/*' 'refs/tags/itr/archive/*:refs/tags/itr/archive/*'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				req.Slug = args[0]
			}
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				progress := startProgress(g, "archive")
				rep, err := ws.Archive(req)
				progress.stop()
				var ue *workspace.UnfinishedError
				if errors.As(err, &ue) && !g.json {
					fmt.Fprintf(g.io.Err, "Unfinished units of %s:\n", ue.Slug)
					for _, u := range ue.Units {
						fmt.Fprintf(g.io.Err, "  %s\n", u)
					}
				}
				if err != nil {
					return err
				}
				return g.emit(rep, func(w io.Writer) {
					fmt.Fprintf(w, "Archived %s: %d/%d units done, %d iterations\n", rep.Slug, rep.Done, rep.Total, rep.Iterations)
					if rep.Forced != "" {
						fmt.Fprintf(w, "Forced: %s (unfinished: %s)\n", rep.Forced, dashList(rep.Unfinished))
					}
					if rep.Outcome != nil {
						fmt.Fprintf(w, "Outcome: %s\n", terminalSafe(rep.Outcome.Text()))
					}
					fmt.Fprintf(w, "Branch:  %s → %s\n", rep.Branch, short(rep.Checkpoint))
					fmt.Fprintf(w, "Tag:     %s\n", rep.Tag)
					if rep.Kept != "" {
						fmt.Fprintf(w, "Copy:    %s/\n", rep.Kept)
					}
					if len(rep.Deliverables) > 0 {
						fmt.Fprintf(w, "Removed %s in %s, but its deliverables, kept in place and tracked: %s/ (--remove-outputs takes them out)\n",
							ws.TaskDir(rep.Slug), short(rep.Commit), strings.Join(rep.Deliverables, "/, "))
					} else {
						fmt.Fprintf(w, "Removed %s in %s\n", ws.TaskDir(rep.Slug), short(rep.Commit))
					}
					for _, warn := range rep.ClaimWarnings {
						fmt.Fprintf(w, "Warning: %s\n", terminalSafe(warn))
					}
					fmt.Fprintf(w, "Share it: itr sync, or git push origin 'refs/heads/itr/archive/*:refs/heads/itr/archive/*' 'refs/tags/itr/archive/*:refs/tags/itr/archive/*'\n")
				})
			})
		},
	}
	cmd.Flags().BoolVar(&req.Force, "force", false, "archive although units are unfinished (needs --reason)")
	cmd.Flags().StringVar(&req.Reason, "reason", "", "why the task is archived unfinished (logged)")
	cmd.Flags().BoolVar(&req.Keep, "keep", false, "also commit a plain copy under <root>/archive/<slug>-YYYYMMDD/")
	cmd.Flags().BoolVar(&req.RemoveOutputs, "remove-outputs", false, "also take the task's outputs/ and sources/ out of the working tree (kept by default)")
	return cmd
}

func dashList(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}
