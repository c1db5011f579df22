package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/itr-dev/itr/internal/workspace"
)

// Exit codes of a command stopped by a signal, as a shell reports them.
const (
	ExitInterrupted = 130 // SIGINT (Ctrl-C)
	ExitTerminated  = 143 // SIGTERM
)

// stopOnSignal makes SIGINT and SIGTERM stop itr between commits: a commit
// being written lands (or fails cleanly) first, so a stopped itr never
// leaves a half-written task, and itr exits 130 or 143 saying so. While a
// verification run is going, Ctrl-C is the run's: it stops the command,
// and itr records the run. The returned func stops listening (once; it
// may be called again): itr serve calls it to stop on a signal itself.
func stopOnSignal(w io.Writer) func() {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-ch:
				if workspace.CheckRunning() {
					continue // the run stops its command; itr records it
				}
				workspace.StopBetweenCommits()
				code := ExitInterrupted
				if sig == syscall.SIGTERM {
					code = ExitTerminated
				}
				fmt.Fprintf(w, "itr: stopped by %s; no commit was left half-written (what was committed stays; `itr status` shows where the task stands)\n", sig)
				os.Exit(code)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}
