package gitstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// lockTries and lockStep give about 2 s of retries with linear backoff
// (10 ms, 20 ms, ... 190 ms) before ErrLocked.
const (
	lockTries = 20
	lockStep  = 10 * time.Millisecond
)

// lockedError carries git's own message for a held lock and wraps ErrLocked.
type lockedError struct{ lockPath string }

func (e *lockedError) Error() string {
	return fmt.Sprintf("Unable to create '%s': File exists.\n\n"+
		"Another git process seems to be running in this repository, e.g.\n"+
		"an editor opened by 'git commit'. Please make sure all processes\n"+
		"are terminated then try again. If it still fails, a git process\n"+
		"may have crashed in this repository earlier:\n"+
		"remove the file manually to continue.", e.lockPath)
}

func (e *lockedError) Unwrap() error { return ErrLocked }

// lockFile is a held "<path>.lock", git's lock-file protocol: create with
// O_EXCL, write, fsync, rename over path.
type lockFile struct {
	path   string
	lock   string
	f      *os.File
	nosync bool       // skip the fsync before the rename (core.fsync leaves it out)
	cache  *procCache // forgets what the lock guards when it is released
}

// acquireLock creates path+".lock", retrying while another process holds
// it, and notes it in the repository's lock journal. What the process
// cache kept of the file is forgotten now and again when the lock is
// released, so that the reads under the lock and after it read the file.
func (r *Repo) acquireLock(path string) (*lockFile, error) {
	r.cache.dropFor(path)
	l, err := acquireLockJournaled(path, &r.journal)
	if l != nil {
		l.cache = r.cache
	}
	return l, err
}

// acquireLockJournaled is acquireLock with the journal given (nil: none).
func acquireLockJournaled(path string, j *lockJournal) (*lockFile, error) {
	lock := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, fmt.Errorf("create folder for %s: %w", lock, err)
	}
	for try := 1; ; try++ {
		j.intent(lock)
		f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			j.noted(lock, f)
			return &lockFile{path: path, lock: lock, f: f}, nil
		}
		if errors.Is(err, os.ErrNotExist) && try < lockTries {
			// The folder went between MkdirAll and the create (git
			// removes the empty folders of a deleted ref): make it again.
			if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
				return nil, fmt.Errorf("create folder for %s: %w", lock, err)
			}
			continue
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("create %s: %w", lock, err)
		}
		if try >= lockTries {
			return nil, &lockedError{lockPath: lock}
		}
		time.Sleep(time.Duration(try) * lockStep)
	}
}

// Write writes to the lock file.
func (l *lockFile) Write(p []byte) (int, error) { return l.f.Write(p) }

// commitValue writes a ref's value (an object name and a newline) into
// the lock file and commits it.
func (l *lockFile) commitValue(id string) error {
	if _, err := l.Write([]byte(id + "\n")); err != nil {
		return fmt.Errorf("write %s: %w", l.lock, err)
	}
	return l.commit()
}

// commit fsyncs the lock file and renames it over the target.
func (l *lockFile) commit() error {
	if l.nosync {
		// Atomic by the rename all the same.
	} else if err := l.f.Sync(); err != nil {
		l.rollback()
		return fmt.Errorf("fsync %s: %w", l.lock, err)
	}
	if err := l.f.Close(); err != nil {
		l.f = nil
		l.rollback()
		return fmt.Errorf("close %s: %w", l.lock, err)
	}
	l.f = nil
	err := renameFile(l.lock, l.path)
	l.cache.dropFor(l.path)
	if err != nil {
		l.rollback()
		return fmt.Errorf("rename %s to %s: %w", l.lock, l.path, err)
	}
	l.lock = ""
	return nil
}

// publish puts the lock file's content in place of the target while the
// lock stays held: the file is fsynced, hard-linked to a temporary name and
// that name renamed over the target, so "<path>.lock" never disappears and
// no other git process can take the lock until rollback removes it. Git
// commands that read a file before they lock it (git commit reads the index
// first) and write back what they read can therefore not slip in between
// this publish and the work the caller still does under the lock. Where the
// file system has no hard links it falls back to commit (the lock is then
// released at once).
func (l *lockFile) publish() error {
	if !l.nosync {
		if err := l.f.Sync(); err != nil {
			l.rollback()
			return fmt.Errorf("fsync %s: %w", l.lock, err)
		}
	}
	tmp := fmt.Sprintf("%s.itr-%d", l.lock, os.Getpid())
	_ = removeFile(tmp)
	if err := os.Link(l.lock, tmp); err != nil {
		l.nosync = true // already synced
		return l.commit()
	}
	err := renameFile(tmp, l.path)
	l.cache.dropFor(l.path)
	if err != nil {
		_ = os.Remove(tmp)
		l.rollback()
		return fmt.Errorf("rename %s to %s: %w", tmp, l.path, err)
	}
	// The lock's content is now the target's: it must not be written again.
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", l.lock, err)
	}
	l.f = nil
	return nil
}

// rollback removes the lock file; safe to call after commit.
func (l *lockFile) rollback() {
	if l == nil || l.lock == "" {
		return
	}
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
	_ = os.Remove(l.lock)
	l.lock = ""
	l.cache.dropFor(l.path)
}
