package archive

// The room's tests build a repository of each kind, the fake of git
// (gitstate/gitfake) and the real git under each of gitstate's engines,
// make the task to archive through the write path (package record) as
// itr's own commands do, and judge what archive and restore leave: with
// git itself in a real repository (fsck, status --porcelain, ls-tree, the
// tags), through the Repository interface in the fake.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/merge"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

// slug is the task every test archives.
const slug = testrepo.Slug

// threeUnits is its plan: T1 and T2 are independent, T3 waits for T1.
const threeUnits = testrepo.ThreeUnits

// oneUnit is a plan of one unit.
const oneUnit = "# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: The report\n"

// t0 is when a fixture's clock starts: 2026-01-14 09:00 UTC.
var t0 = testrepo.T0

var errBoom = errors.New("boom")

// The kinds of repository a fixture makes.
const (
	fakeRepo  = "fake"
	nativeGit = string(gitstate.EngineNative)
	gitGit    = string(gitstate.EngineGit)
)

// allKinds are every kind of repository; realKinds the real ones, which
// git itself can judge.
var (
	allKinds  = []string{fakeRepo, nativeGit, gitGit}
	realKinds = []string{nativeGit, gitGit}
)

// eachKind runs fn once for each kind of repository, on a fresh fixture.
func eachKind(t *testing.T, kinds []string, fn func(t *testing.T, f *fixture)) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { fn(t, newFixture(t, kind)) })
	}
}

// fixture is one repository with one commit, the clock its stores read,
// and, for the fake, the fake itself.
type fixture struct {
	t    *testing.T
	kind string
	dir  string
	fake *gitfake.Repo // nil in a real repository
	now  time.Time
}

// newFixture makes a repository of the kind with one commit (a README).
func newFixture(t *testing.T, kind string) *fixture {
	t.Helper()
	testgit.Isolate(t)
	f := &fixture{t: t, kind: kind, now: t0}
	switch kind {
	case fakeRepo:
		f.fake = gitfake.New(filepath.Join(t.TempDir(), "repo"))
		f.dir = f.fake.Root()
		_, err := f.fake.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{{Path: "README.md", Data: []byte("# Demo\n")}},
			Message: "initial commit\n", When: f.now, Worktree: true})
		require.NoError(t, err)
	case gitGit:
		t.Setenv("ITR_ENGINE", "git")
		fallthrough
	default:
		f.dir = t.TempDir()
		f.git("init", "-q")
		f.write("README.md", "# Demo\n")
		f.git("add", "README.md")
		f.git("commit", "-q", "-m", "initial commit")
	}
	return f
}

// real reports whether the repository is a real one, which git can judge.
func (f *fixture) real() bool { return f.fake == nil }

// clock is the time the fixture's stores read.
func (f *fixture) clock() time.Time { return f.now }

// tick moves the clock one minute on.
func (f *fixture) tick() { f.now = f.now.Add(time.Minute) }

// store opens the repository as one itr command would (a real one with
// the engine of the fixture's kind) and returns its store on the default
// task root.
func (f *fixture) store() *store.Store {
	f.t.Helper()
	var repo gitstate.Repository = f.fake
	var choice gitstate.Choice
	if f.real() {
		loc, err := gitstate.Locate(f.dir)
		require.NoError(f.t, err)
		repo, choice, err = gitstate.OpenAt(loc, gitstate.OpenOptions{Scope: store.DefaultRoot})
		require.NoError(f.t, err)
		require.Equal(f.t, gitstate.Engine(f.kind), choice.Engine, "the engine of the fixture")
		f.t.Cleanup(func() { _ = repo.Close() })
	}
	st, err := store.New(repo, store.DefaultRoot, store.Config{}, "", f.clock)
	require.NoError(f.t, err)
	st.Engine = choice
	return st
}

// archive runs Archive on a newly opened store, dropping no claims.
func (f *fixture) archive(req Request) (*Report, error) {
	f.t.Helper()
	return Archive(f.store(), req, nil)
}

// restore runs Restore on a newly opened store.
func (f *fixture) restore(req RestoreRequest) (*RestoreReport, error) {
	f.t.Helper()
	return Restore(f.store(), req)
}

// taskDir is the task's folder, relative to the repository top.
func taskDir() string { return store.DefaultRoot + "/" + slug }

// taskFile is a file of the task, relative to the repository top.
func taskFile(name string) string { return testrepo.TaskFile(slug, name) }

// abs is the path on disk of a repository-relative path.
func (f *fixture) abs(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

// write puts a file in the working tree only.
func (f *fixture) write(rel, data string) {
	f.t.Helper()
	testgit.Write(f.t, f.dir, rel, data)
}

// read is a file of the working tree.
func (f *fixture) read(rel string) string {
	f.t.Helper()
	return testgit.Read(f.t, f.dir, rel)
}

// newTask makes the task demo as `itr init Demo --slug demo` does and,
// unless plan is "", plans it with that text as `itr plan` does.
func (f *fixture) newTask(plan string) {
	f.t.Helper()
	f.initTask()
	if plan != "" {
		f.plan(plan)
	}
}

// initTask commits what itr init writes: the templates, a Created entry
// in progress.md, its fold as state.json and itr's merge lines of
// .gitattributes, as one commit of the write path.
func (f *fixture) initTask() {
	f.t.Helper()
	f.tick()
	st := f.store()
	unlock, err := record.LockIdle(st)
	require.NoError(f.t, err)
	defer unlock()
	head, err := st.Repo.Head()
	require.NoError(f.t, err)
	task := testrepo.NewTask(f.t, taskDir(), templates.Data{Name: "Demo", Slug: slug, Created: st.Stamp()})
	changes := task.Changes
	attrs, changed, err := merge.Attributes(st)
	require.NoError(f.t, err)
	if changed {
		changes = append(changes, gitstate.FileChange{Path: store.DefaultRoot + "/.gitattributes", Data: attrs})
	}
	_, err = record.Commit(st, head.Hash, slug, &record.Change{Entry: &task.Entry, Event: store.EventCreated, Subject: "start task Demo"}, task.State, changes)
	require.NoError(f.t, err)
	require.NoError(f.t, merge.Register(st))
}

// plainCommit commits one file as a person would with git, without
// itr's trailers.
func (f *fixture) plainCommit(rel, data string) {
	f.t.Helper()
	f.tick()
	if f.real() {
		f.write(rel, data)
		f.git("add", "--", rel)
		f.git("commit", "-q", "-m", "edit "+rel)
		return
	}
	_, err := f.fake.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{{Path: rel, Data: []byte(data)}},
		Message: "edit " + rel + "\n", When: f.now, Worktree: true})
	require.NoError(f.t, err)
}

// record records one entry through the write path, as a command of itr
// does: build returns it from the task as committed.
func (f *fixture) record(build func(st *store.Store, t *store.Task) (*record.Change, error)) *record.Outcome {
	f.t.Helper()
	f.tick()
	st := f.store()
	out, err := record.Record(st, slug, func(t *store.Task) (*record.Change, error) { return build(st, t) })
	require.NoError(f.t, err)
	return out
}

// plan writes the plan and records it as itr plan does.
func (f *fixture) plan(text string) {
	f.t.Helper()
	f.write(taskFile(store.TasksFile), text)
	f.record(func(st *store.Store, t *store.Task) (*record.Change, error) {
		require.NotNil(f.t, t.Plan, "the plan parses")
		e := &progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: st.Stamp(),
			Fields: []progresslog.Field{{Name: "Added", Value: strings.Join(t.Plan.IDs(), ", ")}}}
		return &record.Change{Entry: e, Event: store.EventPlanned, Subject: "plan " + strconv.Itoa(len(t.Plan.Units)) + " units"}, nil
	})
}

// checkpoint records one iteration of unit as itr checkpoint does, the
// rule book deciding it: signal declares the work done or confirmed,
// verifiedBy verifies it.
func (f *fixture) checkpoint(unit, did string, signal bool, verifiedBy string) *record.Outcome {
	f.t.Helper()
	return f.record(func(st *store.Store, t *store.Task) (*record.Change, error) {
		in := reconcile.Intent{Action: reconcile.Work, Unit: unit, Signal: signal, Verified: verifiedBy != "", VerifiedBy: verifiedBy}
		ev, err := reconcile.Decide(t.State, t.Plan, in)
		if err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: progresslog.KindIteration, Unit: ev.Unit, Iteration: ev.Iteration, Stamp: st.Stamp()}
		add := func(name, value string) { e.Fields = append(e.Fields, progresslog.Field{Name: name, Value: value}) }
		add("Did", did)
		add("Remaining", "None")
		add("Blockers", "None")
		if ev.Signal != "" {
			add("Signal", ev.Signal)
		}
		if ev.Verification != "" {
			add("Verification", ev.Verification)
		}
		if ev.VerifiedBy != "" {
			add(reconcile.FieldVerifiedBy, ev.VerifiedBy)
		}
		return &record.Change{Entry: e, Event: store.EventIteration, Subject: unit + " iteration " + strconv.Itoa(ev.Iteration) + ": " + did}, nil
	})
}

// done takes unit through the closing path to done with three
// checkpoints: work signalled, confirmed, verified by a reviewer.
func (f *fixture) done(unit string) {
	f.t.Helper()
	f.checkpoint(unit, "built "+unit, true, "")
	f.checkpoint(unit, "confirmed "+unit, true, "")
	out := f.checkpoint(unit, "reviewed "+unit, false, "the reviewer")
	require.Equal(f.t, state.Done, out.After.Units[unit].Status)
}

// fail records unit as failed, as itr fail does.
func (f *fixture) fail(unit, reason string) {
	f.t.Helper()
	f.record(func(st *store.Store, t *store.Task) (*record.Change, error) {
		ev, err := reconcile.Decide(t.State, t.Plan, reconcile.Intent{Action: reconcile.Fail, Unit: unit, Reason: reason})
		if err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: ev.Kind, Unit: ev.Unit, Stamp: st.Stamp(), Fields: []progresslog.Field{{Name: "Reason", Value: reason}}}
		return &record.Change{Entry: e, Event: store.EventFailed, Subject: "fail " + unit + ": " + reason}, nil
	})
}

// guardrail records a lesson in guardrails.md, as itr guardrail does.
func (f *fixture) guardrail(name string) {
	f.t.Helper()
	f.record(func(_ *store.Store, _ *store.Task) (*record.Change, error) {
		return &record.Change{Guardrail: &progresslog.Guardrail{Name: name, When: "a page moves", Problem: "dead links", Solution: "redirect"},
			Event: store.EventGuardrail, Subject: "guardrail: " + name}, nil
	})
}

// finished makes the task with the three units, all done.
func (f *fixture) finished() {
	f.t.Helper()
	f.newTask(threeUnits)
	for _, unit := range []string{"T1", "T2", "T3"} {
		f.done(unit)
	}
}

// head is the commit HEAD names.
func (f *fixture) head() string {
	f.t.Helper()
	h, err := f.store().Repo.Head()
	require.NoError(f.t, err)
	return h.Hash
}

// files lists the files under dir committed at rev, as the repository
// reads them, sorted.
func (f *fixture) files(rev, dir string) []string {
	f.t.Helper()
	files, err := f.store().Repo.ListFiles(rev, dir)
	require.NoError(f.t, err)
	sort.Strings(files)
	return files
}

// show is a file as committed at rev.
func (f *fixture) show(rev, rel string) string {
	f.t.Helper()
	data, err := f.store().Repo.ReadFile(rev, rel)
	require.NoError(f.t, err)
	return string(data)
}

// stateAt decodes the task's state.json as committed at rev.
func (f *fixture) stateAt(rev string) *state.State {
	f.t.Helper()
	s, err := state.Decode([]byte(f.show(rev, taskFile(store.StateFile))))
	require.NoError(f.t, err)
	return s
}

// entries are the kinds of the entries of the task's log at rev.
func (f *fixture) entries(rev string) []progresslog.Kind {
	f.t.Helper()
	var kinds []progresslog.Kind
	for _, e := range progresslog.Parse([]byte(f.show(rev, taskFile(store.ProgressFile)))).Entries {
		kinds = append(kinds, e.Kind)
	}
	return kinds
}

// count is how often kind occurs in kinds.
func count(kinds []progresslog.Kind, kind progresslog.Kind) int {
	n := 0
	for _, k := range kinds {
		if k == kind {
			n++
		}
	}
	return n
}

// snapshot is what a refusal must leave as it was: HEAD, every ref, the
// working tree byte for byte and, in a real repository, git's status.
type snapshot struct {
	Head   gitstate.Head
	Refs   map[string]string
	Files  map[string]string
	Status string
}

// snapshot takes the repository's snapshot now.
func (f *fixture) snapshot() snapshot {
	f.t.Helper()
	repo := f.store().Repo
	s := snapshot{Files: map[string]string{}}
	var err error
	s.Head, err = repo.Head()
	require.NoError(f.t, err)
	s.Refs, err = repo.RawRefs("refs/")
	require.NoError(f.t, err)
	require.NoError(f.t, filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(f.dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			s.Files[filepath.ToSlash(rel)] = "-> " + target
			return err
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			s.Files[filepath.ToSlash(rel)] = string(data)
			return err
		}
		return nil
	}))
	if f.real() {
		s.Status = f.git("status", "--porcelain", "--untracked-files=all")
	}
	return s
}

// ---- git itself, in a real repository ----

// git runs the real git and returns its stdout; a failure fails the test.
func (f *fixture) git(args ...string) string {
	f.t.Helper()
	return testgit.Out(f.t, f.dir, args...)
}

// gitLine is git's output without its line end.
func (f *fixture) gitLine(args ...string) string {
	f.t.Helper()
	return testgit.Line(f.t, f.dir, args...)
}

// fsck asserts that git fsck --strict finds nothing wrong.
func (f *fixture) fsck() {
	f.t.Helper()
	testgit.Fsck(f.t, f.dir)
}

// checkGit asserts what every itr command leaves: git fsck --strict clean
// and git status --porcelain empty.
func (f *fixture) checkGit() {
	f.t.Helper()
	testgit.Check(f.t, f.dir)
}

// refs is `git for-each-ref` of the refs under prefix: "name objectname"
// a line, "" when there are none.
func (f *fixture) refs(prefix string) string {
	f.t.Helper()
	return testgit.Refs(f.t, f.dir, prefix)
}

// lsTree lists the files under path at rev, as git sees them, sorted.
func (f *fixture) lsTree(rev, path string) []string {
	f.t.Helper()
	return testgit.LsTree(f.t, f.dir, rev, path)
}

// nameStatus is `git diff-tree --name-status` of one commit: path →
// status letter.
func (f *fixture) nameStatus(rev string) map[string]string {
	f.t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(f.git("diff-tree", "--no-commit-id", "-r", "--name-status", rev)), "\n") {
		if status, path, ok := strings.Cut(line, "\t"); ok {
			out[path] = status
		}
	}
	return out
}

// appendOnly asserts with git that the file at path only ever grew along
// the history of rev: in every commit that has it, it starts with the
// bytes its first parent had. It returns how many steps it checked.
func (f *fixture) appendOnly(rev, path string) int {
	f.t.Helper()
	return testgit.AppendOnly(f.t, f.dir, rev, path)
}
