package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/workspace"
)

func newArchiveCmd(g *globals) *cobra.Command {
	var req workspace.ArchiveRequest
	cmd := &cobra.Command{
		Use:   "archive [SLUG] [--force --reason TEXT] [--keep]",
		Short: "Archive a finished task as a git branch and tag, and remove its folder",
		Long: `Record the task's final checkpoint (an Archived entry, phase complete), point the branch
itr/archive/<slug> and a new annotated tag itr/archive/<slug>/<YYYY-MM-DD> (then -2, -3 on the
same day) at it, read both back, and only then remove the task folder from the working branch
in one commit. Unfinished units are refused (and listed) unless --force --reason TEXT, which is
logged. --keep also commits a plain copy under <root>/archive/<slug>-YYYYMMDD/ in that commit.

Share archives with itr sync, which pushes the archive refs the remote lacks, or with: git push origin
'refs/heads/itr/archive/*:refs/heads/itr/archive/*' 'refs/tags/itr/archive/*:refs/tags/itr/archive/*'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				req.Slug = args[0]
			}
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				rep, err := ws.Archive(req)
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
					fmt.Fprintf(w, "Branch:  %s → %s\n", rep.Branch, short(rep.Checkpoint))
					fmt.Fprintf(w, "Tag:     %s\n", rep.Tag)
					if rep.Kept != "" {
						fmt.Fprintf(w, "Copy:    %s/\n", rep.Kept)
					}
					fmt.Fprintf(w, "Removed %s in %s\n", ws.TaskDir(rep.Slug), short(rep.Commit))
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
	return cmd
}

func dashList(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}
