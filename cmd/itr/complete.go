package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/agentsetup"
	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Completion. `itr completion bash|zsh|fish|powershell` (cobra's) writes
// the shell's script; these functions give it task slugs for --task and
// unit IDs for the commands that take a UNIT, read from the repository
// the command line points at (-C, --root, --task as typed so far).

// completeUnits completes a command's first argument with the unit IDs of
// the selected task the rule book accepts the command for now (action;
// nil keeps the claimed units, for release), each
// described by its status and title.
func completeUnits(g *globals, action *reconcile.Action) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ws, err := g.open()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer ws.Close()
		var units []workspace.UnitStatus
		if action != nil {
			units, err = ws.Accepted("", *action)
		} else {
			units, err = claimedUnits(ws)
		}
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, u := range units {
			if strings.HasPrefix(u.ID, prefix) {
				out = append(out, cobra.CompletionWithDesc(u.ID, terminalSafe(u.Status+": "+u.Title)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// claimedUnits are the units with a claim no finish ended (whoever holds
// it: a person may release a claim a stopped agent left).
func claimedUnits(ws *workspace.Workspace) ([]workspace.UnitStatus, error) {
	sum, err := ws.Status("")
	if err != nil {
		return nil, err
	}
	mine := map[string]bool{}
	for _, c := range sum.Claims {
		if c.Finished == "" {
			mine[c.Unit] = true
		}
	}
	var out []workspace.UnitStatus
	for _, u := range sum.Units {
		if mine[u.ID] {
			out = append(out, u)
		}
	}
	return out, nil
}

// completeSlugs completes --task with the slugs of the active tasks.
func completeSlugs(g *globals) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ws, err := g.open()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer ws.Close()
		rows, err := ws.List()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, r := range rows {
			if r.State == "active" && strings.HasPrefix(r.Slug, prefix) {
				out = append(out, cobra.CompletionWithDesc(r.Slug, terminalSafe(r.Task)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerCompletions attaches the completions to the command tree: each
// command that takes a UNIT completes the units the rule book accepts it
// for now.
func registerCompletions(g *globals, root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("task", completeSlugs(g))
	act := func(a reconcile.Action) *reconcile.Action { return &a }
	units := map[string]*reconcile.Action{
		"checkpoint": act(reconcile.Work), "claim": act(reconcile.Start), "block": act(reconcile.Block),
		"unblock": act(reconcile.Unblock), "reopen": act(reconcile.Reopen), "fail": act(reconcile.Fail),
		"skip": act(reconcile.Skip), "restart": act(reconcile.Restart), "release": nil,
		"recheck": act(reconcile.Recheck),
	}
	for _, c := range root.Commands() {
		if action, ok := units[c.Name()]; ok && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = completeUnits(g, action)
		}
	}
	registerEnums(root)
}

// initDomains are the domains itr init --domain names in its help.
var initDomains = []string{"feature", "bug", "refactor", "research", "writing", "analysis", "planning"}

// registerEnums completes every flag and argument that takes one of a
// fixed set of values: --color, --format, --kind, --mode, --domain,
// --hook-json, the PHASE of itr phase and the target of itr setup.
func registerEnums(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("color", enum(colorAuto, colorAlways, colorNever))
	phases := make([]string, len(state.Phases))
	for i, p := range state.Phases {
		phases[i] = string(p)
	}
	flags := map[string]map[string][]string{
		"graph":      {"format": graphFormats},
		"agent-hook": {"format": {"claude", "gemini", "cursor"}},
		"block":      {"kind": state.BlockKinds},
		"fail":       {"kind": state.FailKinds},
		"abandon":    {"kind": state.FailKinds},
		"init":       {"mode": {string(state.Development), string(state.Knowledge)}, "domain": initDomains},
		"prime":      {"hook-json": hookEnvelopes},
	}
	args := map[string][]string{
		"phase": phases,
		"setup": append([]string{"git"}, agentsetup.Agents...),
	}
	for _, c := range root.Commands() {
		for flag, values := range flags[c.Name()] {
			_ = c.RegisterFlagCompletionFunc(flag, enum(values...))
		}
		if values, ok := args[c.Name()]; ok && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(_ *cobra.Command, done []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(done) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return values, cobra.ShellCompDirectiveNoFileComp
			}
		}
	}
}

// enum completes a flag with values, never with file names.
func enum(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(append([]string(nil), values...), cobra.ShellCompDirectiveNoFileComp)
}
