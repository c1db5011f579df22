package gitstate

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// OperationHeads lists the commits the operation in progress names:
// MERGE_HEAD, CHERRY_PICK_HEAD, REVERT_HEAD, REBASE_HEAD, FETCH_HEAD, the
// commit a rebase stopped at or is applying, and the last one a rebase
// picked. A merge driver looks among them for the other side.
func (r *Repo) OperationHeads() []string {
	return operationHeads(r.gitDir, r.ResolveRev)
}

// operationHeads reads the operation's heads from gitDir, resolving the
// commit a rebase last picked with resolve.
func operationHeads(gitDir string, resolve func(string) (string, error)) []string {
	var out []string
	for _, f := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "FETCH_HEAD", "rebase-merge/stopped-sha", "rebase-apply/original-commit"} {
		data, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if fields := strings.Fields(line); len(fields) > 0 && len(fields[0]) >= 40 {
				out = append(out, fields[0])
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(gitDir, "rebase-merge", "done")); err == nil {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			fields := strings.Fields(lines[i])
			if len(fields) >= 2 {
				if h, err := resolve(fields[1]); err == nil {
					out = append(out, h)
					break
				}
			}
		}
	}
	return out
}

// CallerArgs returns the arguments of the processes above this one, up to
// three levels (git runs a merge driver through a shell): the commit a
// cherry-pick or revert applies is named only there. It reads /proc where
// there is one; elsewhere it returns nothing. Options are left out.
func CallerArgs() []string {
	var out []string
	pid := os.Getppid()
	for depth := 0; depth < 3 && pid > 1; depth++ {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			break
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		if len(args) > 1 {
			for _, a := range args[1:] {
				if a != "" && !strings.HasPrefix(a, "-") {
					out = append(out, a)
				}
			}
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			break
		}
		// Field 4 of stat, after the parenthesised command name.
		rest := string(stat)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			break
		}
		next, err := strconv.Atoi(f[1])
		if err != nil {
			break
		}
		pid = next
	}
	return out
}
