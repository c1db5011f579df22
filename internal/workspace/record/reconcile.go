package record

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/internal/workspace/view"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// ReconcileOptions choose what itr reconcile does.
type ReconcileOptions struct {
	Slug   string
	Check  bool // write nothing; report
	DryRun bool // write nothing; include the state.json diff
}

// ReconcileReport says what reconcile found and did.
type ReconcileReport struct {
	Slug          string                  `json:"task"`
	Discrepancies []reconcile.Discrepancy `json:"discrepancies"`
	Problems      []string                `json:"problems"`
	// Adopted is set when progress.md had entries appended but not
	// committed (a crash between the write and the commit): they are kept.
	Adopted int `json:"adopted_entries"`
	// Kept lists what a first reconcile of a folder written without itr
	// kept of its committed state.json (an Adopted entry), unit by unit.
	Kept []string `json:"kept,omitempty"`
	// Restored is set when an uncommitted edit of earlier entries was undone.
	Restored bool `json:"restored_log"`
	// Saved lists where replaced content was kept, so nothing is lost.
	Saved []string `json:"saved"`
	// Undone lists commits made without itr that took entries itr had
	// committed out of the task's logs; reconcile puts them back.
	Undone []verify.UndoReport `json:"undone,omitempty"`
	Diff   string              `json:"diff,omitempty"`
	Commit string              `json:"commit,omitempty"`
	// Operation is the git operation in progress (merge, rebase, ...)
	// when reconcile resolved the task's files inside it.
	Operation string `json:"operation,omitempty"`
	// Staged lists the files resolved and staged during an operation.
	Staged []string `json:"staged,omitempty"`
	// Unresolved lists other conflicted paths the user still has to resolve.
	Unresolved []string `json:"unresolved,omitempty"`
	// Migrated says how state.json was brought to the current
	// schema_version ("schema_version absent → 1"), "" when it was current.
	Migrated string `json:"migrated,omitempty"`
}

// Clean reports whether state.json and the log already agreed.
func (r *ReconcileReport) Clean() bool {
	return len(r.Discrepancies) == 0 && r.Adopted == 0 && !r.Restored && len(r.Staged) == 0 && len(r.Undone) == 0 && len(r.Kept) == 0 && r.Migrated == ""
}

// MigrationNote says how a state.json of schema version from is brought
// to the current one, for the Found list of a Reconciled entry and the
// commit of any write that migrates it.
func MigrationNote(from int) string {
	was := "absent"
	if from > 0 {
		was = fmt.Sprint(from)
	}
	return fmt.Sprintf("state.json schema_version %s → %d (migrated to the current format)", was, state.CurrentSchema)
}

// Reconcile rebuilds state.json from the log by the rule "trust git over
// state": the committed progress.md (plus entries appended to it and not
// yet committed, when they are a clean append) folded with the plan by the
// shared reducer, compared with state.json on disk. It writes the result,
// appends a Reconciled entry that lists every discrepancy, and commits. On
// a healthy task it reports nothing and commits nothing.
func (w *writer) Reconcile(opts ReconcileOptions) (*ReconcileReport, error) {
	slug, err := w.Select(opts.Slug)
	if err != nil {
		return nil, err
	}
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return RetryMoved(func() (*ReconcileReport, error) { return w.reconcileOnce(slug, opts) })
}

// reconcileLocked is Reconcile of one task for a caller that holds itr's
// lock (sync, between its merge and its push).
func (w *writer) reconcileLocked(slug string) (*ReconcileReport, error) {
	return RetryMoved(func() (*ReconcileReport, error) { return w.reconcileOnce(slug, ReconcileOptions{Slug: slug}) })
}

// checkAgrees is reconcile --check's answer when nothing changed: the
// working tree holds the committed log and state.json, no commit took
// entries out, and the remembered reading of that log says state.json is
// its fold. Anything else is read the long way.
func (w *writer) checkAgrees(slug string) bool {
	t, err := w.LoadLight(slug)
	if err != nil || t.PlanErr != nil || t.StateErr != nil || w.CheckClean(t) != nil {
		return false
	}
	if undos, err := verify.FindUndos(w.Store, t); err != nil || len(undos) > 0 {
		return false
	}
	return view.FoldAgrees(w.Store, t)
}

// reconcileOnce is Reconcile of one task under itr's lock, once: a
// commit that lost the race for the branch makes the caller run it again.
func (w *writer) reconcileOnce(slug string, opts ReconcileOptions) (*ReconcileReport, error) {
	if op := w.Repo.Operation(); op != "" {
		return w.reconcileOperation(slug, op, opts)
	}
	if opts.Check && !opts.DryRun && w.checkAgrees(slug) {
		return newReconcileReport(slug), nil
	}
	// The committed log is read when it is needed (readLog), not before:
	// a log on disk that only appends to it is checked by hash, and the
	// committed bytes are never held beside it.
	t, err := w.LoadLight(slug)
	if err != nil {
		return nil, err
	}
	if t.PlanErr != nil {
		return nil, t.PlanErr
	}
	r := &reconcileRun{w: w, slug: slug, opts: opts, t: t, rep: newReconcileReport(slug),
		progressRel: w.Rel(slug, store.ProgressFile), stateRel: w.Rel(slug, store.StateFile), guardRel: w.Rel(slug, store.GuardrailsFile)}

	// Entries a plain git commit took out were committed: trust git and
	// put them back, before anything else is compared.
	if err := r.putBack(); err != nil {
		return nil, err
	}
	log, err := r.readLog()
	if err != nil {
		return nil, err
	}
	if err := r.readRecorded(); err != nil {
		return nil, err
	}
	derived := r.fold(r.adopt(log.Entries))
	rep := r.rep
	derivedRaw := derived.Encode()
	stateChanged := !bytes.Equal(r.recordedRaw, derivedRaw)
	if opts.DryRun || opts.Check {
		if stateChanged {
			rep.Diff = progresslog.LineDiff(string(r.recordedRaw), string(derivedRaw))
		}
		return rep, nil
	}
	if rep.Clean() && !stateChanged && bytes.Equal(r.logBytes, t.ProgressRaw) {
		return rep, nil
	}
	return r.write(derived, derivedRaw)
}

// newReconcileReport is the report of a reconcile of slug that found
// nothing yet.
func newReconcileReport(slug string) *ReconcileReport {
	return &ReconcileReport{Slug: slug, Discrepancies: []reconcile.Discrepancy{}, Problems: []string{}, Saved: []string{}}
}

// reconcileRun is one reconcile of a task outside a git operation: the
// task as committed, what the working tree holds, and the report built
// step by step from them.
type reconcileRun struct {
	w    *writer
	slug string
	opts ReconcileOptions
	t    *store.Task
	rep  *ReconcileReport

	progressRel, stateRel, guardRel string
	// committedGuard is guardrails.md as committed, before any lesson
	// was put back.
	committedGuard []byte
	// logBytes is the log the fold reads: the committed one, or the one
	// on disk when it only appends to it.
	logBytes []byte
	// recorded is the recorded view (state.json on disk, else the
	// committed one) and recordedRaw the bytes on disk.
	recorded    *state.State
	recordedRaw []byte
	// adoption is the Adopted entry of a folder written without itr.
	adoption *progresslog.Entry
}

// writes reports whether the reconcile may write (neither --check nor
// --dry-run).
func (r *reconcileRun) writes() bool {
	return !r.opts.Check && !r.opts.DryRun
}

// putBack puts back into the task the entries a commit made without itr
// took out of its logs, and reports each.
func (r *reconcileRun) putBack() error {
	undos, err := verify.FindUndos(r.w.Store, r.t)
	if err != nil {
		return err
	}
	if r.t.ProgressErr != nil { // the committed log, read for the search, could not be
		return fmt.Errorf("read the committed %s: %w", r.progressRel, r.t.ProgressErr)
	}
	r.committedGuard = r.t.GuardrailsRaw
	for _, u := range undos {
		r.rep.Undone = append(r.rep.Undone, verify.ReportOf(u))
		switch u.File {
		case r.guardRel:
			r.t.GuardrailsRaw = u.Restored
		case r.progressRel:
			r.t.SetProgress(u.Restored)
		}
	}
	return nil
}

// readLog picks the log: the committed one, or the disk one when it only
// appends. It returns the log parsed, its problems reported.
func (r *reconcileRun) readLog() (*progresslog.Log, error) {
	var log *progresslog.Log
	if r.w.LogUnchanged(r.t) { // the disk's log is the committed one: not read
		// The committed log with the room it was read with, for the one
		// append of write (progresslog.AppendOwned).
		if err := r.takeCommitted(); err != nil {
			return nil, err
		}
	} else {
		disk, err := r.w.ReadWorktree(r.progressRel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := r.takeCommitted(); err != nil {
				return nil, err
			}
			r.rep.Restored = r.t.ProgressRaw != nil
		case err != nil:
			return nil, err
		default:
			if log = r.adoptAppended(disk); log == nil {
				if err := r.takeCommitted(); err != nil {
					return nil, err
				}
				if !bytes.Equal(disk, r.t.ProgressRaw) {
					if err := r.readDiskLog(disk); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if log == nil {
		// Parsed in place: a blob or file read for this run, never
		// changed (the append writes past its end).
		log = progresslog.ParseOwned(r.logBytes)
	}
	for _, p := range log.Problems {
		r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("%s:%d: %s", r.progressRel, p.Line, p.Msg))
	}
	return log, nil
}

// takeCommitted makes the committed log the one the fold reads, read now
// (the task was loaded without it) with the room it was read with.
func (r *reconcileRun) takeCommitted() error {
	r.logBytes = r.t.TakeProgress()
	if r.t.ProgressErr != nil {
		return fmt.Errorf("read the committed %s: %w", r.progressRel, r.t.ProgressErr)
	}
	return nil
}

// adoptAppended adopts the entries appended on disk to the committed log
// without reading the committed log: when the committed blob's size is
// known from its header, the disk's log is longer and its first that many
// bytes, ending a line, hash to the committed blob, the disk's log only
// appends to it. It is parsed once, and the entries that start past the
// committed lines are the adopted ones. It returns the log parsed, or nil
// when the disk's log cannot be told an append that way (readDiskLog then
// compares the two logs).
func (r *reconcileRun) adoptAppended(disk []byte) *progresslog.Log {
	h, ok := r.t.HeadFiles[store.ProgressFile]
	if !ok || r.t.ProgressSet() {
		return nil
	}
	size, ok, err := gitstate.BlobSize(r.w.Repo, h)
	if err != nil || !ok || size >= int64(len(disk)) || size > 0 && disk[size-1] != '\n' {
		return nil
	}
	if r.w.Repo.BlobID(disk[:size]) != h {
		return nil
	}
	r.logBytes = disk
	log := progresslog.ParseOwned(disk)
	lines := bytes.Count(disk[:size], []byte("\n")) // every committed line ends in it
	before := 0
	for _, e := range log.Entries {
		if e.Line <= lines {
			before++
		}
	}
	r.rep.Adopted = len(log.Entries) - before
	if r.rep.Adopted == 0 {
		r.rep.Adopted = 1 // text appended to the last entry
	}
	return log
}

// readDiskLog weighs a progress.md on disk that differs from the
// committed one: entries only appended are adopted; an edit of earlier
// entries is kept aside (when writing) and the committed log restored.
func (r *reconcileRun) readDiskLog(disk []byte) error {
	t, rep := r.t, r.rep
	if v := progresslog.IsAppendOnly(t.ProgressRaw, disk); v == nil {
		before := len(progresslog.ParseOwned(t.ProgressRaw).Entries)
		r.logBytes = disk
		rep.Adopted = len(progresslog.ParseOwned(disk).Entries) - before
		if rep.Adopted == 0 {
			rep.Adopted = 1 // text appended to the last entry
		}
	} else {
		rep.Restored = true
		if r.writes() {
			saved, err := r.w.save(r.slug, store.ProgressFile, disk)
			if err != nil {
				return err
			}
			rep.Saved = append(rep.Saved, saved)
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s: an uncommitted edit changed earlier entries (%s); the committed log is restored", r.progressRel, v.Error()))
	}
	return nil
}

// readRecorded reads the recorded view: state.json on disk, else the
// committed one.
func (r *reconcileRun) readRecorded() error {
	recordedRaw, err := r.w.ReadWorktree(r.stateRel)
	r.recordedRaw = recordedRaw
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.rep.Problems = append(r.rep.Problems, r.stateRel+" is missing; rebuilt from the log")
		r.recorded = r.t.State
	case err != nil:
		return err
	default:
		return r.decodeRecorded()
	}
	return nil
}

// decodeRecorded decodes the state.json on disk; one that cannot be read
// is rebuilt from the log, kept aside first (when writing). One of a newer
// schema than this itr knows stops the reconcile.
func (r *reconcileRun) decodeRecorded() error {
	recorded, err := state.Decode(r.recordedRaw)
	r.recorded = recorded
	if errors.Is(err, state.ErrNewerSchema) {
		return fmt.Errorf("%s: %w", r.stateRel, err)
	} else if err != nil {
		r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("%s: %v; rebuilt from the log", r.stateRel, err))
		r.recorded = r.t.State
		if r.writes() && !bytes.Equal(r.recordedRaw, r.t.StateRaw) {
			saved, serr := r.w.save(r.slug, store.StateFile, r.recordedRaw)
			if serr != nil {
				return serr
			}
			r.rep.Saved = append(r.rep.Saved, saved)
		}
	}
	return nil
}

// adopt adopts a folder written without itr: what its committed
// state.json knows and its log does not is kept as an Adopted entry,
// returned after entries.
func (r *reconcileRun) adopt(entries []progresslog.Entry) []progresslog.Entry {
	t := r.t
	if t.State == nil || !reconcile.NeedsAdoption(entries) {
		return entries
	}
	folded, _ := reconcile.Fold(reconcile.Input{Slug: r.slug, Base: t.State, Plan: t.Plan, Entries: entries})
	fields := reconcile.Adoption(t.State, folded, t.Plan)
	if fields == nil {
		return entries
	}
	r.adoption = &progresslog.Entry{Kind: progresslog.KindAdopted, Stamp: r.w.Stamp(), Fields: fields}
	entries = append(entries[:len(entries):len(entries)], *r.adoption)
	for _, f := range fields {
		for _, line := range strings.Split(f.Value, "\n") {
			r.rep.Kept = append(r.rep.Kept, strings.ToLower(f.Name)+" "+line)
		}
	}
	return entries
}

// fold folds entries onto the recorded view with the shared reducer and
// reports the problems, the discrepancies and a migration of the schema.
func (r *reconcileRun) fold(entries []progresslog.Entry) *state.State {
	rep := r.rep
	derived, problems := reconcile.Fold(reconcile.Input{Slug: r.slug, Base: r.recorded, Plan: r.t.Plan, Entries: entries})
	for _, p := range problems {
		rep.Problems = append(rep.Problems, strings.Replace(p.Error(), "progress.md", r.progressRel, 1))
	}
	if d := reconcile.Diff(r.recorded, derived, r.t.Plan); len(d) > 0 {
		rep.Discrepancies = d
	}
	if r.recorded != nil && r.recorded.Outdated() {
		rep.Migrated = MigrationNote(r.recorded.SchemaVersion)
	}
	return derived
}

// write records the reconcile as an event of its own: it appends the
// Reconciled (or Adopted) entry, keeps what it replaces, and commits the
// log, the view and any guardrails put back.
func (r *reconcileRun) write(derived *state.State, derivedRaw []byte) (*ReconcileReport, error) {
	t, rep := r.t, r.rep
	found := r.findings()
	fields := []progresslog.Field{{Name: "Found", Value: strings.Join(found, "\n")}}
	if len(rep.Saved) > 0 {
		fields = append(fields, progresslog.Field{Name: "Saved", Value: strings.Join(rep.Saved, "\n")})
	}
	e := progresslog.Entry{Kind: progresslog.KindReconciled, Stamp: r.w.Stamp(), Fields: fields}
	event := store.EventReconciled
	if r.adoption != nil {
		// One entry a commit: the adoption is this reconcile's entry.
		e, event = *r.adoption, store.EventAdopted
		found = append([]string{fmt.Sprintf("adopted a task folder written without itr: kept %d fact%s of its committed state.json", len(rep.Kept), store.Plural(len(rep.Kept), "", "s"))}, found...)
	}
	// The entry is checked now, appended once it is final (below).
	if _, err := progresslog.RenderEntry(e, "\n"); err != nil {
		return nil, err
	}
	ev, err := reconcile.EventFrom(e, nil)
	if err != nil {
		return nil, err
	}
	final, err := reconcile.Step(derived, t.Plan, ev)
	if err != nil {
		return nil, err
	}
	c := &Change{Entry: &e, Event: event, Subject: r.subject()}
	if len(found) > 0 {
		c.Body = strings.Join(found, "\n")
	}
	files := []gitstate.FileChange{
		{Path: r.progressRel},
		{Path: r.stateRel, Data: final.Encode()},
	}
	guardChanged := !bytes.Equal(t.GuardrailsRaw, r.committedGuard)
	if guardChanged {
		files = append(files, gitstate.FileChange{Path: r.guardRel, Data: t.GuardrailsRaw})
	}
	if err := r.keepReplaced(&e, derivedRaw, guardChanged); err != nil {
		return nil, err
	}
	r.w.Attribute(&e)
	newLog, err := progresslog.AppendOwned(r.logBytes, e)
	if err != nil {
		return nil, err
	}
	files[0].Data = newLog
	commit, err := r.w.commit(t.Head.Hash, r.slug, c, final, files)
	if err != nil {
		return nil, err
	}
	rep.Commit = commit.Hash
	return rep, nil
}

// findings lists what the reconcile found, for the Found field of its
// entry and the body of its commit.
func (r *reconcileRun) findings() []string {
	rep := r.rep
	var found []string
	if rep.Migrated != "" {
		found = append(found, rep.Migrated)
	}
	for _, d := range rep.Discrepancies {
		found = append(found, d.String())
	}
	if rep.Adopted > 0 {
		found = append(found, fmt.Sprintf("adopted %d uncommitted entr%s of progress.md", rep.Adopted, store.Plural(rep.Adopted, "y", "ies")))
	}
	for _, u := range rep.Undone {
		found = append(found, u.Text+"; put back from history")
	}
	if len(found) == 0 {
		found = append(found, "state.json rewritten in canonical form")
	}
	return found
}

// subject names the reconcile's commit.
func (r *reconcileRun) subject() string {
	rep := r.rep
	subject := fmt.Sprintf("reconcile: %d discrepanc%s", len(rep.Discrepancies), store.Plural(len(rep.Discrepancies), "y", "ies"))
	if rep.Adopted > 0 {
		subject += fmt.Sprintf(", %d entr%s adopted", rep.Adopted, store.Plural(rep.Adopted, "y", "ies"))
	}
	if rep.Restored {
		subject += ", log restored"
	}
	if len(rep.Undone) > 0 {
		subject = "reconcile: entries taken out by " + store.Short(rep.Undone[0].Commit) + " put back"
		if n := len(rep.Discrepancies); n > 0 {
			subject += fmt.Sprintf(", %d discrepanc%s", n, store.Plural(n, "y", "ies"))
		}
	}
	if r.adoption != nil {
		subject = fmt.Sprintf("adopt: %d fact%s of state.json kept", len(rep.Kept), store.Plural(len(rep.Kept), "", "s"))
	}
	return subject
}

// replaced is a file on disk a reconcile replaces: its old content (or
// the error reading it) and the new.
type replaced struct {
	name string
	old  []byte
	err  error
	new  []byte
}

// keepReplaced keeps whatever the reconcile replaces on disk first, named
// in the report and in the entry e: a state.json with other facts than
// the fold (a corrupt one was kept before), a guardrails.md that lacked
// lessons (when guardChanged).
func (r *reconcileRun) keepReplaced(e *progresslog.Entry, derivedRaw []byte, guardChanged bool) error {
	rep := r.rep
	keep := []replaced{{store.StateFile, r.recordedRaw, nil, derivedRaw}}
	if guardChanged {
		g, gerr := r.w.ReadWorktree(r.guardRel)
		keep = append(keep, replaced{store.GuardrailsFile, g, gerr, r.t.GuardrailsRaw})
	}
	for _, k := range keep {
		if k.err != nil || k.old == nil || bytes.Equal(k.old, k.new) || rep.savedAs(k.name) {
			continue
		}
		if k.name == store.StateFile && len(rep.Discrepancies) == 0 {
			continue // only the form changes: nothing is lost
		}
		saved, err := r.w.save(r.slug, k.name, k.old)
		if err != nil {
			return err
		}
		rep.Saved = append(rep.Saved, saved)
		e.Fields = setField(e.Fields, "Saved", strings.Join(rep.Saved, "\n"))
	}
	return nil
}

// savedAs reports whether a copy of the file name was kept already.
func (r *ReconcileReport) savedAs(name string) bool {
	for _, p := range r.Saved {
		if strings.HasSuffix(p, "-"+name) {
			return true
		}
	}
	return false
}

// setField sets the field name of fields to value, adding it when absent.
func setField(fields []progresslog.Field, name, value string) []progresslog.Field {
	for i := range fields {
		if fields[i].Name == name {
			fields[i].Value = value
			return fields
		}
	}
	return append(fields, progresslog.Field{Name: name, Value: value})
}

// save keeps content that reconcile replaces under
// <git dir>/itr/recovered/, and returns that path relative to the
// repository top (or absolute when the git dir is elsewhere).
func (w *writer) save(slug, name string, data []byte) (string, error) {
	dir := w.Repo.ItrPath("itr", "recovered", slug)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("keep the replaced %s: %w", name, err)
	}
	p := filepath.Join(dir, w.Now().Format("20060102T150405Z")+"-"+name)
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			break
		}
		p = filepath.Join(dir, fmt.Sprintf("%s-%d-%s", w.Now().Format("20060102T150405Z"), i, name))
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return "", fmt.Errorf("keep the replaced %s: %w", name, err)
	}
	if rel, err := filepath.Rel(w.Repo.Root(), p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel), nil
	}
	return p, nil
}
