package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/workspace"
)

func newSetupCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "setup",
		Short: "Register itr's git merge driver in this clone (itr init does it for new tasks)",
		Long: `Register itr's git merge driver, so that git merge, rebase and cherry-pick resolve
progress.md, guardrails.md and state.json by themselves: the log becomes the union of both
sides' entries and state.json is rebuilt from it. It adds three lines to <root>/.gitattributes
and a [merge "itr"] section to the repository's git config, leaving everything else as it was.
Run it once in every clone (git does not copy config); running it again changes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			ws, err := g.open()
			if err != nil {
				return err
			}
			defer ws.Close()
			changed, err := ws.Setup()
			if err != nil {
				return err
			}
			return g.emit(map[string]any{"changed": nonNil(changed)}, func(w io.Writer) {
				if len(changed) == 0 {
					fmt.Fprintln(w, "itr's merge driver is already registered.")
					return
				}
				for _, c := range changed {
					fmt.Fprintf(w, "registered: %s\n", c)
				}
			})
		},
	}
}

func newMergeDriverCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:    "merge-driver BASE OURS THEIRS PATH",
		Short:  "git merge driver for itr's files (registered by itr setup)",
		Hidden: true,
		Args:   cobra.ExactArgs(4),
		RunE: func(_ *cobra.Command, args []string) error {
			ws, err := g.open()
			if err != nil {
				return err
			}
			defer ws.Close()
			var heads []string
			for _, kv := range os.Environ() {
				if k, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GITHEAD_") {
					heads = append(heads, strings.TrimPrefix(k, "GITHEAD_"))
				}
			}
			ws.SetHeads(heads)
			return ws.MergeDriver(workspace.MergeRequest{Base: args[0], Ours: args[1], Theirs: args[2], Path: args[3]})
		},
	}
}
