package main

import (
	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/mcpserver"
)

func newMCPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve itr's tools to an MCP client over stdio (resume, start, checkpoint, finish, block)",
		Long: `Run a Model Context Protocol server on stdin and stdout (newline-delimited JSON-RPC)
until the client closes stdin, for agents that have no shell. Its five tools call the same code
as the commands: resume (itr prime), start (check that a unit can start; writes nothing),
checkpoint (itr checkpoint), finish (one step toward done with evidence) and block (itr block).

Register it with a client, e.g. Claude Code: claude mcp add itr -- itr mcp
-C, --root and --task apply to every call; each call opens the repository afresh, so what the
CLI does in between is seen, and no lock is held between calls.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcpserver.Serve(cmd.Context(), mcpserver.New(g.open, Version), g.io.In, g.io.Out)
		},
	}
}
