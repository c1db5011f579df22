package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/workspace"
)

func newCheckpointCmd(g *globals) *cobra.Command {
	var req workspace.CheckpointRequest
	cmd := &cobra.Command{
		Use:   "checkpoint [UNIT]",
		Short: "Record one iteration as one commit",
		Long: `Record one iteration of a unit: append an entry to progress.md, fold it into state.json,
and commit both (with the task folder's other changes) as one commit.

The lifecycle: the first checkpoint starts a pending unit; in in_progress, --signal declares
the work done (→ confirming); in confirming, --signal confirms (→ verifying) and no signal
sends it back to in_progress; in verifying, --verified closes it (→ done) and no flag sends it
back. A checkpoint that uses the last allowed iteration without declaring the work done moves
the unit to timeout.

A unit whose plan names outputs ("Output:", with "Min words:" and "Complete: sentences")
takes --signal and --verified only while each output file is there, not empty, long enough,
not cut off ("...", "…", "[continued", "[TBD]", "TODO", an open code fence) and, if asked,
ending with a whole sentence; otherwise nothing is recorded and each problem is named.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				req.Unit = args[0]
			}
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				slug, err := ws.Select("")
				if err != nil {
					return err
				}
				req.Slug = slug
				out, err := ws.Checkpoint(req)
				if err != nil {
					return err
				}
				v := outcomeJSON(out)
				return g.emit(v, func(w io.Writer) {
					arrow := v.Status
					if v.From != v.Status {
						arrow = v.From + " → " + v.Status
					}
					printRepaired(w, out)
					fmt.Fprintf(w, "%s iteration %d recorded: %s\n", v.Unit, v.Iteration, arrow)
					fmt.Fprintf(w, "Committed %s\n", short(out.Commit))
					for _, warn := range out.Warnings {
						fmt.Fprintf(w, "Warning: %s\n", terminalSafe(warn))
					}
				})
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Did, "did", "", "what this iteration accomplished (required)")
	f.StringVar(&req.Remaining, "remaining", "", "what is left (default None)")
	f.StringVar(&req.Blockers, "blockers", "", "issues in the way (default None)")
	f.BoolVar(&req.Signal, "signal", false, "the work is done (in_progress) or the confirmation holds (confirming)")
	f.BoolVar(&req.Verified, "verified", false, "verification passed (verifying)")
	f.StringArrayVar(&req.Commits, "commit", nil, "a work commit to name (repeatable; default: the commits since the last checkpoint)")
	return cmd
}
