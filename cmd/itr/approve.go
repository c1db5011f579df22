package main

import (
	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newApproveCmd(g *globals) *cobra.Command {
	var by, note string
	cmd := &cobra.Command{
		Use:   "approve --by WHO [--note TEXT]",
		Short: "Approve the plan: a plan whose header says **Approval:** required takes no unit work before it",
		Long: `Record a person's approval of the plan, as one Approved entry in progress.md and one
commit; state.json keeps it as approval {by, at, note}. A plan whose header says
"**Approval:** required" takes no unit work (checkpoint, start, finish) until it is approved:
status, next and prime hold the task and offer this command, a person's act. Blocking or
skipping a unit stays open. An approval stays once given: a later edit of the plan does not
take it back (the commit says which plan was approved; git diff from it shows what changed).
Refused when the plan asks for no approval, or has one already.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Approve(workspace.ApproveRequest{Slug: slug, By: by, Note: note})
			})
		},
	}
	cmd.Flags().StringVar(&by, "by", "", "the person who approved the plan (required)")
	cmd.Flags().StringVar(&note, "note", "", "what they said (conditions, scope)")
	return cmd
}

func newRecheckCmd(g *globals) *cobra.Command {
	var did string
	cmd := &cobra.Command{
		Use:   "recheck UNIT --did TEXT",
		Short: "Record that a done unit whose inputs changed was read again against them and still holds",
		Long: `Record that a done unit still holds after its inputs changed, as one Rechecked entry in
progress.md and one commit; the unit stays done. status, prime and verify flag a done unit
whose Inputs (a file, or another unit's outputs) changed in a commit after it was done, or
whose upstream unit was reopened since: read the change (the warning gives the git diff to
look at), then record the re-check with this command, or send the unit back with itr reopen.
Its inputs are compared from the re-check's commit on. Refused for a unit that is not done.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				return ws.Recheck(workspace.RecheckRequest{Slug: slug, Unit: args[0], Did: did})
			})
		},
	}
	cmd.Flags().StringVar(&did, "did", "", "what was read again, and why the work still holds (required)")
	return cmd
}
