//go:build !unix && !windows

package runs

import (
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
)

// stopSignal is a polite request to stop; without process groups and
// signals every request is a kill.
type stopSignal int

const (
	sigInt stopSignal = iota
	sigTerm
)

// procGroup is empty where there are no process groups.
type procGroup struct{}

// started has nothing to do once the command runs.
func (r *runner) started() error { return nil }

// release has nothing to let go.
func (r *runner) release() {}

// setGroup does nothing where there are no process groups.
func setGroup(cmd *exec.Cmd) {}

// notifySignals makes the signals Run forwards arrive on c.
func notifySignals(c chan<- os.Signal) {
	signal.Notify(c, os.Interrupt)
}

// stopSignals undoes notifySignals.
func stopSignals(c chan<- os.Signal) {
	signal.Stop(c)
}

// signal stops the command.
func (r *runner) signal(stopSignal) {
	_ = r.cmd.Process.Kill()
}

// kill stops the command.
func (r *runner) kill() {
	_ = r.cmd.Process.Kill()
}

// groupAlive reports false: only the command itself is known, and it has
// exited when this is asked.
func (r *runner) groupAlive() bool { return false }

// signalOf returns "": there are no signals here.
func signalOf(*os.ProcessState) string { return "" }

// executable accepts any file: the system decides when it starts.
func executable(string, fs.FileInfo) error { return nil }
