package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/workspace"
)

// Completion. `itr completion bash|zsh|fish|powershell` (cobra's) writes
// the shell's script; these functions give it task slugs for --task and
// unit IDs for the commands that take a UNIT, read from the repository
// the command line points at (-C, --root, --task as typed so far).

// unitFilter keeps the units a command can act on.
type unitFilter func(u workspace.UnitStatus, claimed bool) bool

func unfinishedUnit(u workspace.UnitStatus, _ bool) bool { return u.Status != "done" }

func statusUnit(status string) unitFilter {
	return func(u workspace.UnitStatus, _ bool) bool { return u.Status == status }
}

func claimedUnit(_ workspace.UnitStatus, claimed bool) bool { return claimed }

// completeUnits completes a command's first argument with the unit IDs of
// the selected task that keep passes, each described by its status and
// title.
func completeUnits(g *globals, keep unitFilter) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ws, err := g.open()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer ws.Close()
		sum, err := ws.Status("")
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		claimed := map[string]bool{}
		for _, c := range sum.Claims {
			claimed[c.Unit] = true
		}
		var out []cobra.Completion
		for _, u := range sum.Units {
			if strings.HasPrefix(u.ID, prefix) && keep(u, claimed[u.ID]) {
				out = append(out, cobra.CompletionWithDesc(u.ID, terminalSafe(u.Status+": "+u.Title)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
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

// registerCompletions attaches the completions to the command tree.
func registerCompletions(g *globals, root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("task", completeSlugs(g))
	units := map[string]unitFilter{
		"checkpoint": unfinishedUnit, "claim": unfinishedUnit, "block": unfinishedUnit,
		"unblock": statusUnit("blocked"), "reopen": statusUnit("done"), "release": claimedUnit,
	}
	units["fail"], units["skip"] = unfinishedUnit, unfinishedUnit
	units["reopen"] = func(u workspace.UnitStatus, _ bool) bool {
		return u.Status == "done" || u.Status == "failed" || u.Status == "skipped"
	}
	for _, c := range root.Commands() {
		if keep, ok := units[c.Name()]; ok && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = completeUnits(g, keep)
		}
	}
}
