package view

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"unicode/utf8"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Written is what one record committed, for Advance: the task it built on
// (as loaded, with its committed log read whole), the commit, and the
// files the commit wrote.
type Written struct {
	Task    *store.Task
	Commit  string
	Changes []gitstate.FileChange
}

// Advance leaves the remembered facts of a task current after a record
// appended one entry to its log: the facts of the log before, when they
// are remembered and the log folded cleanly into the state.json beside
// it, stepped by the one new entry, so the first status or prime after a
// checkpoint reads neither the log nor folds it. The facts are a fold, so
// the facts of log+entry are the facts of log stepped by entry; whenever
// that step could differ from a fresh reading of the new log (an entry the
// fold would report, a plan or a view the record rewrote, an entry that
// reinterprets older ones, bytes that are not what the commit holds), it
// leaves the remembered facts as they are: keyed by the old commit's
// files, they are a miss, and the next view reads the log. It never fails:
// a cache that cannot be kept current is only slower.
func Advance(st *store.Store, w Written) {
	t := w.Task
	if t == nil || t.State == nil || t.Plan == nil && t.PlanErr != nil {
		return
	}
	path := factsPath(st, t.Slug)
	f := readFacts(path, factsKey(t), t)
	if f == nil || len(f.Problems) > 0 || f.ParseProblems > 0 || f.Derived != string(t.StateRaw) || legacyStarts(t.State) {
		return
	}
	progress, stateData, ok := writtenFiles(st, t, w.Changes)
	if !ok {
		return
	}
	old := t.Progress()
	if len(old) == 0 || !bytes.HasPrefix(progress, old) {
		return
	}
	suffix, lines := progress[len(old):], bytes.Count(old, []byte("\n"))
	e, ok := appendedEntry(suffix, lines)
	if !ok {
		return
	}
	next, ok := stepFacts(f, t, e)
	if !ok || !bytes.Equal(next.Encode(), stateData) || legacyStarts(next) {
		return
	}
	// The bytes stepped are the ones committed.
	hashes, err := st.Repo.FolderHashes(w.Commit, t.Dir)
	if err != nil || hashes[store.ProgressFile] != st.Repo.BlobID(progress) || hashes[store.StateFile] != st.Repo.BlobID(stateData) {
		return
	}
	f.Key = keyOf(t.Slug, hashes[store.ProgressFile], hashes[store.StateFile], t.PlanName, t.PlanSum)
	f.derived, f.Derived = next, string(stateData)
	f.grow(e, suffix, lines)
	writeFacts(path, f)
	// Those facts hold no problem and fold into the state.json committed:
	// what verify's fold check would find of the same bytes.
	verify.FoldFound(st, t.Slug, hashes[store.ProgressFile], hashes[store.StateFile], t.PlanName, t.PlanSum)
}

// writtenFiles are the log and the view a record committed, when it
// wrote both and left the plan file as the task was read with.
func writtenFiles(st *store.Store, t *store.Task, changes []gitstate.FileChange) (progress, stateData []byte, ok bool) {
	planRel := ""
	if t.PlanName != "" {
		planRel = st.Rel(t.Slug, t.PlanName)
	}
	for _, ch := range changes {
		switch ch.Path {
		case st.Rel(t.Slug, store.ProgressFile):
			if ch.Delete {
				return nil, nil, false
			}
			progress = ch.Data
		case st.Rel(t.Slug, store.StateFile):
			if ch.Delete {
				return nil, nil, false
			}
			stateData = ch.Data
		case planRel:
			if ch.Delete || fmt.Sprintf("%x", sha256.Sum256(ch.Data)) != t.PlanSum {
				return nil, nil, false // the plan the facts were read with changed
			}
		}
	}
	return progress, stateData, progress != nil && stateData != nil
}

// appendedEntry reads the one entry that suffix, the bytes appended to a
// log of lines newlines, adds, numbered as in the whole log. A log's
// entries run from heading to heading, so the whole log's last entry is
// suffix's when suffix holds blank lines, then one heading and its
// fields, with no conflict marker and nothing the parser finds odd.
func appendedEntry(suffix []byte, lines int) (progresslog.Entry, bool) {
	lg := progresslog.Parse(suffix)
	if len(lg.Entries) != 1 || len(lg.Problems) > 0 || lg.Conflicted || len(bytes.TrimSpace([]byte(lg.Preamble))) > 0 {
		return progresslog.Entry{}, false
	}
	e := lg.Entries[0]
	switch e.Kind {
	case progresslog.KindOther, progresslog.KindCreated, progresslog.KindAdopted, progresslog.KindPlanned:
		// A log's first entry, or one that says how older entries read
		// (the units a plan dropped): read the whole log.
		return progresslog.Entry{}, false
	}
	e.Line += lines
	return e, true
}

// stepFacts is the fold of f's log stepped by e, when that step is what a
// fold of the whole log would do with e: an event it reads without a
// problem, of a unit the plan has, numbered in its place.
func stepFacts(f *logFacts, t *store.Task, e progresslog.Entry) (*state.State, bool) {
	if e.Unit != "" && t.Plan != nil && t.Plan.Unit(e.Unit) == nil {
		return nil, false
	}
	ev, err := reconcile.EventFrom(e, nil)
	if err != nil {
		return nil, false
	}
	var from state.Status
	if u := f.derived.Units[ev.Unit]; u != nil {
		from = u.Status
		if ev.Kind == progresslog.KindIteration && ev.Iteration != state.Val(u.IterationsUsed)+1 && u.Status != state.Done {
			return nil, false
		}
	}
	next, err := reconcile.Step(f.derived, t.Plan, ev)
	if err != nil {
		return nil, false
	}
	if ev.Unit != "" {
		if u := next.Units[ev.Unit]; u != nil && wentBack(from, u.Status) {
			f.unit(ev.Unit).Backs++
		}
	}
	return next, true
}

// grow takes in the entry e appended as suffix to a log of lines
// newlines: what a fresh reading of the whole log finds of it, entry by
// entry as readLog does.
func (f *logFacts) grow(e progresslog.Entry, suffix []byte, lines int) {
	i := f.Entries
	if f.Units == nil {
		f.Units = map[string]*unitFacts{}
	}
	if f.Activity == nil {
		f.Activity = map[string]int{}
	}
	if e.Unit != "" {
		f.Activity[e.Unit] = i + 1
	}
	f.see(&e, i)
	if v, ok := e.Field("Verification"); ok && e.Kind == progresslog.KindIteration {
		f.Verification, f.VerificationUnit, f.VerificationReopened = verificationText(&e, v), e.Unit, ""
	} else if e.Kind == progresslog.KindReopened && e.Unit == f.VerificationUnit && f.Verification != "" {
		f.VerificationReopened = e.Unit
	}
	if e.Kind == progresslog.KindSummary {
		local := e
		local.Line -= lines
		f.Size = readSize(suffix, []progresslog.Entry{local})
		f.Size.FromLine, f.Size.Summary.Line = e.Line, e.Line
	} else {
		f.Size.Characters += utf8.RuneCount(suffix)
		if s := f.Size.Summary; s != nil {
			s.Since++
			s.SinceTitles = append(s.SinceTitles, e.Title())
			if n := len(s.SinceTitles); n > summarySinceMax {
				s.SinceTitles = s.SinceTitles[n-summarySinceMax:]
			}
		}
	}
	f.Entries = i + 1
}

// legacyStarts reports whether a view has a unit that iterated with no
// start recorded (a view from before itr knew started_at): a fold keeps
// such a start unknown, which a step does not know to do.
func legacyStarts(s *state.State) bool {
	for _, u := range s.Units {
		if u.StartedAt == nil && state.Val(u.IterationsUsed) > 0 {
			return true
		}
	}
	return false
}
