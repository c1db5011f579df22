// Package testrepo builds and reads what itr writes, for tests: a clock
// the test sets, a task as `itr init` writes it, its log folded as itr
// keeps state.json, the messages and trailers of itr's commits, a store
// opened as one itr command opens it, and the task's state and claims
// read back with git. Only tests import it.
//
// The rooms' own tests import it (the merge driver's and the views'
// among them, in their packages), so it imports no room but store: the
// commit of the write path (record.Commit) is the caller's.
package testrepo

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

// Slug is the task the rooms' tests work on.
const Slug = "demo"

// ThreeUnits is a plan of the task Demo: T1 and T2 are independent, T3
// waits for T1.
const ThreeUnits = `# Demo - Tasks

## Tasks

- [ ] **T1**: Add the model
- [ ] **T2**: Write the docs
- [ ] **T3**: Use the model
  - Depends: T1
`

// ModelUseDocs is a plan of the task Demo in which T2 depends on T1
// (which allows five iterations) and T3 is independent.
const ModelUseDocs = `# Demo - Tasks

## Tasks

- [ ] **T1**: Add the model
  - Max iterations: 5
- [ ] **T2**: Use the model
  - Depends: T1
- [ ] **T3**: Docs
`

// T0 is when the tests' clocks start: 2026-01-14 09:00 UTC.
var T0 = time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)

// Clock is a clock the test sets; a store or a workspace reads it through
// its Now. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a Clock set at at.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to at.
func (c *Clock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = at
}

// Stamp formats a time as entries and claims carry it: RFC 3339, in UTC.
func Stamp(at time.Time) string { return at.UTC().Format(time.RFC3339) }

// TaskFile is the repository path of the file name of the task slug
// under the default task root.
func TaskFile(slug, name string) string { return store.DefaultRoot + "/" + slug + "/" + name }

// Task is what `itr init` writes for a task.
type Task struct {
	// Entry is the Created entry of progress.md.
	Entry progresslog.Entry
	// State is state.json: the fold of the Created entry.
	State *state.State
	// Files are the task's files by name: the templates, progress.md
	// holding Entry and state.json encoding State.
	Files map[string][]byte
	// Changes are the Files as the changes of one commit, each under the
	// task's folder, in the templates' order.
	Changes []gitstate.FileChange
}

// NewTask renders the task d describes as `itr init` writes it into the
// folder dir (a repository path): the files of templates.Task, a Created
// entry stamped d.Created, naming d.Name and d.Mode (development when
// ""), appended to progress.md, and state.json the fold of it. A fold
// problem fails the test.
func NewTask(t testing.TB, dir string, d templates.Data) *Task {
	t.Helper()
	if d.Mode == "" {
		d.Mode = string(state.Development)
	}
	files, err := templates.Task(d)
	if err != nil {
		t.Fatal(err)
	}
	task := &Task{
		Entry: progresslog.Entry{Kind: progresslog.KindCreated, Stamp: d.Created,
			Fields: []progresslog.Field{{Name: "Name", Value: d.Name}, {Name: "Mode", Value: d.Mode}}},
		Files: map[string][]byte{},
	}
	for _, f := range files {
		task.Files[f.Name] = f.Data
	}
	progress := Append(t, task.Files[store.ProgressFile], task.Entry)
	s, problems := reconcile.Fold(reconcile.Input{Slug: d.Slug, Entries: progresslog.Parse(progress).Entries})
	if len(problems) > 0 {
		t.Fatalf("the fold of the Created entry: %v", problems)
	}
	task.State = s
	task.Files[store.ProgressFile] = progress
	task.Files[store.StateFile] = s.Encode()
	for _, f := range files {
		task.Changes = append(task.Changes, gitstate.FileChange{Path: dir + "/" + f.Name, Data: task.Files[f.Name]})
	}
	return task
}

// Append is progress with e appended as itr appends an entry; an error
// fails the test.
func Append(t testing.TB, progress []byte, e progresslog.Entry) []byte {
	t.Helper()
	out, err := progresslog.Append(progress, e)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Iteration is the Iteration entry of unit's next iteration after s (the
// first when s has no such unit), stamped stamp, with its fields in the
// order checkpoint writes them: Did, Remaining and Blockers ("None"), the
// extra fields (name, value pairs: a Remaining or Blockers among them
// takes the place of its "None"), and Commit "None".
func Iteration(s *state.State, unit, stamp, did string, extra ...string) progresslog.Entry {
	n := 1
	if u := s.Units[unit]; u != nil {
		n = state.Val(u.IterationsUsed) + 1
	}
	e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: n, Stamp: stamp,
		Fields: []progresslog.Field{{Name: "Did", Value: did}, {Name: "Remaining", Value: "None"}, {Name: "Blockers", Value: "None"}}}
	for i := 0; i+1 < len(extra); i += 2 {
		switch name, value := extra[i], extra[i+1]; name {
		case "Remaining":
			e.Fields[1].Value = value
		case "Blockers":
			e.Fields[2].Value = value
		default:
			e.Fields = append(e.Fields, progresslog.Field{Name: name, Value: value})
		}
	}
	e.Fields = append(e.Fields, progresslog.Field{Name: "Commit", Value: "None"})
	return e
}

// Fold folds the log progress of the task slug into its view, over base
// (nil for none) with the plan p (nil for none), as itr keeps state.json.
// A problem of the fold other than a note fails the test.
func Fold(t testing.TB, slug string, base *state.State, p *plan.Plan, progress []byte) *state.State {
	t.Helper()
	s, problems := reconcile.Fold(reconcile.Input{Slug: slug, Base: base, Plan: p, Entries: progresslog.Parse(progress).Entries})
	for _, pr := range problems {
		if !pr.Note {
			t.Fatalf("fold problem: %v", pr)
		}
	}
	return s
}

// Trailers are the trailers of an itr commit of the task slug for event:
// Itr-Task and Itr-Event and, when e is an entry of a unit, Itr-Unit,
// Itr-Iteration (for an iteration) and Itr-Status (the unit's status in
// s, the state after the commit, when it has the unit).
func Trailers(slug, event string, e *progresslog.Entry, s *state.State) []gitstate.Trailer {
	tr := []gitstate.Trailer{{Key: store.TrailerTask, Value: slug}, {Key: store.TrailerEvent, Value: event}}
	if e == nil || e.Unit == "" {
		return tr
	}
	tr = append(tr, gitstate.Trailer{Key: store.TrailerUnit, Value: e.Unit})
	if e.Kind == progresslog.KindIteration {
		tr = append(tr, gitstate.Trailer{Key: store.TrailerIteration, Value: strconv.Itoa(e.Iteration)})
	}
	if s != nil {
		if u := s.Units[e.Unit]; u != nil {
			tr = append(tr, gitstate.Trailer{Key: store.TrailerStatus, Value: string(u.Status)})
		}
	}
	return tr
}

// Message is the message of an itr commit of the task slug: the subject
// line "itr(slug): subject", a blank line, the trailers.
func Message(slug, subject string, tr []gitstate.Trailer) string {
	return "itr(" + slug + "): " + subject + "\n\n" + gitstate.FormatTrailers(tr)
}

// Open opens the store of the real repository around dir as one itr
// command does: the repository found around dir, its .itr.yaml read, the
// engine chosen with the default task root as scope, for agent, on the
// clock now. The repository is closed when the test ends.
func Open(t testing.TB, dir, agent string, now func() time.Time) *store.Store {
	t.Helper()
	loc, err := gitstate.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := store.LoadConfig(loc.Root)
	if err != nil {
		t.Fatal(err)
	}
	repo, choice, err := gitstate.OpenAt(loc, gitstate.OpenOptions{Scope: store.DefaultRoot, RunHooks: cfg.RunHooks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = repo.Close() })
	st, err := store.New(repo, store.DefaultRoot, cfg, "", now)
	if err != nil {
		t.Fatal(err)
	}
	st.Engine, st.Agent = choice, agent
	return st
}

// StateAt decodes state.json of the task slug (under the default task
// root) as committed at rev in the repository of dir, read by git.
func StateAt(t testing.TB, dir, rev, slug string) *state.State {
	t.Helper()
	s, err := state.Decode([]byte(testgit.Out(t, dir, "show", rev+":"+TaskFile(slug, store.StateFile))))
	if err != nil {
		t.Fatalf("state.json of %s at %s: %v", slug, rev, err)
	}
	return s
}

// ClaimBlob is the claim the ref holds in the repository of dir, as git
// reads it: the ref must name a blob holding a claim and nothing else.
func ClaimBlob(t testing.TB, dir, ref string) store.Claim {
	t.Helper()
	if kind := testgit.Line(t, dir, "cat-file", "-t", ref); kind != "blob" {
		t.Fatalf("%s holds a %s, not a blob", ref, kind)
	}
	dec := json.NewDecoder(strings.NewReader(testgit.Out(t, dir, "cat-file", "blob", ref)))
	dec.DisallowUnknownFields()
	var c store.Claim
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%s holds no claim: %v", ref, err)
	}
	return c
}
