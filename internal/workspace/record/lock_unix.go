//go:build !windows

package record

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting.
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// unlockFile releases the flock tryLock took.
func unlockFile(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// lockBusy reports whether tryLock failed because another process holds
// the lock.
func lockBusy(err error) bool { return errors.Is(err, syscall.EWOULDBLOCK) }
