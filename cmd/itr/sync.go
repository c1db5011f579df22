package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/workspace"
)

// syncView is the --json output of itr sync: the report, and the paths
// that stopped it when it stopped on conflicts.
type syncView struct {
	*workspace.SyncReport
	Stopped   string   `json:"stopped,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"`
}

func newSyncCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "sync [REMOTE]",
		Short: "Fetch, integrate and push the branch, its tasks, claims and archives",
		Long: `Sync the current branch with a remote (default: the branch's upstream), the way git pull and
git push would, with itr's files taken care of:

  1. fetch the remote's branch and every task's claims (refs/itr/claims/*);
  2. bring the branch in: a fast-forward, else a merge, or a rebase when pull.rebase (or
     branch.<name>.rebase) says so; itr's merge driver and reconcile resolve conflicts in
     itr's files, and every task whose state.json then disagrees with its log is rebuilt
     (trust git over state);
  3. push the branch, never forcing: when the remote's branch moved meanwhile, sync fetches
     and integrates again (up to 5 rounds);
  4. fetch the archive refs this clone lacks and push those the remote lacks; an archive that
     differs between the two is left alone and reported.

git runs every network step, with your credentials, transports and hooks. Conflicts in other
files stop the sync with the merge or rebase left in progress (exit 3): resolve them, conclude
it, and run itr sync again.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			var req workspace.SyncRequest
			if len(args) == 1 {
				req.Remote = args[0]
			}
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				progress := startProgress(g, "sync")
				rep, err := ws.Sync(req)
				progress.stop()
				var stop *workspace.SyncStopped
				if errors.As(err, &stop) {
					v := syncView{SyncReport: rep, Stopped: string(stop.Op), Conflicts: stop.Unmerged}
					if g.json {
						if eerr := g.emit(v, nil); eerr != nil {
							return eerr
						}
					}
					return problemsError{stop.Error()}
				}
				if err != nil {
					return err
				}
				return g.emit(syncView{SyncReport: rep}, func(w io.Writer) { printSync(w, rep) })
			})
		},
	}
}

func printSync(w io.Writer, rep *workspace.SyncReport) {
	branch := strings.TrimPrefix(rep.Upstream, "refs/heads/")
	if rep.Driver {
		fmt.Fprintln(w, "Registered itr's merge driver in this clone's git config (clones do not copy it).")
	}
	switch rep.Integration {
	case "up-to-date", "":
		fmt.Fprintf(w, "Fetched %s: nothing new on %s.\n", rep.Remote, branch)
	default:
		fmt.Fprintf(w, "Fetched %s: %d new commit%s on %s, brought in by %s.\n", rep.Remote, rep.Fetched, plural(rep.Fetched), branch, rep.Integration)
	}
	if len(rep.Resolved) > 0 {
		fmt.Fprintf(w, "Resolved itr's files: %s\n", strings.Join(rep.Resolved, ", "))
	}
	slugs := make([]string, 0, len(rep.Reconciled))
	for s := range rep.Reconciled {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	for _, s := range slugs {
		fmt.Fprintf(w, "Reconciled %s: state.json rebuilt from the log in %s\n", s, short(rep.Reconciled[s]))
	}
	if rep.Pushed > 0 {
		fmt.Fprintf(w, "Pushed %d commit%s to %s.\n", rep.Pushed, plural(rep.Pushed), strings.TrimPrefix(rep.PushedTo, "refs/heads/"))
	} else {
		fmt.Fprintf(w, "Nothing to push: %s's %s has every commit of this branch.\n", rep.Remote, branch)
	}
	if rep.Attempts > 1 {
		fmt.Fprintf(w, "The remote's branch moved during the sync; it took %d rounds.\n", rep.Attempts)
	}
	for _, a := range rep.Archives {
		fmt.Fprintf(w, "Archive: %s\n", a)
	}
	if rep.Claims > 0 {
		fmt.Fprintf(w, "Claims: %d unit%s held (itr status shows by whom).\n", rep.Claims, plural(rep.Claims))
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "Warning: %s\n", terminalSafe(warn))
	}
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
