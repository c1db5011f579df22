// Package recovery makes an itr commit whole or absent after a crash: each
// commit in progress is recorded first in itr's run file (Begin) with the
// lock files it takes, forgotten when it returns (End), and repaired by the
// next itr that holds the lock (Recover): its locks removed by inode, then
// the commit completed in the working tree and index, or its files put
// back.
package recovery

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
	"github.com/itr-dev/itr/internal/atomicfile"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// run is what an itr commit in progress leaves in <common git dir>/itr-run
// until it returns, so that the next itr (which holds the same flock) can
// tell a run that was killed and repair after it. The file's first line is
// the run as JSON; the lines after it are the lock journal (the lock files
// the run created, by inode). The file stays; empty, or an empty first
// line, means no run. Reusing one file spares two file creations per run,
// and creating files is most of what a small commit costs.
//
// The file is rewritten in place and never truncated to nothing: on ext4
// (auto_da_alloc) closing a file that was truncated to zero and written
// again starts its write-back there and then, which cost a small
// checkpoint about half a millisecond of waiting for each such file
// (issue #33). End writes a lone newline over the first byte and cuts the
// file to that one byte; Begin writes the run over it and cuts the file to
// the run's length; a kill between Begin's two steps leaves the new run's
// whole first line and nothing the journal could mistake for this run's
// locks, because the file was one byte long before it.
type run struct {
	PID     int      `json:"pid"`
	Head    string   `json:"head"`    // HEAD before the commit
	Paths   []string `json:"paths"`   // every path the commit changes
	Written []string `json:"written"` // the files itr itself generated (state, logs)
}

func runFile(st *store.Store) string { return st.Repo.ItrPath("itr-run") }

// legacyLocksFile is where itr before 2026-11 kept the lock journal.
func legacyLocksFile(st *store.Store) string { return st.Repo.ItrPath("itr-locks") }

// Begin records a commit about to start.
func Begin(st *store.Store, head string, changes []gitstate.FileChange, written []string) error {
	r := run{PID: os.Getpid(), Head: head, Written: written}
	for _, c := range changes {
		r.Paths = append(r.Paths, c.Path)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := atomicfile.Overwrite(runFile(st), append(data, '\n'), os.O_CREATE); err != nil {
		return fmt.Errorf("record the run in %s: %w", runFile(st), err)
	}
	st.Repo.JournalLocks(runFile(st))
	return nil
}

// End forgets the run: the commit either landed whole or failed cleanly.
func End(st *store.Store) {
	st.Repo.JournalLocks("")
	_ = atomicfile.Overwrite(runFile(st), []byte("\n"), 0) // no file: no run, none made
}

// Recover repairs after an itr run that was killed while committing:
// it removes the lock files that run had taken (recognised by inode, so a
// lock git holds now is never touched), and then either completes the
// commit in the working tree and the index (it had moved the branch) or
// puts back the files the run had started to write (it had not), so the
// checkpoint is seen whole or not at all. The caller holds itr's flock.
func Recover(st *store.Store) error {
	data, err := os.ReadFile(runFile(st))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if len(bytes.TrimSpace(first)) == 0 {
		return nil // no run (End leaves a lone newline)
	}
	var r run
	if err := json.Unmarshal(first, &r); err != nil {
		End(st)
		return nil // unreadable: the run wrote nothing we can trust; forget it
	}
	for _, journal := range []string{runFile(st), legacyLocksFile(st)} {
		if _, err := gitstate.RemoveJournaledLocks(journal); err != nil {
			return err
		}
	}
	_ = os.Remove(legacyLocksFile(st))
	head, err := st.Repo.Head()
	if err != nil {
		return err
	}
	var changes []gitstate.FileChange
	landed := false
	if head.Hash != "" && head.Hash != r.Head {
		// A failed read keeps the run file, so the next itr tries again.
		if landed, err = parentIs(st, head.Hash, r.Head); err != nil {
			return fmt.Errorf("repair after a killed itr (%s): %w", runFile(st), err)
		}
	}
	if landed {
		// The branch moved: the commit landed. Bring the working tree and
		// the index in line with it for its paths.
		for _, p := range r.Paths {
			data, err := st.Repo.ReadFile(head.Hash, p)
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
			data, err := st.ReadAt(head.Hash, p)
			if err != nil {
				return err
			}
			if data == nil {
				if _, err := os.Lstat(st.Abs(p)); err == nil {
					changes = append(changes, gitstate.FileChange{Path: p, Delete: true})
				}
				continue
			}
			changes = append(changes, gitstate.FileChange{Path: p, Data: data})
		}
	}
	if len(changes) > 0 {
		if err := st.Repo.Stage(changes); err != nil {
			return fmt.Errorf("repair after an interrupted itr run: %w", err)
		}
	}
	// Temporary files of the killed run.
	for _, p := range r.Paths {
		matches, _ := filepath.Glob(st.Abs(p) + ".itr-*.tmp")
		for _, m := range matches {
			_ = os.Remove(m)
		}
		dir := st.Abs(path.Dir(p))
		matches, _ = filepath.Glob(filepath.Join(dir, "."+path.Base(p)+".itr-*"))
		for _, m := range matches {
			_ = os.Remove(m)
		}
	}
	End(st)
	return nil
}

// parentIs reports whether commit's first parent is parent ("" for a root).
func parentIs(st *store.Store, commit, parent string) (bool, error) {
	ok := false
	err := st.Repo.History(commit, func(c gitstate.Commit) bool {
		if len(c.Parents) == 0 {
			ok = parent == ""
		} else {
			ok = c.Parents[0] == parent
		}
		return false
	})
	return ok, err
}
