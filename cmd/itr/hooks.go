package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newHooksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install or remove itr's pre-commit hook (append-only logs for plain git commits)",
	}
	var opt workspace.HookOptions
	install := &cobra.Command{
		Use:   "install",
		Short: "Install a pre-commit hook that refuses commits rewriting earlier log entries",
		Long: `Install a pre-commit hook that refuses commits rewriting earlier log entries.

The hook is a copy of the itr-hook program (found beside itr, else on
PATH): it reads the index and HEAD itself, so a commit that stages none of
itr's logs costs one small process and starts neither itr nor git. A commit
that stages a log goes to itr's full check. Without itr-hook, or with
--script, a shell script is installed instead, which asks git diff-index.
After upgrading itr, run it again to bring the copy up to date.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				rep, err := ws.InstallHook(opt)
				if err != nil {
					return err
				}
				return g.emit(rep, func(w io.Writer) {
					what := "the itr-hook program, from " + rep.Program
					if rep.Kind == "script" {
						what = "a shell script: " + rep.Why
					}
					switch {
					case !rep.Changed:
						fmt.Fprintf(w, "itr's pre-commit hook is already installed and current: %s (%s)\n", rep.Hook, what)
					case rep.Chained != "":
						fmt.Fprintf(w, "Installed %s (%s); your previous hook runs first, from %s\n", rep.Hook, what, rep.Chained)
					default:
						fmt.Fprintf(w, "Installed %s (%s)\n", rep.Hook, what)
					}
				})
			})
		},
	}
	install.Flags().BoolVar(&opt.Script, "script", false, "install the shell-script hook even where itr-hook is found")
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
