package main

import (
	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newDecideCmd(g *globals) *cobra.Command {
	var req workspace.DecideRequest
	cmd := &cobra.Command{
		Use:   "decide --title T --choice C --why W [--unit UNIT]",
		Short: "Record a settled choice in decisions.md",
		Long: `Record a settled choice in the task's decisions.md (append-only, like guardrails.md) as one
commit, so later sessions do not argue it again: prime lists the decisions in force (title →
choice) and status --json gives them all.

The title names the question the decision settles. Deciding a title again (compared without
regard to case or spacing) appends the new choice, which supersedes the earlier one; the earlier
stays in the file as history. The decision records the unit it was taken in (--unit, by default
the current unit) and when.

decisions.md is checked like the logs: itr verify and the pre-commit hook refuse a change of an
earlier decision, and itr's merge driver joins the decisions of two branches.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				req.Slug = slug
				return ws.Decide(req)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Title, "title", "", "the question it settles, e.g. \"Storage engine\" (required)")
	f.StringVar(&req.Choice, "choice", "", "what was chosen (required)")
	f.StringVar(&req.Why, "why", "", "why, so it is not argued again (required)")
	f.StringVar(&req.Unit, "unit", "", "the unit it was decided in (default: the current unit)")
	return cmd
}

func newSummarizeCmd(g *globals) *cobra.Command {
	var req workspace.SummarizeRequest
	cmd := &cobra.Command{
		Use:   "summarize --did TEXT",
		Short: "Append a Summary entry to progress.md that readers may start from",
		Long: `Append a Summary entry ("## Task - Summary - <time>") to progress.md as one commit: --did says
what the work so far came to, and a Covers field says which entries it stands for (every entry
before it, so a summary repeats what an earlier one said). Nothing earlier changes and the state
does not either.

A reader (and itr prime) may start at the last Summary entry: prime gives the summary and the
entries after it. When what follows the last summary passes progress_token_limit in .itr.yaml
(default 20000 tokens of 4 characters), status and prime say so and ask for a summary.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return runUnitEvent(g, func(ws *workspace.Workspace, slug string) (*workspace.Outcome, error) {
				req.Slug = slug
				return ws.Summarize(req)
			})
		},
	}
	cmd.Flags().StringVar(&req.Did, "did", "", "what the work so far came to: done, decided, left (required)")
	return cmd
}
