package gitstate

import (
	"path"
	"path/filepath"
	"strings"
)

// ItrPath is where itr keeps a file of its own inside the repository's
// common git directory (shared by every worktree): its flock, the record
// of a commit in progress, copies kept by reconcile. Only gitstate knows
// where git's directory is.
func (r *Repo) ItrPath(elem ...string) string {
	return filepath.Join(append([]string{r.commonDir}, elem...)...)
}

// WorktreeItrPath is ItrPath in this worktree's own git directory (for
// what belongs to one worktree, such as the agent hook log).
func (r *Repo) WorktreeItrPath(elem ...string) string {
	return filepath.Join(append([]string{r.gitDir}, elem...)...)
}

// InGitDir reports whether a slash path relative to the working tree top
// names the git directory or something inside it (".git", ".git/x"), where
// nothing of the working tree may go.
func InGitDir(rel string) bool {
	rel = path.Clean(rel)
	first, _, _ := strings.Cut(rel, "/")
	return strings.EqualFold(first, ".git")
}

// ConfigFile names the repository's config file for a person: relative to
// the working tree top when it is inside it (".git/config"), else absolute.
func (r *Repo) ConfigFile() string {
	p := filepath.Join(r.commonDir, "config")
	if r.root != "" {
		if rel, err := filepath.Rel(r.root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}
