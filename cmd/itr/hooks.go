package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/workspace"
)

func newHooksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install or remove itr's pre-commit hook (append-only logs for plain git commits)",
	}
	install := &cobra.Command{
		Use:   "install",
		Short: "Install a pre-commit hook that refuses commits rewriting earlier log entries",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				rep, err := ws.InstallHook()
				if err != nil {
					return err
				}
				return g.emit(rep, func(w io.Writer) {
					switch {
					case !rep.Changed:
						fmt.Fprintf(w, "itr's pre-commit hook is already installed: %s\n", rep.Hook)
					case rep.Chained != "":
						fmt.Fprintf(w, "Installed %s; your previous hook runs first, from %s\n", rep.Hook, rep.Chained)
					default:
						fmt.Fprintf(w, "Installed %s\n", rep.Hook)
					}
				})
			})
		},
	}
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove itr's pre-commit hook and restore the one it chained",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				rep, err := ws.UninstallHook()
				if err != nil {
					return err
				}
				return g.emit(rep, func(w io.Writer) {
					switch {
					case !rep.Changed:
						fmt.Fprintln(w, "itr's pre-commit hook is not installed; nothing changed.")
					case rep.Chained != "":
						fmt.Fprintf(w, "Removed itr's hook and restored your previous %s\n", rep.Hook)
					default:
						fmt.Fprintf(w, "Removed %s\n", rep.Hook)
					}
				})
			})
		},
	}
	check := &cobra.Command{
		Use:    "pre-commit",
		Short:  "The check the pre-commit hook runs",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				findings, err := ws.CheckStaged()
				if err != nil {
					return err
				}
				for _, f := range findings {
					fmt.Fprintf(g.io.Err, "itr: %s: %s\n  fix: %s\n%s\n", f.File, f.Problem, f.Fix, f.Diff)
				}
				if len(findings) > 0 {
					return fmt.Errorf("commit refused: %d itr log(s) would lose their append-only history", len(findings))
				}
				return nil
			})
		},
	}
	cmd.AddCommand(install, uninstall, check)
	return cmd
}
