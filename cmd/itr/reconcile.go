package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

func newReconcileCmd(g *globals) *cobra.Command {
	var opts workspace.ReconcileOptions
	cmd := &cobra.Command{
		Use:   "reconcile [--check] [--dry-run]",
		Short: "Rebuild state.json from git and the log when they disagree",
		Long: `Rebuild state.json from the task's committed progress.md and plan with the shared reducer
(trust git over state), compare it with state.json on disk, write the result, append a
Reconciled entry listing every discrepancy, and commit. Entries appended to progress.md but not
committed (a crash) are adopted; an uncommitted edit of earlier entries is undone, and the
replaced text kept under .git/itr/recovered/. On a healthy task nothing is written.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				rep, err := ws.Reconcile(opts)
				if err != nil {
					return err
				}
				differs := !rep.Clean() || rep.Diff != ""
				if err := g.emit(rep, func(w io.Writer) { printReconcile(w, rep, opts) }); err != nil {
					return err
				}
				if opts.Check && differs {
					return problemsError{}
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&opts.Check, "check", false, "write nothing; exit 3 when anything differs")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "write nothing; print the change to state.json as a diff")
	return cmd
}

func printReconcile(w io.Writer, rep *workspace.ReconcileReport, opts workspace.ReconcileOptions) {
	if rep.Operation != "" {
		printOperation(w, rep, opts)
		return
	}
	if rep.Clean() && rep.Diff == "" && rep.Commit == "" {
		fmt.Fprintf(w, "%s: state.json agrees with the log; nothing to do.\n", rep.Slug)
	}
	if rep.Clean() && rep.Diff != "" && len(rep.Problems) == 0 && rep.Commit == "" {
		fmt.Fprintf(w, "%s: state.json holds what the log says but is not in itr's canonical form (layout or key order); `itr reconcile` rewrites it\n", rep.Slug)
	}
	for _, u := range rep.Undone {
		verb := "put back from history"
		if rep.Commit == "" {
			verb = "`itr reconcile` puts them back from history"
		}
		fmt.Fprintf(w, "  %s; %s\n", terminalSafe(u.Text), verb)
	}
	if len(rep.Kept) > 0 {
		verb := "adopted"
		if rep.Commit == "" {
			verb = "to adopt"
		}
		fmt.Fprintf(w, "  %s a task folder written without itr: its log has no evidence for these facts of its committed state.json, kept as an Adopted entry:\n", verb)
		for _, k := range rep.Kept {
			fmt.Fprintf(w, "    %s\n", k)
		}
	}
	if rep.Migrated != "" {
		fmt.Fprintf(w, "  %s\n", rep.Migrated)
	}
	for _, d := range rep.Discrepancies {
		fmt.Fprintf(w, "  %s\n", d)
	}
	if rep.Adopted > 0 {
		fmt.Fprintf(w, "  adopted %d uncommitted entries of progress.md\n", rep.Adopted)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  note: %s\n", p)
	}
	for _, s := range rep.Saved {
		fmt.Fprintf(w, "  replaced content kept in %s\n", s)
	}
	if opts.DryRun && rep.Diff != "" {
		fmt.Fprintf(w, "\n%s", rep.Diff)
	}
	if rep.Commit != "" {
		fmt.Fprintf(w, "Reconciled; committed %s\n", short(rep.Commit))
	}
}

func newVerifyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check the task's history and state without changing anything (exit 3 on findings)",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				progress := startProgress(g, "verify")
				rep, err := ws.VerifyWith(workspace.VerifyRequest{Progress: progress.commits})
				progress.stop()
				if err != nil {
					return err
				}
				if err := g.emit(rep, func(w io.Writer) {
					if rep.Shallow != nil {
						fmt.Fprintf(w, "note: %s\n", rep.Shallow.Note())
					}
					for _, f := range rep.Repaired {
						fmt.Fprintf(w, "note: %s @ %s: %s\n", f.File, short(f.Commit), terminalSafe(f.Problem))
					}
					for _, f := range rep.Warnings {
						fmt.Fprintf(w, "warning: %s: %s\n  fix: %s\n", f.File, terminalSafe(f.Problem), terminalSafe(f.Fix))
					}
					if len(rep.Findings) == 0 {
						fmt.Fprintf(w, "%s: clean (%d commits checked)\n", rep.Slug, rep.Commits)
						return
					}
					for _, f := range rep.Findings {
						loc := f.File
						if f.Commit != "" {
							loc += " @ " + short(f.Commit)
						}
						fmt.Fprintf(w, "%s: %s\n  fix: %s\n", loc, f.Problem, f.Fix)
						if f.Diff != "" {
							fmt.Fprintf(w, "%s\n", f.Diff)
						}
					}
				}); err != nil {
					return err
				}
				if len(rep.Findings) > 0 {
					return problemsError{msg: fmt.Sprintf("%d finding(s)", len(rep.Findings))}
				}
				return nil
			})
		},
	}
}

func printOperation(w io.Writer, rep *workspace.ReconcileReport, opts workspace.ReconcileOptions) {
	if len(rep.Staged) == 0 {
		fmt.Fprintf(w, "%s: a git %s is in progress; the task's files are already resolved.\n", rep.Slug, rep.Operation)
	}
	verb := "Resolved and staged"
	if opts.Check || opts.DryRun {
		verb = "Would resolve and stage"
	}
	for _, p := range rep.Staged {
		fmt.Fprintf(w, "%s %s\n", verb, p)
	}
	if rep.Adopted > 0 {
		fmt.Fprintf(w, "  %d entries only the other side had were appended to the log\n", rep.Adopted)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  note: %s\n", terminalSafe(p))
	}
	if opts.DryRun && rep.Diff != "" {
		fmt.Fprintf(w, "\n%s", rep.Diff)
	}
	if len(rep.Unresolved) > 0 {
		fmt.Fprintf(w, "Still conflicted (resolve them yourself): %s\n", strings.Join(rep.Unresolved, ", "))
	}
	if !opts.Check && !opts.DryRun && len(rep.Staged) > 0 {
		fmt.Fprintf(w, "Conclude the %s with git (itr never does): `git commit` or `git %s --continue`.\n", rep.Operation, rep.Operation)
	}
}
