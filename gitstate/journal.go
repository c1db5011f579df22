package gitstate

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// lockJournal, when its path is set, is a file to which every lock file a
// Repo creates is appended as "<path> <inode>". A caller that serialises
// its own runs (itr holds an flock while it commits) uses it to recognise,
// and remove, the locks of a run that was killed: a lock whose inode is in
// the journal was made by that run, never by git. Each Repo has its own.
type lockJournal struct {
	mu   sync.Mutex
	path string
	f    *os.File // open for appending from the first note until the path changes
}

// JournalLocks makes the repository record the lock files it creates in
// the file path ("" stops recording and closes the journal).
func (r *Repo) JournalLocks(path string) { r.journal.set(path) }

func (j *lockJournal) set(path string) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		j.f.Close()
		j.f = nil
	}
	j.path = path
}

// record appends the line text returns ("" for none) while the journal is
// on, opening the file on first use and keeping it open for the rest of
// the run; text runs under j.mu.
func (j *lockJournal) record(text func() string) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.path == "" {
		return
	}
	line := text()
	if line == "" {
		return
	}
	if j.f == nil {
		f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return
		}
		j.f = f
	}
	_, _ = j.f.WriteString(line)
}

// intent records, before the exclusive create, that a lock file is about
// to be made, so a run killed between the create and noted still leaves a
// trace.
func (j *lockJournal) intent(lock string) {
	j.record(func() string { return fmt.Sprintf("intent %s %d\n", lock, time.Now().UnixNano()) })
}

// noted records a newly created lock file.
func (j *lockJournal) noted(lock string, f *os.File) {
	j.record(func() string {
		fi, err := f.Stat()
		if err != nil {
			return ""
		}
		ino, ok := openFileID(f, fi)
		if !ok {
			return ""
		}
		return fmt.Sprintf("%s %d\n", lock, ino)
	})
}

// RemoveJournaledLocks removes the lock files listed in a journal that
// still exist with the inode recorded there (left by a killed run), and
// returns their paths. Locks taken since by git have other inodes and are
// left alone.
func RemoveJournaledLocks(journal string) ([]string, error) {
	f, err := os.Open(journal)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var removed []string
	intents := map[string]int64{}
	noted := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "intent "); ok {
			if i := strings.LastIndexByte(rest, ' '); i > 0 {
				if t, err := strconv.ParseInt(rest[i+1:], 10, 64); err == nil {
					intents[rest[:i]] = t
				}
			}
			continue
		}
		i := strings.LastIndexByte(sc.Text(), ' ')
		if i < 0 {
			continue
		}
		lock, inoText := sc.Text()[:i], sc.Text()[i+1:]
		ino, err := strconv.ParseUint(inoText, 10, 64)
		if err != nil || !strings.HasSuffix(lock, ".lock") {
			continue
		}
		noted[lock] = true
		fi, err := os.Lstat(lock)
		if err != nil {
			continue
		}
		if id, ok := pathFileID(lock, fi); ok && id == ino {
			if os.Remove(lock) == nil {
				removed = append(removed, lock)
			}
		}
	}
	// A run killed inside lockFile.publish leaves the hard link it was
	// about to rename: "<lock>.itr-<pid>". The caller holds itr's flock, so
	// no live itr owns one.
	for lock := range intents {
		if tmps, _ := filepath.Glob(lock + ".itr-*"); len(tmps) > 0 {
			for _, tmp := range tmps {
				if os.Remove(tmp) == nil {
					removed = append(removed, tmp)
				}
			}
		}
	}
	// A run killed between its create and its note: a lock made within a
	// second of the intent is that run's.
	for lock, at := range intents {
		if noted[lock] {
			continue
		}
		fi, err := os.Lstat(lock)
		if err != nil {
			continue
		}
		changed, ok := statCtime(fi)
		if !ok {
			continue
		}
		ctime := changed.UnixNano()
		if ctime >= at-int64(10*time.Millisecond) && ctime <= at+int64(time.Second) {
			if os.Remove(lock) == nil {
				removed = append(removed, lock)
			}
		}
	}
	return removed, sc.Err()
}
