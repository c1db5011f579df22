package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"
)

func newMCPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve itr's tools to an MCP client over stdio (resume, start, checkpoint, finish, block, reopen, decide, summarize)",
		Long: `Run a Model Context Protocol server on stdin and stdout (newline-delimited JSON-RPC)
until the client closes stdin, for agents that have no shell. Its eight tools call the same code
as the commands: resume (itr prime), start (check that a unit can start; writes nothing),
checkpoint (itr checkpoint), finish (one step toward done with evidence), block (itr block;
with as: failed or skipped, itr fail or itr skip), reopen (itr reopen), decide (itr decide) and
summarize (itr summarize).

Register it with a client, e.g. Claude Code: claude mcp add itr -- itr mcp
-C, --root and --task apply to every call; each call opens the repository afresh, so what the
CLI does in between is seen, and no lock is held between calls.

The server is the binary itr-mcp (installed beside itr), so that the MCP SDK does not slow down
every other itr command; itr mcp runs it.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			bin, err := findMCP()
			if err != nil {
				return err
			}
			var args []string
			for _, f := range []struct{ name, value string }{{"-C", g.dir}, {"--root", g.root}, {"--task", g.task}} {
				if f.value != "" {
					args = append(args, f.name, f.value)
				}
			}
			c := exec.Command(bin, args...)
			c.Stdin, c.Stdout, c.Stderr = g.raw.In, g.raw.Out, g.raw.Err
			if err := c.Run(); err != nil {
				return fmt.Errorf("%s: %w", bin, err)
			}
			return nil
		},
	}
}

// findMCP finds itr-mcp beside the running itr, else on PATH.
func findMCP() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "itr-mcp")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("itr-mcp")
	if err != nil {
		return "", errors.New("itr mcp runs itr-mcp, which is neither beside itr nor on PATH: install it with `go install github.com/itr-dev/itr/cmd/itr-mcp@latest` (or `make build`)")
	}
	return p, nil
}
