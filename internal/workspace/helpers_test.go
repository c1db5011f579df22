package workspace

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
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
const tasksMD = testrepo.ModelUseDocs

// t0 is the time a test's clock starts at.
var t0 = time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)

// isolate points git's configuration at an empty home with an identity,
// clears what would make git or itr look elsewhere, and keeps itr from
// starting git's background maintenance after its commits
// (testgit.Isolate).
func isolate(t *testing.T) { testgit.Isolate(t) }

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
	return testgit.Out(r.t, r.dir, args...)
}

// gitErr runs the real git and returns its stdout, or an error holding
// its stderr.
func (r *repo) gitErr(args ...string) (string, error) { return testgit.Run(r.dir, args...) }

// abs is the path on disk of a repository-relative path.
func (r *repo) abs(rel string) string { return filepath.Join(r.dir, filepath.FromSlash(rel)) }

// write writes a file of the working tree.
func (r *repo) write(rel, data string) {
	r.t.Helper()
	testgit.Write(r.t, r.dir, rel, data)
}

// read reads a file of the working tree.
func (r *repo) read(rel string) string {
	r.t.Helper()
	return testgit.Read(r.t, r.dir, rel)
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
	return testgit.Status(r.t, r.dir)
}

// checkGit requires what every itr command leaves: git fsck --strict
// clean and git status --porcelain empty.
func (r *repo) checkGit() {
	r.t.Helper()
	testgit.Check(r.t, r.dir)
}

// snapshot is what a refused request must leave byte for byte: HEAD, every
// ref, the index, git's configuration, the operation in progress and
// every file of the working tree outside git's directory.
type snapshot = testgit.Snapshot

// snap takes a snapshot with commands that read only (git status would
// refresh the index).
func (r *repo) snap() snapshot {
	r.t.Helper()
	return testgit.Snap(r.t, r.dir)
}

// unchanged requires the repository to be as the snapshot was.
func (r *repo) unchanged(before snapshot) {
	r.t.Helper()
	testgit.Unchanged(r.t, r.dir, before)
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
