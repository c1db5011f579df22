package record

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/recovery"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/internal/workspace/view"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Change is what one record adds: an entry of progress.md or a guardrail,
// and how the commit is named.
type Change struct {
	Entry     *progresslog.Entry
	Guardrail *progresslog.Guardrail
	// Decision is a settled choice appended to decisions.md (itr decide).
	Decision *progresslog.Decision
	Event    string
	Subject  string // after "itr(<slug>): "
	Body     string
	Warnings []string
	// Files are more Files the record writes (a run's output).
	Files []gitstate.FileChange
	// After runs once the commit has landed.
	After func()
}

// Outcome is the result of one recorded event.
type Outcome struct {
	Slug   string
	Commit string
	Before *state.State
	After  *state.State
	Entry  *progresslog.Entry
	// Guardrail is the name of the lesson added, for itr guardrail.
	Guardrail string
	// Decision is the title of the decision added, for itr decide.
	Decision string
	Files    []string
	// Repaired is set when entries that a commit made without itr had
	// taken out were put back first (its own reconcile commit).
	Repaired *ReconcileReport
	// Refolded lists how state.json differed from the fold of the log it
	// sat beside (a merge that joined two logs but not their views), so
	// the record built on the fold instead, in the same commit.
	Refolded []reconcile.Discrepancy
	// Warnings are what the record went ahead despite (work files not
	// committed when the work was declared done).
	Warnings []string
	// Released is the unit whose claim this agent held and gave up once
	// the unit failed or was skipped.
	Released string
}

// record runs one event as lock → read → reduce → write → commit. build
// sees the task as committed and returns the change or an error that
// leaves everything as it was. When HEAD moves between the read and the
// commit (a git commit ran meanwhile) the whole record is redone on the new
// HEAD, so no update is lost.
func (w *writer) record(slug string, build func(t *store.Task) (*Change, error)) (*Outcome, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return RetryMoved(func() (*Outcome, error) { return w.recordOnce(slug, build) })
}

// RetryMoved redoes an operation whose commit lost the race for the branch
// (a git commit landed between the read and the write), with jittered
// backoff, for up to 30 seconds: a busy repository delays itr but never
// makes it lose or give up an update early.
func RetryMoved[T any](op func() (T, error)) (T, error) {
	deadline := time.Now().Add(30 * time.Second)
	for attempt := 1; ; attempt++ {
		out, err := op()
		if !errors.Is(err, gitstate.ErrHeadMoved) || time.Now().After(deadline) {
			return out, err
		}
		backoff := time.Duration(min(attempt, 20)) * time.Millisecond
		time.Sleep(backoff + time.Duration(rand.Int64N(int64(backoff)))) //nolint:gosec // G404: jitter for a retry, not a secret
	}
}

// recordOnce is record of one event under itr's lock, once: a commit that
// lost the race for the branch makes the caller run it again.
func (w *writer) recordOnce(slug string, build func(t *store.Task) (*Change, error)) (*Outcome, error) {
	if err := w.noOperation(); err != nil {
		return nil, err
	}
	t, repaired, err := w.repairBeforeRecord(slug)
	if err != nil {
		return nil, err
	}
	if err := w.CheckClean(t); err != nil {
		return nil, err
	}
	refolded, err := w.refoldStale(t)
	if err != nil {
		return nil, err
	}
	before := t.State
	c, err := build(t)
	if err != nil {
		return nil, err
	}
	if len(refolded) > 0 {
		c.Body = strings.TrimSpace(c.Body + "\n\n" + refoldNote(refolded))
	}
	if t.State.Outdated() {
		// The step writes the current format: the commit says so.
		c.Body = strings.TrimSpace(c.Body + "\n\n" + MigrationNote(t.State.SchemaVersion))
	}
	out := &Outcome{Slug: slug, Before: before, After: t.State, Repaired: repaired, Refolded: refolded, Warnings: c.Warnings}
	changes, err := w.recordChanges(slug, t, c, out)
	if err != nil {
		return nil, err
	}
	commit, err := w.commit(t.Head.Hash, slug, c, out.After, changes)
	if err != nil {
		return nil, err
	}
	out.Commit = commit.Hash
	// The first view after the record reads what it remembered of the
	// log, stepped by the entry, not the whole log again.
	view.Advance(w.Store, view.Written{Task: t, Commit: commit.Hash, Changes: changes})
	if c.After != nil {
		c.After()
	}
	if c.Guardrail != nil {
		out.Guardrail = c.Guardrail.Name
	}
	if c.Decision != nil {
		out.Decision = c.Decision.Title
	}
	for _, ch := range changes {
		out.Files = append(out.Files, ch.Path)
	}
	return out, nil
}

// repairBeforeRecord loads the task a record builds on, repaired first
// when it has to be, each repair as its own reconcile commit (returned):
// entries a plain git commit took out (it committed an index from before
// a checkpoint) are put back, so the record builds on the whole log; a
// folder written without itr is adopted, so the record does not build on
// a fold that lacks what its state.json knows (done units, blocks,
// confirmations).
func (w *writer) repairBeforeRecord(slug string) (*store.Task, *ReconcileReport, error) {
	t, err := w.loadReadable(slug)
	if err != nil {
		return nil, nil, err
	}
	undos, adopt, err := w.repairsDue(t)
	if err != nil {
		return nil, nil, err
	}
	var repaired *ReconcileReport
	switch {
	case len(undos) > 0:
		if repaired, err = w.reconcileOnce(slug, ReconcileOptions{Slug: slug}); err != nil {
			return nil, nil, fmt.Errorf("put back the entries %s: %w", undos[0], err)
		}
	case adopt:
		if repaired, err = w.reconcileOnce(slug, ReconcileOptions{Slug: slug}); err != nil {
			return nil, nil, fmt.Errorf("adopt the task folder written without itr: %w", err)
		}
	default:
		return t, nil, nil
	}
	if t, err = w.Load(slug); err != nil {
		return nil, nil, err
	}
	return t, repaired, nil
}

// repairsDue are what a record reconciles first, each as its own commit:
// the entries plain commits took out of the logs, else a folder written
// without itr to adopt. Whatever itr's files hold unsaved is taken in by
// that reconcile, so only without either does a record (or a start)
// refuse unsaved files.
func (w *writer) repairsDue(t *store.Task) (undos []*verify.Undo, adopt bool, err error) {
	undos, err = verify.FindUndos(w.Store, t)
	return undos, t.State != nil && needsAdoption(t), err
}

// recordChanges steps the view with the change's entry (or, with none,
// with the plan alone), sets out's After and Entry, and returns the files
// the record writes: the log, the view, the guardrail or decision added,
// the change's own files, the plan's checkboxes and the rest of the
// task's folder.
func (w *writer) recordChanges(slug string, t *store.Task, c *Change, out *Outcome) ([]gitstate.FileChange, error) {
	written := map[string]bool{}
	var changes []gitstate.FileChange
	if c.Entry != nil {
		// Every entry says who made it.
		w.Attribute(c.Entry)
		// Appended in place where the blob was read with room for it:
		// a long log is not copied.
		progress, err := progresslog.AppendOwned(t.TakeProgress(), *c.Entry)
		if err != nil {
			return nil, fmt.Errorf("append to %s: %w", w.Rel(slug, store.ProgressFile), err)
		}
		ev, err := reconcile.EventFrom(*c.Entry, nil)
		if err != nil {
			return nil, err
		}
		next, err := reconcile.Step(t.State, t.Plan, ev)
		if err != nil {
			return nil, err
		}
		out.After, out.Entry = next, c.Entry
		changes = append(changes, gitstate.FileChange{Path: w.Rel(slug, store.ProgressFile), Data: progress})
	} else {
		// No event for the reducer, but the plan may still have changed.
		next, err := reconcile.Step(t.State, t.Plan, reconcile.Event{Kind: progresslog.KindOther})
		if err != nil {
			return nil, err
		}
		out.After = next
	}
	changes = append(changes, gitstate.FileChange{Path: w.Rel(slug, store.StateFile), Data: out.After.Encode()})
	if c.Guardrail != nil {
		g, err := progresslog.AppendGuardrail(t.GuardrailsRaw, *c.Guardrail)
		if err != nil {
			return nil, fmt.Errorf("append to %s: %w", w.Rel(slug, store.GuardrailsFile), err)
		}
		changes = append(changes, gitstate.FileChange{Path: w.Rel(slug, store.GuardrailsFile), Data: g})
	}
	if c.Decision != nil {
		d, err := progresslog.AppendDecision(t.DecisionsRaw, *c.Decision)
		if err != nil {
			return nil, fmt.Errorf("append to %s: %w", w.Rel(slug, store.DecisionsFile), err)
		}
		changes = append(changes, gitstate.FileChange{Path: w.Rel(slug, store.DecisionsFile), Data: d})
	}
	changes = append(changes, c.Files...)
	if ch, err := w.syncPlan(t, out.After); err != nil {
		return nil, err
	} else if ch != nil {
		changes = append(changes, *ch)
	}
	for _, ch := range changes {
		written[ch.Path] = true
	}
	more, err := w.FolderChanges(t, written)
	if err != nil {
		return nil, err
	}
	return append(changes, more...), nil
}

// loadReadable loads a task whose state.json and plan are readable, the
// ground every record builds on.
func (w *writer) loadReadable(slug string) (*store.Task, error) {
	t, err := w.Load(slug)
	if err != nil {
		return nil, err
	}
	if t.StateErr != nil {
		return nil, t.StateErr
	}
	if t.PlanErr != nil {
		return nil, t.PlanErr
	}
	return t, nil
}

// needsAdoption reports whether the task's log was written without itr
// and never adopted; a log with a Created or Adopted heading is not read.
func needsAdoption(t *store.Task) bool {
	if bytes.Contains(t.ProgressRaw, []byte(" - Created - ")) || bytes.Contains(t.ProgressRaw, []byte(" - Adopted - ")) {
		return false
	}
	return reconcile.NeedsAdoption(t.Log().Entries)
}

// syncPlan keeps the plan file, the seed's human view, in step with the
// view after the record: each unit's checkbox ([x] when done) and the
// **Total:** and **Status:** lines, touching no other byte. It returns the
// file's change, nil when nothing changes (or there is no readable plan).
func (w *writer) syncPlan(t *store.Task, s *state.State) (*gitstate.FileChange, error) {
	if t.Plan == nil || t.PlanName == "" {
		return nil, nil
	}
	rel := w.Rel(t.Slug, t.PlanName)
	data, err := w.ReadWorktree(rel)
	if err != nil {
		return nil, nil // the record names a missing or odd plan file elsewhere
	}
	synced, changed := plan.SyncViewWith(data, t.Plan, t.Plan.IDs(), s)
	if !changed {
		return nil, nil
	}
	return &gitstate.FileChange{Path: rel, Data: synced}, nil
}

// refoldStale makes sure a record builds on the fold of the log it sits
// beside. When the log changed since the task's last itr commit without
// itr (a merge joined two logs: git calls no merge driver for state.json
// files that are byte-identical on both sides, as after two agents
// checkpointed the same unit in the same second), state.json may be stale:
// the log is folded, and where the view differs, t.State becomes the fold
// and the differences are returned. The usual case, the log unchanged since
// itr's last commit, costs one walk to that commit and one tree lookup.
func (w *writer) refoldStale(t *store.Task) ([]reconcile.Discrepancy, error) {
	progressRel := w.Rel(t.Slug, store.ProgressFile)
	var last *gitstate.Commit
	err := w.Repo.History(t.Head.Hash, func(c gitstate.Commit) bool {
		if v, _ := c.Trailer(store.TrailerTask); v == t.Slug {
			last = &c
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if last != nil && last.Hash == t.Head.Hash {
		return nil, nil // HEAD is itr's own commit: its view is the fold
	}
	if last != nil {
		h, err := w.Repo.FileHashAt(last.Hash, progressRel)
		if err != nil && !errors.Is(err, gitstate.ErrNotFound) {
			return nil, err
		}
		if h == t.HeadFiles[store.ProgressFile] {
			return nil, nil // the log is as itr last committed it, with its view
		}
	}
	derived, _ := reconcile.Fold(reconcile.Input{Slug: t.Slug, Base: t.State, Plan: t.Plan, Entries: t.Log().Entries})
	d := reconcile.Diff(t.State, derived, t.Plan)
	if len(d) > 0 {
		t.State = derived
	}
	return d, nil
}

// refoldNote is the commit body line that logs a refold.
func refoldNote(d []reconcile.Discrepancy) string {
	parts := make([]string, 0, 3)
	parts = append(parts, store.FirstN(discrepancyTexts(d), 3)...)
	return fmt.Sprintf("state.json was not the fold of progress.md beside it (%d difference%s; a merge joined the logs but not the views); this commit builds on the fold: %s",
		len(d), store.Plural(len(d), "", "s"), strings.Join(parts, "; "))
}

func discrepancyTexts(d []reconcile.Discrepancy) []string {
	out := make([]string, len(d))
	for i, x := range d {
		out[i] = x.String()
	}
	return out
}

// lockIdle takes itr's lock (see lock) for a write that may not land in
// the middle of a git merge, rebase or cherry-pick (see noOperation).
func (w *writer) lockIdle() (func(), error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	if err := w.noOperation(); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// noOperation refuses to commit while git is in the middle of a merge,
// cherry-pick, revert or rebase: a commit on top of HEAD would lose it.
func (w *writer) noOperation() error {
	if op := w.Repo.Operation(); op != "" {
		return fmt.Errorf("a git %s is in progress; resolve itr's files with `itr reconcile`, conclude the %s with git (e.g. `git %s --continue`), then run this again", op, op, op)
	}
	return nil
}

// commit writes one commit of the given changes with itr's trailers.
func (w *writer) commit(expect, slug string, c *Change, after *state.State, changes []gitstate.FileChange) (gitstate.Commit, error) {
	tr := []gitstate.Trailer{{Key: store.TrailerTask, Value: slug}, {Key: store.TrailerEvent, Value: c.Event}}
	if e := c.Entry; e != nil && e.Unit != "" {
		tr = append(tr, gitstate.Trailer{Key: store.TrailerUnit, Value: e.Unit})
		if e.Kind == progresslog.KindIteration {
			tr = append(tr, gitstate.Trailer{Key: store.TrailerIteration, Value: strconv.Itoa(e.Iteration)})
		}
		if u := after.Units[e.Unit]; u != nil {
			tr = append(tr, gitstate.Trailer{Key: store.TrailerStatus, Value: string(u.Status)})
		}
	}
	for _, ch := range changes {
		if ch.Path == w.Rel(slug, store.ProgressFile) && !ch.Delete {
			tr = append(tr, gitstate.Trailer{Key: store.TrailerLog, Value: store.LogDigest(ch.Data)})
		}
	}
	more, err := w.indexChanges(expect, slug, after, "", changes)
	if err != nil {
		return gitstate.Commit{}, err
	}
	changes = append(changes, more...)
	msg := "itr(" + slug + "): " + store.OneLine(c.Subject, 72) + "\n"
	if c.Body != "" {
		msg += "\n" + strings.TrimRight(c.Body, "\n") + "\n"
	}
	msg += "\n" + gitstate.FormatTrailers(tr)
	var written []string
	for _, ch := range changes {
		switch path.Base(ch.Path) {
		case store.StateFile, store.ProgressFile, store.GuardrailsFile, store.DecisionsFile, ".gitattributes":
			written = append(written, ch.Path)
		}
	}
	commitGate.Lock()
	defer commitGate.Unlock()
	if err := recovery.Begin(w.Store, expect, changes, written); err != nil {
		return gitstate.Commit{}, err
	}
	defer recovery.End(w.Store)
	commit, err := w.Repo.CommitFiles(gitstate.CommitRequest{
		Changes:  changes,
		Message:  msg,
		When:     w.Now(),
		Expect:   expect,
		Worktree: true,
		Author:   w.identity(),
		Guard:    guards(w.TaskDir(slug), changes),
	})
	if errors.Is(err, gitstate.ErrLocked) {
		err = fmt.Errorf("%w\n(itr changed nothing. If no git command is running, the lock was left by a process that was killed: remove that file, then run `itr reconcile`.)", err)
	}
	if err == nil {
		// What `git commit` does once its commit landed: git's automatic
		// maintenance, when git's rules call for it; never waited for.
		gitstate.AutoMaintenance(w.Repo)
	}
	return commit, err
}

// guards are the paths a record read: the task folder and anything else
// it changes. A commit that landed meanwhile without touching them does not
// invalidate the record, so itr rebuilds on top of it instead of redoing it
// (a busy repository never starves itr).
func guards(dir string, changes []gitstate.FileChange) []string {
	out := []string{dir}
	for _, c := range changes {
		if !strings.HasPrefix(c.Path, dir+"/") {
			out = append(out, c.Path)
		}
	}
	return out
}

func (w *writer) identity() *gitstate.Signature {
	if w.Config.Identity.Name == "" {
		return nil
	}
	return &gitstate.Signature{Name: w.Config.Identity.Name, Email: w.Config.Identity.Email}
}
