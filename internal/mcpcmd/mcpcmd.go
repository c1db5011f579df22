// Package mcpcmd is the command line of itr-mcp, the MCP server of itr in
// a binary of its own, so that the MCP SDK (net/http, crypto/tls, JSON
// Schema and their package inits, about 8 MB) is not linked into every itr
// command. `itr mcp` runs it.
package mcpcmd

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/itr-dev/itr/internal/cliopts"
	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/internal/mcpserver"
	"github.com/itr-dev/itr/internal/workspace"
)

// Main runs itr-mcp with args: -C DIR, --root PATH and -t/--task SLUG as
// itr's global flags (with ITR_ROOT, ITR_TASK and ITR_NOW from getenv), and
// serves MCP on in and out until in ends. It returns the exit code.
func Main(args []string, in io.Reader, out, errw io.Writer, getenv func(string) string, version string) int {
	fs := flag.NewFlagSet("itr-mcp", flag.ContinueOnError)
	fs.SetOutput(errw)
	var opts workspace.Options
	fs.StringVar(&opts.Dir, "C", "", "run as if itr was started in `DIR`")
	fs.StringVar(&opts.Dir, "dir", "", "the same as -C")
	fs.StringVar(&opts.Root, "root", "", "task root relative to the repository top (env ITR_ROOT)")
	fs.StringVar(&opts.Task, "t", "", "the task's `SLUG` (env ITR_TASK)")
	fs.StringVar(&opts.Task, "task", "", "the same as -t")
	showVersion := fs.Bool("version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(errw, "itr-mcp: unexpected argument %s\n", clip.Quote(fs.Arg(0)))
		return 2
	}
	if *showVersion {
		fmt.Fprintln(out, "itr-mcp version "+version)
		return 0
	}
	opts, err := cliopts.Resolve(opts, getenv)
	if err != nil {
		fmt.Fprintln(errw, "itr-mcp: "+err.Error())
		return 2
	}
	open := func() (*workspace.Workspace, error) { return workspace.Open(opts) }
	if err := mcpserver.Serve(context.Background(), mcpserver.New(open, version), in, out); err != nil {
		fmt.Fprintln(errw, "itr-mcp: "+err.Error())
		return 1
	}
	return 0
}
