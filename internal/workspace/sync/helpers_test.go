package syncer

// Helpers of the room's tests. The tests build real repositories with the
// real git in t.TempDir(), with bare remotes on disk; they make task
// history through the write path (package record) as itr's commands do,
// run Sync on a store opened as one itr command opens it, and judge the
// result with git itself (fsck --strict, status --porcelain, log).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

// slug is the task every test works on.
const slug = "demo"

// tasksMD is its plan: T1 and T2 are independent, T3 waits for T1.
const tasksMD = `# Demo - Tasks

## Tasks

- [ ] **T1**: Add the model
- [ ] **T2**: Write the docs
- [ ] **T3**: Use the model
  - Depends: T1
`

// t0 is when the tests start: 2026-01-14 09:00 UTC.
var t0 = time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)

// clock is a clock the test sets; a store reads it through its Clock.
type clock struct{ now time.Time }

// Now is the clock's time.
func (c *clock) Now() time.Time { return c.now }

// Set moves the clock to at.
func (c *clock) Set(at time.Time) { c.now = at }

// isolate points git's configuration at an empty home with an identity,
// main as the first branch and no hint about detached heads; clears what
// would make git or itr look elsewhere; and keeps itr from starting git's
// background maintenance after its commits.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_CONFIG_PARAMETERS",
		"GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES", "GIT_CONFIG_GLOBAL",
		"ITR_ROOT", "ITR_TASK", "ITR_ENGINE", "ITR_AGENT", "ITR_NOW"} {
		t.Setenv(v, "")
		require.NoError(t, os.Unsetenv(v))
	}
	t.Setenv(gitstate.NoMaintenanceEnv, "1")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(v, "Test Agent")
	}
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(v, "agent@example.com")
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = Test Agent\n\temail = agent@example.com\n[advice]\n\tdetachedHead = false\n"), 0o644))
}

// engines runs fn once with each gitstate engine: the native one (what
// itr picks for a plain repository) and git's own plumbing
// (ITR_ENGINE=git). The environment is isolated first.
func engines(t *testing.T, fn func(t *testing.T)) {
	for _, e := range []gitstate.Engine{gitstate.EngineNative, gitstate.EngineGit} {
		t.Run(string(e), func(t *testing.T) {
			isolate(t)
			if e == gitstate.EngineGit {
				t.Setenv("ITR_ENGINE", "git")
			}
			fn(t)
		})
	}
}

// gitRun runs the real git in dir and returns its stdout and its error
// (with stderr in it).
func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// git runs the real git in dir and returns its stdout; a failure fails
// the test.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitRun(dir, args...)
	require.NoError(t, err)
	return out
}

// gitLine is git's output without its line end.
func gitLine(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(git(t, dir, args...))
}

// checkGit asserts what every sync that ends leaves: git fsck --strict
// clean and git status --porcelain empty.
func checkGit(t *testing.T, dir string) {
	t.Helper()
	fsck := exec.Command("git", "fsck", "--strict", "--no-progress")
	fsck.Dir = dir
	out, err := fsck.CombinedOutput()
	require.NoError(t, err, "git fsck --strict: %s", out)
	assert.NotContains(t, string(out), "error", "git fsck --strict")
	assert.NotContains(t, string(out), "warning", "git fsck --strict")
	assert.Empty(t, git(t, dir, "status", "--porcelain", "--untracked-files=all"), "git status --porcelain")
}

// fsckBare asserts that a bare repository is valid for git fsck --strict.
func fsckBare(t *testing.T, bare string) {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "fsck", "--strict", "--no-progress").CombinedOutput()
	require.NoError(t, err, "git fsck --strict %s: %s", bare, out)
	assert.NotContains(t, string(out), "error")
}

// open opens the store of dir as one itr command does (the repository
// found around dir, .itr.yaml read, the engine chosen), for agent, on
// clk. The repository is closed when the test ends.
func open(t *testing.T, dir, agent string, clk *clock) *store.Store {
	t.Helper()
	loc, err := gitstate.Locate(dir)
	require.NoError(t, err)
	cfg, err := store.LoadConfig(loc.Root)
	require.NoError(t, err)
	repo, choice, err := gitstate.OpenAt(loc, gitstate.OpenOptions{Scope: store.DefaultRoot, RunHooks: cfg.RunHooks})
	require.NoError(t, err)
	t.Cleanup(func() { _ = repo.Close() })
	st, err := store.New(repo, store.DefaultRoot, cfg, "", clk.Now)
	require.NoError(t, err)
	st.Engine, st.Agent = choice, agent
	return st
}

// runSync runs Sync in dir as agent on a store of its own, as `itr sync`
// does.
func runSync(t *testing.T, dir, agent string, clk *clock, req Request) (*Report, error) {
	t.Helper()
	return Sync(open(t, dir, agent, clk), req)
}

// newRepo makes a repository with one empty commit; the caller has
// isolated the environment.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	return dir
}

// seed makes a repository with one commit and the task demo started and
// planned from tasksMD, as `itr init Demo --slug demo` and `itr plan` do,
// judged clean by git, and returns its folder.
func seed(t *testing.T, clk *clock) string {
	t.Helper()
	dir := newRepo(t)
	st := open(t, dir, "seed", clk)
	initTask(t, st)
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(taskFile(store.TasksFile))), []byte(tasksMD), 0o644))
	_, err := record.Record(st, slug, func(tk *store.Task) (*record.Change, error) {
		require.NotNil(t, tk.Plan, "the plan reads")
		e := &progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: st.Stamp(),
			Fields: []progresslog.Field{{Name: "Added", Value: strings.Join(tk.Plan.IDs(), ", ")}}}
		return &record.Change{Entry: e, Event: store.EventPlanned, Subject: fmt.Sprintf("plan %d units", len(tk.Plan.Units))}, nil
	})
	require.NoError(t, err)
	checkGit(t, dir)
	return dir
}

// initTask commits the task demo as `itr init` does: the templates, a
// Created entry, state.json as the fold of it and itr's merge lines of
// .gitattributes, as one commit; then itr's merge driver is registered.
func initTask(t *testing.T, st *store.Store) {
	t.Helper()
	created := st.Stamp()
	files, err := templates.Task(templates.Data{Name: "Demo", Slug: slug, Created: created, Mode: string(state.Development)})
	require.NoError(t, err)
	entry := progresslog.Entry{Kind: progresslog.KindCreated, Stamp: created,
		Fields: []progresslog.Field{{Name: "Name", Value: "Demo"}, {Name: "Mode", Value: string(state.Development)}}}
	var changes []gitstate.FileChange
	var after *state.State
	for _, f := range files {
		data := f.Data
		if f.Name == store.ProgressFile {
			data, err = progresslog.Append(data, entry)
			require.NoError(t, err)
			var problems []reconcile.Problem
			after, problems = reconcile.Fold(reconcile.Input{Slug: slug, Entries: progresslog.Parse(data).Entries})
			require.Empty(t, problems)
		}
		changes = append(changes, gitstate.FileChange{Path: st.Rel(slug, f.Name), Data: data})
	}
	for i := range changes {
		if changes[i].Path == st.Rel(slug, store.StateFile) {
			changes[i].Data = after.Encode()
		}
	}
	attrs, changed, err := merge.Attributes(st)
	require.NoError(t, err)
	require.True(t, changed, "a new repository lacks itr's merge lines")
	changes = append(changes, gitstate.FileChange{Path: st.Root + "/.gitattributes", Data: attrs})
	head, err := st.Repo.Head()
	require.NoError(t, err)
	c := &record.Change{Entry: &entry, Event: store.EventCreated, Subject: "start task Demo"}
	_, err = record.Commit(st, head.Hash, slug, c, after, changes)
	require.NoError(t, err)
	require.NoError(t, merge.Register(st))
}

// checkpoint records one iteration of unit in dir as agent, as `itr
// checkpoint UNIT --did DID` does: the rule book decides the entry, the
// write path commits it.
func checkpoint(t *testing.T, dir, agent string, clk *clock, unit, did string) {
	t.Helper()
	st := open(t, dir, agent, clk)
	_, err := record.Record(st, slug, func(tk *store.Task) (*record.Change, error) {
		ev, err := reconcile.Decide(tk.State, tk.Plan, reconcile.Intent{Action: reconcile.Work, Unit: unit})
		if err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: progresslog.KindIteration, Unit: ev.Unit, Iteration: ev.Iteration, Stamp: st.Stamp(),
			Fields: []progresslog.Field{{Name: "Did", Value: did}, {Name: "Remaining", Value: "none"}, {Name: "Blockers", Value: "none"}}}
		return &record.Change{Entry: e, Event: store.EventIteration, Subject: fmt.Sprintf("%s iteration %d: %s", ev.Unit, ev.Iteration, did)}, nil
	})
	require.NoError(t, err)
}

// taskDir is the task's folder, relative to the repository top.
func taskDir() string { return store.DefaultRoot + "/" + slug }

// taskFile is a file of the task, relative to the repository top.
func taskFile(name string) string { return taskDir() + "/" + name }

// remoteOf makes a bare repository, makes it dir's origin and pushes
// dir's main to it with upstream tracking. It returns the bare repository.
func remoteOf(t *testing.T, dir string) string {
	t.Helper()
	b := newBare(t)
	git(t, dir, "remote", "add", "origin", b)
	git(t, dir, "push", "-q", "-u", "origin", "main")
	return b
}

// newBare makes an empty bare repository.
func newBare(t *testing.T) string {
	t.Helper()
	b := filepath.Join(t.TempDir(), "remote.git")
	git(t, filepath.Dir(b), "init", "-q", "--bare", b)
	return b
}

// cloneOf clones the bare repository into a new folder.
func cloneOf(t *testing.T, b string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(dir), "clone", "-q", b, dir)
	return dir
}

// bareGit runs git on the bare repository.
func bareGit(t *testing.T, b string, args ...string) string {
	t.Helper()
	return git(t, filepath.Dir(b), append([]string{"--git-dir", b}, args...)...)
}

// remoteRef is the commit a ref of the bare repository names.
func remoteRef(t *testing.T, b, ref string) string {
	t.Helper()
	return strings.TrimSpace(bareGit(t, b, "rev-parse", ref))
}

// stateAt decodes the task's state.json as committed at rev.
func stateAt(t *testing.T, dir, rev string) *state.State {
	t.Helper()
	s, err := state.Decode([]byte(git(t, dir, "show", rev+":"+taskFile(store.StateFile))))
	require.NoError(t, err)
	return s
}

// refs is `git for-each-ref` of the refs under prefix (all refs when it
// is ""): "name objectname" a line, "" when there are none.
func refs(t *testing.T, dir, prefix string) string {
	t.Helper()
	args := []string{"for-each-ref", "--format=%(refname) %(objectname)"}
	if prefix != "" {
		args = append(args, prefix)
	}
	return git(t, dir, args...)
}

// appendOnly asserts with git that the file at path only ever grew along
// the history of rev: in every commit that has it, it starts with the
// bytes its first parent had. It returns how many steps it checked.
func appendOnly(t *testing.T, dir, rev, path string) int {
	t.Helper()
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(git(t, dir, "rev-list", "--parents", rev)), "\n") {
		ids := strings.Fields(line)
		if len(ids) < 2 {
			continue
		}
		now, err := gitRun(dir, "show", ids[0]+":"+path)
		if err != nil {
			continue
		}
		before, err := gitRun(dir, "show", ids[1]+":"+path)
		if err != nil {
			continue
		}
		checked++
		assert.True(t, strings.HasPrefix(now, before), "%s in %s does not extend its first parent %s", path, ids[0][:7], ids[1][:7])
	}
	return checked
}

// lsTree lists the files under path at rev, as git sees them, sorted.
func lsTree(t *testing.T, dir, rev, path string) []string {
	t.Helper()
	files := strings.Fields(git(t, dir, "ls-tree", "-r", "--name-only", rev, "--", path))
	sort.Strings(files)
	return files
}

// snapshot is what a refused sync must leave byte for byte: HEAD, every
// ref, the index file and the index as git lists it, git's configuration,
// the operation in progress, and every file of the working tree outside
// .git.
type snapshot struct {
	Head, Refs, Staged, Index, Config, Operation string
	Files                                        map[string]string
}

// snap takes a snapshot of dir with commands that only read (git status
// would refresh the index).
func snap(t *testing.T, dir string) snapshot {
	t.Helper()
	gitDir := filepath.Join(dir, ".git")
	head, _ := gitRun(dir, "rev-parse", "-q", "--verify", "HEAD")
	s := snapshot{
		Head:   head + readOr(filepath.Join(gitDir, "HEAD")),
		Refs:   git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"),
		Staged: git(t, dir, "ls-files", "--stage"),
		Index:  readOr(filepath.Join(gitDir, "index")),
		Config: readOr(filepath.Join(gitDir, "config")),
		Files:  map[string]string{},
	}
	for _, f := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply"} {
		if _, err := os.Stat(filepath.Join(gitDir, f)); err == nil {
			s.Operation += f + " "
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		s.Files[filepath.ToSlash(rel)] = readOr(p)
		return nil
	})
	require.NoError(t, err)
	return s
}

// readOr is the digest of a file, or "absent".
func readOr(path string) string {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	if err != nil {
		return "unreadable: " + err.Error()
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
