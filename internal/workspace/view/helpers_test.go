package view

import (
	"flag"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// taskRoot is the task root every fixture uses.
const taskRoot = ".claude/iterative"

// t0 is the fixed time a fixture's clock starts at.
var t0 = time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)

// fixture is a fake repository with a store on it and a clock the test
// controls: every recorded event moves it one minute on.
type fixture struct {
	t    *testing.T
	repo *gitfake.Repo
	st   *store.Store
	now  time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, now: t0}
	f.repo = gitfake.New(filepath.Join(t.TempDir(), "repo"))
	st, err := store.New(f.repo, taskRoot, store.Config{}, "", func() time.Time { return f.now })
	require.NoError(t, err)
	f.st = st
	return f
}

// tick moves the clock one minute on and returns the entry stamp of then.
func (f *fixture) tick() string {
	f.now = f.now.Add(time.Minute)
	return f.now.UTC().Format(time.RFC3339)
}

// abs is the path on disk of a repository-relative path.
func (f *fixture) abs(rel string) string {
	return filepath.Join(f.repo.Root(), filepath.FromSlash(rel))
}

// writeDisk writes a file in the working tree only.
func (f *fixture) writeDisk(rel string, data string) {
	f.t.Helper()
	testgit.Write(f.t, f.repo.Root(), rel, data)
}

// plainCommit commits files as a person would with git, without itr's
// trailers; worktree says whether the files are written to disk too.
func (f *fixture) plainCommit(msg string, worktree bool, changes ...gitstate.FileChange) gitstate.Commit {
	f.t.Helper()
	f.tick()
	c, err := f.repo.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: f.now, Worktree: worktree})
	require.NoError(f.t, err)
	return c
}

// task builds a task as itr writes it: every event is an entry appended to
// progress.md, state.json is the fold of the log, and each event is one
// commit "itr(<slug>): subject" with itr's trailers.
type task struct {
	f          *fixture
	slug       string
	mode       state.Mode
	progress   []byte // as committed
	state      *state.State
	plan       *plan.Plan
	planName   string
	planText   []byte
	planDirty  bool // the plan changed since the last commit
	lastCommit gitstate.Commit
}

func (b *task) rel(name string) string { return b.f.st.Rel(b.slug, name) }

// newTask runs what `itr init` does: the templates, a Created entry, the
// fold of it as state.json, one commit.
func (f *fixture) newTask(slug, name string, mode state.Mode) *task {
	f.t.Helper()
	created := f.tick()
	b := &task{f: f, slug: slug, mode: mode, planName: store.PlanNameFor(mode)}
	nt := testrepo.NewTask(f.t, f.st.TaskDir(slug), templates.Data{Name: name, Slug: slug, Created: created, Mode: string(mode)})
	b.progress, b.state = nt.Files[store.ProgressFile], nt.State
	b.commit(&nt.Entry, store.EventCreated, "start task "+name, nt.Changes)
	return b
}

// commit writes one itr commit with the trailers workspace.commit writes.
func (b *task) commit(e *progresslog.Entry, event, subject string, changes []gitstate.FileChange) {
	f := b.f
	f.t.Helper()
	tr := testrepo.Trailers(b.slug, event, e, b.state)
	for _, ch := range changes {
		if ch.Path == b.rel(store.ProgressFile) {
			tr = append(tr, gitstate.Trailer{Key: store.TrailerLog, Value: store.LogDigest(ch.Data)})
		}
	}
	msg := testrepo.Message(b.slug, store.OneLine(subject, 72), tr)
	c, err := f.repo.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: f.now, Worktree: true})
	require.NoError(f.t, err)
	b.lastCommit = c
}

// record appends e, folds the whole log into state.json (the view itr
// keeps) and commits both, with the plan when it changed.
func (b *task) record(e progresslog.Entry, event, subject string) *task {
	f := b.f
	f.t.Helper()
	b.progress = testrepo.Append(f.t, b.progress, e)
	s := testrepo.Fold(f.t, b.slug, b.state, b.plan, b.progress)
	b.state = s
	changes := []gitstate.FileChange{
		{Path: b.rel(store.ProgressFile), Data: b.progress},
		{Path: b.rel(store.StateFile), Data: s.Encode()},
	}
	if b.planDirty {
		changes = append(changes, gitstate.FileChange{Path: b.rel(b.planName), Data: b.planText})
		b.planDirty = false
	}
	b.commit(&e, event, subject, changes)
	return b
}

// writePlan puts the plan on disk (as the agent writes it), not committed.
func (b *task) writePlan(text string) *task {
	f := b.f
	f.t.Helper()
	p, err := plan.Parse(b.rel(b.planName), []byte(text))
	require.NoError(f.t, err)
	b.plan, b.planText, b.planDirty = p, []byte(text), true
	f.writeDisk(b.rel(b.planName), text)
	return b
}

// planned runs `itr plan` with text as the plan.
func (b *task) planned(text string) *task {
	b.f.t.Helper()
	b.writePlan(text)
	e := progresslog.Entry{Kind: progresslog.KindPlanned, Stamp: b.f.tick(),
		Fields: []progresslog.Field{{Name: "Added", Value: strings.Join(b.plan.IDs(), ", ")}}}
	return b.record(e, store.EventPlanned, "plan "+strconv.Itoa(len(b.plan.Units))+" units")
}

// iterOpts are the optional fields of a checkpoint.
type iterOpts struct {
	remaining    string
	blockers     string
	signal       bool
	verification string // "passed" or "failed"
}

// checkpoint runs `itr checkpoint unit --did did` with opts.
func (b *task) checkpoint(unit, did string, o iterOpts) *task {
	f := b.f
	f.t.Helper()
	var extra []string
	if o.remaining != "" {
		extra = append(extra, "Remaining", o.remaining)
	}
	if o.blockers != "" {
		extra = append(extra, "Blockers", o.blockers)
	}
	if o.signal {
		sig := unit + "_DONE"
		if b.plan != nil && b.plan.Unit(unit) != nil {
			sig = b.plan.Unit(unit).Signal()
		}
		extra = append(extra, "Signal", sig)
	}
	if o.verification != "" {
		extra = append(extra, "Verification", o.verification)
	}
	e := testrepo.Iteration(b.state, unit, f.tick(), did, extra...)
	return b.record(e, store.EventIteration, unit+" iteration "+strconv.Itoa(e.Iteration)+": "+did)
}

// finish takes unit from where it is to done: work with a signal, the
// confirmation, a passed verification.
func (b *task) finish(unit string) *task {
	b.f.t.Helper()
	for i := 0; i < 4; i++ {
		u := b.state.Units[unit]
		st := state.Pending
		if u != nil {
			st = u.Status
		}
		switch st {
		case state.Pending, state.InProgress:
			b.checkpoint(unit, "finished the work of "+unit, iterOpts{signal: true})
		case state.Confirming:
			b.checkpoint(unit, "re-checked "+unit, iterOpts{signal: true})
		case state.Verifying:
			b.checkpoint(unit, "reviewed "+unit, iterOpts{verification: "passed"})
		case state.Done:
			return b
		default:
			b.f.t.Fatalf("finish %s: status %s", unit, st)
		}
	}
	require.Equal(b.f.t, state.Done, b.state.Units[unit].Status)
	return b
}

// block runs `itr block unit --reason reason`.
func (b *task) block(unit, reason string) *task {
	b.f.t.Helper()
	e := progresslog.Entry{Kind: progresslog.KindBlocked, Unit: unit, Stamp: b.f.tick(),
		Fields: []progresslog.Field{{Name: "Reason", Value: reason}}}
	return b.record(e, store.EventBlocked, "block "+unit+": "+reason)
}

// unblock runs `itr unblock unit`.
func (b *task) unblock(unit string) *task {
	b.f.t.Helper()
	e := progresslog.Entry{Kind: progresslog.KindUnblocked, Unit: unit, Stamp: b.f.tick()}
	return b.record(e, store.EventUnblocked, "unblock "+unit)
}

// guardrail runs `itr guardrail`: a lesson appended to guardrails.md.
func (b *task) guardrail(name, learned string) *task {
	f := b.f
	f.t.Helper()
	f.tick()
	old, err := f.st.ReadAt("HEAD", b.rel(store.GuardrailsFile))
	require.NoError(f.t, err)
	data, err := progresslog.AppendGuardrail(old, progresslog.Guardrail{Name: name, When: "always", Problem: "it broke", Solution: "do not", Learned: learned})
	require.NoError(f.t, err)
	b.commit(nil, store.EventGuardrail, "guardrail: "+name, []gitstate.FileChange{{Path: b.rel(store.GuardrailsFile), Data: data}})
	return b
}

// archive runs `itr archive`: the Archived entry, the archive branch and
// tag at its commit, then one commit that removes the folder.
func (b *task) archive() string {
	f := b.f
	f.t.Helper()
	e := progresslog.Entry{Kind: progresslog.KindArchived, Stamp: f.tick(), Fields: []progresslog.Field{{Name: "Units", Value: "all done"}}}
	b.record(e, store.EventArchived, "archive")
	at := b.lastCommit.Hash
	who := gitstate.Signature{Name: gitfake.DefaultName, Email: gitfake.DefaultEmail, When: f.now}
	require.NoError(f.t, f.repo.SetBranch(store.ArchiveBranchPrefix+b.slug, at, who, "itr: archive "+b.slug))
	tag := store.ArchiveTagPrefix + b.slug + "/" + f.now.Format("2006-01-02")
	_, err := f.repo.CreateTag(tag, at, "archived "+b.slug, who)
	require.NoError(f.t, err)
	f.tick()
	msg := "itr(" + b.slug + "): archived\n\n" + gitstate.FormatTrailers([]gitstate.Trailer{
		{Key: store.TrailerTask, Value: b.slug}, {Key: store.TrailerEvent, Value: store.EventArchived}, {Key: store.TrailerArchive, Value: tag}})
	_, err = f.repo.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{{Path: f.st.TaskDir(b.slug), Delete: true}}, Message: msg, When: f.now, Worktree: true})
	require.NoError(f.t, err)
	return tag
}

// The plans the tests use.
const (
	// threeUnits: T2 needs T1; T3 is independent.
	threeUnits = `# Login - Tasks

## Dependencies

T1 → T2

## Tasks

- [ ] **T1**: Add the user model
  - Completion: ` + "`<signal>T1_DONE</signal>`" + `
  - Max iterations: 3
- [ ] **T2**: Add the login form
  - Depends: T1
  - Max iterations: 5
- [ ] **T3**: Write the docs
  - Max iterations: 4
`
	// twoIndependent: T1 and T2, no dependencies.
	twoIndependent = `# Small - Tasks

## Tasks

- [ ] **T1**: First
  - Max iterations: 2
- [ ] **T2**: Second
  - Max iterations: 2
`
	// knowledgePlan: R1 → R2.
	knowledgePlan = `# Survey - Phases

## Phases

- [ ] **R1**: Collect sources
  - Max iterations: 2
- [ ] **R2**: Synthesise
  - Max iterations: 3
  - Depends: R1
`
)

// Tasks at given points of their life, each built as itr would.

func freshTask(f *fixture) *task {
	return f.newTask("login", "Login page", state.Development)
}

func plannedTask(f *fixture) *task {
	return freshTask(f).planned(threeUnits)
}

func inProgressTask(f *fixture) *task {
	return plannedTask(f).checkpoint("T1", "added the model", iterOpts{remaining: "validation", blockers: "flaky db"})
}
