package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/atomicfile"
	"github.com/itr-dev/itr/internal/workspace"
)

// reportView is the --json output of itr report.
type reportView struct {
	Task  string `json:"task"`
	Out   string `json:"out"` // the file written, "-" for stdout
	Bytes int    `json:"bytes"`
}

func newReportCmd(g *globals) *cobra.Command {
	var out string
	history := workspace.DefaultReportHistory
	cmd := &cobra.Command{
		Use:   "report [--out FILE] [--history N]",
		Short: "The task as one self-contained HTML page",
		Long: `Render the task as one HTML file: the header (goal, mode, phase, progress, pace), the plan
as a graph (the critical path thicker), every unit's entries in order (iterations, signals,
verification runs and their results, blocks, reopens), the task's notes, its guardrails and
what reconcile fixed, the decisions in force, and what needs a person (failed units and what
replaces them, units blocked on a decision, failed checks). The timeline is newest first: the
units by their latest entry, each showing its newest --history entries (default 10; 0 shows
all) with the older ones counted. The graph fits the page's width. The page holds no script and loads nothing: its CSS is inline and its
Content-Security-Policy forbids everything else, so it can be mailed, attached or archived.

With --out FILE it is written there (atomically). Without it, it goes to stdout when stdout
is not a terminal (itr report > report.html), else to itr-report-<slug>.html in the
temporary folder, whose path is printed (with --json too: {"task", "out", "bytes"}).`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if history < 0 {
				return usageError{fmt.Errorf("--history %d: give how many entries each unit shows, 0 for all", history)}
			}
			return g.withTask(func(ws *workspace.Workspace, slug string) error {
				progress := startProgress(g, "report")
				page, err := ws.ReportWith(workspace.ReportRequest{Slug: slug, History: history})
				progress.stop()
				if err != nil {
					return err
				}
				path := out
				if path == "" && !isTerminal(g.raw.Out) && !g.json {
					_, err := g.io.Out.Write(page)
					return err
				}
				if path == "" {
					path = filepath.Join(os.TempDir(), "itr-report-"+slug+".html")
				}
				if err := atomicfile.Write(path, page, 0o644); err != nil {
					return err
				}
				v := reportView{Task: slug, Out: path, Bytes: len(page)}
				return g.emit(v, func(w io.Writer) {
					if out == "" {
						fmt.Fprintln(w, path)
						return
					}
					fmt.Fprintf(w, "Wrote %s (%s)\n", path, kilobytes(len(page)))
				})
			})
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the page to `FILE`")
	cmd.Flags().IntVar(&history, "history", history, "show the newest `N` entries of each unit and of the task log, newest first (0: all)")
	return cmd
}

// kilobytes words a size as "12 KB" (at least 1 KB for a non-empty file).
func kilobytes(n int) string {
	kb := (n + 1023) / 1024
	return fmt.Sprintf("%d KB", kb)
}
