package verify

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
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
	// Deleted says By deleted the file (state.json alone: the logs'
	// removal is an archive's, not an undo).
	Deleted bool
	// Restored is the file with the entries back: itr's last version, then
	// whatever entries were added on top of By's version since. An entry
	// (or lesson) both hold with other text is there once, as itr
	// committed it (see restoreLog and restoreLessons).
	Restored []byte
}

// String describes the undo for a person.
func (u *Undo) String() string {
	if u.Deleted {
		return fmt.Sprintf("commit %s (%q) deleted %s, which itr had committed in %s (the working tree still holds itr's)",
			store.Short(u.By.Hash), u.By.Subject, u.File, store.Short(u.Last.Hash))
	}
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
	if err != nil || st.Repo.BlobID(disk) != lastHash {
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
			return &Undo{File: rel, By: between[i], Last: last, Restored: disk, Deleted: h == ""}, nil
		}
	}
	return nil, nil
}

// undoOf checks one log file. between lists the commits after last,
// newest first.
func undoOf(st *store.Store, t *store.Task, name string, last gitstate.Commit, between []gitstate.Commit) (*Undo, error) {
	rel := st.Rel(t.Slug, name)
	headRaw := t.Progress()
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
		if len(u.Missing) > 0 {
			if u.Restored, err = restoreLog(st, t, last, good, headRaw); err != nil {
				return nil, fmt.Errorf("restore %s: %w", rel, err)
			}
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
		if len(u.Missing) > 0 {
			if u.Restored, err = restoreLessons(good, headRaw); err != nil {
				return nil, fmt.Errorf("restore %s: %w", rel, err)
			}
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

// restoreLog is progress.md with the entries an undo took out put back:
// one of good (itr's last committed log) and head (HEAD's) byte for byte,
// then the entries only the other holds.
//
// An entry both hold with different text (head's was rewritten, or good's
// was and head's is the older text) is written once: the version itr
// committed wins. When head's versions of all such entries are ones itr
// committed when it wrote them (an Itr-Log trailer of the task's commits
// names a prefix of head holding them), head is kept and good's entries
// follow: the commit that took entries out had also put back text that a
// commit made without itr rewrote before itr's last commit carried it
// along. Otherwise good is kept and only head's new entries follow (head's
// rewrite is dropped; it stays in git's history, and verify names it).
func restoreLog(st *store.Store, t *store.Task, last gitstate.Commit, good, head []byte) ([]byte, error) {
	goodLog, headLog := progresslog.Parse(good), progresslog.Parse(head)
	goodKeys := map[string]string{}
	for _, e := range goodLog.Entries {
		goodKeys[e.Title()] = e.Key()
	}
	var disputed []progresslog.Entry
	for _, e := range headLog.Entries {
		if k, ok := goodKeys[e.Title()]; ok && k != e.Key() {
			disputed = append(disputed, e)
		}
	}
	if len(disputed) == 0 {
		merged, _, err := progresslog.Union(nil, good, head)
		return merged, err
	}
	headWins, err := committedByItr(st, t.Slug, last, head, disputed)
	if err != nil {
		return nil, err
	}
	ours, theirs, other := good, headLog, goodLog
	if headWins {
		ours, theirs, other = head, goodLog, headLog
	}
	titles := map[string]bool{}
	for _, e := range other.Entries {
		titles[e.Title()] = true
	}
	rest := &progresslog.Log{Preamble: theirs.Preamble, Newline: theirs.Newline}
	for _, e := range theirs.Entries {
		if !titles[e.Title()] {
			e.Side = progresslog.Both
			rest.Entries = append(rest.Entries, e)
		}
	}
	merged, _, err := progresslog.Union(nil, ours, rest.Render())
	return merged, err
}

// committedByItr reports whether every entry of es is, in head, as one of
// the task's commits from last back to its Created commit committed it: a
// prefix of head whose length and SHA-256 an Itr-Log trailer gives holds
// it.
func committedByItr(st *store.Store, slug string, last gitstate.Commit, head []byte, es []progresslog.Entry) (bool, error) {
	digests := map[int]map[string]bool{}
	err := st.Repo.History(last.Hash, func(c gitstate.Commit) bool {
		s, _ := c.Trailer(store.TrailerTask)
		if s != slug || len(c.Parents) >= 2 {
			return true
		}
		if l, d, ok := logTrailer(c); ok && l <= len(head) {
			if digests[l] == nil {
				digests[l] = map[string]bool{}
			}
			digests[l][d] = true
		}
		ev, _ := c.Trailer(store.TrailerEvent)
		return ev != store.EventCreated
	})
	if err != nil {
		return false, err
	}
	lengths := make([]int, 0, len(digests))
	for l := range digests {
		lengths = append(lengths, l)
	}
	sort.Ints(lengths)
	p, longest := &prefixDigests{data: head}, 0
	for _, l := range lengths {
		if digests[l][p.digest(l)] {
			longest = l
		}
	}
	have := map[string]bool{}
	for _, e := range progresslog.Parse(head[:longest]).Entries {
		have[e.Key()] = true
	}
	for _, e := range es {
		if !have[e.Key()] {
			return false, nil
		}
	}
	return true, nil
}

// restoreLessons is guardrails.md with the lessons an undo took out put
// back: good (itr's last committed version) byte for byte, then the
// lessons only head holds. A lesson both hold under one name with other
// text is written once, as itr committed it.
func restoreLessons(good, head []byte) ([]byte, error) {
	names := map[string]bool{}
	for _, g := range progresslog.ParseGuardrails(good).Entries {
		names[g.Name] = true
	}
	h := progresslog.ParseGuardrails(head)
	rest := &progresslog.Guardrails{Preamble: h.Preamble, Newline: h.Newline}
	for _, g := range h.Entries {
		if !names[g.Name] {
			g.Side = progresslog.Both
			rest.Entries = append(rest.Entries, g)
		}
	}
	return progresslog.UnionGuardrails(good, rest.Render())
}
