package main

import (
	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newPauseCmd(g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "pause [--reason TEXT]",
		Short: "Put the task on hold: checkpoints are refused until itr resume",
		Long: `Put the task on hold, as one Paused entry in progress.md and one commit. While paused,
checkpoints (and MCP's checkpoint, start and finish) are refused, naming the reason; status
and prime say the task is paused, since when and why, so the next session reads a pause
that was meant, not a crash. The phase stays where the work stands. itr resume ends it.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Pause(slug, reason)
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the task is on hold")
	return cmd
}

func newResumeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "resume",
		Short: "Take a paused task off hold, or a concluded one back to work",
		Long: `Take a paused task off hold, as one Resumed entry in progress.md and one commit. A task that
has an outcome (itr deliver, itr abandon) takes no work either: resume takes it back to work,
its outcome gone from state.json (the Concluded entry stays in the log), and a delivered task's
phase back to execute.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Resume(slug)
			})
		},
	}
}

func newNoteCmd(g *globals) *cobra.Command {
	var critical bool
	cmd := &cobra.Command{
		Use:   "note TEXT [--critical]",
		Short: "Record a note on the task: a check-in, or context every resume must carry",
		Long: `Record a note on the task as one Note entry in progress.md and one commit. A note is the
check-in prime asks for every N iterations ("Check in every" in the plan, check_in_every in
.itr.yaml). With --critical it is context that every resume must carry: status's
compaction_summary.critical_context and prime list it until the task is archived.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Note(slug, args[0], critical)
			})
		},
	}
	cmd.Flags().BoolVar(&critical, "critical", false, "context every resume must carry")
	return cmd
}
