package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/view"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// Request archives a task.
type Request struct {
	Slug   string // "" is the selected task
	Force  bool   // archive although units are unfinished
	Reason string // why, with Force; logged in the Archived entry and the tag
	Keep   bool   // also leave a plain copy under <root>/archive/<slug>-YYYYMMDD/
	// RemoveOutputs also takes the task's outputs/ and sources/ out of the
	// working tree; by default they stay in place, tracked, as deliverables.
	RemoveOutputs bool
}

// Report says what itr archive did. Its JSON field names are part of
// itr's interface.
type Report struct {
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
	// Outcome is how the task ended, as the archive records it: complete,
	// done with limitations, abandoned (a forced archive records that
	// first) or failed.
	Outcome *state.Outcome `json:"outcome,omitempty"`
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
		return fmt.Sprintf("task %s has no units: there is nothing finished to archive; pass --force --reason TEXT to archive it as abandoned", e.Slug)
	}
	msg := fmt.Sprintf("task %s has %d unfinished unit(s): %s; finish them, record what exists first with `itr deliver --limitations TEXT` (done with limitations), or pass --force --reason TEXT to archive it as abandoned",
		e.Slug, len(e.Units), strings.Join(e.Units, ", "))
	for _, id := range e.Failed {
		msg += fmt.Sprintf("; %s failed: %s", id, reconcile.FailedFix(id, e.Mode, func(f string) string { return "--" + f }))
	}
	return msg
}

// archive is Archive.
func (a *archiver) archive(req Request, dropClaims func(slug string) []string) (*Report, error) {
	if req.Force && strings.TrimSpace(req.Reason) == "" {
		return nil, fmt.Errorf("--force needs --reason TEXT: say why the task is archived unfinished")
	}
	if !req.Force && req.Reason != "" {
		return nil, fmt.Errorf("--reason goes with --force; drop it, or add --force to archive unfinished units")
	}
	if err := record.PlainText(a.Config.FieldLimit(), "reason", req.Reason); err != nil {
		return nil, err
	}
	slug, err := a.Select(req.Slug)
	if err != nil {
		return nil, err
	}
	tagger, err := a.signature()
	if err != nil {
		return nil, err
	}
	unlock, err := record.LockIdle(a.Store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, err := a.Load(slug)
	if err != nil {
		return nil, err
	}
	rep := &Report{Slug: slug, Unfinished: []string{}, Deliverables: []string{}}
	if t, err = a.finalCheckpoint(t, req); err != nil {
		return nil, err
	}
	// The refs point at the commit that recorded the Archived entry (HEAD
	// now; on a resumed archive, HEAD holds the same task folder).
	at := t.Head.Hash
	folder, err := a.Repo.FileHashAt(at, t.Dir)
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
	rep.Summary = a.archiveSummary(t, at)
	rep.Outcome = reconcile.OutcomeOf(t.State, t.Entries)

	rep.Branch = store.ArchiveBranchPrefix + slug
	if rep.Tag, rep.TagObject, err = a.existingArchiveTag(slug, folder); err != nil {
		return nil, err
	}
	if err := a.Repo.SetBranch(rep.Branch, at, tagger, "itr: archive "+slug); err != nil {
		return nil, fmt.Errorf("create the archive branch %s: %w; the task is still in the working tree: run `itr archive` again", rep.Branch, err)
	}
	if rep.Tag == "" {
		for n := 1; ; n++ {
			name := store.ArchiveTagPrefix + slug + "/" + a.Now().Format("2006-01-02")
			if n > 1 {
				name += "-" + strconv.Itoa(n)
			}
			obj, err := a.Repo.CreateTag(name, at, rep.Summary, tagger)
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
	if err := a.readBack(t, at, rep); err != nil {
		return nil, err
	}
	if req.Keep {
		rep.Kept, err = a.keepName(slug, t.Head.Hash)
		if err != nil {
			return nil, err
		}
	}
	if rep.Commit, err = a.removeFolder(t, at, folder, rep, req.RemoveOutputs); err != nil {
		return nil, err
	}
	if dropClaims != nil {
		rep.ClaimWarnings = dropClaims(slug)
	}
	return rep, nil
}

// finalCheckpoint records the task's Archived entry (after the outcome
// abandoned, when forced over unfinished work) and returns the task as it
// then stands; an archive that stopped after its checkpoint records
// nothing again.
func (a *archiver) finalCheckpoint(t *store.Task, req Request) (*store.Task, error) {
	if archivedLast(t) {
		if t.StateErr != nil {
			return nil, t.StateErr
		}
		return t, nil
	}
	if err := a.onlyRegularFiles(t.Dir); err != nil {
		return nil, err
	}
	slug := t.Slug
	if abandons(t, req) {
		// Forced over unfinished work: the task ends abandoned, with the
		// reason, recorded before the archive as itr abandon would.
		_, err := record.RetryMoved(func() (*record.Outcome, error) {
			return record.RecordLocked(a.Store, slug, func(t *store.Task) (*record.Change, error) { return a.abandonChange(t, req) })
		})
		if err != nil {
			return nil, err
		}
	}
	_, err := record.RetryMoved(func() (*record.Outcome, error) {
		return record.RecordLocked(a.Store, slug, func(t *store.Task) (*record.Change, error) { return a.archiveChange(t, req) })
	})
	if err != nil {
		return nil, err
	}
	return a.Load(slug)
}

// archiveChange builds the Archived entry, refusing unfinished units
// unless forced.
func (a *archiver) archiveChange(t *store.Task, req Request) (*record.Change, error) {
	// Skipped units and failed units a done unit replaces are accounted
	// for; a failed unit nothing replaces is unfinished.
	done, total, _ := view.ProgressOf(t.State)
	unfinished := reconcile.Unsettled(t.State, t.Plan)
	// A task with an outcome says itself how it ended.
	outcome := t.State.Outcome
	if (len(unfinished) > 0 || total == 0) && !req.Force && outcome == nil {
		adv := reconcile.Advise(t.State, t.Plan, nil)
		return nil, &UnfinishedError{Slug: t.Slug, Units: unfinished, Failed: adv.Failed, Mode: t.State.Mode}
	}
	result := state.ResultComplete
	if outcome != nil {
		result = outcome.Result
	}
	e := &progresslog.Entry{Kind: progresslog.KindArchived, Stamp: a.Stamp(), Fields: []progresslog.Field{
		{Name: "Units", Value: fmt.Sprintf("%d/%d done", done, total)},
		{Name: "Iterations", Value: strconv.Itoa(iterationsOf(t.State))},
		{Name: reconcile.FieldOutcome, Value: result.Words()},
	}}
	if req.Force {
		e.Fields = append(e.Fields, progresslog.Field{Name: "Forced", Value: req.Reason})
		if len(unfinished) > 0 {
			e.Fields = append(e.Fields, progresslog.Field{Name: "Unfinished", Value: strings.Join(unfinished, ", ")})
		}
	}
	subject := fmt.Sprintf("archive: %d/%d units done", done, total)
	switch {
	case req.Force:
		subject += " (forced: " + req.Reason + ")"
	case result != state.ResultComplete:
		subject += ", " + result.Words()
	}
	return &record.Change{Entry: e, Event: store.EventArchived, Subject: subject}, nil
}

// abandons reports whether an archive of t records the outcome abandoned
// first: it is forced over units whose work is not accounted for (or no
// units at all), and the task has no outcome yet.
func abandons(t *store.Task, req Request) bool {
	if !req.Force || t.State == nil || t.State.Outcome != nil {
		return false
	}
	_, total, _ := view.ProgressOf(t.State)
	return total == 0 || len(reconcile.Unsettled(t.State, t.Plan)) > 0
}

// abandonChange is the Concluded entry of a forced archive: the task
// abandoned, with the archive's reason and its unfinished units.
func (a *archiver) abandonChange(t *store.Task, req Request) (*record.Change, error) {
	reason := strings.TrimSpace(req.Reason)
	ev, err := reconcile.DecideOutcome(t.State, t.Plan, reconcile.Conclusion{Result: state.ResultAbandoned, Reason: reason})
	if err != nil {
		return nil, err
	}
	e := reconcile.ConcludedEntry(ev, reconcile.MissingText(t.State, t.Plan), a.Stamp())
	return &record.Change{Entry: &e, Event: store.EventConcluded, Subject: "abandon: " + reason + " (archived with --force)"}, nil
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
func (a *archiver) onlyRegularFiles(dir string) error {
	return filepath.WalkDir(a.Abs(dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || d.Type().IsRegular() {
			return nil
		}
		r, _ := filepath.Rel(a.Repo.Root(), p)
		return fmt.Errorf("%s is not a regular file (%s); itr archives only regular files, and archiving removes the folder: move it out of %s first", filepath.ToSlash(r), d.Type(), dir)
	})
}

// signature is who tags and moves the archive refs: .itr.yaml's identity,
// else git's committer.
func (a *archiver) signature() (gitstate.Signature, error) {
	if id := record.Identity(a.Store); id != nil {
		return gitstate.Signature{Name: id.Name, Email: id.Email, When: a.Now()}, nil
	}
	return a.Repo.Committer(a.Now())
}

// archiveSummary is the archive tag's message: what a reader of `git tag
// -n` or `git show` needs to know about the task.
func (a *archiver) archiveSummary(t *store.Task, at string) string {
	s := t.State
	done, total, unfinished := view.ProgressOf(s)
	var b strings.Builder
	fmt.Fprintf(&b, "itr archive: %s (%s)\n\n", s.Task, t.Slug)
	fmt.Fprintf(&b, "Units: %d/%d done\n", done, total)
	for _, id := range s.IDs() {
		u := s.Units[id]
		fmt.Fprintf(&b, "  %s %s, %d iteration(s)\n", id, u.Status, state.Val(u.IterationsUsed))
		if u.Status == state.Done {
			for _, p := range u.Outputs {
				fmt.Fprintf(&b, "    output: %s (%d bytes, blob %s)\n", p.Path, p.Bytes, store.Short(p.Blob))
			}
		}
	}
	fmt.Fprintf(&b, "Iterations: %d\n", iterationsOf(s))
	if o := reconcile.OutcomeOf(s, t.Entries); o != nil {
		fmt.Fprintf(&b, "Outcome: %s\n", store.OneLine(o.Text(), 300))
	}
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
	fmt.Fprintf(&b, "Started: %s\n", store.OrNone(created))
	fmt.Fprintf(&b, "First checkpoint: %s\n", store.OrNone(first))
	fmt.Fprintf(&b, "Last checkpoint: %s\n", store.OrNone(last))
	fmt.Fprintf(&b, "Archived: %s\n", store.OrNone(archived))
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
func (a *archiver) existingArchiveTag(slug, folder string) (string, string, error) {
	tags, err := a.Repo.RawRefs(store.ArchiveTagPrefix + slug + "/")
	if err != nil {
		return "", "", err
	}
	for _, name := range gitstate.RefNames(tags) {
		commit, err := a.Repo.PeelCommit(tags[name])
		if err != nil {
			continue
		}
		if h, err := a.Repo.FileHashAt(commit, a.TaskDir(slug)); err == nil && h == folder {
			return name, tags[name], nil
		}
	}
	return "", "", nil
}

// readBack checks that both refs resolve to the archived commit, the tag
// holds the summary, and every file of the task reads through the tag.
func (a *archiver) readBack(t *store.Task, at string, rep *Report) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("archive of %s: "+format+"; the task is still in the working tree: run `itr verify`, then `itr archive` again", append([]any{t.Slug}, args...)...)
	}
	branch, err := a.Repo.ReadRef(rep.Branch)
	if err != nil || branch != at {
		return fail("%s reads back as %q, not %s (%v)", rep.Branch, branch, at, err)
	}
	tag, err := a.Repo.ReadTag(rep.Tag)
	if err != nil {
		return fail("%s does not read back: %v", rep.Tag, err)
	}
	if tag.Target != at {
		return fail("%s points at %s, not %s", rep.Tag, tag.Target, at)
	}
	want, err := a.Repo.ListFiles(at, t.Dir)
	if err != nil {
		return err
	}
	got, err := a.Repo.ListFiles(rep.Tag, t.Dir)
	if err != nil || len(got) != len(want) || len(want) == 0 {
		return fail("%s holds %d files of %s, not %d (%v)", rep.Tag, len(got), t.Dir, len(want), err)
	}
	for _, f := range got {
		if _, err := a.Repo.ReadFile(rep.Tag, f); err != nil {
			return fail("%s: %v", rep.Tag, err)
		}
	}
	data, err := a.Repo.ReadFile(rep.Tag, a.Rel(t.Slug, store.StateFile))
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
func (a *archiver) keepName(slug, head string) (string, error) {
	base := a.Root + "/" + store.ArchiveFolder + "/" + slug + "-" + a.Now().Format("20060102")
	for n := 1; n < 1000; n++ {
		name := base
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		files, err := a.Repo.ListFiles(head, name)
		if err != nil {
			return "", err
		}
		if _, err := os.Lstat(a.Abs(name)); len(files) == 0 && errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%s-* are all taken; clean up %s/%s", base, a.Root, store.ArchiveFolder)
}

// removeFolder commits the removal of the task folder (and, with Keep, the
// plain copy) on the working branch. Unless removeOutputs, the files of its
// Deliverables folders stay in place, tracked: the commit deletes every
// other file, so nothing the user produced becomes untracked or is lost
// from the working tree (the archive refs hold them too). A git commit
// made meanwhile is built upon as long as it left the task folder as
// archived.
func (a *archiver) removeFolder(t *store.Task, at, folder string, rep *Report, removeOutputs bool) (string, error) {
	files, err := a.Repo.ListFiles(at, t.Dir)
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
			data, err := a.Repo.ReadFile(at, f)
			if err != nil {
				return "", err
			}
			changes = append(changes, gitstate.FileChange{Path: rep.Kept + strings.TrimPrefix(f, t.Dir), Data: data})
		}
	}
	msg := fmt.Sprintf("itr(%s): archived as %s\n\nThe task lives on in %s and %s;\nrestore it with `itr restore %s`.\n",
		t.Slug, strings.TrimPrefix(rep.Tag, "refs/tags/"), rep.Branch, rep.Tag, t.Slug)
	if o := rep.Outcome; o != nil {
		msg += "Outcome: " + store.OneLine(o.Text(), 200) + ".\n"
	}
	if rep.Kept != "" {
		msg += "A plain copy is kept in " + rep.Kept + "/.\n"
	}
	if len(rep.Deliverables) > 0 {
		msg += "Its deliverables stay in the working tree, tracked: " + strings.Join(rep.Deliverables, "/, ") + "/.\n"
	}
	msg += "\n" + gitstate.FormatTrailers([]gitstate.Trailer{
		{Key: store.TrailerTask, Value: t.Slug}, {Key: store.TrailerEvent, Value: store.EventArchived}, {Key: store.TrailerArchive, Value: rep.Tag}})
	return record.RetryMoved(func() (string, error) {
		head, err := a.Repo.Head()
		if err != nil {
			return "", err
		}
		if h, err := a.Repo.FileHashAt(head.Hash, t.Dir); err != nil || h != folder {
			return "", fmt.Errorf("%s changed in commit %s while it was archived; the archive refs hold the version before: run `itr archive` again", t.Dir, store.Short(head.Hash))
		}
		// INDEX.md shows the task archived, on top of the index at HEAD.
		more, err := record.IndexChanges(a.Store, head.Hash, t.Slug, t.State, rep.Tag, changes)
		if err != nil {
			return "", err
		}
		all := append(append([]gitstate.FileChange{}, changes...), more...)
		c, err := record.Gated(func() (gitstate.Commit, error) {
			return a.Repo.CommitFiles(gitstate.CommitRequest{Changes: all, Message: msg, When: a.Now(),
				Expect: head.Hash, Worktree: true, Author: record.Identity(a.Store)})
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
