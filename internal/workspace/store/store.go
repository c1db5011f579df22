// Package store is where itr's tasks are and how they are read: the task
// root and its slugs, one task as committed (state.json, progress.md,
// guardrails.md) with its plan as on disk, archived tasks by their refs,
// the names of itr's files, trailers and events, and .itr.yaml. It reads
// through gitstate's Repository interface, so every room above it can be
// table-tested against a fake of git. It writes nothing.
package store

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/clip"
)

// DefaultRoot is where tasks live unless configured otherwise.
const DefaultRoot = ".claude/iterative"

// Store is a repository with its task root: what every room reads through.
type Store struct {
	Repo   gitstate.Repository
	Root   string // slash path relative to the repository top
	Config Config
	// Task is the slug chosen by flag or environment, "" for none.
	Task string
	// Clock is the time source; nil is time.Now.
	Clock func() time.Time
	// Engine is the gitstate engine serving Repo and why it was chosen.
	Engine gitstate.Choice
	// Agent names the agent the command acts for in claims (--agent,
	// ITR_AGENT); "" is AgentName's default.
	Agent string
	// Model names the model the agent runs on (--model, ITR_MODEL) and
	// Session its session (ITR_SESSION, or the id an agent's hook gives);
	// "" when unknown.
	Model, Session string
	// realDirs are the folders ReadWorktree found to be real folders (not
	// symbolic links), each with every folder above it, checked once per
	// Store (one command); nil checks every time.
	realDirs *dirSet
}

// dirSet is a set of slash paths, safe for concurrent use.
type dirSet struct {
	mu sync.Mutex
	m  map[string]bool
}

func (d *dirSet) has(dir string) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m[dir]
}

func (d *dirSet) add(dirs []string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]bool{}
	}
	for _, dir := range dirs {
		d.m[dir] = true
	}
}

// New returns the store of repo with the task root root (cleaned and
// checked: relative, inside the working tree).
func New(repo gitstate.Repository, root string, cfg Config, task string, clock func() time.Time) (*Store, error) {
	root, err := CleanRoot(root)
	if err != nil {
		return nil, err
	}
	if clock == nil {
		clock = time.Now
	}
	return &Store{Repo: repo, Root: root, Config: cfg, Task: task, Clock: clock, realDirs: &dirSet{}}, nil
}

// ErrNoTask is returned when no task can be chosen.
var ErrNoTask = errors.New("no task")

// Now is the workspace clock in UTC, to the second.
func (s *Store) Now() time.Time { return s.Clock().UTC().Truncate(time.Second) }

// CleanRoot checks that the root is a relative path inside the repository.
func CleanRoot(root string) (string, error) {
	r := filepath.ToSlash(root)
	if path.IsAbs(r) || filepath.IsAbs(root) {
		return "", fmt.Errorf("root %q must be relative to the repository top, such as .claude/iterative", root)
	}
	r = path.Clean(r)
	if r == "." || r == ".." || strings.HasPrefix(r, "../") || gitstate.InGitDir(r) {
		return "", fmt.Errorf("root %q is outside the working tree; use a folder such as .claude/iterative", root)
	}
	return r, nil
}

// TaskDir is the slash path of a task folder relative to the repository top.
func (s *Store) TaskDir(slug string) string { return s.Root + "/" + slug }

// Abs turns a repository-relative slash path into a filesystem path.
func (s *Store) Abs(rel string) string {
	return filepath.Join(s.Repo.Root(), filepath.FromSlash(rel))
}

// ValidSlug checks that slug is one safe path segment: lower-case letters,
// digits, dots, dashes and underscores, starting with a letter or digit,
// no "..", at most 64 bytes, and not "archive". It is the rule for the
// tasks that exist; a new task's slug also has no dot (NewSlug).
func ValidSlug(slug string) error {
	if slug == "" {
		return fmt.Errorf("the slug is empty; give a name with letters or digits, or --slug")
	}
	if len(slug) > 64 {
		return fmt.Errorf("slug %s is longer than 64 characters, the most a task's slug has; name a shorter one", clip.Quote(slug))
	}
	if slug == "archive" {
		return fmt.Errorf("slug %q is reserved for archived copies; pick another --slug", slug)
	}
	for i, r := range slug {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || (i > 0 && (r == '-' || r == '_' || r == '.'))
		if !ok {
			return fmt.Errorf("slug %s is not a safe folder name: %s", clip.Quote(slug), slugRule)
		}
	}
	if strings.Contains(slug, "..") {
		return fmt.Errorf("slug %q contains \"..\"; pick another --slug", slug)
	}
	return nil
}

// slugRule is the rule a new slug follows, as the refusals word it.
const slugRule = "use lower-case letters, digits, '-' or '_', starting with a letter or digit"

// NewSlug checks the slug of a task about to be made: ValidSlug, and no
// dot, as the seeds refuse one in a name ("ALWAYS use HYPHEN (IV-A), NEVER
// use DOT (IV.A)"); the error offers the slug with hyphens. Tasks made
// before the rule keep their dotted slugs: they are listed, read and
// restored as ever.
func NewSlug(slug string) error {
	if err := ValidSlug(slug); err != nil {
		return err
	}
	if strings.Contains(slug, ".") {
		fix := strings.Trim(strings.ReplaceAll(slug, ".", "-"), "-")
		if fix != "" && NewSlug(fix) == nil {
			return fmt.Errorf("slug %q is not a safe folder name: it holds a dot, and a new slug never does (IV-A, never IV.A); %s: write it with a hyphen, --slug %s", slug, slugRule, fix)
		}
		return fmt.Errorf("slug %q is not a safe folder name: %s", slug, slugRule)
	}
	return nil
}

// Slugify makes a slug from a task name: "User authentication" → "user-authentication".
func Slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case b.Len() > 0 && !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 48 {
		s = strings.TrimRight(s[:48], "-")
	}
	return s
}

// Slugs lists the active tasks: folders under the root that hold a
// state.json or a progress.md, in the working tree.
func (s *Store) Slugs() ([]string, error) {
	entries, err := os.ReadDir(s.Abs(s.Root))
	if errors.Is(err, os.ErrNotExist) {
		// Not in the working tree: say so when HEAD has it (a folder
		// outside the sparse-checkout cone, or one deleted by hand).
		if files, lerr := s.Repo.ListFiles("HEAD", s.Root); lerr == nil && len(files) > 0 {
			return nil, fmt.Errorf("the task root %s is committed but not in the working tree: it is outside the sparse-checkout cone (add it with `git sparse-checkout add %s`) or was deleted (restore it with `git checkout HEAD -- %s`)", s.Root, s.Root, s.Root)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the task root %s: %w", s.Root, err)
	}
	var slugs []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "archive" || ValidSlug(e.Name()) != nil {
			continue
		}
		for _, f := range []string{"state.json", "progress.md"} {
			if _, err := os.Lstat(filepath.Join(s.Abs(s.Root), e.Name(), f)); err == nil {
				slugs = append(slugs, e.Name())
				break
			}
		}
	}
	sort.Strings(slugs)
	return slugs, nil
}

// Select returns the slug of the task a command works on: the one given
// (flag or ITR_TASK), else the only active task.
func (s *Store) Select(slug string) (string, error) {
	if slug == "" {
		slug = s.Task
	}
	if slug != "" {
		if err := ValidSlug(slug); err != nil {
			return "", err
		}
		return slug, nil
	}
	slugs, err := s.Slugs()
	if err != nil {
		return "", err
	}
	switch len(slugs) {
	case 0:
		return "", fmt.Errorf("%w under %s: start one with `itr init NAME`", ErrNoTask, s.Root)
	case 1:
		return slugs[0], nil
	}
	return "", fmt.Errorf("%w chosen: %d tasks are active (%s); pick one with --task SLUG or ITR_TASK",
		ErrNoTask, len(slugs), strings.Join(slugs, ", "))
}

// CheckRoot refuses a task root that has a symbolic link on the way to it
// inside the work tree (.claude linked to a folder elsewhere): git adds
// nothing behind a link, so what itr wrote there would be committed as
// paths git cannot see.
func (s *Store) CheckRoot() error {
	for dir := s.Root; dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		fi, err := os.Lstat(s.Abs(dir))
		if err != nil {
			continue // not there yet: itr makes it a real folder
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(s.Abs(dir))
			return fmt.Errorf("%s is a symbolic link (to %s): git adds nothing behind a link, so itr will not write tasks there; make %s a real folder inside the repository, or choose another root (--root, ITR_ROOT, root: in .itr.yaml)", dir, target, dir)
		}
	}
	return nil
}
