// Package create is itr init: a new task's folder made from the
// templates (state.json in phase discover, a Created entry, the lessons
// of an earlier task), one commit, on a slug that is free — or that an
// abandoned or failed task left, which starts again.
package create

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/archive"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

// maker is the store a task is made in.
type maker struct{ *store.Store }

// Init creates the task req names as one commit; see Request.
func Init(st *store.Store, req Request) (*record.Outcome, error) { return (&maker{st}).init(req) }

// Request starts a task.
type Request struct {
	Name   string
	Slug   string // "" derives it from Name
	Mode   string // "" is the configured default, else development
	Domain string
	// GuardrailsFrom is the slug of an active or archived task whose
	// lessons the new task's guardrails.md starts with.
	GuardrailsFrom string
}

// init creates the task folder from the templates, with state.json in phase
// discover and a Created entry in progress.md, as one commit.
func (w *maker) init(req Request) (*record.Outcome, error) {
	name, slug, m, err := w.initNames(req)
	if err != nil {
		return nil, err
	}
	unlock, err := record.LockIdle(w.Store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	head, err := w.Repo.Head()
	if err != nil {
		return nil, err
	}
	dir := w.TaskDir(slug)
	leftover, err := w.initFree(slug, dir, head)
	if err != nil {
		return nil, err
	}
	earlier := w.earlierTask(slug)
	var lessons []progresslog.Guardrail
	var lessonsFrom string
	if req.GuardrailsFrom != "" {
		if lessons, lessonsFrom, err = archive.GuardrailsFrom(w.Store, req.GuardrailsFrom); err != nil {
			return nil, err
		}
	}
	created := w.Stamp()
	files, err := templates.Task(templates.Data{Name: name, Slug: slug, Created: created, Mode: string(m), Domain: req.Domain})
	if err != nil {
		return nil, err
	}
	entry := progresslog.Entry{Kind: progresslog.KindCreated, Stamp: created,
		Fields: []progresslog.Field{{Name: "Name", Value: name}, {Name: "Mode", Value: string(m)}}}
	if req.Domain != "" {
		entry.Fields = append(entry.Fields, progresslog.Field{Name: "Domain", Value: req.Domain})
	}
	if req.GuardrailsFrom != "" {
		entry.Fields = append(entry.Fields, progresslog.Field{Name: "Guardrails from", Value: fmt.Sprintf("%s (%d from %s)", req.GuardrailsFrom, len(lessons), lessonsFrom)})
	}
	if earlier != "" {
		entry.Fields = append(entry.Fields, progresslog.Field{Name: FieldEarlierTask, Value: earlier})
	}
	w.Attribute(&entry)
	changes, after, err := initFiles(slug, dir, files, entry, lessons, req.GuardrailsFrom)
	if err != nil {
		return nil, err
	}
	if changes, err = w.initExtras(changes, dir, m, leftover); err != nil {
		return nil, err
	}
	c := &record.Change{Entry: &entry, Event: store.EventCreated, Subject: "start task " + name}
	commit, err := record.Commit(w.Store, head.Hash, slug, c, after, changes)
	if err != nil {
		return nil, err
	}
	if err := merge.Register(w.Store); err != nil {
		return nil, fmt.Errorf("the task is committed (%s), but registering itr's merge driver failed: %w; run `itr setup`", store.Short(commit.Hash), err)
	}
	out := &record.Outcome{Slug: slug, Commit: commit.Hash, After: after, Entry: &entry}
	for _, ch := range changes {
		out.Files = append(out.Files, ch.Path)
	}
	return out, nil
}

// initNames validates what itr init is asked for and returns the task's
// name, its slug (derived from the name when none is given) and its mode
// (the configured default when none is given, else development).
func (w *maker) initNames(req Request) (string, string, state.Mode, error) {
	name := strings.TrimSpace(req.Name)
	if err := record.PlainText(w.Config.FieldLimit(), "name", req.Name, "domain", req.Domain); err != nil {
		return "", "", "", err
	}
	if name == "" {
		return "", "", "", fmt.Errorf("the task needs a name: itr init \"User authentication\"")
	}
	slug := req.Slug
	if slug == "" {
		slug = store.Slugify(name)
	}
	if err := store.NewSlug(slug); err != nil {
		return "", "", "", err
	}
	mode := req.Mode
	if mode == "" {
		mode = w.Config.Mode
	}
	if mode == "" {
		mode = string(state.Development)
	}
	m, err := state.ParseMode(mode)
	if err != nil {
		return "", "", "", fmt.Errorf("--mode: %w", err)
	}
	return name, slug, m, nil
}

// initFree makes sure the slug is free for a new task at dir: no folder
// on disk or in the last commit, no archive. A folder holding only
// deliverables (the outputs/ and sources/ an archive left in place) is
// not a task: the new one starts around them, and leftover says so.
func (w *maker) initFree(slug, dir string, head gitstate.Head) (bool, error) {
	leftover := false
	if _, err := os.Lstat(w.Abs(dir)); err == nil {
		if leftover, err = w.OnlyDeliverables(dir); err != nil {
			return false, err
		} else if !leftover {
			return false, fmt.Errorf("task %q already exists at %s; pick another --slug", slug, dir)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if !head.Unborn {
		if names, err := w.Repo.ListFiles(head.Hash, dir); err == nil && len(names) > 0 && !(leftover && allDeliverables(dir, names)) {
			return false, fmt.Errorf("task %q exists in the last commit but not on disk; restore it with `git checkout -- %s`", slug, dir)
		}
	}
	if ref, _, err := w.FindArchive(slug, ""); err == nil {
		if o := w.archivedOutcome(slug); o == nil || o.Result.Delivered() {
			ended := "archived"
			if o != nil {
				ended += " " + o.Result.Words()
			}
			return false, fmt.Errorf("task %q is %s (%s): continue it with `itr restore %s`, or pick another --slug (--guardrails-from %s keeps its lessons); only the slug of an abandoned or failed task starts again",
				slug, ended, ref, slug, slug)
		}
	}
	return leftover, nil
}

// FieldEarlierTask is the field of a Created entry that names the archive
// of the abandoned or failed task that had the slug before.
const FieldEarlierTask = "Earlier task"

// archivedOutcome is the outcome of the newest archive of slug, nil when
// it does not read.
func (w *maker) archivedOutcome(slug string) *state.Outcome {
	t, _, err := w.LoadArchived(slug, "")
	if err != nil || t.State == nil {
		return nil
	}
	return reconcile.OutcomeOf(t.State, t.Entries)
}

// earlierTask names the newest archive of slug, with how that task ended,
// when a new task starts under its slug (initFree allowed it: abandoned or
// failed): "itr/archive/x/2026-01-14, abandoned: superseded"; "" when the
// slug has no archive (or its refs do not read: initFree judged them).
func (w *maker) earlierTask(slug string) string {
	ref, _, err := w.FindArchive(slug, "")
	if err != nil {
		return ""
	}
	text := strings.TrimPrefix(ref, "refs/tags/")
	if o := w.archivedOutcome(slug); o != nil {
		text += ", " + store.OneLine(o.Text(), 200)
	}
	return text
}

// initFiles makes the new task's files from the templates: progress.md
// with the Created entry, guardrails.md with the lessons taken from the
// task from (each naming it), and state.json as the fold of the log,
// which it returns.
func initFiles(slug, dir string, files []templates.File, entry progresslog.Entry, lessons []progresslog.Guardrail, from string) ([]gitstate.FileChange, *state.State, error) {
	var changes []gitstate.FileChange
	var after *state.State
	var err error
	for _, f := range files {
		data := f.Data
		switch f.Name {
		case store.ProgressFile:
			if data, err = progresslog.Append(data, entry); err != nil {
				return nil, nil, err
			}
			s, problems := reconcile.Fold(reconcile.Input{Slug: slug, Entries: progresslog.Parse(data).Entries})
			if len(problems) > 0 {
				return nil, nil, fmt.Errorf("new task: %w", problems[0])
			}
			after = s
		case store.GuardrailsFile:
			for _, g := range lessons {
				g.Line, g.Side = 0, 0
				// Each lesson says which task it came from.
				g.Learned = strings.TrimSpace(g.Learned + " (from task " + from + ")")
				if data, err = progresslog.AppendGuardrail(data, g); err != nil {
					return nil, nil, fmt.Errorf("--guardrails-from %s: lesson %q: %w", from, g.Name, err)
				}
			}
		}
		changes = append(changes, gitstate.FileChange{Path: dir + "/" + f.Name, Data: data})
	}
	for i := range changes {
		if strings.HasSuffix(changes[i].Path, "/"+store.StateFile) {
			changes[i].Data = after.Encode()
		}
	}
	return changes, after, nil
}

// initExtras adds to a new task's changes itr's merge lines of
// .gitattributes when they are missing and, in knowledge mode, the
// .gitkeep files of sources/ and outputs/ (never over a deliverable left
// in place).
func (w *maker) initExtras(changes []gitstate.FileChange, dir string, m state.Mode, leftover bool) ([]gitstate.FileChange, error) {
	if attrs, changed, err := merge.Attributes(w.Store); err != nil {
		return nil, err
	} else if changed {
		changes = append(changes, gitstate.FileChange{Path: w.Root + "/.gitattributes", Data: attrs})
	}
	if m == state.Knowledge {
		for _, keep := range []string{dir + "/sources/.gitkeep", dir + "/outputs/.gitkeep"} {
			if _, err := os.Lstat(w.Abs(keep)); leftover && err == nil {
				continue // a deliverable in place: never overwritten
			}
			changes = append(changes, gitstate.FileChange{Path: keep, Data: []byte{}})
		}
	}
	return changes, nil
}

// allDeliverables reports whether every one of files (slash paths under
// dir) lies in a Deliverables folder.
func allDeliverables(dir string, files []string) bool {
	for _, f := range files {
		if !store.IsDeliverable(dir, f) {
			return false
		}
	}
	return true
}
