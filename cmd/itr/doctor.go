package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newDoctorCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Say which git engine serves this repository, and why",
		Long: `Say how itr reaches git here: the native engine (itr reads and writes git's files itself,
the fast path, used only where it writes what git would write) or git's own plumbing (every
repository git can use: SHA-256, reftable, split and sparse index, CRLF clones and attribute
filters, signed commits, GIT_DIR and the rest of git's environment, run_hooks). Each reason
names the setting, file:line or variable that decided it. The choice is made again by every
command, from the repository as it is then.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				rep := ws.Doctor()
				return g.emit(rep, func(w io.Writer) { printDoctor(w, rep) })
			})
		},
	}
}

func printDoctor(w io.Writer, rep workspace.DoctorReport) {
	switch rep.Engine {
	case "native":
		fmt.Fprintln(w, "Engine:     native (itr writes git's objects, index and refs itself; nothing here needs git's plumbing)")
	default:
		fmt.Fprintln(w, "Engine:     git (git's own plumbing), because:")
		for _, r := range rep.Reasons {
			if r.Value != "" {
				fmt.Fprintf(w, "  - %s = %s: %s\n", terminalSafe(r.Setting), terminalSafe(r.Value), terminalSafe(r.Why))
			} else {
				fmt.Fprintf(w, "  - %s: %s\n", terminalSafe(r.Setting), terminalSafe(r.Why))
			}
		}
	}
	root := rep.Root
	if root == "" {
		root = "(bare)"
	}
	fmt.Fprintf(w, "Repository: %s\n", terminalSafe(root))
	fmt.Fprintf(w, "Git dir:    %s\n", terminalSafe(rep.GitFolder))
	fmt.Fprintf(w, "Objects:    %s\n", rep.ObjectFormat)
	fmt.Fprintf(w, "Task root:  %s\n", terminalSafe(rep.TaskRoot))
	fmt.Fprintf(w, "Run hooks:  %v\n", rep.RunHooks)
	git := rep.Git
	if git == "" {
		git = "not found on PATH"
	}
	fmt.Fprintf(w, "Git:        %s\n", git)
	if h := rep.PreCommit; h != nil {
		what := map[string]string{
			"program": "itr's (the itr-hook program)",
			"script":  "itr's (the shell script)",
			"other":   "not itr's",
			"none":    "none",
		}[h.Kind]
		if h.Fix != "" {
			what += "; " + h.Fix
		}
		fmt.Fprintf(w, "Pre-commit: %s\n", terminalSafe(what))
	}
}
