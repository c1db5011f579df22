package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
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
			return g.withWorkspace(func(ws *workspace.Workspace) error {
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
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				var heads []string
				for _, kv := range os.Environ() {
					if k, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GITHEAD_") {
						heads = append(heads, strings.TrimPrefix(k, "GITHEAD_"))
					}
				}
				// The commit being picked is named only on the command line of
				// the git that runs this driver (cherry-pick, revert, merge of a
				// hash): its arguments are candidates too.
				heads = append(heads, parentArgs()...)
				ws.SetHeads(heads)
				return ws.MergeDriver(workspace.MergeRequest{Base: args[0], Ours: args[1], Theirs: args[2], Path: args[3]})
			})
		},
	}
}

// parentArgs returns the arguments of the processes above this one (git
// runs a merge driver through a shell), read from /proc where there is
// one; elsewhere none.
func parentArgs() []string {
	var out []string
	pid := os.Getppid()
	for depth := 0; depth < 3 && pid > 1; depth++ {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			break
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		if len(args) > 1 {
			for _, a := range args[1:] {
				if a != "" && !strings.HasPrefix(a, "-") {
					out = append(out, a)
				}
			}
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			break
		}
		// Field 4 of stat, after the parenthesised command name.
		rest := string(stat)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			break
		}
		next, err := strconv.Atoi(f[1])
		if err != nil {
			break
		}
		pid = next
	}
	return out
}
