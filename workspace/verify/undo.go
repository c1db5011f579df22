package verify

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/workspace/store"
)

// Undo is a commit made without itr that took out of progress.md (or
// guardrails.md) entries that itr had committed: typically a `git commit`
// of an index read before itr's checkpoint updated it, or a rebase that
// dropped a side. The entries were committed, so git's own history holds
// them: reconcile (and the next itr write) puts them back.
type Undo struct {
	File    string          // the file's path relative to the repository top
	By      gitstate.Commit // the first commit whose version lost entries
	Last    gitstate.Commit // itr's last commit of the task before By
	Missing []string        // titles of the entries (or lessons) By took out
	// Restored is the file with the entries back: itr's last version, then
	// whatever entries were added on top of By's version since.
	Restored []byte
}

// String describes the undo for a person.
func (u *Undo) String() string {
	if len(u.Missing) == 0 {
		return fmt.Sprintf("commit %s (%q) put an older %s in place of the one itr had committed in %s (the working tree still holds itr's)",
			store.Short(u.By.Hash), u.By.Subject, u.File, store.Short(u.Last.Hash))
	}
	return fmt.Sprintf("commit %s (%q) took %d entr%s out of %s that itr had committed in %s (%s)",
		store.Short(u.By.Hash), u.By.Subject, len(u.Missing), store.Plural(len(u.Missing), "y", "ies"), u.File, store.Short(u.Last.Hash), strings.Join(store.FirstN(u.Missing, 3), "; "))
}

// FindUndos checks, for the task's logs, that HEAD's version still holds
// everything itr's last commit of the task wrote. It walks first parents
// from HEAD to that commit: when HEAD is itr's own commit (the usual case)
// it reads nothing more. A `git revert` of itr's commits is a deliberate
// undo and is followed, as is a reset (which leaves no commit behind).
func FindUndos(st *store.Store, t *store.Task) ([]*Undo, error) {
	if t.Head.Hash == "" {
		return nil, nil
	}
	var between []gitstate.Commit // newest first, HEAD included
	var last *gitstate.Commit
	err := st.Repo.History(t.Head.Hash, func(c gitstate.Commit) bool {
		if v, _ := c.Trailer(store.TrailerTask); v == t.Slug && len(c.Parents) < 2 {
			last = &c
			return false
		}
		between = append(between, c)
		return true
	})
	if err != nil || last == nil || len(between) == 0 {
		return nil, err
	}
	var out []*Undo
	for _, name := range []string{store.ProgressFile, store.GuardrailsFile} {
		u, err := undoOf(st, t, name, *last, between)
		if err != nil {
			return nil, err
		}
		if u != nil {
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		// state.json alone: a commit of an index from before the
		// checkpoint whose log entry git saw as changed but whose
		// state.json it did not. The working tree still holding what itr
		// committed tells it from an edit by hand.
		u, err := staleStateOf(st, t, *last, between)
		if err != nil || u == nil {
			return out, err
		}
		out = append(out, u)
	}
	return out, nil
}

// staleStateOf reports a commit after last that put another state.json in
// HEAD while the working tree still holds the one last committed.
func staleStateOf(st *store.Store, t *store.Task, last gitstate.Commit, between []gitstate.Commit) (*Undo, error) {
	rel := st.Rel(t.Slug, store.StateFile)
	lastHash, err := st.Repo.FileHashAt(last.Hash, rel)
	if errors.Is(err, gitstate.ErrNotFound) {
		return nil, nil
	}
	if err != nil || lastHash == t.HeadFiles[store.StateFile] {
		return nil, err
	}
	disk, err := st.ReadWorktree(rel)
	if err != nil || gitstate.BlobHash(disk) != lastHash {
		return nil, nil
	}
	for i := len(between) - 1; i >= 0; i-- {
		h, err := st.Repo.FileHashAt(between[i].Hash, rel)
		if err != nil && !errors.Is(err, gitstate.ErrNotFound) {
			return nil, err
		}
		if h != lastHash {
			if revertsItr(between[i], t.Slug) {
				return nil, nil
			}
			return &Undo{File: rel, By: between[i], Last: last, Restored: disk}, nil
		}
	}
	return nil, nil
}

// undoOf checks one log file. between lists the commits after last,
// newest first.
func undoOf(st *store.Store, t *store.Task, name string, last gitstate.Commit, between []gitstate.Commit) (*Undo, error) {
	rel := st.Rel(t.Slug, name)
	headRaw := t.ProgressRaw
	if name == store.GuardrailsFile {
		headRaw = t.GuardrailsRaw
	}
	lastHash, err := st.Repo.FileHashAt(last.Hash, rel)
	if errors.Is(err, gitstate.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if lastHash == t.HeadFiles[name] {
		return nil, nil
	}
	good, err := st.Blob(lastHash)
	if err != nil {
		return nil, err
	}
	if headRaw == nil || bytes.HasPrefix(headRaw, good) {
		// Appended to (fine), or the folder is gone (an archive or a
		// deliberate removal; other commands deal with that).
		return nil, nil
	}
	// Which commit broke it: the oldest one whose version no longer starts
	// with itr's.
	var by *gitstate.Commit
	prevHash := lastHash
	for i := len(between) - 1; i >= 0 && by == nil; i-- {
		c := between[i]
		h, err := st.Repo.FileHashAt(c.Hash, rel)
		if errors.Is(err, gitstate.ErrNotFound) {
			return nil, nil // removed: not an undo of entries
		}
		if err != nil {
			return nil, err
		}
		if h == prevHash {
			continue
		}
		prevHash = h
		data, err := st.Blob(h)
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(data, good) {
			by = &between[i]
		}
	}
	if by == nil || revertsItr(*by, t.Slug) {
		return nil, nil
	}
	u := &Undo{File: rel, By: *by, Last: last}
	if name == store.ProgressFile {
		have := map[string]bool{}
		for _, e := range progresslog.Parse(headRaw).Entries {
			have[e.Title()] = true
		}
		for _, e := range progresslog.Parse(good).Entries {
			if !have[e.Title()] {
				u.Missing = append(u.Missing, e.Title())
			}
		}
		if u.Restored, _, err = progresslog.Union(nil, good, headRaw); err != nil {
			return nil, fmt.Errorf("restore %s: %w", rel, err)
		}
	} else {
		have := map[string]bool{}
		for _, g := range progresslog.ParseGuardrails(headRaw).Entries {
			have[g.Name] = true
		}
		for _, g := range progresslog.ParseGuardrails(good).Entries {
			if !have[g.Name] {
				u.Missing = append(u.Missing, "lesson "+g.Name)
			}
		}
		if u.Restored, err = progresslog.UnionGuardrails(good, headRaw); err != nil {
			return nil, fmt.Errorf("restore %s: %w", rel, err)
		}
	}
	if len(u.Missing) == 0 {
		// Entries were rewritten rather than taken out: verify reports
		// that; nothing is missing to restore.
		return nil, nil
	}
	return u, nil
}

// revertsItr reports whether c is a `git revert` of one of the task's
// commits ("This reverts commit <hash>" naming a commit whose subject is
// itr's): a deliberate undo, which itr follows.
func revertsItr(c gitstate.Commit, slug string) bool {
	if !strings.Contains(c.Message, "This reverts commit ") {
		return false
	}
	return strings.HasPrefix(c.Subject, `Revert "itr(`+slug+`):`)
}
