package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/itr-dev/itr/gitstate"
)

// run is what an itr commit in progress leaves in <common git dir>/itr-run
// until it returns, so that the next itr (which holds the same flock) can
// tell a run that was killed and repair after it. The file's first line is
// the run as JSON; the lines after it are the lock journal (the lock files
// the run created, by inode). The file stays; empty means no run. Reusing
// one file spares two file creations per run, and creating files is most
// of what a small commit costs.
type run struct {
	PID     int      `json:"pid"`
	Head    string   `json:"head"`    // HEAD before the commit
	Paths   []string `json:"paths"`   // every path the commit changes
	Written []string `json:"written"` // the files itr itself generated (state, logs)
}

func (w *Workspace) runFile() string { return w.Repo.ItrPath("itr-run") }

// legacyLocksFile is where itr before 2026-11 kept the lock journal.
func (w *Workspace) legacyLocksFile() string { return w.Repo.ItrPath("itr-locks") }

// beginRun records a commit about to start.
func (w *Workspace) beginRun(head string, changes []gitstate.FileChange, written []string) error {
	r := run{PID: os.Getpid(), Head: head, Written: written}
	for _, c := range changes {
		r.Paths = append(r.Paths, c.Path)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := os.WriteFile(w.runFile(), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record the run in %s: %w", w.runFile(), err)
	}
	w.Repo.JournalLocks(w.runFile())
	return nil
}

// endRun forgets the run: the commit either landed whole or failed cleanly.
func (w *Workspace) endRun() {
	w.Repo.JournalLocks("")
	_ = os.Truncate(w.runFile(), 0)
}

// recoverRun repairs after an itr run that was killed while committing:
// it removes the lock files that run had taken (recognised by inode, so a
// lock git holds now is never touched), and then either completes the
// commit in the working tree and the index (it had moved the branch) or
// puts back the files the run had started to write (it had not), so the
// checkpoint is seen whole or not at all. The caller holds itr's flock.
func (w *Workspace) recoverRun() error {
	data, err := os.ReadFile(w.runFile())
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(data) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var r run
	if err := json.Unmarshal(first, &r); err != nil {
		w.endRun()
		return nil // unreadable: the run wrote nothing we can trust; forget it
	}
	for _, journal := range []string{w.runFile(), w.legacyLocksFile()} {
		if _, err := gitstate.RemoveJournaledLocks(journal); err != nil {
			return err
		}
	}
	_ = os.Remove(w.legacyLocksFile())
	head, err := w.Repo.Head()
	if err != nil {
		return err
	}
	var changes []gitstate.FileChange
	if head.Hash != "" && head.Hash != r.Head && w.parentIs(head.Hash, r.Head) {
		// The branch moved: the commit landed. Bring the working tree and
		// the index in line with it for its paths.
		for _, p := range r.Paths {
			data, err := w.Repo.ReadFile(head.Hash, p)
			if errors.Is(err, gitstate.ErrNotFound) {
				changes = append(changes, gitstate.FileChange{Path: p, Delete: true})
				continue
			}
			if err != nil {
				return err
			}
			changes = append(changes, gitstate.FileChange{Path: p, Data: data})
		}
	} else if head.Hash == r.Head {
		// The commit did not land: put back the files itr generated.
		for _, p := range r.Written {
			data, err := w.ReadAt(head.Hash, p)
			if err != nil {
				return err
			}
			if data == nil {
				if _, err := os.Lstat(w.Abs(p)); err == nil {
					changes = append(changes, gitstate.FileChange{Path: p, Delete: true})
				}
				continue
			}
			changes = append(changes, gitstate.FileChange{Path: p, Data: data})
		}
	}
	if len(changes) > 0 {
		if err := w.Repo.Stage(changes); err != nil {
			return fmt.Errorf("repair after an interrupted itr run: %w", err)
		}
	}
	// Temporary files of the killed run.
	for _, p := range r.Paths {
		matches, _ := filepath.Glob(w.Abs(p) + ".itr-*.tmp")
		for _, m := range matches {
			_ = os.Remove(m)
		}
		dir := w.Abs(path.Dir(p))
		matches, _ = filepath.Glob(filepath.Join(dir, "."+path.Base(p)+".itr-*"))
		for _, m := range matches {
			_ = os.Remove(m)
		}
	}
	w.endRun()
	return nil
}

// parentIs reports whether commit's first parent is parent ("" for a root).
func (w *Workspace) parentIs(commit, parent string) bool {
	ok := false
	_ = w.Repo.History(commit, func(c gitstate.Commit) bool {
		if len(c.Parents) == 0 {
			ok = parent == ""
		} else {
			ok = c.Parents[0] == parent
		}
		return false
	})
	return ok
}
