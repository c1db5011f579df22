// Package gitstate is everything itr needs from git, in itr's words: opening a
// repository (subfolders, linked worktrees, worktreeConfig), reading files at a
// revision, walking first-parent history with trailers, and writing one commit
// of given paths that moves the branch with git's own lock-file protocol and
// patches only those paths' index entries.
//
// It is the only package that imports go-git, and uses only its small
// plumbing types (object names and types, file modes). Objects are read
// (loose, packed with deltas, through alternates) and written (loose, as git
// writes them) by this package; refs, reflogs and the index are written with
// git's lock-file protocol so that it is safe next to a running git. go-git's
// storage, config and object packages stay out of the binary: they cost
// every itr process start-up time (gob, OpenPGP initialisation) for nothing
// gitstate needs.
package gitstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
)

// Sentinel errors; test them with errors.Is.
var (
	// ErrNotRepo means the folder is not inside a git repository.
	ErrNotRepo = errors.New("not a git repository")
	// ErrNotFound means a file, folder or revision does not exist.
	ErrNotFound = errors.New("not found")
	// ErrDetachedHead means HEAD points at a commit, not at a branch.
	ErrDetachedHead = errors.New("HEAD is detached")
	// ErrHeadMoved means the branch changed under a compare-and-swap.
	ErrHeadMoved = errors.New("HEAD moved")
	// ErrLocked means another git process held a lock past the retry budget.
	ErrLocked = errors.New("locked by another git process")
	// ErrNoIdentity means no author or committer name or email is configured.
	ErrNoIdentity = errors.New("no identity")
)

// UnsupportedError reports a repository setting that gitstate refuses to
// work with, and how to change it.
type UnsupportedError = gitfmt.UnsupportedError

// Repo is an open git repository. Its methods serialise on an internal
// mutex.
type Repo struct {
	mu        sync.Mutex
	root      string // working tree top, "" if bare
	gitDir    string
	commonDir string
	wtConfig  bool       // extensions.worktreeConfig
	dur       durability // fsync policy of the write in progress (core.fsync)
	journal   lockJournal
	cache     *procCache // what this process read of refs, config and objects (proccache.go)
}

// Open opens the repository that contains dir (any folder inside the working
// tree, the top of a linked worktree, or a bare repository's git dir).
// It returns an error wrapping ErrNotRepo when there is none, and
// *UnsupportedError for repositories gitstate cannot handle safely
// (SHA-256, reftable, partial clones, unknown extensions).
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	root, gitDir, err := discover(abs)
	if err != nil {
		return nil, err
	}
	commonDir, err := readCommonDir(gitDir)
	if err != nil {
		return nil, err
	}
	cache := newProcCache()
	wtConfig, bare, err := vetConfig(commonDir, cache)
	if err != nil {
		return nil, err
	}
	if bare && root != "" && gitDir == filepath.Join(root, ".git") {
		root = ""
	}
	return &Repo{
		root:      root,
		gitDir:    gitDir,
		commonDir: commonDir,
		wtConfig:  wtConfig,
		cache:     cache,
	}, nil
}

// discover walks up from dir to the folder holding .git (a directory or a
// "gitdir:" file), or recognises dir as a bare repository.
func discover(dir string) (root, gitDir string, err error) {
	for d := dir; ; {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return d, dotgit, nil
		case err == nil:
			gd, err := readGitFile(dotgit)
			if err != nil {
				return "", "", err
			}
			return d, gd, nil
		case !os.IsNotExist(err):
			return "", "", fmt.Errorf("open %s: %w", dotgit, err)
		}
		if isGitDir(d) {
			return "", d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", fmt.Errorf("%s: %w (or any of its parents); run `git init` or pass a folder inside a repository", dir, ErrNotRepo)
		}
		d = parent
	}
}

// readGitFile reads a ".git" file of the form "gitdir: <path>".
func readGitFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSpace(line)
	gd, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s: %w: the file does not start with \"gitdir: \"", path, ErrNotRepo)
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(path), gd)
	}
	if !isGitDir(gd) {
		return "", fmt.Errorf("%s points to %s: %w", path, gd, ErrNotRepo)
	}
	return filepath.Clean(gd), nil
}

// isGitDir reports whether dir looks like a git directory (HEAD plus objects
// and refs, possibly through commondir).
func isGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "commondir")); err == nil {
		return true
	}
	if _, err := os.Stat(filepath.Join(dir, "objects")); err != nil {
		return false
	}
	return true
}

// readCommonDir returns the common git dir of gitDir (itself unless the
// gitDir belongs to a linked worktree).
func readCommonDir(gitDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if os.IsNotExist(err) {
		return gitDir, nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", filepath.Join(gitDir, "commondir"), err)
	}
	cd := strings.TrimSpace(string(b))
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(gitDir, cd)
	}
	return filepath.Clean(cd), nil
}

// vetConfig reads the repository config and refuses what gitstate does not
// support. It reports whether extensions.worktreeConfig is on and whether the
// repository is bare.
func vetConfig(commonDir string, cache *procCache) (worktreeConfig, bare bool, err error) {
	path := filepath.Join(commonDir, "config")
	var cs configSet
	if err := cs.readFile(path, configContext{files: cache}, 0, true); err != nil {
		return false, false, err
	}
	version := cs.value("core", "", "repositoryformatversion")
	switch strings.TrimSpace(version) {
	case "", "0", "1":
	default:
		return false, false, &UnsupportedError{Setting: "core.repositoryFormatVersion", Value: version,
			Fix: "this repository needs a newer git format than gitstate supports"}
	}
	for _, e := range cs.entries {
		if e.section != "extensions" || e.subsection != "" {
			continue
		}
		val := strings.ToLower(strings.TrimSpace(e.value))
		switch e.key {
		case "worktreeconfig":
			worktreeConfig = isTrue(e.value)
		case "objectformat":
			if val != "sha1" {
				return false, false, &UnsupportedError{Setting: "extensions.objectFormat", Value: e.value,
					Fix: "SHA-256 repositories are not supported; use a SHA-1 repository"}
			}
		case "refstorage":
			if val != "files" {
				return false, false, &UnsupportedError{Setting: "extensions.refStorage", Value: e.value,
					Fix: "only the files ref backend is supported; convert with `git refs migrate --ref-format=files`"}
			}
		case "partialclone":
			return false, false, &UnsupportedError{Setting: "extensions.partialClone", Value: e.value,
				Fix: "partial clones can miss objects that reading needs; clone without --filter or run `git fetch --refetch` with no filter"}
		case "noop", "noop-v1", "preciousobjects":
		default:
			return false, false, &UnsupportedError{Setting: "extensions." + e.key, Value: e.value,
				Fix: "this git extension is unknown to gitstate; remove it or use the git CLI"}
		}
	}
	return worktreeConfig, isTrue(cs.value("core", "", "bare")), nil
}

// Root returns the absolute top folder of the working tree ("" for a bare
// repository).
func (r *Repo) Root() string { return r.root }

// GitDir returns this worktree's git dir (.git, or .git/worktrees/<name> in a
// linked worktree).
func (r *Repo) GitDir() string { return r.gitDir }

// CommonDir returns the git dir shared by all worktrees (objects, refs,
// config).
func (r *Repo) CommonDir() string { return r.commonDir }

// Close releases the repository. Nothing is held open between calls, so
// it only exists for callers that pair Open with Close.
func (r *Repo) Close() error { return nil }

// isTrue interprets a git boolean.
func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}
