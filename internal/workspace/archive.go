package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/view"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// ArchiveRequest archives a task.
type ArchiveRequest struct {
	Slug   string // "" is the selected task
	Force  bool   // archive although units are unfinished
	Reason string // why, with Force; logged in the Archived entry and the tag
	Keep   bool   // also leave a plain copy under <root>/archive/<slug>-YYYYMMDD/
	// RemoveOutputs also takes the task's outputs/ and sources/ out of the
	// working tree; by default they stay in place, tracked, as deliverables.
	RemoveOutputs bool
}

// ArchiveReport says what itr archive did. Its JSON field names are part of
// itr's interface.
type ArchiveReport struct {
	Slug       string `json:"task"`
	Checkpoint string `json:"checkpoint"` // the commit of the Archived entry, where the refs point
	Branch     string `json:"branch"`
	Tag        string `json:"tag"`
	TagObject  string `json:"tag_object"`
	Commit     string `json:"commit"` // the commit that removed the folder
	Kept       string `json:"kept,omitempty"`
	// Deliverables are the task's folders left in the working tree, still
	// tracked (outputs/, sources/ when they hold files); empty with
	// --remove-outputs.
	Deliverables []string `json:"deliverables"`
	Done         int      `json:"done"`
	Total        int      `json:"total"`
	Iterations   int      `json:"iterations"`
	Unfinished   []string `json:"unfinished"`
	Forced       string   `json:"forced,omitempty"`
	Summary      string   `json:"summary"` // the tag's message
	// ClaimWarnings name the claims of the task that could not be
	// deleted (a claims remote that could not be reached); the others went
	// with the archive.
	ClaimWarnings []string `json:"claim_warnings,omitempty"`
}

// UnfinishedError is why itr archive refused: units whose work is not
// accounted for (not done, not skipped, not failed and replaced by a done
// unit).
type UnfinishedError struct {
	Slug  string
	Units []string // "T2 (in_progress)"
	// Failed are the failed units among them, which need someone; Mode
	// names the plan file of the fix.
	Failed []string
	Mode   state.Mode
}

// Error implements error.
func (e *UnfinishedError) Error() string {
	if len(e.Units) == 0 {
		return fmt.Sprintf("task %s has no units: there is nothing finished to archive; pass --force --reason TEXT to archive it anyway", e.Slug)
	}
	msg := fmt.Sprintf("task %s has %d unfinished unit(s): %s; finish them, or pass --force --reason TEXT to archive it anyway",
		e.Slug, len(e.Units), strings.Join(e.Units, ", "))
	for _, id := range e.Failed {
		msg += fmt.Sprintf("; %s failed: %s", id, reconcile.FailedFix(id, e.Mode, func(f string) string { return "--" + f }))
	}
	return msg
}

// Archive records the task's final checkpoint (an Archived entry, phase
// complete), points the archive branch and a new dated annotated tag at
// that commit, reads both back, and only then removes the task folder from
// the working branch in one commit that touches nothing else (with Keep,
// the same commit adds the plain copy). An interrupted archive is finished
// by running it again: the Archived entry is not recorded twice.
func (w *Workspace) Archive(req ArchiveRequest) (*ArchiveReport, error) {
	if req.Force && strings.TrimSpace(req.Reason) == "" {
		return nil, fmt.Errorf("--force needs --reason TEXT: say why the task is archived unfinished")
	}
	if !req.Force && req.Reason != "" {
		return nil, fmt.Errorf("--reason goes with --force; drop it, or add --force to archive unfinished units")
	}
	if err := record.PlainText("reason", req.Reason); err != nil {
		return nil, err
	}
	slug, err := w.Select(req.Slug)
	if err != nil {
		return nil, err
	}
	tagger, err := w.signature()
	if err != nil {
		return nil, err
	}
	unlock, err := record.LockIdle(w.Store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, err := w.Load(slug)
	if err != nil {
		return nil, err
	}
	rep := &ArchiveReport{Slug: slug, Unfinished: []string{}, Deliverables: []string{}}
	if !archivedLast(t) {
		if err := w.onlyRegularFiles(t.Dir); err != nil {
			return nil, err
		}
		_, err = record.RetryMoved(func() (*Outcome, error) {
			return record.RecordLocked(w.Store, slug, func(t *store.Task) (*record.Change, error) { return w.archiveChange(t, req) })
		})
		if err != nil {
			return nil, err
		}
		if t, err = w.Load(slug); err != nil {
			return nil, err
		}
	} else if t.StateErr != nil {
		return nil, t.StateErr
	}
	// The refs point at the commit that recorded the Archived entry (HEAD
	// now; on a resumed archive, HEAD holds the same task folder).
	at := t.Head.Hash
	folder, err := w.Repo.FileHashAt(at, t.Dir)
	if err != nil {
		return nil, err
	}
	rep.Checkpoint = at
	rep.Done, rep.Total, _ = view.ProgressOf(t.State)
	rep.Unfinished = reconcile.Unsettled(t.State, t.Plan)
	rep.Iterations = iterationsOf(t.State)
	if e := lastEntry(t.Log()); e != nil {
		rep.Forced, _ = e.Field("Forced")
	}
	rep.Summary = w.archiveSummary(t, at)

	rep.Branch = store.ArchiveBranchPrefix + slug
	if rep.Tag, rep.TagObject, err = w.existingArchiveTag(slug, folder); err != nil {
		return nil, err
	}
	if err := w.Repo.SetBranch(rep.Branch, at, tagger, "itr: archive "+slug); err != nil {
		return nil, fmt.Errorf("create the archive branch %s: %w; the task is still in the working tree: run `itr archive` again", rep.Branch, err)
	}
	if rep.Tag == "" {
		for n := 1; ; n++ {
			name := store.ArchiveTagPrefix + slug + "/" + w.Now().Format("2006-01-02")
			if n > 1 {
				name += "-" + strconv.Itoa(n)
			}
			obj, err := w.Repo.CreateTag(name, at, rep.Summary, tagger)
			if errors.Is(err, gitstate.ErrRefExists) && n < 1000 {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("create the archive tag %s: %w; the task is still in the working tree: run `itr archive` again", name, err)
			}
			rep.Tag, rep.TagObject = name, obj
			break
		}
	}
	if err := w.readBack(t, at, rep); err != nil {
		return nil, err
	}
	if req.Keep {
		rep.Kept, err = w.keepName(slug, t.Head.Hash)
		if err != nil {
			return nil, err
		}
	}
	if rep.Commit, err = w.removeFolder(t, at, folder, rep, req.RemoveOutputs); err != nil {
		return nil, err
	}
	rep.ClaimWarnings = w.DropClaims(slug)
	return rep, nil
}

// archiveChange builds the Archived entry, refusing unfinished units
// unless forced.
func (w *Workspace) archiveChange(t *store.Task, req ArchiveRequest) (*record.Change, error) {
	// Skipped units and failed units a done unit replaces are accounted
	// for; a failed unit nothing replaces is unfinished.
	done, total, _ := view.ProgressOf(t.State)
	unfinished := reconcile.Unsettled(t.State, t.Plan)
	if (len(unfinished) > 0 || total == 0) && !req.Force {
		adv := reconcile.Advise(t.State, t.Plan, nil)
		return nil, &UnfinishedError{Slug: t.Slug, Units: unfinished, Failed: adv.Failed, Mode: t.State.Mode}
	}
	e := &progresslog.Entry{Kind: progresslog.KindArchived, Stamp: w.Stamp(), Fields: []progresslog.Field{
		{Name: "Units", Value: fmt.Sprintf("%d/%d done", done, total)},
		{Name: "Iterations", Value: strconv.Itoa(iterationsOf(t.State))},
	}}
	if req.Force {
		e.Fields = append(e.Fields, progresslog.Field{Name: "Forced", Value: req.Reason})
		if len(unfinished) > 0 {
			e.Fields = append(e.Fields, progresslog.Field{Name: "Unfinished", Value: strings.Join(unfinished, ", ")})
		}
	}
	subject := fmt.Sprintf("archive: %d/%d units done", done, total)
	if req.Force {
		subject += " (forced: " + req.Reason + ")"
	}
	return &record.Change{Entry: e, Event: store.EventArchived, Subject: subject}, nil
}

// archivedLast reports whether the task's newest entry is Archived and its
// phase complete: an archive that stopped after its checkpoint.
func archivedLast(t *store.Task) bool {
	e := lastEntry(t.Log())
	return e != nil && e.Kind == progresslog.KindArchived && t.State != nil && t.State.Phase == state.Complete
}

func lastEntry(l *progresslog.Log) *progresslog.Entry {
	if l == nil || len(l.Entries) == 0 {
		return nil
	}
	return &l.Entries[len(l.Entries)-1]
}

func iterationsOf(s *state.State) int {
	n := 0
	for _, u := range s.Units {
		n += state.Val(u.IterationsUsed)
	}
	return n
}

// onlyRegularFiles refuses a task folder holding symbolic links or other
// special files: they are not committed, so removing the folder would lose
// them.
func (w *Workspace) onlyRegularFiles(dir string) error {
	return filepath.WalkDir(w.Abs(dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || d.Type().IsRegular() {
			return nil
		}
		r, _ := filepath.Rel(w.Repo.Root(), p)
		return fmt.Errorf("%s is not a regular file (%s); itr archives only regular files, and archiving removes the folder: move it out of %s first", filepath.ToSlash(r), d.Type(), dir)
	})
}

// signature is who tags and moves the archive refs: .itr.yaml's identity,
// else git's committer.
func (w *Workspace) signature() (gitstate.Signature, error) {
	if id := record.Identity(w.Store); id != nil {
		return gitstate.Signature{Name: id.Name, Email: id.Email, When: w.Now()}, nil
	}
	return w.Repo.Committer(w.Now())
}

// archiveSummary is the archive tag's message: what a reader of `git tag
// -n` or `git show` needs to know about the task.
func (w *Workspace) archiveSummary(t *store.Task, at string) string {
	s := t.State
	done, total, unfinished := view.ProgressOf(s)
	var b strings.Builder
	fmt.Fprintf(&b, "itr archive: %s (%s)\n\n", s.Task, t.Slug)
	fmt.Fprintf(&b, "Units: %d/%d done\n", done, total)
	for _, id := range s.IDs() {
		u := s.Units[id]
		fmt.Fprintf(&b, "  %s %s, %d iteration(s)\n", id, u.Status, state.Val(u.IterationsUsed))
	}
	fmt.Fprintf(&b, "Iterations: %d\n", iterationsOf(s))
	var created, first, last, archived string
	for _, e := range t.Log().Entries {
		switch e.Kind {
		case progresslog.KindCreated:
			created = e.Stamp
		case progresslog.KindIteration:
			if first == "" {
				first = e.Stamp
			}
			last = e.Stamp
		case progresslog.KindArchived:
			archived = e.Stamp
		}
	}
	fmt.Fprintf(&b, "Started: %s\n", orNone(created))
	fmt.Fprintf(&b, "First checkpoint: %s\n", orNone(first))
	fmt.Fprintf(&b, "Last checkpoint: %s\n", orNone(last))
	fmt.Fprintf(&b, "Archived: %s\n", orNone(archived))
	if e := lastEntry(t.Log()); e != nil {
		if reason, ok := e.Field("Forced"); ok {
			fmt.Fprintf(&b, "Forced: %s\n", store.OneLine(reason, 200))
			if len(unfinished) > 0 {
				fmt.Fprintf(&b, "Unfinished: %s\n", strings.Join(unfinished, ", "))
			}
		}
	}
	g := progresslog.ParseGuardrails(t.GuardrailsRaw)
	fmt.Fprintf(&b, "Guardrails: %d\n", len(g.Entries))
	for _, e := range g.Entries {
		fmt.Fprintf(&b, "  - %s\n", store.OneLine(e.Name, 100))
	}
	fmt.Fprintf(&b, "\n%s", gitstate.FormatTrailers([]gitstate.Trailer{
		{Key: store.TrailerTask, Value: t.Slug}, {Key: "Itr-Commit", Value: at}, {Key: "Itr-Folder", Value: t.Dir}}))
	return b.String()
}

// existingArchiveTag finds a tag of slug whose commit holds exactly this
// task folder (an archive that stopped before removing the folder), so a
// resumed archive does not tag twice.
func (w *Workspace) existingArchiveTag(slug, folder string) (string, string, error) {
	tags, err := w.Repo.RawRefs(store.ArchiveTagPrefix + slug + "/")
	if err != nil {
		return "", "", err
	}
	for _, name := range gitstate.RefNames(tags) {
		commit, err := w.Repo.PeelCommit(tags[name])
		if err != nil {
			continue
		}
		if h, err := w.Repo.FileHashAt(commit, w.TaskDir(slug)); err == nil && h == folder {
			return name, tags[name], nil
		}
	}
	return "", "", nil
}

// readBack checks that both refs resolve to the archived commit, the tag
// holds the summary, and every file of the task reads through the tag.
func (w *Workspace) readBack(t *store.Task, at string, rep *ArchiveReport) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("archive of %s: "+format+"; the task is still in the working tree: run `itr verify`, then `itr archive` again", append([]any{t.Slug}, args...)...)
	}
	branch, err := w.Repo.ReadRef(rep.Branch)
	if err != nil || branch != at {
		return fail("%s reads back as %q, not %s (%v)", rep.Branch, branch, at, err)
	}
	tag, err := w.Repo.ReadTag(rep.Tag)
	if err != nil {
		return fail("%s does not read back: %v", rep.Tag, err)
	}
	if tag.Target != at {
		return fail("%s points at %s, not %s", rep.Tag, tag.Target, at)
	}
	want, err := w.Repo.ListFiles(at, t.Dir)
	if err != nil {
		return err
	}
	got, err := w.Repo.ListFiles(rep.Tag, t.Dir)
	if err != nil || len(got) != len(want) || len(want) == 0 {
		return fail("%s holds %d files of %s, not %d (%v)", rep.Tag, len(got), t.Dir, len(want), err)
	}
	for _, f := range got {
		if _, err := w.Repo.ReadFile(rep.Tag, f); err != nil {
			return fail("%s: %v", rep.Tag, err)
		}
	}
	data, err := w.Repo.ReadFile(rep.Tag, w.Rel(t.Slug, store.StateFile))
	if err != nil {
		return fail("%v", err)
	}
	s, err := state.Decode(data)
	if err != nil || s.Phase != state.Complete {
		return fail("%s in %s is not in phase complete (%v)", store.StateFile, rep.Tag, err)
	}
	return nil
}

// keepName picks <root>/archive/<slug>-YYYYMMDD, with -2, -3 when taken.
func (w *Workspace) keepName(slug, head string) (string, error) {
	base := w.Root + "/" + store.ArchiveFolder + "/" + slug + "-" + w.Now().Format("20060102")
	for n := 1; n < 1000; n++ {
		name := base
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		files, err := w.Repo.ListFiles(head, name)
		if err != nil {
			return "", err
		}
		if _, err := os.Lstat(w.Abs(name)); len(files) == 0 && errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%s-* are all taken; clean up %s/%s", base, w.Root, store.ArchiveFolder)
}

// removeFolder commits the removal of the task folder (and, with Keep, the
// plain copy) on the working branch. Unless removeOutputs, the files of its
// Deliverables folders stay in place, tracked: the commit deletes every
// other file, so nothing the user produced becomes untracked or is lost
// from the working tree (the archive refs hold them too). A git commit
// made meanwhile is built upon as long as it left the task folder as
// archived.
func (w *Workspace) removeFolder(t *store.Task, at, folder string, rep *ArchiveReport, removeOutputs bool) (string, error) {
	files, err := w.Repo.ListFiles(at, t.Dir)
	if err != nil {
		return "", err
	}
	changes := []gitstate.FileChange{{Path: t.Dir, Delete: true}}
	if !removeOutputs {
		changes = changes[:0]
		kept := map[string]bool{}
		for _, f := range files {
			if store.IsDeliverable(t.Dir, f) {
				d := t.Dir + "/" + strings.SplitN(strings.TrimPrefix(f, t.Dir+"/"), "/", 2)[0]
				if !kept[d] {
					kept[d] = true
					rep.Deliverables = append(rep.Deliverables, d)
				}
				continue
			}
			changes = append(changes, gitstate.FileChange{Path: f, Delete: true})
		}
		sort.Strings(rep.Deliverables)
	}
	if rep.Kept != "" {
		for _, f := range files {
			data, err := w.Repo.ReadFile(at, f)
			if err != nil {
				return "", err
			}
			changes = append(changes, gitstate.FileChange{Path: rep.Kept + strings.TrimPrefix(f, t.Dir), Data: data})
		}
	}
	msg := fmt.Sprintf("itr(%s): archived as %s\n\nThe task lives on in %s and %s;\nrestore it with `itr restore %s`.\n",
		t.Slug, strings.TrimPrefix(rep.Tag, "refs/tags/"), rep.Branch, rep.Tag, t.Slug)
	if rep.Kept != "" {
		msg += "A plain copy is kept in " + rep.Kept + "/.\n"
	}
	if len(rep.Deliverables) > 0 {
		msg += "Its deliverables stay in the working tree, tracked: " + strings.Join(rep.Deliverables, "/, ") + "/.\n"
	}
	msg += "\n" + gitstate.FormatTrailers([]gitstate.Trailer{
		{Key: store.TrailerTask, Value: t.Slug}, {Key: store.TrailerEvent, Value: store.EventArchived}, {Key: store.TrailerArchive, Value: rep.Tag}})
	return record.RetryMoved(func() (string, error) {
		head, err := w.Repo.Head()
		if err != nil {
			return "", err
		}
		if h, err := w.Repo.FileHashAt(head.Hash, t.Dir); err != nil || h != folder {
			return "", fmt.Errorf("%s changed in commit %s while it was archived; the archive refs hold the version before: run `itr archive` again", t.Dir, store.Short(head.Hash))
		}
		// INDEX.md shows the task archived, on top of the index at HEAD.
		more, err := record.IndexChanges(w.Store, head.Hash, t.Slug, t.State, rep.Tag, changes)
		if err != nil {
			return "", err
		}
		all := append(append([]gitstate.FileChange{}, changes...), more...)
		c, err := record.Gated(func() (gitstate.Commit, error) {
			return w.Repo.CommitFiles(gitstate.CommitRequest{Changes: all, Message: msg, When: w.Now(),
				Expect: head.Hash, Worktree: true, Author: record.Identity(w.Store)})
		})
		if errors.Is(err, gitstate.ErrHeadMoved) {
			return "", err
		}
		if err != nil {
			return "", fmt.Errorf("the archive refs exist (%s, %s), but removing %s failed: %w; run `itr archive` again", rep.Branch, rep.Tag, t.Dir, err)
		}
		return c.Hash, nil
	})
}

// RestoreRequest brings an archived task back.
type RestoreRequest struct {
	Slug string
	From string // which archive: a tag (itr/archive/<slug>/<date>), its date part, or a full ref; "" is the newest
}

// RestoreReport says what itr restore did.
type RestoreReport struct {
	Slug   string   `json:"task"`
	From   string   `json:"from"`
	Commit string   `json:"commit"`
	Phase  string   `json:"phase"`
	Files  []string `json:"files"`
	// KeptNewer lists the deliverables (outputs/, sources/) the archive
	// left in place that differ from the archived version: the working
	// tree's version is kept, never overwritten.
	KeptNewer []string `json:"kept_newer,omitempty"`
}

// Restore brings an archived task's folder back onto the current branch as
// one commit, with a Restored entry appended (phase execute), so work can
// go on. It refuses when an active task has the slug.
func (w *Workspace) Restore(req RestoreRequest) (*RestoreReport, error) {
	slug := req.Slug
	if err := store.ValidSlug(slug); err != nil {
		return nil, err
	}
	unlock, err := record.LockIdle(w.Store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return record.RetryMoved(func() (*RestoreReport, error) { return w.restoreOnce(slug, req.From) })
}

// restoreOnce is Restore under itr's lock, once: a commit that lost the
// race for the branch makes the caller run it again.
func (w *Workspace) restoreOnce(slug, from string) (*RestoreReport, error) {
	head, err := w.Repo.Head()
	if err != nil {
		return nil, err
	}
	dir := w.TaskDir(slug)
	if err := w.restoreFree(slug, dir); err != nil {
		return nil, err
	}
	t, ref, err := w.LoadArchived(slug, from)
	if err != nil {
		return nil, err
	}
	if t.StateErr != nil {
		return nil, fmt.Errorf("archive %s: %w", ref, t.StateErr)
	}
	if t.PlanErr != nil {
		return nil, fmt.Errorf("archive %s: %w", ref, t.PlanErr)
	}
	entry := progresslog.Entry{Kind: progresslog.KindRestored, Stamp: w.Stamp(),
		Fields: []progresslog.Field{{Name: "From", Value: ref}}}
	progress, err := progresslog.Append(t.ProgressRaw, entry)
	if err != nil {
		return nil, err
	}
	ev, err := reconcile.EventFrom(entry, nil)
	if err != nil {
		return nil, err
	}
	after, err := reconcile.Step(t.State, t.Plan, ev)
	if err != nil {
		return nil, err
	}
	changes, keptNewer, err := w.restoreChanges(slug, dir, t, progress, after)
	if err != nil {
		return nil, err
	}
	c := &record.Change{Entry: &entry, Event: store.EventRestored, Subject: "restore from " + strings.TrimPrefix(ref, "refs/tags/"),
		Body: "Brought back from " + ref + " (" + store.Short(t.Head.Hash) + ")."}
	if len(keptNewer) > 0 {
		c.Body += "\n\nKept the working tree's version (changed since the archive) of: " + strings.Join(keptNewer, ", ") + "."
	}
	if t.State.Outdated() {
		c.Body += "\n\n" + MigrationNote(t.State.SchemaVersion)
	}
	commit, err := record.Commit(w.Store, head.Hash, slug, c, after, changes)
	if err != nil {
		return nil, err
	}
	if err := merge.Register(w.Store); err != nil {
		return nil, fmt.Errorf("the task is restored (%s), but registering itr's merge driver failed: %w; run `itr setup`", store.Short(commit.Hash), err)
	}
	rep := &RestoreReport{Slug: slug, From: ref, Commit: commit.Hash, Phase: string(after.Phase), KeptNewer: keptNewer}
	for _, ch := range changes {
		rep.Files = append(rep.Files, ch.Path)
	}
	return rep, nil
}

// restoreFree makes sure nothing is in the way of restoring slug at dir:
// no active task has the slug, and the working tree holds at most the
// deliverables an archive left in place there.
func (w *Workspace) restoreFree(slug, dir string) error {
	if active, err := w.ActiveAt(slug); err != nil {
		return err
	} else if active {
		return fmt.Errorf("an active task has the slug %q (%s); archive it first (`itr archive --task %s`), or restore on another branch", slug, dir, slug)
	}
	// The deliverables an archive left in place may be there; anything
	// else in the way is refused.
	if _, err := os.Lstat(w.Abs(dir)); err == nil {
		if only, err := w.OnlyDeliverables(dir); err != nil {
			return err
		} else if !only {
			return fmt.Errorf("%s exists in the working tree; move it away first, then run `itr restore %s` again", dir, slug)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// restoreChanges returns the files a restore of the archived task t
// writes: its files as archived, with progress and after as the log and
// the view, and itr's merge lines of .gitattributes when they are
// missing. keptNewer lists the deliverables left in place that changed
// since the archive, which stay as they are.
func (w *Workspace) restoreChanges(slug, dir string, t *store.Task, progress []byte, after *state.State) ([]gitstate.FileChange, []string, error) {
	files, err := w.Repo.ListFiles(t.Head.Hash, dir)
	if err != nil {
		return nil, nil, err
	}
	var changes []gitstate.FileChange
	var keptNewer []string
	for _, f := range files {
		var data []byte
		if store.IsDeliverable(dir, f) {
			newer, err := w.newerDeliverable(t, f)
			if err != nil {
				return nil, nil, err
			}
			if newer {
				keptNewer = append(keptNewer, f)
				continue
			}
		}
		switch f {
		case w.Rel(slug, store.ProgressFile):
			data = progress
		case w.Rel(slug, store.StateFile):
			data = after.Encode()
		default:
			if data, err = w.Repo.ReadFile(t.Head.Hash, f); err != nil {
				return nil, nil, err
			}
		}
		changes = append(changes, gitstate.FileChange{Path: f, Data: data})
	}
	if attrs, changed, err := merge.Attributes(w.Store); err != nil {
		return nil, nil, err
	} else if changed {
		changes = append(changes, gitstate.FileChange{Path: w.Root + "/.gitattributes", Data: attrs})
	}
	return changes, keptNewer, nil
}

// newerDeliverable reports whether the deliverable f, left in place by
// the archive of t, changed since (on disk, committed or not): it is the
// user's newer work, which stays.
func (w *Workspace) newerDeliverable(t *store.Task, f string) (bool, error) {
	disk, err := w.ReadWorktree(f)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	archived, err := w.Repo.ReadFile(t.Head.Hash, f)
	if err != nil {
		return false, err
	}
	return !bytes.Equal(disk, archived), nil
}

// guardrailsFrom returns the lessons of another task, active (as committed
// at HEAD) or archived, for itr init --guardrails-from.
func (w *Workspace) guardrailsFrom(slug string) ([]progresslog.Guardrail, string, error) {
	if err := store.ValidSlug(slug); err != nil {
		return nil, "", fmt.Errorf("--guardrails-from: %w", err)
	}
	var raw []byte
	source := w.TaskDir(slug)
	t, err := w.Load(slug)
	switch {
	case err == nil:
		raw = t.GuardrailsRaw
	case errors.Is(err, store.ErrNoTask):
		at, ref, aerr := w.LoadArchived(slug, "")
		if aerr != nil {
			return nil, "", fmt.Errorf("--guardrails-from %s: %w", slug, aerr)
		}
		raw, source = at.GuardrailsRaw, ref
	default:
		return nil, "", err
	}
	g := progresslog.ParseGuardrails(raw)
	if g.Conflicted {
		return nil, "", fmt.Errorf("--guardrails-from %s: %s/%s holds git conflict markers; resolve them first", slug, source, store.GuardrailsFile)
	}
	return g.Entries, source, nil
}
