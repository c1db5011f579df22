package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/testgit"
)

// The server guard's check in a real repository: the pushed commits are
// made with git commit-tree, so that no ref holds them, as in git's
// quarantine before the refs move.

const logPath = taskRoot + "/demo/progress.md"

const entry1 = "# Progress Log\n\n## T1 - Iteration 1 - 2026-01-14T10:00:00Z\n**Did:** first try\n**Remaining:** None\n**Blockers:** None\n"
const entry2 = "\n## T1 - Iteration 2 - 2026-01-14T10:01:00Z\n**Did:** second\n**Remaining:** None\n**Blockers:** None\n"

// pushRepo is a repository whose main holds one commit with the log of
// entry1; commit makes a commit no ref holds.
type pushRepo struct {
	t    *testing.T
	dir  string
	main string
}

func newPushRepo(t *testing.T) *pushRepo {
	testgit.Isolate(t)
	dir := t.TempDir()
	testgit.Out(t, dir, "init", "-q")
	r := &pushRepo{t: t, dir: dir}
	r.main = r.commit("", map[string]string{logPath: entry1})
	testgit.Out(t, dir, "update-ref", "refs/heads/main", r.main)
	return r
}

// commit writes files (a "" content removes the file) on top of parent
// ("" for none) and returns the new commit, which no ref holds.
func (r *pushRepo) commit(parent string, files map[string]string) string {
	r.t.Helper()
	idx := filepath.Join(r.t.TempDir(), "index")
	env := append(os.Environ(), "GIT_INDEX_FILE="+idx)
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = r.dir, env, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		require.NoError(r.t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	if parent != "" {
		run("", "read-tree", parent)
	}
	for p, c := range files {
		if c == "" {
			run("", "rm", "-q", "--cached", p)
			continue
		}
		blob := run(c, "hash-object", "-w", "--stdin")
		run("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p)
	}
	tree := run("", "write-tree")
	args := []string{"commit-tree", tree, "-m", "c"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	return run("", args...)
}

func TestCheckPush(t *testing.T) {
	tests := []struct {
		name  string
		build func(r *pushRepo) []gitstate.PushedRef
		want  string // "" for no finding
	}{
		{"an appended entry", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{logPath: entry1 + entry2})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, ""},
		{"a rewritten entry", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{logPath: strings.Replace(entry1, "first try", "rewritten", 1)})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, "the commit would rewrite earlier entries"},
		{"a rewrite under a later commit", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{logPath: strings.Replace(entry1, "first try", "rewritten", 1)})
			c = r.commit(c, map[string]string{"work.txt": "work\n"})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, "the commit would rewrite earlier entries"},
		{"the task removed (itr archive)", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{logPath: ""})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, ""},
		{"a progress.md outside the task root", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{"docs/progress.md": "one\n"})
			c = r.commit(c, map[string]string{"docs/progress.md": "two\n"})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, ""},
		{"a root named by .itr.yaml", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{".itr.yaml": "root: tasks\n", "tasks/x/progress.md": entry1})
			c = r.commit(c, map[string]string{"tasks/x/progress.md": strings.Replace(entry1, "first try", "rewritten", 1)})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, "tasks/x/progress.md"},
		{"a root moved away in the same commit", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{".itr.yaml": "root: elsewhere\n", logPath: strings.Replace(entry1, "first try", "rewritten", 1)})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, "the commit would rewrite earlier entries"},
		{"a task folder outside every root, known by its state.json", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{".itr.yaml": "root: elsewhere\n", "old/t/progress.md": entry1, "old/t/state.json": "{}\n"})
			c = r.commit(c, map[string]string{"old/t/progress.md": strings.Replace(entry1, "first try", "rewritten", 1)})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, "old/t/progress.md"},
		{"a new branch and a deletion", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit(r.main, map[string]string{logPath: entry1 + entry2})
			return []gitstate.PushedRef{{Old: gitstate.ZeroID, New: c, Ref: "refs/heads/new"}, {Old: r.main, New: gitstate.ZeroID, Ref: "refs/heads/gone"}}
		}, ""},
		{"a force push to a history without the entries", func(r *pushRepo) []gitstate.PushedRef {
			c := r.commit("", map[string]string{logPath: "# Progress Log\n"})
			return []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}}
		}, "moving refs/heads/main from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newPushRepo(t)
			got, err := CheckPush(r.dir, tt.build(r))
			require.NoError(t, err)
			if tt.want == "" {
				require.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			require.Contains(t, got[0].File+": "+got[0].Problem, tt.want)
			require.NotEmpty(t, got[0].Fix)
		})
	}
}

// A .itr.yaml that does not parse names no root: the default root's
// logs are checked still, and the push is not refused for the file alone.
func TestCheckPushBadConfig(t *testing.T) {
	r := newPushRepo(t)
	c := r.commit(r.main, map[string]string{".itr.yaml": "colour: red\n", logPath: entry1 + entry2})
	got, err := CheckPush(r.dir, []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}})
	require.NoError(t, err)
	require.Empty(t, got)
	c = r.commit(c, map[string]string{logPath: entry2})
	got, err = CheckPush(r.dir, []gitstate.PushedRef{{Old: r.main, New: c, Ref: "refs/heads/main"}})
	require.NoError(t, err)
	require.Len(t, got, 1)
}

// Without itr on the PATH of the server's hooks, the guard refuses the
// push, saying so, and the server keeps what it had.
func TestServerGuardWithoutItr(t *testing.T) {
	r := newPushRepo(t)
	bare := testgit.NewBare(t)
	require.NoError(t, os.WriteFile(filepath.Join(bare, "hooks", ServerHookName), []byte(serverScript), 0o755))
	git, err := exec.LookPath("git")
	require.NoError(t, err)
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	c := r.commit(r.main, map[string]string{"work.txt": "w\n"})
	cmd := exec.Command(git, "push", bare, c+":refs/heads/main")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(git)+string(os.PathListSeparator)+filepath.Dir(sh))
	if _, err := exec.LookPath(filepath.Join(filepath.Dir(git), "itr")); err == nil {
		t.Skip("itr is installed beside git, so the hook would find it")
	}
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "itr: not on the PATH of the server's hooks")
	require.Contains(t, string(out), "pre-receive hook declined")
	_, err = testgit.Try(bare, "rev-parse", "--verify", "-q", "refs/heads/main")
	require.Error(t, err, "the refused push created main")
}
