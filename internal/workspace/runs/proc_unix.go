//go:build unix

package runs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// stopSignal is a polite request to stop.
type stopSignal = syscall.Signal

const (
	sigInt  = syscall.SIGINT
	sigTerm = syscall.SIGTERM
)

// procGroup needs nothing beyond the process group id, the command's pid.
type procGroup struct{} //nolint:unused // only proc_windows.go puts something in it (a job object)

// started has nothing to do once the command runs.
func (r *runner) started() error { return nil }

// release has nothing to let go.
func (r *runner) release() {}

// setGroup makes cmd the leader of a new process group.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// notifySignals makes the signals Run forwards arrive on c.
func notifySignals(c chan<- os.Signal) {
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
}

// stopSignals undoes notifySignals.
func stopSignals(c chan<- os.Signal) {
	signal.Stop(c)
}

// signal sends sig to the command's process group.
func (r *runner) signal(sig stopSignal) {
	_ = syscall.Kill(-r.cmd.Process.Pid, sig)
}

// kill sends SIGKILL to the command's process group.
func (r *runner) kill() {
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
}

// groupAlive reports whether a process of the command's group, other than
// a zombie, is still there.
func (r *runner) groupAlive() bool {
	pgid := r.cmd.Process.Pid
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	return !onlyZombies(pgid)
}

// onlyZombies reports whether /proc shows that every process of group pgid
// is a zombie (which an init that does not reap children can leave behind).
// Without a readable /proc it reports false.
func onlyZombies(pgid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	seen := false
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 3 || string(f[2]) != strconv.Itoa(pgid) {
			continue
		}
		seen = true
		if string(f[0]) != "Z" {
			return false
		}
	}
	return seen
}

// signalOf names the signal that ended the process, or returns "".
func signalOf(st *os.ProcessState) string {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	return ws.Signal().String()
}

// executable reports why this process may not execute the file at path.
func executable(path string, fi fs.FileInfo) error {
	if fi.Mode()&0o111 == 0 {
		return errors.New("permission denied: not executable")
	}
	if err := syscall.Access(path, 1); err != nil { // X_OK
		return errors.New("permission denied")
	}
	return nil
}
