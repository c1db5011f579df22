package gitstate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
)

// uncommitted lists the working tree's changes that no commit holds —
// tracked files modified or staged, and untracked files git does not
// ignore — outside the folder except, as `git status` sees them (git is
// the one that knows every rule of a status: attributes, ignores, racy
// stat data, submodules). It never takes git's optional locks.
func uncommitted(git, dir string, env []string, except string) ([]string, error) {
	cmd := exec.Command(git, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=dirty")
	cmd.Dir = dir
	cmd.Env = env
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git status: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	except = strings.Trim(path.Clean("/"+except), "/")
	var paths []string
	recs := strings.Split(out.String(), "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		xy, p := r[:2], r[3:]
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the source path of a rename or copy follows
		}
		if except != "" && (p == except || strings.HasPrefix(p, except+"/")) {
			continue
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Uncommitted lists the work no commit holds outside the folder except
// (with `git status`; git must be on PATH).
func (r *Repo) Uncommitted(except string) ([]string, error) {
	if r.root == "" {
		return nil, nil
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git status needs the git program: %w", err)
	}
	return uncommitted(git, r.root, os.Environ(), except)
}

// Uncommitted lists the work no commit holds outside the folder except.
func (g *GitRepo) Uncommitted(except string) ([]string, error) {
	if g.root == "" {
		return nil, nil
	}
	return uncommitted(g.git, g.root, g.env, except)
}
