package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newRestoreCmd(g *globals) *cobra.Command {
	var req workspace.RestoreRequest
	cmd := &cobra.Command{
		Use:   "restore SLUG [--from TAG]",
		Short: "Bring an archived task back onto the current branch",
		Long: `Bring an archived task's folder back from its archive (the newest, or the one --from names:
a tag such as itr/archive/<slug>/2026-01-14, its date part, or a full ref) onto the current
branch as one commit, with a Restored entry appended (phase execute), so work can go on.
Refused while an active task has the slug. The outputs/ and sources/ an archive left in place
are taken as they are: a file changed since the archive keeps the working tree's version (the
report names it; the archived one stays in the archive). In a fresh clone, fetch the archives first:
git fetch origin 'refs/heads/itr/archive/*:refs/heads/itr/archive/*' 'refs/tags/itr/archive/*:refs/tags/itr/archive/*'`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			req.Slug = args[0]
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				progress := startProgress(g, "restore")
				rep, err := ws.Restore(req)
				progress.stop()
				if err != nil {
					return err
				}
				return g.emit(rep, func(w io.Writer) {
					fmt.Fprintf(w, "Restored %s from %s into %s (phase %s)\n", rep.Slug, rep.From, ws.TaskDir(rep.Slug), rep.Phase)
					fmt.Fprintf(w, "Committed %s\n", short(rep.Commit))
					for _, f := range rep.KeptNewer {
						fmt.Fprintf(w, "Kept the working tree's %s: it changed since the archive (the archived version stays in %s)\n", terminalSafe(f), rep.From)
					}
				})
			})
		},
	}
	cmd.Flags().StringVar(&req.From, "from", "", "which archive: a tag, its date part (2026-01-14-2), or a full ref; default the newest")
	return cmd
}
