package gitstate

import (
	"os"
	"path/filepath"
)

// Operation names the multi-step git operation in progress in this
// worktree: "merge", "cherry-pick", "revert", "rebase", or "" when none.
// While one is in progress a commit on top of HEAD would drop its state, so
// callers refuse to commit and let the user conclude it.
func (r *Repo) Operation() string {
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(r.gitDir, name))
		return err == nil
	}
	switch {
	case exists("rebase-merge"), exists("rebase-apply"):
		return "rebase"
	case exists("MERGE_HEAD"):
		return "merge"
	case exists("CHERRY_PICK_HEAD"):
		return "cherry-pick"
	case exists("REVERT_HEAD"):
		return "revert"
	}
	return ""
}
