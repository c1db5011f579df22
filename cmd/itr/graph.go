package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/atomicfile"
	"github.com/itr-dev/itr/internal/workspace"
)

// graphFormats are the formats of itr graph, the default first.
var graphFormats = []string{"ascii", "mermaid", "dot"}

// graphOutView is what itr graph --out --json prints.
type graphOutView struct {
	Task   string `json:"task"`
	Format string `json:"format"`
	Out    string `json:"out"`
	Units  int    `json:"units"`
}

// newGraphCmd is itr graph: the plan as a graph of its units.
func newGraphCmd(g *globals) *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "graph [--format ascii|mermaid|dot] [--out FILE]",
		Short: "The plan as a graph: units by status, dependencies and the critical path",
		Long: `Draw the plan of the task as a graph: a box per unit coloured by its class (done,
in_progress, confirming, verifying, blocked, timeout, ready: pending with its
dependencies settled, waiting: pending with some not, failed, skipped; a dependency is
settled when done, skipped, or failed and replaced by a done unit), an arrow from each dependency
to the unit that needs it, who holds a claimed unit, and the critical path: the longest
chain of unfinished units (by Estimate when every unfinished unit has one, else by count),
drawn thick.

Formats (--format):
  ascii    for the terminal (the default): the units layer by layer, those that depend on
           nothing first, each with a status marker, its dependencies (← T1, T2), a * on the
           critical path and its claim; titles are cut to the width of $COLUMNS
  mermaid  a Mermaid flowchart, which GitHub, GitLab and many editors render in Markdown:
           put it in a ` + "```mermaid" + ` block, or write it with --out plan.mmd
  dot      Graphviz's DOT language, for an image:
             itr graph --format dot | dot -Tsvg > plan.svg

--out FILE writes the graph to FILE (replaced whole, never half-written) instead of
stdout and says where. --json prints the graph's model (nodes, edges, critical path)
instead of a drawing. Titles are collaborator text: they are escaped in every format,
so no title can break out of its label or drive the terminal.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			format = strings.ToLower(strings.TrimSpace(format))
			if !slices.Contains(graphFormats, format) {
				return usageError{fmt.Errorf("--format %s: choose one of %s", strconv.Quote(format), strings.Join(graphFormats, ", "))}
			}
			return g.withTask(func(ws *workspace.Workspace, slug string) error {
				gm, err := ws.Graph(slug)
				if err != nil {
					return err
				}
				if out == "" {
					g.drawing = true // a drawing, DOT or Mermaid: never wrapped
					return g.emit(gm, func(w io.Writer) { _, _ = io.WriteString(w, renderGraph(gm, format, columns(g))) })
				}
				data := []byte(renderGraph(gm, format, 0))
				written := format
				if g.json {
					if data, err = json.MarshalIndent(gm, "", "  "); err != nil {
						return err
					}
					data = append(data, '\n')
					written = "json"
				}
				if err := atomicfile.Write(out, data, 0o644); err != nil {
					return fmt.Errorf("writing the graph to %s: %w", out, err)
				}
				v := graphOutView{Task: slug, Format: written, Out: out, Units: len(gm.Nodes)}
				return g.emit(v, func(w io.Writer) {
					fmt.Fprintf(w, "wrote the %s graph of %s (%d unit%s) to %s\n", written, slug, v.Units, plural(v.Units), out)
				})
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "ascii", "ascii (the terminal), mermaid (GitHub, editors) or dot (Graphviz)")
	cmd.Flags().StringVar(&out, "out", "", "write the graph to `FILE` instead of stdout")
	return cmd
}

// renderGraph is gm drawn in format; width cuts the titles of ascii.
func renderGraph(gm *workspace.GraphModel, format string, width int) string {
	switch format {
	case "mermaid":
		return gm.Mermaid()
	case "dot":
		return gm.Dot()
	}
	return gm.ASCII(width)
}

// columns is the terminal's width as $COLUMNS gives it, 0 when unknown.
func columns(g *globals) int {
	n, err := strconv.Atoi(strings.TrimSpace(g.io.Getenv("COLUMNS")))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
