package view

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// logFacts is everything status and prime read from a task's log: its
// fold and what the log says of each unit. It depends on the committed
// progress.md and state.json and on the plan only, so it is remembered
// under their ids (in the worktree's git directory) and a view of a log
// that did not change neither reads nor parses it: reads stay flat as the
// log grows. A log that changed is read and folded once, and remembered.
type logFacts struct {
	// Key names what the facts were read from; a mismatch is a miss.
	Key string `json:"key"`
	// Derived is the fold of the log (state.json as the log says it),
	// with the problems of its entries.
	Derived  string              `json:"derived"`
	Problems []reconcile.Problem `json:"problems,omitempty"`
	// ParseProblems counts what the log's parser found odd (lines it
	// could not read as entries, conflict markers).
	ParseProblems int `json:"parse_problems,omitempty"`
	// AdoptionNote is set for a task written without itr (never cached).
	AdoptionNote string `json:"-"`
	// Units are what the log says of each unit.
	Units map[string]*unitFacts `json:"units"`
	// Activity is the order of the units' last entries (reconcile.Activity).
	Activity map[string]int `json:"activity"`
	// Critical are the critical notes, oldest first; SinceNote counts the
	// iterations after the last note.
	Critical  []string `json:"critical,omitempty"`
	SinceNote int      `json:"since_note"`
	// Verification is the newest verification ("T1 iteration 5: passed"),
	// and VerificationReopened its unit when it was reopened since.
	// VerificationUnit is the unit of the newest verification.
	Verification         string `json:"verification,omitempty"`
	VerificationUnit     string `json:"verification_unit,omitempty"`
	VerificationReopened string `json:"verification_reopened,omitempty"`
	// Size is the log's size from its last Summary entry on, and that
	// entry.
	Size sizeFacts `json:"size"`
	// Entries counts the log's entries.
	Entries int `json:"entries"`

	derived *state.State
	// asRecorded is set when Derived is the committed state.json byte for
	// byte: the two cannot differ.
	asRecorded bool
}

// unitFacts is what the log says of one unit.
type unitFacts struct {
	// Last is its newest iteration entry, at LastIndex in the log.
	Last      *LastEntry `json:"last,omitempty"`
	LastIndex int        `json:"last_index,omitempty"`
	// Reopen is set when its newest entry is a Reopened one.
	Reopen *Reopen `json:"reopen,omitempty"`
	// First and LastAt are the times of its first iteration and of its
	// newest entry (RFC 3339), "" when unknown.
	First  string `json:"first,omitempty"`
	LastAt string `json:"last_at,omitempty"`
	// Backs counts the times it went back from confirming or verifying.
	Backs int `json:"backs,omitempty"`
	// Session is the session that recorded its newest entry, "" when that
	// entry names none.
	Session string `json:"session,omitempty"`
}

// factsVersion changes whenever logFacts or how it is read changes, so a
// remembered file from another itr is a miss, never a wrong answer. It
// opens the file's first line, before the checksum of the rest.
const factsVersion = "itr-view-6"

// factsOf gives the task's log facts: remembered ones when the log, the
// state and the plan are those they were read from, else read now (and
// remembered, for an active task written by itr).
func factsOf(st *store.Store, t *store.Task, active bool) *logFacts {
	key := factsKey(t)
	path := ""
	if active && key != "" {
		path = factsPath(st, t.Slug)
		if f := readFacts(path, key, t); f != nil {
			return f
		}
	}
	f := readLog(st, t, active)
	f.Key = key
	if path != "" && f.AdoptionNote == "" && t.ProgressErr == nil {
		writeFacts(path, f)
	}
	return f
}

// factsKey names the inputs of the facts: the blobs of progress.md and
// state.json and the plan's checksum. "" when the log is not committed.
func factsKey(t *store.Task) string {
	p, ok := t.HeadFiles[store.ProgressFile]
	if !ok {
		return ""
	}
	return keyOf(t.Slug, p, t.HeadFiles[store.StateFile], t.PlanName, t.PlanSum)
}

// keyOf is factsKey of its parts.
func keyOf(slug, progressBlob, stateBlob, planName, planSum string) string {
	return strings.Join([]string{factsVersion, slug, progressBlob, stateBlob, planName, planSum}, " ")
}

// factsPath is where the facts of the task slug are remembered.
func factsPath(st *store.Store, slug string) string {
	return st.Repo.WorktreeItrPath("itr-view-" + slug + ".json")
}

// readFacts reads the remembered facts at path when they are the ones
// read under key: a file of another version, whose body does not hash to
// the sum its first line gives (edited or cut short), or of another key is
// a miss, never an answer.
func readFacts(path, key string, t *store.Task) *logFacts {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return decodeFacts(data, key, t)
}

// decodeFacts is readFacts of the file's bytes. When the log's fold is
// byte for byte the task's committed state.json (the common case: itr
// wrote both), it is that state, not decoded a second time.
func decodeFacts(data []byte, key string, t *store.Task) *logFacts {
	head, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil
	}
	version, sum, ok := strings.Cut(string(head), " ")
	if !ok || version != factsVersion || sum != bodySum(body) {
		return nil
	}
	var f logFacts
	if json.Unmarshal(body, &f) != nil || f.Key != key {
		return nil
	}
	if t != nil && t.State != nil && f.Derived == string(t.StateRaw) {
		// Shared, not copied: the facts' fold is only read (Step copies
		// what it steps), as the task's state is.
		f.derived, f.asRecorded = t.State, true
		return &f
	}
	d, err := state.Decode([]byte(f.Derived))
	if err != nil {
		return nil
	}
	f.derived = d
	return &f
}

// bodySum is the SHA-256 of a remembered file's body, in hex.
func bodySum(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// encodeFacts is the file that remembers f: a first line naming the
// format and the SHA-256 of the rest, then f as JSON.
func encodeFacts(f *logFacts) ([]byte, error) {
	body, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("remember the log's facts: %w", err)
	}
	out := make([]byte, 0, len(factsVersion)+66+len(body))
	out = append(out, factsVersion...)
	out = append(out, ' ')
	out = append(out, bodySum(body)...)
	out = append(out, '\n')
	return append(out, body...), nil
}

// writeFacts remembers the facts; it is a cache, so a failure is ignored
// (the next view reads the log again).
func writeFacts(path string, f *logFacts) {
	data, err := encodeFacts(f)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// readLog reads the facts from the log itself.
func readLog(st *store.Store, t *store.Task, active bool) *logFacts {
	entries := t.Log().Entries
	f := &logFacts{Units: map[string]*unitFacts{}, ParseProblems: len(t.Log().Problems)}
	if t.Log().Conflicted {
		f.ParseProblems++
	}
	if t.State != nil && active && reconcile.NeedsAdoption(entries) {
		entries, f.AdoptionNote = adoptionPreview(st, t, entries)
	}
	backs := map[string]int{}
	f.derived, f.Problems = reconcile.Fold(reconcile.Input{Slug: t.Slug, Base: t.State, Plan: t.Plan, Entries: entries,
		Observe: func(ev reconcile.Event, from, to state.Status) {
			if wentBack(from, to) {
				backs[ev.Unit]++
			}
		}})
	f.Derived = string(f.derived.Encode())
	f.Activity = reconcile.ActivityOf(entries)
	for i := range entries {
		f.see(&entries[i], i)
	}
	for id, n := range backs {
		f.unit(id).Backs = n
	}
	f.Verification, f.VerificationUnit, f.VerificationReopened = lastVerification(entries)
	f.Size = readSize(t.Progress(), t.Log().Entries)
	f.Entries = len(entries)
	return f
}

// wentBack reports whether a unit's move is a check that did not hold:
// back from a gate to work.
func wentBack(from, to state.Status) bool {
	return (from == state.Confirming || from == state.Verifying) && (to == state.InProgress || to == state.Timeout)
}

// unit is what the log says of the unit id, added when it says nothing yet.
func (f *logFacts) unit(id string) *unitFacts {
	u := f.Units[id]
	if u == nil {
		u = &unitFacts{}
		f.Units[id] = u
	}
	return u
}

// see takes in the entry e, the log's i-th (from 0): the critical notes,
// the iterations since the last note, and what it says of its unit.
func (f *logFacts) see(e *progresslog.Entry, i int) {
	switch e.Kind {
	case progresslog.KindNote:
		if v, ok := e.Field("Critical"); ok && strings.TrimSpace(v) != "" {
			f.Critical = append(f.Critical, strings.TrimSpace(v))
		}
		f.SinceNote = 0
	case progresslog.KindIteration:
		f.SinceNote++
	}
	if e.Unit == "" {
		return
	}
	u := f.unit(e.Unit)
	u.Reopen = nil
	u.Session = progresslog.WhoOf(*e).Session
	if at, ok := e.Time(); ok {
		u.LastAt = at.UTC().Format(time.RFC3339)
		if u.First == "" && e.Kind == progresslog.KindIteration {
			u.First = u.LastAt
		}
	}
	switch e.Kind {
	case progresslog.KindIteration:
		u.Last, u.LastIndex = lastEntry(e), i+1
	case progresslog.KindReopened:
		r := &Reopen{Unit: e.Unit, Time: e.Stamp}
		r.Reason, _ = e.Field("Reason")
		r.Reason = strings.TrimSpace(r.Reason)
		u.Reopen = r
	}
}

// adoptionPreview is the log with the Adopted entry that adoption will
// write (for a task written without itr), and the warning that says so.
func adoptionPreview(st *store.Store, t *store.Task, entries []progresslog.Entry) ([]progresslog.Entry, string) {
	folded, _ := reconcile.Fold(reconcile.Input{Slug: t.Slug, Base: t.State, Plan: t.Plan, Entries: entries})
	fields := reconcile.Adoption(t.State, folded, t.Plan)
	var keep []string
	for _, f := range fields {
		if f.Name == "Units" {
			keep = strings.Split(f.Value, "\n")
		}
	}
	note := "this task was not written by itr (its log has no Created entry); `itr reconcile` (or the next itr write) adopts it, keeping everything"
	if len(keep) == 0 {
		return entries, note
	}
	note = fmt.Sprintf("this task was not written by itr (its log has no Created entry): its log holds no evidence for what state.json says of %d unit%s, which `itr reconcile` (or the next itr write) adopts and keeps: %s",
		len(keep), store.Plural(len(keep), "", "s"), strings.Join(store.FirstN(keep, 3), "; "))
	// The preview is stamped with the view's own time, so only what
	// adoption keeps shows, not the moment it will run.
	stamp := state.Val(t.State.Updated)
	if stamp == "" {
		stamp = st.Now().Format(time.RFC3339)
	}
	return append(entries[:len(entries):len(entries)], progresslog.Entry{Kind: progresslog.KindAdopted, Stamp: stamp, Fields: fields}), note
}

// lastIn is the newest iteration entry of a unit the view s still has (a
// unit dropped from the plan is history), of unit when it is not "".
func (f *logFacts) lastIn(s *state.State, unit string) *LastEntry {
	if unit != "" {
		if u := f.Units[unit]; u != nil && s.Units[unit] != nil {
			return u.Last
		}
		return nil
	}
	var best *LastEntry
	at := 0
	for id, u := range f.Units {
		if u.Last != nil && s.Units[id] != nil && u.LastIndex > at {
			best, at = u.Last, u.LastIndex
		}
	}
	return best
}

// times are the units' first-iteration and newest-entry times.
func (f *logFacts) times() unitTimes {
	ut := unitTimes{first: map[string]time.Time{}, last: map[string]time.Time{}}
	for id, u := range f.Units {
		if t, err := time.Parse(time.RFC3339, u.First); err == nil {
			ut.first[id] = t
		}
		if t, err := time.Parse(time.RFC3339, u.LastAt); err == nil {
			ut.last[id] = t
		}
	}
	return ut
}

// backs are the gate failures of each unit.
func (f *logFacts) backs() map[string]int {
	out := map[string]int{}
	for id, u := range f.Units {
		if u.Backs > 0 {
			out[id] = u.Backs
		}
	}
	return out
}

// FoldAgrees reports whether the task's committed state.json is exactly
// the fold of its committed log, with nothing odd in the log, as a
// remembered reading says when neither changed (reconcile --check then
// has nothing to read). t must be an active task.
func FoldAgrees(st *store.Store, t *store.Task) bool {
	if t.State == nil {
		return false
	}
	f := factsOf(st, t, true)
	return f.AdoptionNote == "" && len(f.Problems) == 0 && f.ParseProblems == 0 && f.Derived == string(t.StateRaw)
}
