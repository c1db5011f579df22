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
		Short: "Install or remove itr's pre-commit hook (append-only logs for plain git commits), or the server's guard",
	}
	var opt workspace.HookOptions
	var server, serverOff bool
	install := &cobra.Command{
		Use:   "install",
		Short: "Install a pre-commit hook that refuses commits rewriting earlier log entries",
		Long: `Install a pre-commit hook that refuses commits rewriting earlier log entries.

The hook is a copy of the itr-hook program (found beside itr, else on
PATH): it reads the index and HEAD itself, so a commit that stages none of
itr's logs costs one small process and starts neither itr nor git. A commit
that stages a log goes to itr's full check. Without itr-hook, or with
--script, a shell script is installed instead, which asks git diff-index.
After upgrading itr, run it again to bring the copy up to date.

With --server, in the repository a team pushes to (a bare one, usually),
it installs the server's guard instead: a pre-receive hook that refuses a
push whose new commits rewrite an itr log (the pre-commit hook's rule and
message, applied to each pushed commit against its first parent), or that
moves a branch to a history whose logs lost entries. A push that changes
no log costs the hook two git processes. The hook runs itr from the
server's PATH, and refuses pushes, saying so, where it finds none.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if server && opt.Script {
				return usageError{fmt.Errorf("--server and --script: the server's guard is always a script; drop --script")}
			}
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				if server {
					rep, err := ws.InstallServerHook()
					if err != nil {
						return err
					}
					return g.emit(rep, func(w io.Writer) { printServerInstall(w, rep) })
				}
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
	install.Flags().BoolVar(&server, "server", false, "install the server's guard, a pre-receive hook refusing pushes that rewrite an itr log")
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove itr's pre-commit hook (or, with --server, the server's guard) and restore the one it chained",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				what, un := "pre-commit hook", ws.UninstallHook
				if serverOff {
					what, un = "server guard (pre-receive hook)", ws.UninstallServerHook
				}
				rep, err := un()
				if err != nil {
					return err
				}
				return g.emit(rep, func(w io.Writer) {
					switch {
					case !rep.Changed:
						fmt.Fprintf(w, "itr's %s is not installed; nothing changed.\n", what)
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
	uninstall.Flags().BoolVar(&serverOff, "server", false, "remove the server's guard (the pre-receive hook) instead")
	receive := &cobra.Command{
		Use:    "pre-receive",
		Short:  "The check the server's guard runs (the pushed refs on stdin)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			req, err := workspace.ReadPushCheck(g.dir, g.io.In)
			if err != nil {
				return err
			}
			findings, err := workspace.CheckPush(req)
			if err != nil {
				return fmt.Errorf("push refused, as its logs could not be checked: %w", err)
			}
			for _, f := range findings {
				fmt.Fprintf(g.io.Err, "itr: %s: %s: %s\n  fix: %s\n%s\n", short(f.Commit), f.File, f.Problem, f.Fix, f.Diff)
			}
			if len(findings) > 0 {
				return fmt.Errorf("push refused: %d itr log(s) would lose their append-only history", len(findings))
			}
			return nil
		},
	}
	cmd.AddCommand(install, uninstall, check, receive)
	return cmd
}

// printServerInstall says what `itr hooks install --server` did.
func printServerInstall(w io.Writer, rep *workspace.HookReport) {
	switch {
	case !rep.Changed:
		fmt.Fprintf(w, "itr's server guard is already installed and current: %s\n", rep.Hook)
	case rep.Chained != "":
		fmt.Fprintf(w, "Installed the server guard %s; your previous hook runs first, from %s\n", rep.Hook, rep.Chained)
	default:
		fmt.Fprintf(w, "Installed the server guard %s: pushes that rewrite an itr log are refused (itr must be on the PATH of the server's hooks)\n", rep.Hook)
	}
}
