package store

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// The files of a task folder.
const (
	StateFile      = "state.json"
	ProgressFile   = "progress.md"
	GuardrailsFile = "guardrails.md"
	TasksFile      = "tasks.md"
	PlanFile       = "plan.md"
	// DecisionsFile holds the task's settled choices (itr decide),
	// append-only like guardrails.md.
	DecisionsFile = "decisions.md"
)

// Task is one task as committed at HEAD, with its plan as on disk (the plan
// is the agent's input and is committed with the next record).
type Task struct {
	Slug string
	Dir  string // slash path relative to the repository top
	Head gitstate.Head

	StateRaw      []byte // committed state.json
	ProgressRaw   []byte // committed progress.md (LoadLight: read by Progress on first use)
	GuardrailsRaw []byte // committed guardrails.md
	DecisionsRaw  []byte // committed decisions.md (nil until the first itr decide)

	// progressLoad reads progress.md when a light load left it out.
	progressLoad func() ([]byte, error)
	// ProgressErr is why progress.md could not be read on first use.
	ProgressErr error
	// progressSet is true once SetProgress replaced the committed log,
	// which HeadFiles then no longer names.
	progressSet bool
	// progressTaken is true once TakeProgress gave the log's spare
	// capacity away.
	progressTaken bool

	State *state.State // nil when StateErr is set
	// StateErr is why the committed state.json could not be read.
	StateErr  error
	parsedLog *progresslog.Log

	HeadFiles map[string]string // name → blob of the files directly in the folder at Head

	// PlanSum is the SHA-256 of the plan file as read, "" without one.
	PlanSum string

	Plan     *plan.Plan // nil when there is no plan file or it is still the template
	PlanName string     // tasks.md or plan.md
	PlanErr  error      // a plan file that does not parse
}

func (s *Store) Rel(slug, name string) string { return s.TaskDir(slug) + "/" + name }

// Load reads the task at HEAD. It fails when the task folder is not
// committed at all.
func (s *Store) Load(slug string) (*Task, error) { return s.load(slug, false) }

// LoadLight is Load without reading progress.md, which Progress and Log
// read on first use: a view served from what it remembers of the log
// never reads or parses it.
func (s *Store) LoadLight(slug string) (*Task, error) { return s.load(slug, true) }

func (s *Store) load(slug string, light bool) (*Task, error) {
	head, err := s.Repo.Head()
	if err != nil {
		return nil, err
	}
	t := &Task{Slug: slug, Dir: s.TaskDir(slug), Head: head}
	if head.Unborn {
		return nil, fmt.Errorf("task %q: the repository has no commits yet; start it with `itr init`", slug)
	}
	if err := s.readTaskAt(t, head.Hash, light); err != nil {
		return nil, err
	}
	s.LoadPlan(t)
	return t, nil
}

// Progress is the committed progress.md, read now if a light load left it
// out (a read that fails leaves it empty and sets ProgressErr).
func (t *Task) Progress() []byte {
	if load := t.progressLoad; load != nil {
		t.progressLoad = nil
		t.ProgressRaw, t.ProgressErr = load()
	}
	return t.ProgressRaw
}

// ReadTaskAt reads the task's state, log and guardrails as committed at
// rev into t (all but the plan).
func (s *Store) ReadTaskAt(t *Task, rev string) error { return s.readTaskAt(t, rev, false) }

func (s *Store) readTaskAt(t *Task, rev string, light bool) error {
	slug := t.Slug
	// One walk of the trees gives every file of the folder.
	hashes, err := s.Repo.FolderHashes(rev, t.Dir)
	if err != nil {
		return err
	}
	t.HeadFiles = hashes
	read := func(name string) ([]byte, error) {
		h, ok := hashes[name]
		if !ok {
			return nil, nil
		}
		b, err := s.Repo.ReadBlob(h)
		noteRead(len(b))
		return b, err
	}
	if t.StateRaw, err = read(StateFile); err != nil {
		return err
	}
	if light {
		t.progressLoad = func() ([]byte, error) { return read(ProgressFile) }
	} else if t.ProgressRaw, err = read(ProgressFile); err != nil {
		return err
	}
	if t.GuardrailsRaw, err = read(GuardrailsFile); err != nil {
		return err
	}
	if t.DecisionsRaw, err = read(DecisionsFile); err != nil {
		return err
	}
	if _, hasLog := hashes[ProgressFile]; t.StateRaw == nil && !hasLog {
		return s.NoSuchTask(slug)
	}
	if t.StateRaw == nil {
		t.StateErr = fmt.Errorf("%s is missing from the last commit; run `itr reconcile` to rebuild it", s.Rel(slug, StateFile))
	} else if t.State, err = state.Decode(t.StateRaw); err != nil {
		if errors.Is(err, state.ErrNewerSchema) {
			// Not damage to repair: nothing of this itr may read or
			// rewrite it.
			return fmt.Errorf("%s: %w", s.Rel(slug, StateFile), err)
		}
		t.StateErr = fmt.Errorf("%s: %w", s.Rel(slug, StateFile), err)
		t.State = nil
	}
	return nil
}

// log is progress.md as committed, parsed on first use (a checkpoint only
// appends to it and does not need it parsed).
func (t *Task) Log() *progresslog.Log {
	if t.parsedLog == nil {
		t.parsedLog = progresslog.ParseOwned(t.Progress()) // a blob read for it, never changed
	}
	return t.parsedLog
}

// Entries are the entries of the task's log (Log), for a reader that may
// not need them (reconcile.OutcomeOf).
func (t *Task) Entries() []progresslog.Entry { return t.Log().Entries }

// TakeProgress is the committed progress.md for one append in place
// (progresslog.AppendOwned): the blob as read, with the spare capacity
// gitstate reads a large object with, once; the task keeps the same bytes
// with none, so no second append can share the first one's tail. A log
// SetProgress gave comes with no spare capacity.
func (t *Task) TakeProgress() []byte {
	b := t.Progress()
	t.ProgressRaw = b[:len(b):len(b)]
	if t.progressSet || t.progressTaken {
		return t.ProgressRaw
	}
	t.progressTaken = true
	return b
}

// ProgressSet reports whether SetProgress replaced the committed log (its
// bytes are then no longer the blob HeadFiles names).
func (t *Task) ProgressSet() bool { return t.progressSet }

// SetProgress replaces the committed progress.md the task holds (as when
// entries taken out by a commit without itr are put back).
func (t *Task) SetProgress(data []byte) {
	t.ProgressRaw, t.parsedLog, t.progressLoad, t.progressSet = data, nil, nil, true
}

func (s *Store) NoSuchTask(slug string) error {
	slugs, _ := s.Slugs()
	msg := fmt.Sprintf("task %q not found under %s", slug, s.Root)
	if len(slugs) > 0 {
		msg += fmt.Sprintf(" (active: %v)", slugs)
	}
	_, statErr := os.Stat(s.Abs(s.TaskDir(slug)))
	ref, _, archErr := s.FindArchive(slug, "")
	leftover, _ := s.OnlyDeliverables(s.TaskDir(slug))
	switch {
	case statErr == nil && archErr == nil && leftover:
		msg += fmt.Sprintf("; it is archived as %s and its folder holds only what the archive left in place (outputs/, sources/): bring it back with `itr restore %s`", ref, slug)
	case statErr == nil:
		msg += "; the folder exists but was never committed by itr: start it with `itr init`"
	case archErr == nil:
		msg += fmt.Sprintf("; it is archived as %s: bring it back with `itr restore %s`", ref, slug)
	}
	return &noTaskError{msg: msg}
}

// noTaskError is a task that does not exist; it matches ErrNoTask.
type noTaskError struct{ msg string }

func (e *noTaskError) Error() string        { return e.msg }
func (e *noTaskError) Is(target error) bool { return target == ErrNoTask }

// LoadPlan reads tasks.md, else plan.md, from the working tree.
func (s *Store) LoadPlan(t *Task) { s.LoadPlanWith(t, s.ReadWorktree) }

// LoadPlanWith reads tasks.md, else plan.md, through read (the working
// tree or a commit).
func (s *Store) LoadPlanWith(t *Task, read func(rel string) ([]byte, error)) {
	for _, name := range []string{TasksFile, PlanFile} {
		data, err := read(s.Rel(t.Slug, name))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, gitstate.ErrNotFound) {
			continue
		}
		t.PlanName = name
		if err != nil {
			t.PlanErr = err
			return
		}
		t.PlanSum = fmt.Sprintf("%x", sha256.Sum256(data))
		p, err := plan.Parse(s.Rel(t.Slug, name), data)
		if err != nil {
			t.PlanErr = err
			return
		}
		if !p.Placeholder() {
			t.Plan = p
		}
		return
	}
}

// ReadWorktree reads a file of the working tree, refusing symbolic links so
// itr never reads or writes outside the repository through one.
func (s *Store) ReadWorktree(rel string) ([]byte, error) {
	if err := s.checkWorktreeFile(rel); err != nil {
		return nil, err
	}
	// As git would store it: a CRLF clone's file reads as its LF blob.
	return s.Repo.WorktreeFile(rel)
}

// checkWorktreeFile refuses a file of the working tree that is not a
// regular file inside the repository (ReadWorktree's checks).
func (s *Store) checkWorktreeFile(rel string) error {
	// git adds no file beyond a symbolic link; neither does itr read one.
	// The folders are checked once per command: a task's files are read
	// several times by one record, all in the same few folders.
	var real []string
	for dir := path.Dir(rel); dir != "." && dir != "/" && dir != "" && !s.realDirs.has(dir); dir = path.Dir(dir) {
		fi, err := os.Lstat(s.Abs(dir))
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(s.Abs(dir))
			return fmt.Errorf("%s is a symbolic link (to %s), so %s is outside the repository for git; make %s a real folder", dir, target, rel, dir)
		}
		if err == nil && fi.IsDir() {
			real = append(real, dir)
		}
	}
	p := s.Abs(rel)
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	s.realDirs.add(real)
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		return fmt.Errorf("%s is a symbolic link (to %s); itr reads and writes only regular files inside the repository: replace it with a regular file", rel, target)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", rel)
	}
	return nil
}

// LogUnchanged reports whether the task's progress.md on disk is, as git
// would store it, the committed one the task holds, told by hashing the
// file in chunks (never reading it whole); false when it differs or
// cannot be told that way (the caller reads it).
func (s *Store) LogUnchanged(t *Task) bool {
	h, committed := t.HeadFiles[ProgressFile]
	return committed && !t.progressSet && t.ProgressErr == nil && s.worktreeMatches(s.Rel(t.Slug, ProgressFile), h)
}

// worktreeMatches reports whether the file rel of the working tree is, as
// git would store it, the blob id, hashing it in chunks rather than
// reading it whole (gitstate.WorktreeFileID); false when it differs or
// cannot be told that way (the caller reads it).
func (s *Store) worktreeMatches(rel, id string) bool {
	if id == "" || s.checkWorktreeFile(rel) != nil {
		return false
	}
	got, ok, err := gitstate.WorktreeFileID(s.Repo, rel)
	return err == nil && ok && got == id
}

// UnsavedFile is one of itr's files of a task whose content on disk
// differs from the last commit.
type UnsavedFile struct {
	Name    string // state.json, progress.md, guardrails.md, decisions.md
	Rel     string // from the repository top
	Deleted bool
	// Appended are the entries of progress.md on disk after the committed
	// ones, when the committed bytes are a prefix of the disk's (a record
	// that stopped between its append and its commit); none otherwise.
	Appended []progresslog.Entry
}

// Unsaved lists itr's files of the task whose content on disk differs
// from the last commit, in a fixed order: a record would either lose
// those changes or commit them unchecked, so it refuses (CheckClean).
func (s *Store) Unsaved(t *Task) ([]UnsavedFile, error) {
	var out []UnsavedFile
	for _, f := range []struct {
		name string
		head []byte
	}{{StateFile, t.StateRaw}, {ProgressFile, t.ProgressRaw}, {GuardrailsFile, t.GuardrailsRaw}, {DecisionsFile, t.DecisionsRaw}} {
		rel := s.Rel(t.Slug, f.name)
		headHash, committed := t.HeadFiles[f.name]
		if f.name == ProgressFile && s.LogUnchanged(t) {
			continue // the log is the committed one: not read whole
		}
		disk, err := s.ReadWorktree(rel)
		lazy := f.name == ProgressFile && t.progressLoad != nil
		if errors.Is(err, fs.ErrNotExist) && (f.head == nil && !(lazy && committed)) {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			out = append(out, UnsavedFile{Name: f.name, Rel: rel, Deleted: true})
			continue
		}
		if err != nil {
			return nil, err
		}
		same := bytes.Equal(disk, f.head)
		if lazy {
			// Not read: compare the disk's object id with the commit's.
			same = s.Repo.BlobID(disk) == headHash
		}
		if same {
			continue
		}
		u := UnsavedFile{Name: f.name, Rel: rel}
		if f.name == ProgressFile {
			head := t.ProgressRaw
			if bytes.HasPrefix(disk, head) {
				before := len(t.Log().Entries)
				if all := progresslog.ParseOwned(disk).Entries; len(all) > before {
					u.Appended = all[before:]
				}
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// CheckClean refuses to record when a log file or state.json differs on
// disk from the last commit: the record would either lose that change or
// commit it unchecked.
func (s *Store) CheckClean(t *Task) error {
	files, err := s.Unsaved(t)
	if err != nil || len(files) == 0 {
		return err
	}
	f := files[0]
	rel := f.Rel
	switch {
	case f.Deleted:
		return fmt.Errorf("%s was deleted from the working tree; run `itr reconcile` to restore it, or `git checkout -- %s`", rel, rel)
	case f.Name == DecisionsFile:
		// reconcile rebuilds the view from progress.md; a decision
		// written by hand is committed with git (verify and the
		// pre-commit hook check that it only appends).
		return fmt.Errorf("%s has uncommitted changes; commit them with `git commit -m 'decisions' -- %s` (itr verify and the pre-commit hook check that they only append; `itr decide` writes one for you) or discard them with `git checkout -- %s`", rel, rel, rel)
	case len(f.Appended) > 0:
		return fmt.Errorf("%s has %d entr%s appended that no commit holds (a record stopped before its commit); run `itr reconcile` to record %s, or discard %s with `git checkout -- %s`",
			rel, len(f.Appended), Plural(len(f.Appended), "y", "ies"), Plural(len(f.Appended), "it", "them"), Plural(len(f.Appended), "it", "them"), rel)
	}
	return fmt.Errorf("%s has uncommitted changes; run `itr reconcile` (it adopts entries appended by hand and rebuilds state.json) or discard them with `git checkout -- %s`", rel, rel)
}

// FolderChanges lists the files of the task folder whose content on disk
// differs from HEAD, other than the ones the record writes itself, so a
// record also commits the agent's edits of brief.md, context.md, the plan,
// sources/ and outputs/. Symbolic links are skipped.
func (s *Store) FolderChanges(t *Task, written map[string]bool) ([]gitstate.FileChange, error) {
	return s.folderChanges(t, written, true)
}

// FolderEdits lists the files of the task folder, other than itr's own
// (state.json and the logs), whose content on disk differs from HEAD:
// what the next record commits with its entry. It changes nothing.
func (s *Store) FolderEdits(t *Task) ([]string, error) {
	written := map[string]bool{}
	for _, f := range []string{StateFile, ProgressFile, GuardrailsFile, DecisionsFile} {
		written[s.Rel(t.Slug, f)] = true
	}
	changes, err := s.folderChanges(t, written, false)
	var out []string
	for _, c := range changes {
		out = append(out, c.Path)
	}
	return out, err
}

// folderChanges is FolderChanges; clean removes the temporary files of
// killed itr runs (the caller holds itr's lock), else they are skipped.
func (s *Store) folderChanges(t *Task, written map[string]bool, clean bool) ([]gitstate.FileChange, error) {
	var changes []gitstate.FileChange
	onDisk := map[string]bool{}
	base := s.Abs(t.Dir)
	committed := map[string]string{}
	if t.Head.Hash != "" {
		var err error
		if committed, err = s.Repo.TreeFiles(t.Head.Hash, t.Dir); err != nil {
			return nil, err
		}
	}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if IsItrTemp(d.Name()) {
			// A temporary file of an itr run that was killed: the caller
			// holds itr's lock, so no live itr is writing it.
			if clean {
				_ = os.Remove(p)
			}
			return nil
		}
		r, _ := filepath.Rel(s.Repo.Root(), p)
		rel := filepath.ToSlash(r)
		onDisk[rel] = true
		if written[rel] {
			return nil
		}
		data, err := s.Repo.WorktreeFile(rel)
		if err != nil {
			return err
		}
		if committed[rel] == s.Repo.BlobID(data) {
			return nil
		}
		changes = append(changes, gitstate.FileChange{Path: rel, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the task folder %s: %w", t.Dir, err)
	}
	if t.Head.Hash != "" {
		for rel := range committed {
			if !onDisk[rel] && !written[rel] {
				if fi, err := os.Lstat(s.Abs(rel)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
					continue
				}
				changes = append(changes, gitstate.FileChange{Path: rel, Delete: true})
			}
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}

// IsItrTemp recognises the temporary files itr writes before renaming
// them into place: "<name>.itr-<pid>-<n>.tmp" and ".<name>.itr-<random>".
func IsItrTemp(name string) bool {
	return strings.Contains(name, ".itr-") && (strings.HasSuffix(name, ".tmp") || strings.HasPrefix(name, "."))
}

// PlanNameFor picks the plan file of a mode.
func PlanNameFor(m state.Mode) string {
	if m == state.Knowledge {
		return PlanFile
	}
	return TasksFile
}

// OutputFiles reads the outputs a unit's plan names (by the names the plan
// gives them) from the working tree, each where NamePaths looks it up
// first; a missing output is left out. It is what the rule on outputs is
// judged on, for a record and for the advice alike.
func (s *Store) OutputFiles(slug string, names []string) (map[string][]byte, error) {
	files := make(map[string][]byte, len(names))
	for _, name := range names {
		for _, p := range s.NamePaths(slug, name) {
			data, err := s.ReadWorktree(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			files[name] = data
			break
		}
	}
	return files, nil
}
