package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
)

// The write path's tests build real repositories with the real git, run
// the use cases on them as the CLI does (one Workspace per command), and
// judge what they leave with git itself.

// taskRoot is the default task root; demo is the task every test makes.
const (
	taskRoot = ".claude/iterative"
	demo     = "demo"
	demoDir  = taskRoot + "/" + demo
)

// tasksMD is a plan of three units, T2 depending on T1.
const tasksMD = `# Demo - Tasks

## Tasks

- [ ] **T1**: Add the model
  - Max iterations: 5
- [ ] **T2**: Use the model
  - Depends: T1
- [ ] **T3**: Docs
`

// t0 is the time a test's clock starts at.
var t0 = time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)

// isolate points git's configuration at an empty home with an identity,
// clears what would make git or itr look elsewhere, and keeps itr from
// starting git's background maintenance after its commits.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_CONFIG_PARAMETERS",
		"GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES", "ITR_ROOT", "ITR_TASK", "ITR_ENGINE", "ITR_AGENT"} {
		t.Setenv(v, "")
		require.NoError(t, os.Unsetenv(v))
	}
	t.Setenv(gitstate.NoMaintenanceEnv, "1")
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = Test Agent\n\temail = agent@example.com\n"), 0o644))
}

// engines runs fn once with each gitstate engine: the native one (what
// itr picks for a plain repository) and git's own plumbing (ITR_ENGINE=git).
func engines(t *testing.T, fn func(t *testing.T, engine gitstate.Engine)) {
	for _, e := range []gitstate.Engine{gitstate.EngineNative, gitstate.EngineGit} {
		t.Run(string(e), func(t *testing.T) {
			isolate(t)
			if e == gitstate.EngineGit {
				t.Setenv("ITR_ENGINE", "git")
			}
			fn(t, e)
		})
	}
}

// repo is a real repository in a temporary folder and the clock the
// workspace reads; every command opened through it moves the clock one
// minute on.
type repo struct {
	t   *testing.T
	dir string
	now time.Time
	// engine, when set, is the engine every opened workspace must run on.
	engine gitstate.Engine
}

// newRepo makes a repository with the real git and one empty commit.
// The caller has isolated the environment (isolate or engines).
func newRepo(t *testing.T) *repo {
	t.Helper()
	r := &repo{t: t, dir: t.TempDir(), now: t0}
	r.git("init", "-q")
	r.git("commit", "-q", "--allow-empty", "-m", "initial commit")
	return r
}

// newTask makes a repository with the task demo initialised and planned
// with tasksMD, as `itr init Demo --slug demo` and `itr plan` do.
func newTask(t *testing.T) *repo {
	t.Helper()
	r := newRepo(t)
	r.initPlan(tasksMD)
	return r
}

// initPlan runs Init and Plan of the task demo with the plan text.
func (r *repo) initPlan(plan string) {
	r.t.Helper()
	_, err := r.open().Init(InitRequest{Name: "Demo", Slug: demo})
	require.NoError(r.t, err)
	r.write(demoDir+"/tasks.md", plan)
	_, err = r.open().Plan(PlanRequest{Slug: demo})
	require.NoError(r.t, err)
	r.checkGit()
}

// open opens a workspace on the repository as one itr command does, the
// clock one minute on; it is closed when the test ends.
func (r *repo) open() *Workspace {
	r.t.Helper()
	r.now = r.now.Add(time.Minute)
	now := r.now
	ws, err := Open(Options{Dir: r.dir, Now: func() time.Time { return now }})
	require.NoError(r.t, err)
	r.t.Cleanup(func() { _ = ws.Close() })
	if r.engine != "" {
		require.Equal(r.t, r.engine, ws.Engine.Engine, "the engine the workspace runs on (%v)", ws.Engine.Reasons)
	}
	return ws
}

// checkpoint records one iteration and requires it to land.
func (r *repo) checkpoint(req CheckpointRequest) *Outcome {
	r.t.Helper()
	if req.Slug == "" {
		req.Slug = demo
	}
	out, err := r.open().Checkpoint(req)
	require.NoError(r.t, err)
	return out
}

// git runs the real git in the repository and returns its stdout.
func (r *repo) git(args ...string) string {
	r.t.Helper()
	out, err := r.gitErr(args...)
	require.NoError(r.t, err)
	return out
}

// gitErr runs the real git and returns its stdout, or an error holding
// its stderr.
func (r *repo) gitErr(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = errors.New("git " + strings.Join(args, " ") + ": " + err.Error() + ": " + string(ee.Stderr))
	}
	return string(out), err
}

// abs is the path on disk of a repository-relative path.
func (r *repo) abs(rel string) string { return filepath.Join(r.dir, filepath.FromSlash(rel)) }

// write writes a file of the working tree.
func (r *repo) write(rel, data string) {
	r.t.Helper()
	require.NoError(r.t, os.MkdirAll(filepath.Dir(r.abs(rel)), 0o755))
	require.NoError(r.t, os.WriteFile(r.abs(rel), []byte(data), 0o644))
}

// read reads a file of the working tree.
func (r *repo) read(rel string) string {
	r.t.Helper()
	data, err := os.ReadFile(r.abs(rel))
	require.NoError(r.t, err)
	return string(data)
}

// show is the content of path as committed at rev, read by git.
func (r *repo) show(rev, path string) string {
	r.t.Helper()
	return r.git("show", rev+":"+path)
}

// head is HEAD's commit id.
func (r *repo) head() string {
	r.t.Helper()
	return strings.TrimSpace(r.git("rev-parse", "HEAD"))
}

// commitsSince lists, oldest first, the commits git sees on HEAD after base.
func (r *repo) commitsSince(base string) []string {
	r.t.Helper()
	return lines(r.git("rev-list", "--reverse", base+"..HEAD"))
}

// filesOf lists the paths a commit changed, as git shows them.
func (r *repo) filesOf(rev string) []string {
	r.t.Helper()
	files := lines(r.git("show", "--no-renames", "--name-only", "--format=", rev))
	sort.Strings(files)
	return files
}

// trailers reads a commit's trailers with git.
func (r *repo) trailers(rev string) map[string]string {
	r.t.Helper()
	out := map[string]string{}
	for _, l := range lines(r.git("log", "-1", "--format=%(trailers:only,unfold)", rev)) {
		k, v, ok := strings.Cut(l, ": ")
		require.True(r.t, ok, "trailer line %q", l)
		out[k] = v
	}
	return out
}

// subject is a commit's subject line.
func (r *repo) subject(rev string) string {
	r.t.Helper()
	return strings.TrimSpace(r.git("log", "-1", "--format=%s", rev))
}

// status is git status --porcelain with untracked files listed one by one.
func (r *repo) status() string {
	r.t.Helper()
	return r.git("status", "--porcelain", "--untracked-files=all")
}

// checkGit requires what every itr command leaves: git fsck --strict
// clean and git status --porcelain empty.
func (r *repo) checkGit() {
	r.t.Helper()
	cmd := exec.Command("git", "fsck", "--strict", "--no-progress")
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	require.NoError(r.t, err, "git fsck --strict: %s", out)
	assert.NotContains(r.t, string(out), "error", "git fsck --strict")
	assert.NotContains(r.t, string(out), "warning", "git fsck --strict")
	assert.Empty(r.t, r.status(), "git status --porcelain")
}

// snapshot is what a refused request must leave byte for byte: HEAD, every
// ref, the index file and the index as git lists it, and every file of the
// working tree outside .git.
type snapshot struct {
	Head, Refs, Staged, Index string
	Files                     map[string]string
}

// snap takes a snapshot with commands that read only (git status would
// refresh the index).
func (r *repo) snap() snapshot {
	r.t.Helper()
	index, err := os.ReadFile(filepath.Join(r.dir, ".git", "index"))
	require.NoError(r.t, err)
	s := snapshot{
		Head:   r.head(),
		Refs:   r.git("for-each-ref"),
		Staged: r.git("ls-files", "--stage"),
		Index:  digest(index),
		Files:  map[string]string{},
	}
	err = filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.dir, p)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s.Files[filepath.ToSlash(rel)] = digest(data)
		return nil
	})
	require.NoError(r.t, err)
	return s
}

// unchanged requires the repository to be as the snapshot was.
func (r *repo) unchanged(before snapshot) {
	r.t.Helper()
	require.Equal(r.t, before, r.snap(), "HEAD, refs, index and working tree")
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// taskFiles are the repository paths of files of the task demo.
func taskFiles(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = demoDir + "/" + n
	}
	sort.Strings(out)
	return out
}
