//go:build !windows

package store

import (
	"errors"
	"syscall"
)

// processExists reports whether kill(pid, 0) finds a process with id pid
// (one of another user refuses the signal, and exists).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
