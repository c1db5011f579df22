package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/serve"
)

// DefaultServeAddr is where itr serve listens unless --addr says otherwise.
const DefaultServeAddr = "127.0.0.1:7420"

// serveView is the --json line itr serve prints once it listens.
type serveView struct {
	URL  string `json:"url"`
	Addr string `json:"addr"`
	Repo string `json:"repo"`
}

func newServeCmd(g *globals) *cobra.Command {
	var addr string
	var allowRemote bool
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--allow-remote]",
		Short: "A live, read-only board of every task in the repository, in the browser",
		Long: `Serve a live board of every task of the repository: each task's units by status, who holds
what (itr claim), the checks that need a look, its pace and the advisor's next action, and for
each task the same page itr report writes (rendered on each request). The board follows the
repository: a commit by itr or git, a fetch or itr sync that brings others' work, a claim or an
edit of a task's files shows in the browser within a second (the server looks every quarter of
a second and tells the page by Server-Sent Events; the page then reads itself again).

The board is read-only: it answers GET and HEAD, and 405 to anything else. It loads nothing from
elsewhere: its script, style and icon come from itr serve itself, and its
Content-Security-Policy allows its own origin only (a report page: no load at all).

It listens on 127.0.0.1 (port 7420) unless --addr gives another HOST:PORT (port 0 picks a free
one). An address beyond this machine is refused unless --allow-remote is given: the board shows
every task's entries, claims and check output to whoever can reach it, with no login and no
TLS. Without --allow-remote it also answers only requests addressed to 127.0.0.1, ::1 or
localhost, so a web page elsewhere cannot read it through DNS rebinding.

It prints the board's URL (with --json: {"url", "addr", "repo"}) and runs until SIGINT (Ctrl-C)
or SIGTERM, then closes the open pages' streams and stops (exit 0).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkServeAddr(addr, allowRemote); err != nil {
				return err
			}
			ws, err := g.open()
			if err != nil {
				return err
			}
			repo := filepath.Base(ws.Repo.Root())
			ws.Close()
			return runServe(g, addr, allowRemote, repo)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", DefaultServeAddr, "listen on `HOST:PORT` (port 0: any free port)")
	cmd.Flags().BoolVar(&allowRemote, "allow-remote", false, "listen on an address beyond this machine and answer any host name (no login, no TLS)")
	return cmd
}

// checkServeAddr refuses an --addr that does not parse, or that reaches
// beyond this machine without --allow-remote.
func checkServeAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr %q is not HOST:PORT: %w; give e.g. --addr 127.0.0.1:7420", addr, err)}
	}
	if allowRemote || (host != "" && serve.LoopbackHost(host)) {
		return nil
	}
	where := host
	if host == "" {
		where = "every interface"
	}
	return usageError{fmt.Errorf("--addr %s would serve the board on %s, beyond this machine: whoever can reach it reads every task's entries, claims and check output, with no login and no TLS; use a loopback address (127.0.0.1:PORT, the default, or [::1]:PORT), or add --allow-remote if that is what you want; nothing was started", addr, where)}
}

// runServe listens, serves and watches until SIGINT or SIGTERM.
func runServe(g *globals, addr string, allowRemote bool, repo string) error {
	// The server stops on a signal itself: the commit-safe exit of
	// stopOnSignal is for commands that write.
	if g.stopSignals != nil {
		g.stopSignals()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another itr serve running there? pick another port with --addr)", addr, err)
	}
	s := serve.New(serve.Options{
		Open:        g.open,
		AllowRemote: allowRemote,
		Logf:        func(format string, args ...any) { fmt.Fprintf(g.io.Err, format+"\n", args...) },
	})
	bound := ln.Addr().String()
	v := serveView{URL: "http://" + bound + "/", Addr: bound, Repo: repo}
	err = s.Run(ctx, ln, func() error {
		if err := g.emit(v, func(w io.Writer) {
			fmt.Fprintf(w, "Serving the board of %s at %s (read-only; Ctrl-C stops)\n", repo, v.URL)
		}); err != nil {
			return err
		}
		if g.paint != nil {
			_ = g.paint.Flush()
		}
		return nil
	})
	if ctx.Err() == nil {
		return err // it did not start, or serving failed
	}
	fmt.Fprintln(g.io.Err, "itr serve: stopped; the board is closed")
	return err
}
