package record_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/templates"
)

// The room's tests run the write path on a store over each repository it
// meets: the fake of gitstate (fast, its calls counted and its failures
// chosen) and a real repository made with the real git, opened on the
// native engine and on git's own plumbing, judged with git itself.

const (
	root = ".claude/iterative"
	slug = "demo"
	dir  = root + "/" + slug
)

// plan is a plan of two units, T2 depending on T1.
const plan = `# Demo - Tasks

## Tasks

- [ ] **T1**: Add the model
  - Max iterations: 3
- [ ] **T2**: Use the model
  - Depends: T1
`

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// world is a store over one repository, its clock moved a minute on by
// every tick.
type world struct {
	t    *testing.T
	st   *store.Store
	fake *gitfake.Repo // nil on a real repository
	dir  string        // the working tree
	now  time.Time
}

// kinds are the repositories each test runs on.
var kinds = []string{"fake", "native", "git"}

// each runs fn once on every kind of repository, each with the task demo
// created and planned.
func each(t *testing.T, fn func(t *testing.T, w *world)) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			w := newWorld(t, kind)
			w.seed()
			fn(t, w)
		})
	}
}

// newWorld makes an empty repository of the kind with one commit.
func newWorld(t *testing.T, kind string) *world {
	t.Helper()
	w := &world{t: t, now: t0}
	var repo gitstate.Repository
	switch kind {
	case "fake":
		w.fake = gitfake.New(filepath.Join(t.TempDir(), "repo"))
		w.dir = w.fake.Root()
		repo = w.fake
	default:
		testgit.Isolate(t)
		w.dir = t.TempDir()
		w.git("init", "-q")
		w.git("commit", "-q", "--allow-empty", "-m", "initial commit")
		var err error
		if kind == "git" {
			repo, err = gitstate.OpenGit(w.dir)
		} else {
			repo, err = gitstate.Open(w.dir)
		}
		require.NoError(t, err)
		t.Cleanup(func() { _ = repo.Close() })
	}
	st, err := store.New(repo, root, store.Config{}, "", func() time.Time { return w.now })
	require.NoError(t, err)
	w.st = st
	return w
}

// tick moves the clock a minute on.
func (w *world) tick() { w.now = w.now.Add(time.Minute) }

// seed creates the task demo with its plan, as one commit made through
// record.Commit, as itr init does.
func (w *world) seed() {
	w.t.Helper()
	task := testrepo.NewTask(w.t, dir, templates.Data{Name: "Demo", Slug: slug, Created: w.now.Format(time.RFC3339), Mode: "development"})
	changes := append(task.Changes, gitstate.FileChange{Path: dir + "/tasks.md", Data: []byte(plan)})
	head, err := w.st.Repo.Head()
	require.NoError(w.t, err)
	_, err = record.Commit(w.st, head.Hash, slug, &record.Change{Entry: &task.Entry, Event: store.EventCreated, Subject: "start task Demo"}, task.State, changes)
	require.NoError(w.t, err)
}

// iteration is the change of one iteration of unit, as checkpoint builds it.
func (w *world) iteration(unit string, n int, did string, signal bool) func(*store.Task) (*record.Change, error) {
	return func(*store.Task) (*record.Change, error) {
		e := &progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: n, Stamp: w.now.Format(time.RFC3339),
			Fields: []progresslog.Field{{Name: "Did", Value: did}, {Name: "Remaining", Value: "none"}, {Name: "Blockers", Value: "none"}}}
		if signal {
			e.Fields = append(e.Fields, progresslog.Field{Name: "Signal", Value: unit + "_DONE"})
		}
		return &record.Change{Entry: e, Event: store.EventIteration, Subject: unit + " iteration: " + did}, nil
	}
}

// head is the commit HEAD names.
func (w *world) head() string {
	w.t.Helper()
	h, err := w.st.Repo.Head()
	require.NoError(w.t, err)
	return h.Hash
}

// read is a file of the working tree.
func (w *world) read(rel string) string {
	w.t.Helper()
	return testgit.Read(w.t, w.dir, rel)
}

// write puts a file in the working tree.
func (w *world) write(rel, data string) {
	w.t.Helper()
	testgit.Write(w.t, w.dir, rel, data)
}

// committed is a file as HEAD holds it.
func (w *world) committed(rel string) string {
	w.t.Helper()
	data, err := w.st.Repo.ReadFile(w.head(), rel)
	require.NoError(w.t, err)
	return string(data)
}

// lastCommit is HEAD's commit, trailers and all.
func (w *world) lastCommit() gitstate.Commit {
	w.t.Helper()
	var c gitstate.Commit
	require.NoError(w.t, w.st.Repo.History(w.head(), func(x gitstate.Commit) bool { c = x; return false }))
	return c
}

// commits counts the commits reachable from HEAD.
func (w *world) commits() int {
	w.t.Helper()
	n := 0
	require.NoError(w.t, w.st.Repo.History(w.head(), func(gitstate.Commit) bool { n++; return true }))
	return n
}

// git runs the real git in the working tree.
func (w *world) git(args ...string) string {
	w.t.Helper()
	return testgit.Git(w.t, w.dir, args...)
}

// checkGit judges a real repository with git: fsck --strict finds
// nothing and the working tree is clean. The fake is judged by its own
// contract suite.
func (w *world) checkGit() {
	w.t.Helper()
	if w.fake != nil {
		return
	}
	testgit.Fsck(w.t, w.dir)
	require.Empty(w.t, testgit.Status(w.t, w.dir), "the working tree is clean")
}

// gitErr runs the real git and returns its error.
func (w *world) gitErr(args ...string) (string, error) { return testgit.Try(w.dir, args...) }
