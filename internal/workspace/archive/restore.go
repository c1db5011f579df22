package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

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

// restore is Restore.
func (a *archiver) restore(req RestoreRequest) (*RestoreReport, error) {
	slug := req.Slug
	if err := store.ValidSlug(slug); err != nil {
		return nil, err
	}
	unlock, err := record.LockIdle(a.Store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return record.RetryMoved(func() (*RestoreReport, error) { return a.restoreOnce(slug, req.From) })
}

// restoreOnce is Restore under itr's lock, once: a commit that lost the
// race for the branch makes the caller run it again.
func (a *archiver) restoreOnce(slug, from string) (*RestoreReport, error) {
	head, err := a.Repo.Head()
	if err != nil {
		return nil, err
	}
	dir := a.TaskDir(slug)
	if err := a.restoreFree(slug, dir); err != nil {
		return nil, err
	}
	t, ref, err := a.LoadArchived(slug, from)
	if err != nil {
		return nil, err
	}
	if t.StateErr != nil {
		return nil, fmt.Errorf("archive %s: %w", ref, t.StateErr)
	}
	if t.PlanErr != nil {
		return nil, fmt.Errorf("archive %s: %w", ref, t.PlanErr)
	}
	entry := progresslog.Entry{Kind: progresslog.KindRestored, Stamp: a.Stamp(),
		Fields: []progresslog.Field{{Name: "From", Value: ref}}}
	a.Attribute(&entry)
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
	changes, keptNewer, err := a.restoreChanges(slug, dir, t, progress, after)
	if err != nil {
		return nil, err
	}
	c := &record.Change{Entry: &entry, Event: store.EventRestored, Subject: "restore from " + strings.TrimPrefix(ref, "refs/tags/"),
		Body: "Brought back from " + ref + " (" + store.Short(t.Head.Hash) + ")."}
	if len(keptNewer) > 0 {
		c.Body += "\n\nKept the working tree's version (changed since the archive) of: " + strings.Join(keptNewer, ", ") + "."
	}
	if t.State.Outdated() {
		c.Body += "\n\n" + record.MigrationNote(t.State.SchemaVersion)
	}
	commit, err := record.Commit(a.Store, head.Hash, slug, c, after, changes)
	if err != nil {
		return nil, err
	}
	if err := merge.Register(a.Store); err != nil {
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
func (a *archiver) restoreFree(slug, dir string) error {
	if active, err := a.ActiveAt(slug); err != nil {
		return err
	} else if active {
		return fmt.Errorf("an active task has the slug %q (%s); archive it first (`itr archive --task %s`), or restore on another branch", slug, dir, slug)
	}
	// The deliverables an archive left in place may be there; anything
	// else in the way is refused.
	if _, err := os.Lstat(a.Abs(dir)); err == nil {
		if only, err := a.OnlyDeliverables(dir); err != nil {
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
func (a *archiver) restoreChanges(slug, dir string, t *store.Task, progress []byte, after *state.State) ([]gitstate.FileChange, []string, error) {
	files, err := a.Repo.ListFiles(t.Head.Hash, dir)
	if err != nil {
		return nil, nil, err
	}
	var changes []gitstate.FileChange
	var keptNewer []string
	for _, f := range files {
		var data []byte
		if store.IsDeliverable(dir, f) {
			newer, err := a.newerDeliverable(t, f)
			if err != nil {
				return nil, nil, err
			}
			if newer {
				keptNewer = append(keptNewer, f)
				continue
			}
		}
		switch f {
		case a.Rel(slug, store.ProgressFile):
			data = progress
		case a.Rel(slug, store.StateFile):
			data = after.Encode()
		default:
			if data, err = a.Repo.ReadFile(t.Head.Hash, f); err != nil {
				return nil, nil, err
			}
		}
		changes = append(changes, gitstate.FileChange{Path: f, Data: data})
	}
	if attrs, changed, err := merge.Attributes(a.Store); err != nil {
		return nil, nil, err
	} else if changed {
		changes = append(changes, gitstate.FileChange{Path: a.Root + "/.gitattributes", Data: attrs})
	}
	return changes, keptNewer, nil
}

// newerDeliverable reports whether the deliverable f, left in place by
// the archive of t, changed since (on disk, committed or not): it is the
// user's newer work, which stays.
func (a *archiver) newerDeliverable(t *store.Task, f string) (bool, error) {
	disk, err := a.ReadWorktree(f)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	archived, err := a.Repo.ReadFile(t.Head.Hash, f)
	if err != nil {
		return false, err
	}
	return !bytes.Equal(disk, archived), nil
}

// guardrailsFrom is GuardrailsFrom.
func (a *archiver) guardrailsFrom(slug string) ([]progresslog.Guardrail, string, error) {
	if err := store.ValidSlug(slug); err != nil {
		return nil, "", fmt.Errorf("--guardrails-from: %w", err)
	}
	var raw []byte
	source := a.TaskDir(slug)
	t, err := a.Load(slug)
	switch {
	case err == nil:
		raw = t.GuardrailsRaw
	case errors.Is(err, store.ErrNoTask):
		at, ref, aerr := a.LoadArchived(slug, "")
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
