package verify_test

// The remembered walk (cache.go) on real repositories made by itr and git:
// after every step of each history, itr verify from what an earlier verify
// remembered gives exactly what the whole walk gives.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/internal/workspace/verify"
)

// realRepo is a git repository with the task "demo" created and planned
// by itr (units T1 to T3).
type realRepo struct {
	t   *testing.T
	dir string
}

func newRealRepo(t *testing.T) *realRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	testgit.Isolate(t)
	r := &realRepo{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	r.git("init", "-q", "-b", "main", r.dir)
	r.write("README", "demo\n")
	r.git("add", "README")
	r.git("commit", "-q", "-m", "init")
	r.ws(func(w *workspace.Workspace) error {
		_, err := w.Init(workspace.InitRequest{Name: "Demo", Slug: "demo"})
		return err
	})
	r.write(".claude/iterative/demo/tasks.md", "## Tasks\n\n- [ ] **T1**: first\n  - Max iterations: 1000\n- [ ] **T2**: second\n  - Max iterations: 1000\n")
	r.ws(func(w *workspace.Workspace) error {
		_, err := w.Plan(workspace.PlanRequest{Slug: "demo"})
		return err
	})
	return r
}

func (r *realRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	if _, err := os.Stat(r.dir); err == nil {
		cmd.Dir = r.dir
	}
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

func (r *realRepo) write(rel, data string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	require.NoError(r.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(r.t, os.WriteFile(p, []byte(data), 0o644))
}

func (r *realRepo) appendTo(rel, data string) {
	r.t.Helper()
	f, err := os.OpenFile(filepath.Join(r.dir, filepath.FromSlash(rel)), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(r.t, err)
	_, err = f.WriteString(data)
	require.NoError(r.t, err)
	require.NoError(r.t, f.Close())
}

// ws runs fn on the repository opened as a new itr command would.
func (r *realRepo) ws(fn func(w *workspace.Workspace) error) {
	r.t.Helper()
	w, err := workspace.Open(workspace.Options{Dir: r.dir})
	require.NoError(r.t, err)
	defer w.Close()
	require.NoError(r.t, fn(w))
}

func (r *realRepo) checkpoint(unit, did string) {
	r.t.Helper()
	r.ws(func(w *workspace.Workspace) error {
		_, err := w.Checkpoint(workspace.CheckpointRequest{Slug: "demo", Unit: unit, Did: did})
		return err
	})
}

// verifyJSON is itr verify's report, with the remembered walk (cached) or
// the whole walk.
func (r *realRepo) verifyJSON(cached bool) string {
	r.t.Helper()
	off := "1"
	if cached {
		off = "0"
	}
	r.t.Setenv(verify.NoCacheEnv, off)
	var out []byte
	r.ws(func(w *workspace.Workspace) error {
		rep, err := w.Verify("demo")
		if err != nil {
			return err
		}
		out, err = json.MarshalIndent(rep, "", "  ")
		return err
	})
	return string(out)
}

// same checks that verify from what the last verify remembered, and again
// from what that one remembered, gives what the whole walk gives; it
// returns the report.
func (r *realRepo) same(step string) string {
	r.t.Helper()
	full := r.verifyJSON(false)
	require.Equal(r.t, full, r.verifyJSON(true), "%s: verify from the remembered walk differs from the whole walk", step)
	require.Equal(r.t, full, r.verifyJSON(true), "%s: a second verify differs from the whole walk", step)
	return full
}

func TestCachedVerifyLinear(t *testing.T) {
	r := newRealRepo(t)
	before := verify.Resumes()
	r.same("created")
	for i := 1; i <= 6; i++ {
		r.checkpoint("T1", fmt.Sprintf("step %d", i))
		rep := r.same(fmt.Sprintf("checkpoint %d", i))
		require.Contains(t, rep, `"findings": []`)
	}
	// A commit made with git that does not touch the task.
	r.write("work.txt", "work\n")
	r.git("add", "work.txt")
	r.git("commit", "-q", "-m", "work")
	r.same("work commit")
	r.checkpoint("T1", "after work")
	r.same("checkpoint after work")
	require.Greater(t, verify.Resumes()-before, int64(10), "the remembered walk was not used")
}

func TestCachedVerifyMerges(t *testing.T) {
	r := newRealRepo(t)
	r.checkpoint("T1", "one")
	r.same("one")
	// A branch that does not touch the task, merged with a merge commit.
	r.git("checkout", "-q", "-b", "side")
	r.write("side.txt", "side\n")
	r.git("add", "side.txt")
	r.git("commit", "-q", "-m", "side work")
	r.git("checkout", "-q", "main")
	r.checkpoint("T1", "two")
	r.same("two")
	r.git("merge", "-q", "--no-ff", "--no-edit", "side")
	r.same("merge of side")
	r.checkpoint("T1", "three")
	r.same("three")
	// A branch that checkpoints, merged into a main that only did work.
	r.git("checkout", "-q", "-b", "agent")
	r.checkpoint("T1", "four on agent")
	r.checkpoint("T1", "five on agent")
	r.git("checkout", "-q", "main")
	r.same("main before the merge")
	r.write("main.txt", "main\n")
	r.git("add", "main.txt")
	r.git("commit", "-q", "-m", "main work")
	r.same("main work")
	r.git("merge", "-q", "--no-ff", "--no-edit", "agent")
	r.same("merge of agent")
	r.checkpoint("T1", "six")
	rep := r.same("six")
	require.Contains(t, rep, `"findings": []`)
	// The branch merged again after more checkpoints on it.
	r.git("checkout", "-q", "agent")
	r.git("merge", "-q", "--ff-only", "main")
	r.checkpoint("T1", "seven on agent")
	r.git("checkout", "-q", "main")
	r.write("main.txt", "main again\n")
	r.git("commit", "-q", "-am", "main work again")
	r.git("merge", "-q", "--no-ff", "--no-edit", "agent")
	r.same("second merge of agent")
}

func TestCachedVerifyRewrites(t *testing.T) {
	r := newRealRepo(t)
	for i := 1; i <= 4; i++ {
		r.checkpoint("T1", fmt.Sprintf("step %d", i))
	}
	r.same("four checkpoints")
	keep := r.git("rev-parse", "HEAD~2")
	// git commit --amend of itr's last commit, with a hand edit of the log.
	r.appendTo(".claude/iterative/demo/progress.md", "\n## Written by hand\n\nan entry without a commit\n")
	r.git("commit", "-q", "--amend", "--no-verify", "--no-edit", "-a")
	rep := r.same("amended")
	require.NotContains(t, rep, `"findings": []`, "the amended commit did not add exactly one entry")
	// git reset --hard to an older checkpoint, then new checkpoints.
	r.git("reset", "-q", "--hard", keep)
	r.same("reset")
	r.checkpoint("T1", "after the reset")
	r.same("checkpoint after the reset")
	r.checkpoint("T1", "and another")
	r.same("another")
	// A hand edit of an earlier entry, committed with git: a break.
	data, err := os.ReadFile(filepath.Join(r.dir, ".claude/iterative/demo/progress.md"))
	require.NoError(t, err)
	r.write(".claude/iterative/demo/progress.md", strings.Replace(string(data), "step 1", "step one", 1))
	r.git("commit", "-q", "--no-verify", "-am", "edit an entry")
	rep = r.same("rewrite of an entry")
	require.Contains(t, rep, "broke the append-only history")
	r.checkpoint("T1", "after the break")
	r.same("checkpoint after the break")
	// Put the log back: the break is repaired.
	data, err = os.ReadFile(filepath.Join(r.dir, ".claude/iterative/demo/progress.md"))
	require.NoError(t, err)
	r.write(".claude/iterative/demo/progress.md", strings.Replace(string(data), "step one", "step 1", 1))
	r.git("commit", "-q", "--no-verify", "-am", "put the entry back")
	rep = r.same("repair of the edit")
	require.Contains(t, rep, "put back by commit")
	// Reset onto the rewritten history, then amend only the message.
	r.git("reset", "-q", "--hard", "HEAD~1")
	r.git("commit", "-q", "--amend", "-m", "a message of its own")
	r.same("amended message")
	// The remembered file itself damaged: the whole walk.
	var path string
	r.ws(func(w *workspace.Workspace) error {
		path = w.Repo.WorktreeItrPath("itr-verify", "demo")
		return nil
	})
	r.checkpoint("T2", "start two")
	r.verifyJSON(true)
	require.FileExists(t, path)
	require.NoError(t, os.WriteFile(path, []byte("itr-verify-walk 2\ngarbage\n"), 0o644))
	r.same("damaged cache")
}

func TestCachedVerifyRootWithSpaces(t *testing.T) {
	r := newRealRepo(t)
	r.write(".itr.yaml", "root: my tasks\n")
	r.git("add", ".itr.yaml")
	r.git("commit", "-q", "-m", "root")
	r.ws(func(w *workspace.Workspace) error {
		_, err := w.Init(workspace.InitRequest{Name: "Spaced", Slug: "spaced"})
		return err
	})
	r.t.Setenv(verify.NoCacheEnv, "0")
	before := verify.Resumes()
	for i := 0; i < 2; i++ {
		r.ws(func(w *workspace.Workspace) error {
			rep, err := w.Verify("spaced")
			require.NoError(t, err)
			require.Empty(t, rep.Findings)
			return nil
		})
	}
	require.Equal(t, before+1, verify.Resumes())
}

func TestCachedVerifyFold(t *testing.T) {
	r := newRealRepo(t)
	r.checkpoint("T1", "one")
	before := verify.FoldSkips()
	require.Contains(t, r.same("one"), `"findings": []`)
	require.Greater(t, verify.FoldSkips(), before, "the fold check was redone for the same bytes")
	// The plan changed in the working tree: a unit more, the state lacks it.
	r.write(".claude/iterative/demo/tasks.md", "## Tasks\n\n- [ ] **T1**: first\n  - Max iterations: 1000\n- [ ] **T2**: second\n  - Max iterations: 1000\n- [ ] **T3**: third\n")
	r.same("plan with a unit more")
	r.git("checkout", "-q", "--", ".claude/iterative/demo/tasks.md")
	r.same("plan back")
	// state.json edited by hand and committed with git.
	p := filepath.Join(r.dir, ".claude/iterative/demo/state.json")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(data), `"iterations_used": 1`, `"iterations_used": 7`, 1)), 0o644))
	r.git("commit", "-q", "--no-verify", "-am", "edit the state")
	rep := r.same("state edited")
	require.Contains(t, rep, "differs from the log")
	// Put back: clean again.
	r.git("revert", "--no-edit", "HEAD")
	require.Contains(t, r.same("state put back"), `"findings": []`)
	// The log with conflict markers committed with git.
	r.appendTo(".claude/iterative/demo/progress.md", "<<<<<<< ours\n## T1 - Iteration 2 - 2026-01-01T00:00:00Z\n=======\n>>>>>>> theirs\n")
	r.git("commit", "-q", "--no-verify", "-am", "markers")
	require.Contains(t, r.same("conflict markers"), "conflict markers")
}

// The remembered walk edited by hand (a count changed, a commit it never
// checked claimed as walked) or cut short is a miss: verify walks the whole
// history, never believes it.
func TestCachedVerifyEdited(t *testing.T) {
	r := newRealRepo(t)
	r.checkpoint("T1", "one")
	r.checkpoint("T1", "two")
	want := r.same("two checkpoints")
	var path string
	r.ws(func(w *workspace.Workspace) error {
		path = w.Repo.WorktreeItrPath("itr-verify", "demo")
		return nil
	})
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, edit := range []struct{ name, from, to string }{
		{"commits counted", "\ncommits ", "\ncommits 9"},
		{"entries counted", "\nentries ", "\nentries 9"},
		{"a commit claimed as walked", "\nsum ", "\n" + strings.Repeat("a", 40) + "\nsum "},
	} {
		require.Contains(t, string(data), edit.from)
		require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), edit.from, edit.to, 1)), 0o644))
		require.Equal(t, want, r.verifyJSON(true), "verify after the remembered walk was edited: %s", edit.name)
	}
	require.NoError(t, os.WriteFile(path, data[:len(data)-10], 0o644))
	require.Equal(t, want, r.verifyJSON(true), "verify after the remembered walk was cut short")
}

// A record that steps the view's remembered facts (clean, folding into the
// state.json it commits) leaves verify's fold check done for its bytes:
// the next verify does not fold the log, and reports what the whole walk
// does.
func TestRecordLeavesTheFoldCheckDone(t *testing.T) {
	r := newRealRepo(t)
	r.checkpoint("T1", "one")
	r.ws(func(w *workspace.Workspace) error {
		_, err := w.Status("demo") // the view remembers what it read
		return err
	})
	r.checkpoint("T1", "two")
	before := verify.FoldSkips()
	cached := r.verifyJSON(true)
	require.Equal(t, before+1, verify.FoldSkips(), "the fold check was redone after the record")
	require.Equal(t, r.verifyJSON(false), cached, "verify after the record against the whole walk")
	require.Contains(t, cached, `"findings": []`)
}
