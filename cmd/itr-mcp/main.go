// Command itr-mcp is itr's MCP server (see `itr mcp`), in a binary of its
// own so that the MCP SDK is not linked into every itr command.
package main

import (
	"os"

	"github.com/itr-dev/itr/internal/mcpcmd"
	"github.com/itr-dev/itr/internal/version"
)

func main() {
	os.Exit(mcpcmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, version.Get().Version))
}
