package record

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// allBytes locks the whole file, whatever its length (as Go's own
// cmd/go/internal/lockedfile does): the range is 2^64-1 bytes from 0.
const allBytes = ^uint32(0)

// tryLock takes an exclusive LockFileEx lock on f without waiting
// (LOCKFILE_FAIL_IMMEDIATELY). Windows releases it when the handle is
// closed or the process dies, as the kernel does an flock.
func tryLock(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, allBytes, allBytes, ol)
}

// unlockFile releases the lock tryLock took.
func unlockFile(f *os.File) {
	ol := new(windows.Overlapped)
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, allBytes, allBytes, ol)
}

// lockBusy reports whether tryLock failed because another process holds
// the lock: LockFileEx says ERROR_LOCK_VIOLATION (ERROR_IO_PENDING should
// the handle be asynchronous, which os.OpenFile's is not).
func lockBusy(err error) bool {
	return errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING)
}
