//go:build !windows

package gitstate

import (
	"os"
	"syscall"
)

// processRunning reports whether kill(pid, 0) finds the process.
func processRunning(pid int) bool { return syscall.Kill(pid, 0) == nil }

// detachedAttr starts a process in a session of its own.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// diskSize is what a file takes on disk: its blocks where the system
// says, else its size.
func diskSize(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Blocks > 0 {
		return st.Blocks * 512
	}
	return fi.Size()
}
