package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

// claimView is the --json output of itr claim and itr release.
type claimView struct {
	Task       string `json:"task"`
	Unit       string `json:"unit"`
	Agent      string `json:"agent"`
	Since      string `json:"since,omitempty"`
	Until      string `json:"until,omitempty"`
	Renewed    bool   `json:"renewed,omitempty"`
	StolenFrom string `json:"stolen_from,omitempty"`
	Released   bool   `json:"released,omitempty"`
}

func newClaimCmd(g *globals) *cobra.Command {
	var req workspace.ClaimRequest
	cmd := &cobra.Command{
		Use:   "claim [UNIT] [--agent NAME] [--for DURATION] [--steal]",
		Short: "Hold a unit for one agent, so no other agent works on it",
		Long: `Hold a unit (default: the one itr next names) for an agent until its lease ends (--for,
default 2h); each checkpoint of the holder renews it, and a checkpoint of the unit by another
agent is refused while the lease runs. The claim is the ref refs/itr/claims/<slug>/<unit>,
moved only by compare-and-swap: two agents racing for one unit in the worktrees of one
repository end with exactly one holder, and the other is told who holds it. A lease that
ended can be taken with --steal, which is logged as a note. The agent is --agent (a flag of
every command), else ITR_AGENT, else user@host:worktree.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				req.Unit = args[0]
			}
			return g.withTask(func(ws *workspace.Workspace, slug string) error {
				req.Slug = slug
				rep, err := ws.Claim(req)
				if err != nil {
					return err
				}
				c := rep.Claim
				v := claimView{Task: slug, Unit: c.Unit, Agent: c.Agent, Since: c.Since, Until: c.Until, Renewed: rep.Renewed, StolenFrom: rep.Stole}
				return g.emit(v, func(w io.Writer) {
					switch {
					case rep.Renewed:
						fmt.Fprintf(w, "%s: still held by %s, now until %s\n", c.Unit, c.Agent, c.Until)
					case rep.Stole != "":
						fmt.Fprintf(w, "%s: taken by %s from %s (whose lease had ended) until %s; logged in %s\n", c.Unit, c.Agent, rep.Stole, c.Until, short(rep.Note))
					default:
						fmt.Fprintf(w, "%s: claimed by %s until %s\n", c.Unit, c.Agent, c.Until)
					}
				})
			})
		},
	}
	f := cmd.Flags()
	f.DurationVar(&req.For, "for", 0, "the lease (default 2h); each checkpoint of the holder renews it")
	f.BoolVar(&req.Steal, "steal", false, "take a unit whose holder's lease has ended (logged)")
	return cmd
}

func newReleaseCmd(g *globals) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "release UNIT [--agent NAME] [--force]",
		Short: "Give up a unit's claim",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return g.withTask(func(ws *workspace.Workspace, slug string) error {
				c, err := ws.Release(slug, args[0], "", force)
				if err != nil {
					return err
				}
				v := claimView{Task: slug, Unit: c.Unit, Agent: c.Agent, Released: true}
				return g.emit(v, func(w io.Writer) {
					fmt.Fprintf(w, "%s: released (it was held by %s)\n", c.Unit, c.Agent)
				})
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "release a unit another agent holds")
	return cmd
}
