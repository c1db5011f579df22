// Package workspace runs itr's operations on a repository: it finds the
// task root and the task, and carries out each command as lock → read →
// reduce → write → commit, using gitstate for git and the pure packages
// (state, plan, progresslog, reconcile) for meaning.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/itr-dev/itr/gitstate"
)

// DefaultRoot is where tasks live unless configured otherwise.
const DefaultRoot = ".claude/iterative"

// Options open a workspace. Zero values take the defaults.
type Options struct {
	Dir  string           // where the command runs (-C); "" is the current directory
	Root string           // the task root relative to the repository top (--root, ITR_ROOT, .itr.yaml)
	Task string           // the selected task's slug (-t, ITR_TASK)
	Now  func() time.Time // the clock; nil is time.Now
}

// Workspace is an opened repository with its task root.
type Workspace struct {
	Repo   gitstate.Repository
	Root   string // slash path relative to the repository top
	Config Config
	task   string
	now    func() time.Time
	heads  []string // candidate other sides of a merge (GITHEAD_*)
}

// ErrNoTask is returned when no task can be chosen.
var ErrNoTask = errors.New("no task")

// Open opens the repository around opts.Dir and reads .itr.yaml. Settings:
// flags beat the environment, which beats the file; the caller has already
// merged flags and environment into opts.
func Open(opts Options) (*Workspace, error) {
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("find the current directory: %w", err)
		}
	}
	repo, err := gitstate.Open(dir)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(repo.Root())
	if err != nil {
		repo.Close()
		return nil, err
	}
	root := opts.Root
	if root == "" {
		root = cfg.Root
	}
	if root == "" {
		root = DefaultRoot
	}
	root, err = cleanRoot(root)
	if err != nil {
		repo.Close()
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Workspace{Repo: repo, Root: root, Config: cfg, task: opts.Task, now: now}, nil
}

// Close releases the repository.
func (w *Workspace) Close() error { return w.Repo.Close() }

// Now is the workspace clock in UTC, to the second.
func (w *Workspace) Now() time.Time { return w.now().UTC().Truncate(time.Second) }

// cleanRoot checks that the root is a relative path inside the repository.
func cleanRoot(root string) (string, error) {
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
func (w *Workspace) TaskDir(slug string) string { return w.Root + "/" + slug }

// abs turns a repository-relative slash path into a filesystem path.
func (w *Workspace) abs(rel string) string {
	return filepath.Join(w.Repo.Root(), filepath.FromSlash(rel))
}

// ValidSlug checks that slug is one safe path segment: lower-case letters,
// digits, dots, dashes and underscores, starting with a letter or digit.
func ValidSlug(slug string) error {
	if slug == "" {
		return fmt.Errorf("the slug is empty; give a name with letters or digits, or --slug")
	}
	if len(slug) > 64 {
		return fmt.Errorf("slug %q is longer than 64 characters; pass a shorter --slug", slug)
	}
	if slug == "archive" {
		return fmt.Errorf("slug %q is reserved for archived copies; pick another --slug", slug)
	}
	for i, r := range slug {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || (i > 0 && (r == '-' || r == '_' || r == '.'))
		if !ok {
			return fmt.Errorf("slug %q is not a safe folder name: use lower-case letters, digits, '-', '_' or '.', starting with a letter or digit", slug)
		}
	}
	if strings.Contains(slug, "..") {
		return fmt.Errorf("slug %q contains \"..\"; pick another --slug", slug)
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
func (w *Workspace) Slugs() ([]string, error) {
	entries, err := os.ReadDir(w.abs(w.Root))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the task root %s: %w", w.Root, err)
	}
	var slugs []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "archive" || ValidSlug(e.Name()) != nil {
			continue
		}
		for _, f := range []string{"state.json", "progress.md"} {
			if _, err := os.Lstat(filepath.Join(w.abs(w.Root), e.Name(), f)); err == nil {
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
func (w *Workspace) Select(slug string) (string, error) {
	if slug == "" {
		slug = w.task
	}
	if slug != "" {
		if err := ValidSlug(slug); err != nil {
			return "", err
		}
		return slug, nil
	}
	slugs, err := w.Slugs()
	if err != nil {
		return "", err
	}
	switch len(slugs) {
	case 0:
		return "", fmt.Errorf("%w under %s: start one with `itr init NAME`", ErrNoTask, w.Root)
	case 1:
		return slugs[0], nil
	}
	return "", fmt.Errorf("%w chosen: %d tasks are active (%s); pick one with --task SLUG or ITR_TASK",
		ErrNoTask, len(slugs), strings.Join(slugs, ", "))
}

// lock serialises itr processes on one repository with an flock on
// <common git dir>/itr.lock; the kernel releases it when a process dies,
// so a killed itr never leaves a stale lock. The git CLI is excluded by the
// lock files gitstate takes on refs and the index.
func (w *Workspace) lock() (func(), error) {
	p := w.Repo.ItrPath("itr.lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			unlock := func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}
			if err := w.recoverRun(); err != nil {
				unlock()
				return nil, err
			}
			return unlock, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: another itr command is still running (%w); wait for it to finish", p, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
