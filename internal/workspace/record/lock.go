package record

import (
	"fmt"
	"os"
	"time"

	"github.com/itr-dev/itr/internal/workspace/recovery"
)

// lock serialises itr processes on one repository with an flock on
// <common git dir>/itr.lock (LockFileEx on Windows: lock_windows.go); the
// kernel releases it when a process dies, so a killed itr never leaves a
// stale lock. The git CLI is excluded by the
// lock files gitstate takes on refs and the index.
func (w *writer) lock() (func(), error) {
	if err := w.CheckRoot(); err != nil {
		return nil, err
	}
	p := w.Repo.ItrPath("itr.lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err = tryLock(f)
		if err == nil {
			unlock := func() {
				unlockFile(f)
				f.Close()
			}
			if err := recovery.Recover(w.Store); err != nil {
				unlock()
				return nil, err
			}
			return unlock, nil
		}
		if !lockBusy(err) || time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: another itr command is still running (%w); wait for it to finish", p, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
