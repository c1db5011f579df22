package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/state"
)

func newDeliverCmd(g *globals) *cobra.Command {
	var limitations string
	cmd := &cobra.Command{
		Use:   "deliver [--limitations TEXT]",
		Short: "Wrap the task up with what exists: complete, or done with limitations",
		Long: `Record how the task ended, as one Concluded entry in progress.md and one commit (phase deliver).
When every unit is done, skipped or replaced, the outcome is complete. When some are not (the
task's "**Max total iterations:**" ran out, or what exists is enough), --limitations TEXT says
what the delivery lacks, and the outcome is done with limitations: the unfinished units and
the text. A concluded task takes no more work: itr archive archives it (no --force needed),
itr resume takes it back to work. status, next, prime, list, INDEX.md, the report and the
archive show the outcome.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Deliver(slug, limitations)
			})
		},
	}
	cmd.Flags().StringVar(&limitations, "limitations", "", "what the delivery lacks (required while units are unfinished)")
	return cmd
}

func newAbandonCmd(g *globals) *cobra.Command {
	var reason, kind string
	var failed bool
	cmd := &cobra.Command{
		Use:   "abandon --reason TEXT [--failed [--kind KIND]]",
		Short: "Stop the task unfinished: abandoned, or with --failed, failed",
		Long: `Record that the task stops unfinished, as one Concluded entry in progress.md and one commit:
the outcome abandoned (stopped on purpose), or with --failed, failed (it cannot go on: an
unrecoverable error; --kind says what it needs: ` + strings.Join(state.FailKinds, ", ") + `). The
reason and the unfinished units are kept. A concluded task takes no more work: itr archive
archives it (no --force needed; itr archive --force --reason TEXT records abandoned itself),
itr resume takes it back to work. The slug of an abandoned or failed task, once archived, may
start a new task with itr init.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if kind != "" && !failed {
				return usageError{errors.New("--kind goes with --failed: add --failed to record the task failed, or drop --kind")}
			}
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				if failed {
					return ws.FailTask(slug, reason, kind)
				}
				return ws.Abandon(slug, reason)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the task stops (required)")
	cmd.Flags().BoolVar(&failed, "failed", false, "the task failed: it cannot go on (an unrecoverable error)")
	cmd.Flags().StringVar(&kind, "kind", "", "with --failed, what it needs: "+strings.Join(state.FailKinds, ", "))
	return cmd
}
