package claims

// Helpers of the room's tests. A task is committed as itr commits it
// (the templates, progress.md built with progresslog, state.json its fold,
// messages with itr's trailers) through gitstate.Repository, so that one
// fixture runs on the fake (gitstate/gitfake) and on a real repository
// made with the real git, opened as itr opens it. Each command opens a
// store and a Room of its own, as itr does; the real repositories are
// judged with git itself.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
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

// stamp formats a time as claims carry it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// clock is a clock the test sets; a store reads it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(at time.Time) *clock { return &clock{now: at} }

// Now is the clock's time.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to at.
func (c *clock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = at
}

// isolate points git's configuration at an empty home with an identity,
// clears what would make git or itr look elsewhere, and keeps git from
// starting its background maintenance.
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
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = Test Agent\n\temail = agent@example.com\n"), 0o644))
}

// The repositories a fixture runs on.
const (
	onFake   = "fake"   // gitstate/gitfake, in memory
	onNative = "native" // a real repository made with git, opened as itr opens it
)

// backends runs fn once on each repository a fixture runs on: the fake
// and a real repository (gitstate's contract tests hold its engines to
// one behaviour).
func backends(t *testing.T, fn func(t *testing.T, on string)) {
	for _, on := range []string{onFake, onNative} {
		t.Run(on, func(t *testing.T) {
			isolate(t)
			fn(t, on)
		})
	}
}

// fixture is a repository with the task demo planned from tasksMD, the
// clock its commands read, and the notes its Rooms logged.
type fixture struct {
	t     *testing.T
	on    string
	dir   string        // the working tree
	fake  *gitfake.Repo // the repository, on the fake
	clock *clock
	when  time.Time // the time of the next commit of the fixture

	progress []byte
	state    *state.State
	plan     *plan.Plan

	notes    []string // the steals the Rooms logged, in order
	noteErr  error    // what logging a note returns, when set
	noteMade int      // how many notes were made
}

// newFixture makes the repository on on, with the task demo committed and
// planned. The caller has isolated the environment (backends or isolate).
func newFixture(t *testing.T, on string, c *clock) *fixture {
	t.Helper()
	f := &fixture{t: t, on: on, dir: filepath.Join(t.TempDir(), "repo"), clock: c, when: t0.Add(-time.Hour)}
	if on == onFake {
		f.fake = gitfake.New(f.dir)
	} else {
		require.NoError(t, os.MkdirAll(f.dir, 0o755))
		gitIn(t, f.dir, "init", "-q")
		gitIn(t, f.dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	}
	f.create()
	f.planned()
	return f
}

// repo opens the repository as one command does: the fake is the same
// repository each time; a real one is opened anew, with the engine the
// environment picks, and closed when the test ends.
func (f *fixture) repo() gitstate.Repository {
	f.t.Helper()
	if f.fake != nil {
		return f.fake
	}
	repo, _ := openReal(f.t, f.dir)
	return repo
}

// openReal opens the real repository around dir as itr opens it, with
// its .itr.yaml.
func openReal(t *testing.T, dir string) (gitstate.Repository, store.Config) {
	t.Helper()
	loc, err := gitstate.Locate(dir)
	require.NoError(t, err)
	cfg, err := store.LoadConfig(loc.Root)
	require.NoError(t, err)
	repo, _, err := gitstate.OpenAt(loc, gitstate.OpenOptions{Scope: store.DefaultRoot})
	require.NoError(t, err)
	t.Cleanup(func() { _ = repo.Close() })
	return repo, cfg
}

// store is a store over the repository for agent, as one command opens
// it; on the fake, cfg is its configuration.
func (f *fixture) store(agent string, cfg store.Config) *store.Store {
	f.t.Helper()
	if f.fake == nil {
		return openStore(f.t, f.dir, agent, f.clock)
	}
	st, err := store.New(f.fake, store.DefaultRoot, cfg, "", f.clock.Now)
	require.NoError(f.t, err)
	st.Agent = agent
	return st
}

// room is the claims room of one command of agent; it logs steals in
// f.notes.
func (f *fixture) room(agent string) *Room {
	f.t.Helper()
	return New(f.store(agent, store.Config{}), f.note)
}

// note is the fixture's NoteFunc: it keeps the text and names a commit.
func (f *fixture) note(slug, text string) (string, error) {
	if f.noteErr != nil {
		return "", f.noteErr
	}
	f.noteMade++
	f.notes = append(f.notes, slug+": "+text)
	return "note-" + strconv.Itoa(f.noteMade), nil
}

// openStore opens a store on the real repository around dir for agent.
func openStore(t *testing.T, dir, agent string, c *clock) *store.Store {
	t.Helper()
	repo, cfg := openReal(t, dir)
	st, err := store.New(repo, store.DefaultRoot, cfg, "", c.Now)
	require.NoError(t, err)
	st.Agent = agent
	return st
}

// roomAt is the claims room of one command of agent in the real
// repository around dir; steals are logged with note.
func roomAt(t *testing.T, dir, agent string, c *clock, note NoteFunc) *Room {
	t.Helper()
	return New(openStore(t, dir, agent, c), note)
}

// rel is a file of the task, relative to the repository top.
func rel(name string) string { return store.DefaultRoot + "/" + slug + "/" + name }

// commit commits changes as itr does, with the task's trailers.
func (f *fixture) commit(e *progresslog.Entry, event, subject string, changes []gitstate.FileChange) {
	f.t.Helper()
	tr := []gitstate.Trailer{{Key: store.TrailerTask, Value: slug}, {Key: store.TrailerEvent, Value: event}}
	if e != nil && e.Unit != "" {
		tr = append(tr, gitstate.Trailer{Key: store.TrailerUnit, Value: e.Unit})
	}
	f.when = f.when.Add(time.Minute)
	msg := "itr(" + slug + "): " + subject + "\n\n" + gitstate.FormatTrailers(tr)
	_, err := f.repo().CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: f.when, Worktree: true})
	require.NoError(f.t, err)
}

// create commits what `itr init Demo --slug demo` writes.
func (f *fixture) create() {
	f.t.Helper()
	created := stamp(f.when)
	files, err := templates.Task(templates.Data{Name: "Demo", Slug: slug, Created: created, Mode: string(state.Development)})
	require.NoError(f.t, err)
	e := progresslog.Entry{Kind: progresslog.KindCreated, Stamp: created,
		Fields: []progresslog.Field{{Name: "Name", Value: "Demo"}, {Name: "Mode", Value: string(state.Development)}}}
	var changes []gitstate.FileChange
	for _, file := range files {
		data := file.Data
		if file.Name == store.ProgressFile {
			f.progress, err = progresslog.Append(data, e)
			require.NoError(f.t, err)
			data = f.progress
		}
		changes = append(changes, gitstate.FileChange{Path: rel(file.Name), Data: data})
	}
	f.fold()
	for i := range changes {
		if changes[i].Path == rel(store.StateFile) {
			changes[i].Data = f.state.Encode()
		}
	}
	f.commit(&e, store.EventCreated, "start task Demo", changes)
}

// fold folds progress.md into the view.
func (f *fixture) fold() {
	f.t.Helper()
	s, problems := reconcile.Fold(reconcile.Input{Slug: slug, Base: f.state, Plan: f.plan, Entries: progresslog.Parse(f.progress).Entries})
	for _, p := range problems {
		require.True(f.t, p.Note, "fold problem: %v", p)
	}
	f.state = s
}

// record appends e to progress.md, folds it and commits both (and extra).
func (f *fixture) record(e progresslog.Entry, event, subject string, extra ...gitstate.FileChange) {
	f.t.Helper()
	var err error
	f.progress, err = progresslog.Append(f.progress, e)
	require.NoError(f.t, err)
	f.fold()
	changes := append([]gitstate.FileChange{
		{Path: rel(store.ProgressFile), Data: f.progress},
		{Path: rel(store.StateFile), Data: f.state.Encode()},
	}, extra...)
	f.commit(&e, event, subject, changes)
}

// planned writes tasks.md and records the Planned entry with it.
func (f *fixture) planned() {
	f.t.Helper()
	p, err := plan.Parse(rel(store.TasksFile), []byte(tasksMD))
	require.NoError(f.t, err)
	f.plan = p
	e := progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: stamp(f.when),
		Fields: []progresslog.Field{{Name: "Added", Value: strings.Join(p.IDs(), ", ")}}}
	f.record(e, store.EventPlanned, "plan 3 units", gitstate.FileChange{Path: rel(store.TasksFile), Data: []byte(tasksMD)})
}

// iterate records one iteration of unit with the extra fields (name,
// value pairs).
func (f *fixture) iterate(unit string, fields ...string) {
	f.t.Helper()
	n := 1
	if u := f.state.Units[unit]; u != nil {
		n = state.Val(u.IterationsUsed) + 1
	}
	e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: n, Stamp: stamp(f.when)}
	add := func(name, value string) { e.Fields = append(e.Fields, progresslog.Field{Name: name, Value: value}) }
	add("Did", "worked on "+unit)
	add("Remaining", "None")
	add("Blockers", "None")
	for i := 0; i+1 < len(fields); i += 2 {
		add(fields[i], fields[i+1])
	}
	add("Commit", "None")
	f.record(e, store.EventIteration, unit+" iteration "+strconv.Itoa(n))
}

// done takes unit to done as itr's closing path does: work signalled,
// confirmed, verified by a reviewer.
func (f *fixture) done(unit string) {
	f.t.Helper()
	signal := f.plan.Unit(unit).Signal()
	f.iterate(unit, "Signal", signal)
	f.iterate(unit, "Signal", signal)
	f.iterate(unit, "Verification", "passed", reconcile.FieldVerifiedBy, "the reviewer")
	require.Equal(f.t, state.Done, f.state.Units[unit].Status, "the fixture took %s to done", unit)
}

// reopen records that unit, done, is open again.
func (f *fixture) reopen(unit string) {
	f.t.Helper()
	e := progresslog.Entry{Kind: progresslog.KindReopened, Unit: unit, Stamp: stamp(f.when),
		Fields: []progresslog.Field{{Name: "Reason", Value: "it broke"}}}
	f.record(e, store.EventReopened, "reopen "+unit)
	require.False(f.t, f.state.Units[unit].Status.Finished(), "the fixture reopened %s", unit)
}

// setClaim puts c as the claim of its unit, whatever the ref held, as
// another command would have left it; it returns the blob.
func (f *fixture) setClaim(c store.Claim) string {
	f.t.Helper()
	return f.setRaw(c.Unit, c.Encode())
}

// setRaw points the claim ref of unit at a blob of data.
func (f *fixture) setRaw(unit string, data []byte) string {
	f.t.Helper()
	repo := f.repo()
	id, err := repo.WriteBlob(data)
	require.NoError(f.t, err)
	ref := store.ClaimRef(slug, unit)
	old, err := repo.ReadRef(ref)
	if err != nil {
		old = ""
	}
	require.NoError(f.t, repo.UpdateRef(ref, id, old))
	return id
}

// claims are the claim refs of the task, read without the room: unit →
// the claim its blob holds (ID set).
func (f *fixture) claims() map[string]store.Claim {
	f.t.Helper()
	repo := f.repo()
	refs, err := repo.RawRefs(store.ClaimRefPrefix + slug + "/")
	require.NoError(f.t, err)
	out := map[string]store.Claim{}
	for name, id := range refs {
		data, err := repo.ReadBlob(id)
		require.NoError(f.t, err)
		var c store.Claim
		if json.Unmarshal(data, &c) != nil {
			c = store.Claim{Agent: "(not a claim)"}
		}
		c.ID = id
		out[name[strings.LastIndexByte(name, '/')+1:]] = c
	}
	return out
}

// head is HEAD's commit.
func (f *fixture) head() string {
	f.t.Helper()
	h, err := f.repo().Head()
	require.NoError(f.t, err)
	return h.Hash
}

// gitRun runs the real git in dir and returns its stdout and its error
// (with stderr in it).
func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = errors.New("git " + strings.Join(args, " ") + ": " + err.Error() + ": " + stderr.String())
	}
	return stdout.String(), err
}

// gitIn runs the real git in dir and returns its stdout; a failure fails
// the test.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitRun(dir, args...)
	require.NoError(t, err)
	return out
}

// gitLine is gitIn's output without its line end.
func gitLine(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(gitIn(t, dir, args...))
}

// checkGit asserts what every itr command leaves: git fsck --strict clean
// and git status --porcelain empty.
func checkGit(t *testing.T, dir string) {
	t.Helper()
	fsck := exec.Command("git", "fsck", "--strict", "--no-progress")
	fsck.Dir = dir
	out, err := fsck.CombinedOutput()
	require.NoError(t, err, "git fsck --strict: %s", out)
	assert.NotContains(t, string(out), "error", "git fsck --strict")
	assert.NotContains(t, string(out), "warning", "git fsck --strict")
	assert.Empty(t, gitIn(t, dir, "status", "--porcelain", "--untracked-files=all"), "git status --porcelain")
}

// fsckBare asserts that a bare repository is valid for git fsck --strict.
func fsckBare(t *testing.T, bare string) {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "fsck", "--strict", "--no-progress").CombinedOutput()
	require.NoError(t, err, "git fsck --strict %s: %s", bare, out)
	assert.NotContains(t, string(out), "error")
}

// makeBare makes a bare repository, makes it dir's origin and pushes
// dir's main to it with upstream tracking. It returns the bare repository.
func makeBare(t *testing.T, dir string) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "remote.git")
	gitIn(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	gitIn(t, dir, "remote", "add", "origin", bare)
	gitIn(t, dir, "push", "-q", "-u", "origin", "main")
	return bare
}

// clone clones the bare repository into a new folder.
func clone(t *testing.T, bare string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	gitIn(t, filepath.Dir(dir), "clone", "-q", bare, dir)
	return dir
}

// bareGit runs git on the bare repository.
func bareGit(t *testing.T, bare string, args ...string) string {
	t.Helper()
	return gitIn(t, filepath.Dir(bare), append([]string{"--git-dir", bare}, args...)...)
}

// refs is `git for-each-ref` of the refs under prefix (all refs when it
// is ""): "name objectname" a line, "" when there are none.
func refs(t *testing.T, dir, prefix string) string {
	t.Helper()
	args := []string{"for-each-ref", "--format=%(refname) %(objectname)"}
	if prefix != "" {
		args = append(args, prefix)
	}
	return gitIn(t, dir, args...)
}

// claimBlob is the claim a ref holds, as git reads the blob.
func claimBlob(t *testing.T, dir, ref string) store.Claim {
	t.Helper()
	require.Equal(t, "blob", gitLine(t, dir, "cat-file", "-t", ref), "%s holds a blob", ref)
	dec := json.NewDecoder(strings.NewReader(gitIn(t, dir, "cat-file", "blob", ref)))
	dec.DisallowUnknownFields()
	var c store.Claim
	require.NoError(t, dec.Decode(&c), "%s holds a claim", ref)
	return c
}
