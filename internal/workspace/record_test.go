package workspace

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// A checkpoint is one commit holding only the task's files, with itr's
// trailers; work staged or changed beside it stays as it was.
func TestCheckpointIsOneCommitOfTheTaskOnly(t *testing.T) {
	engines(t, func(t *testing.T, engine gitstate.Engine) {
		r := newRepo(t)
		r.engine = engine
		r.write("work.txt", "v1\n")
		r.git("add", "work.txt")
		r.git("commit", "-q", "-m", "work")
		r.initPlan(tasksMD)

		// Other work: a staged new file and an unstaged edit.
		r.write("staged.txt", "staged\n")
		r.git("add", "staged.txt")
		r.write("work.txt", "v2\n")
		base := r.head()

		out := r.checkpoint(CheckpointRequest{Unit: "T1", Did: "wrote the model", Remaining: "tests"})

		require.Equal(t, []string{out.Commit}, r.commitsSince(base), "exactly one commit")
		assert.Equal(t, base, strings.TrimSpace(r.git("rev-parse", "HEAD~1")))
		assert.Equal(t, taskFiles("progress.md", "state.json"), r.filesOf("HEAD"), "the commit holds only the task's files")
		assert.Equal(t, "itr(demo): T1 iteration 1: wrote the model", r.subject("HEAD"))

		log := r.show("HEAD", demoDir+"/progress.md")
		sum := sha256.Sum256([]byte(log))
		assert.Equal(t, map[string]string{
			"Itr-Task":      "demo",
			"Itr-Event":     "iteration",
			"Itr-Unit":      "T1",
			"Itr-Iteration": "1",
			"Itr-Status":    "in_progress",
			"Itr-Log":       fmt.Sprintf("%d %x", len(log), sum),
		}, r.trailers("HEAD"))
		assert.Contains(t, log, "## T1 - Iteration 1 - 2026-01-14T10:")
		assert.Contains(t, log, "**Did:** wrote the model")
		assert.Contains(t, log, "**Remaining:** tests")
		assert.Equal(t, r.read(demoDir+"/progress.md"), log, "the working tree holds what was committed")
		assert.Equal(t, r.read(demoDir+"/state.json"), r.show("HEAD", demoDir+"/state.json"))
		s, err := state.Decode([]byte(r.show("HEAD", demoDir+"/state.json")))
		require.NoError(t, err)
		assert.Equal(t, state.InProgress, s.Units["T1"].Status)
		assert.Equal(t, 1, state.Val(s.Units["T1"].IterationsUsed))

		// The other work is untouched: still staged, still unstaged.
		assert.Equal(t, "A  staged.txt\n M work.txt\n", r.status())
		assert.Equal(t, "staged.txt\n", r.git("diff", "--cached", "--name-only"))
		assert.Equal(t, "v1\n", r.show("HEAD", "work.txt"))
		r.git("commit", "-q", "-a", "-m", "more work")
		r.checkGit()
	})
}

// The trailers follow the unit through its lifecycle and the other unit
// events, on the in-memory fake: each step is one commit with its own
// Itr-Event, and Itr-Iteration only on iterations.
func TestRecordTrailersOnFake(t *testing.T) {
	now := t0
	fake := gitfake.New(filepath.Join(t.TempDir(), "repo"))
	st, err := store.New(fake, taskRoot, store.Config{}, "", func() time.Time { return now })
	require.NoError(t, err)
	w := &Workspace{Store: st}
	_, err = w.Init(InitRequest{Name: "Demo", Slug: demo})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(fake.Root(), demoDir, "tasks.md"), []byte(tasksMD), 0o644))
	_, err = w.Plan(PlanRequest{Slug: demo})
	require.NoError(t, err)

	steps := []struct {
		name string
		do   func() (*Outcome, error)
		want map[string]string // trailers besides Itr-Task and Itr-Log
	}{
		{"first iteration", func() (*Outcome, error) {
			return w.Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "one"})
		}, map[string]string{"Itr-Event": "iteration", "Itr-Unit": "T1", "Itr-Iteration": "1", "Itr-Status": "in_progress"}},
		{"block", func() (*Outcome, error) { return w.Block(demo, "T1", "waits for review") },
			map[string]string{"Itr-Event": "blocked", "Itr-Unit": "T1", "Itr-Status": "blocked"}},
		{"unblock", func() (*Outcome, error) { return w.Unblock(demo, "T1") },
			map[string]string{"Itr-Event": "unblocked", "Itr-Unit": "T1", "Itr-Status": "in_progress"}},
		{"signal", func() (*Outcome, error) {
			return w.Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "done", Signal: true})
		}, map[string]string{"Itr-Event": "iteration", "Itr-Unit": "T1", "Itr-Iteration": "2", "Itr-Status": "confirming"}},
		{"confirm", func() (*Outcome, error) {
			return w.Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "confirmed", Signal: true})
		}, map[string]string{"Itr-Event": "iteration", "Itr-Unit": "T1", "Itr-Iteration": "3", "Itr-Status": "verifying"}},
		{"verified by a person", func() (*Outcome, error) {
			return w.Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "reviewed", VerifiedBy: "review"})
		}, map[string]string{"Itr-Event": "iteration", "Itr-Unit": "T1", "Itr-Iteration": "4", "Itr-Status": "done"}},
		{"pause", func() (*Outcome, error) { return w.Pause(demo, "lunch") }, map[string]string{"Itr-Event": "paused"}},
		{"resume", func() (*Outcome, error) { return w.Resume(demo) }, map[string]string{"Itr-Event": "resumed"}},
		{"note", func() (*Outcome, error) { return w.Note(demo, "where things stand", false) }, map[string]string{"Itr-Event": "note"}},
		{"next unit", func() (*Outcome, error) {
			return w.Checkpoint(CheckpointRequest{Slug: demo, Did: "started T2"})
		}, map[string]string{"Itr-Event": "iteration", "Itr-Unit": "T2", "Itr-Iteration": "1", "Itr-Status": "in_progress"}},
	}
	for _, step := range steps {
		now = now.Add(time.Minute)
		before := fake.Calls("CommitFiles")
		out, err := step.do()
		require.NoError(t, err, step.name)
		assert.Equal(t, before+1, fake.Calls("CommitFiles"), "%s: one commit", step.name)
		head, err := fake.Head()
		require.NoError(t, err)
		require.Equal(t, out.Commit, head.Hash, step.name)
		var c gitstate.Commit
		require.NoError(t, fake.History(head.Hash, func(x gitstate.Commit) bool { c = x; return false }))
		got := map[string]string{}
		for _, tr := range c.Trailers {
			got[tr.Key] = tr.Value
		}
		log, err := fake.ReadFile(head.Hash, demoDir+"/progress.md")
		require.NoError(t, err)
		want := map[string]string{"Itr-Task": demo, "Itr-Log": store.LogDigest(log)}
		for k, v := range step.want {
			want[k] = v
		}
		assert.Equal(t, want, got, step.name)
	}
}

// refusal is a request that must be refused, leaving everything as it was.
type refusal struct {
	name  string
	plan  string                 // the plan; "" is tasksMD
	setup func(r *repo)          // what happens before
	do    func(*Workspace) error // the request
	code  reconcile.Code         // the rule book's refusal, "" when not one
	field string                 // the FieldError's field, "" when not one
	want  []string               // what the message says, the fix among it
}

// A refused request changes nothing: HEAD, refs, the index and the working
// tree stay byte-identical, and the message names the fix.
func TestRefusedRequestChangesNothing(t *testing.T) {
	checkpoint := func(req CheckpointRequest) func(*Workspace) error {
		return func(ws *Workspace) error {
			req.Slug = demo
			_, err := ws.Checkpoint(req)
			return err
		}
	}
	toDone := func(r *repo) {
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "work"})
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "done", Signal: true})
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "confirmed", Signal: true})
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "reviewed", VerifiedBy: "review"})
	}
	cases := []refusal{
		{name: "verified on a pending unit", do: checkpoint(CheckpointRequest{Unit: "T1", Did: "too early", Verified: true}),
			code: reconcile.VerifiedEarly, want: []string{"unit T1 is pending: verified applies only in verifying, after the confirmation (signal) passed"}},
		{name: "verified on a claim", setup: func(r *repo) {
			r.checkpoint(CheckpointRequest{Unit: "T1", Did: "work"})
			r.checkpoint(CheckpointRequest{Unit: "T1", Did: "done", Signal: true})
			r.checkpoint(CheckpointRequest{Unit: "T1", Did: "confirmed", Signal: true})
		}, do: checkpoint(CheckpointRequest{Unit: "T1", Did: "trust me", Verified: true}),
			code: reconcile.NoEvidence, want: []string{"cannot be verified on a claim (nothing was recorded)", "name the person or external check that verified it with verified-by TEXT"}},
		{name: "work on a done unit", setup: toDone, do: checkpoint(CheckpointRequest{Unit: "T1", Did: "after done"}),
			code: reconcile.UnitDone, want: []string{"unit T1 is done", "`itr reopen T1 reason TEXT`"}},
		{name: "block a done unit", setup: toDone, do: func(ws *Workspace) error { _, err := ws.Block(demo, "T1", "after done"); return err },
			code: reconcile.BadMove, want: []string{"T1", "done"}},
		{name: "unknown unit", do: checkpoint(CheckpointRequest{Unit: "T9", Did: "x"}),
			code: reconcile.UnknownUnit, want: []string{"unit T9 is not in", "tasks.md", "(units: T1, T2, T3)"}},
		{name: "unfinished dependency", do: checkpoint(CheckpointRequest{Unit: "T2", Did: "x"}),
			code: reconcile.WaitsFor, want: []string{"unit T2 cannot start: it depends on T1 (pending); finish those first"}},
		{name: "paused task", setup: func(r *repo) {
			_, err := r.open().Pause(demo, "waiting for a decision")
			require.NoError(r.t, err)
		}, do: checkpoint(CheckpointRequest{Unit: "T1", Did: "x"}),
			code: reconcile.TaskPaused, want: []string{"the task is paused", "waiting for a decision", "nothing was recorded: resume it with `itr resume` first"}},
		{name: "budget spent", plan: "# Demo - Tasks\n\n**Max total iterations:** 2\n\n## Tasks\n\n- [ ] **T1**: first\n  - Max iterations: 5\n",
			setup: func(r *repo) {
				r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
				r.checkpoint(CheckpointRequest{Unit: "T1", Did: "two"})
			}, do: checkpoint(CheckpointRequest{Unit: "T1", Did: "three"}),
			code: reconcile.BudgetSpent, want: []string{"the task used all 2 of its iterations", `"**Max total iterations:** 2"`, "nothing was recorded: a person raises it at .claude/iterative/demo/tasks.md:3 to go on"}},
		{name: "unit budget spent", plan: "## Tasks\n\n- [ ] **T1**: first\n  - Max iterations: 1\n",
			setup: func(r *repo) { r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"}) },
			do:    checkpoint(CheckpointRequest{Unit: "T1", Did: "two"}),
			code:  reconcile.UnitTimedOut,
			want:  []string{"unit T1 reached its limit of 1 iterations; raise its Max iterations in the plan and run `itr plan`"}},
		{name: "no did", do: checkpoint(CheckpointRequest{Unit: "T1", Did: "  "}),
			field: "did", want: []string{"did is required: say what this iteration did"}},
		{name: "NUL in did", do: checkpoint(CheckpointRequest{Unit: "T1", Did: "half\x00done"}),
			field: "did", want: []string{"did holds a NUL byte", "remove it; git refuses NUL in a commit"}},
		{name: "NUL in remaining", do: checkpoint(CheckpointRequest{Unit: "T1", Did: "ok", Remaining: "\x00"}),
			field: "remaining", want: []string{"remaining holds a NUL byte"}},
		{name: "escape sequence in a summary's did", setup: func(r *repo) { r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"}) },
			do: func(ws *Workspace) error {
				_, err := ws.Summarize(SummarizeRequest{Slug: demo, Did: "so far \x1b[2J"})
				return err
			},
			field: "did", want: []string{`did holds the control character \x1b (at byte 7)`, "remove it"}},
		{name: "bidirectional override in a summary's did", setup: func(r *repo) { r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"}) },
			do: func(ws *Workspace) error {
				_, err := ws.Summarize(SummarizeRequest{Slug: demo, Did: "a\u202eb"})
				return err
			},
			field: "did", want: []string{`did holds the control character \u202e`}},
		{name: "progress out of range", do: func(ws *Workspace) error {
			p := 101
			_, err := ws.Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "x", Progress: &p})
			return err
		}, field: "progress", want: []string{"progress is 101: give the unit's own progress as a whole percent from 0 to 100"}},
		{name: "unblock a unit that is not blocked", do: func(ws *Workspace) error { _, err := ws.Unblock(demo, "T1"); return err },
			code: reconcile.NotBlocked, want: []string{"unit T1 is pending, not blocked; there is nothing to unblock"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			r := newRepo(t)
			plan := c.plan
			if plan == "" {
				plan = tasksMD
			}
			r.initPlan(plan)
			if c.setup != nil {
				c.setup(r)
			}
			r.checkGit()
			before := r.snap()
			err := c.do(r.open())
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			var ref *reconcile.Refusal
			if c.code != "" && assert.ErrorAs(t, err, &ref) {
				assert.Equal(t, c.code, ref.Code)
			}
			var fe *FieldError
			if c.field != "" && assert.ErrorAs(t, err, &fe) {
				assert.Equal(t, c.field, fe.Field)
			}
			r.unchanged(before)
			r.checkGit()
		})
	}
}

// Checkpoint's Did is data: an escape sequence is not refused (unlike a
// summary's), it is stored raw in progress.md and in the commit.
func TestCheckpointKeepsEscapesAsData(t *testing.T) {
	isolate(t)
	r := newTask(t)
	did := "paint \x1b[31mred\x1b[0m\u202etxt"
	r.checkpoint(CheckpointRequest{Unit: "T1", Did: did})
	assert.Contains(t, r.show("HEAD", demoDir+"/progress.md"), "**Did:** "+did+"\n")
	r.checkGit()
}

// A plain git commit of an older progress.md (an index from before a
// checkpoint) took the checkpoint's entry out: the next record puts it
// back first, as its own reconcile commit, then records on top.
func TestRecordRepairsALogAPlainCommitTookOut(t *testing.T) {
	engines(t, func(t *testing.T, engine gitstate.Engine) {
		r := newTask(t)
		r.engine = engine
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "two"})
		r.git("checkout", "HEAD~1", "--", demoDir+"/progress.md")
		r.git("commit", "-q", "-m", "user work")
		require.NotContains(t, r.show("HEAD", demoDir+"/progress.md"), "**Did:** two")
		base := r.head()

		out := r.checkpoint(CheckpointRequest{Unit: "T1", Did: "three"})

		require.NotNil(t, out.Repaired, "the outcome names the repair")
		require.Len(t, out.Repaired.Undone, 1)
		assert.Equal(t, base, out.Repaired.Undone[0].Commit)
		commits := r.commitsSince(base)
		require.Len(t, commits, 2, "the repair, then the record")
		assert.Equal(t, out.Repaired.Commit, commits[0])
		assert.Equal(t, out.Commit, commits[1])
		repair := r.trailers(commits[0])
		assert.Equal(t, "reconciled", repair["Itr-Event"])
		assert.Equal(t, "demo", repair["Itr-Task"])
		assert.Contains(t, r.subject(commits[0]), "itr(demo): reconcile: entries taken out by "+base[:7]+" put back")
		assert.Contains(t, r.show(commits[0], demoDir+"/progress.md"), "**Did:** two")
		rec := r.trailers(commits[1])
		assert.Equal(t, "iteration", rec["Itr-Event"])
		assert.Equal(t, "3", rec["Itr-Iteration"])

		log := r.show("HEAD", demoDir+"/progress.md")
		for _, did := range []string{"one", "two", "three"} {
			assert.Equal(t, 1, strings.Count(log, "**Did:** "+did+"\n"), did)
		}
		s, err := state.Decode([]byte(r.show("HEAD", demoDir+"/state.json")))
		require.NoError(t, err)
		assert.Equal(t, 3, state.Val(s.Units["T1"].IterationsUsed))
		r.checkGit()
		reconcileNoOp(r)
	})
}

// A record in the middle of a git merge is refused, naming how to
// conclude it; once git concluded it, work goes on.
func TestRecordRefusedInAMerge(t *testing.T) {
	isolate(t)
	r := newTask(t)
	r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
	r.git("checkout", "-q", "-b", "side")
	r.write("side.txt", "side\n")
	r.git("add", "side.txt")
	r.git("commit", "-q", "-m", "side")
	r.git("checkout", "-q", "main")
	r.git("merge", "-q", "--no-ff", "--no-commit", "side")

	before := r.snap()
	_, err := r.open().Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "two"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a git merge is in progress")
	assert.Contains(t, err.Error(), "`itr reconcile`")
	assert.Contains(t, err.Error(), "`git merge --continue`")
	r.unchanged(before)
	_, err = r.open().Block(demo, "T1", "merge")
	require.ErrorContains(t, err, "`git merge --continue`")
	r.unchanged(before)

	r.git("commit", "-q", "--no-edit")
	merge := r.head()
	r.checkpoint(CheckpointRequest{Unit: "T1", Did: "two"})
	assert.Equal(t, merge, strings.TrimSpace(r.git("rev-parse", "HEAD~1")))
	assert.Equal(t, "2", r.trailers("HEAD")["Itr-Iteration"])
	r.checkGit()
}

// racer is a repository on which another git commit lands just before
// itr's first commit, as when a person commits while itr records.
type racer struct {
	gitstate.Repository
	r     *repo
	rel   string // the file the other commit changes
	calls atomic.Int32
}

func (x *racer) CommitFiles(req gitstate.CommitRequest) (gitstate.Commit, error) {
	if x.calls.Add(1) == 1 {
		x.r.write(x.rel, "changed meanwhile\n")
		x.r.git("add", x.rel)
		x.r.git("commit", "-q", "-m", "meanwhile")
	}
	return x.Repository.CommitFiles(req)
}

// A git commit that lands between a record's read and its commit: one that
// touched the task's folder makes the record start again on the new HEAD
// (nothing lost, nothing recorded twice); one elsewhere does not, and itr
// commits on top of it.
func TestRecordWhenHeadMovesMeanwhile(t *testing.T) {
	cases := []struct {
		name  string
		rel   string
		calls int32
	}{
		{"in the task folder: redone", demoDir + "/brief.md", 2},
		{"elsewhere: built on top", "elsewhere.txt", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			engines(t, func(t *testing.T, engine gitstate.Engine) {
				r := newTask(t)
				r.engine = engine
				base := r.head()
				ws := r.open()
				x := &racer{Repository: ws.Repo, r: r, rel: c.rel}
				ws.Repo = x

				out, err := ws.Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "one"})
				require.NoError(t, err)

				assert.Equal(t, c.calls, x.calls.Load(), "commits tried")
				commits := r.commitsSince(base)
				require.Len(t, commits, 2)
				assert.Equal(t, "meanwhile", r.subject(commits[0]))
				assert.Equal(t, out.Commit, commits[1])
				assert.Equal(t, "changed meanwhile\n", r.show("HEAD", c.rel), "the other commit is kept")
				assert.Equal(t, taskFiles("progress.md", "state.json"), r.filesOf("HEAD"))
				log := r.show("HEAD", demoDir+"/progress.md")
				assert.Equal(t, 1, strings.Count(log, "## T1 - Iteration"), "recorded once")
				assert.Equal(t, "1", r.trailers("HEAD")["Itr-Iteration"])
				r.checkGit()
				reconcileNoOp(r)
			})
		})
	}
}

// A second init of a slug is refused, naming the fix, and changes nothing.
func TestInitTwiceRefused(t *testing.T) {
	isolate(t)
	r := newRepo(t)
	first, err := r.open().Init(InitRequest{Name: "Demo", Slug: demo})
	require.NoError(t, err)
	r.checkGit()

	for _, req := range []InitRequest{{Name: "Another demo", Slug: demo}, {Name: "Demo"}} {
		before := r.snap()
		_, err := r.open().Init(req)
		require.EqualError(t, err, `task "demo" already exists at .claude/iterative/demo; pick another --slug`)
		r.unchanged(before)
	}

	// Gone from disk but still committed: refused, naming the restore.
	require.NoError(t, os.RemoveAll(r.abs(demoDir)))
	before := r.snap()
	_, err = r.open().Init(InitRequest{Name: "Demo", Slug: demo})
	require.EqualError(t, err, `task "demo" exists in the last commit but not on disk; restore it with `+"`git checkout -- .claude/iterative/demo`")
	r.unchanged(before)
	r.git("checkout", "--", demoDir)
	assert.Equal(t, first.Commit, r.head())
	r.checkGit()
}

// Init in a repository without commits makes the root commit.
func TestInitInARepositoryWithoutCommits(t *testing.T) {
	engines(t, func(t *testing.T, engine gitstate.Engine) {
		r := &repo{t: t, dir: t.TempDir(), now: t0, engine: engine}
		r.git("init", "-q")
		out, err := r.open().Init(InitRequest{Name: "Demo", Slug: demo})
		require.NoError(t, err)

		assert.Equal(t, []string{out.Commit}, lines(r.git("rev-list", "HEAD")), "one commit, the root")
		assert.Equal(t, "refs/heads/main", strings.TrimSpace(r.git("symbolic-ref", "HEAD")))
		assert.Equal(t, "itr(demo): start task Demo", r.subject("HEAD"))
		tr := r.trailers("HEAD")
		assert.Equal(t, "created", tr["Itr-Event"])
		assert.Equal(t, "demo", tr["Itr-Task"])
		for _, f := range r.filesOf("HEAD") {
			assert.True(t, strings.HasPrefix(f, taskRoot+"/"), "%s lies under the task root", f)
		}
		assert.Contains(t, r.filesOf("HEAD"), demoDir+"/state.json")
		assert.Contains(t, r.show("HEAD", demoDir+"/progress.md"), "## Task - Created - 2026-01-14T10:01:00Z")
		r.checkGit()

		// The task goes on from there.
		r.write(demoDir+"/tasks.md", tasksMD)
		_, err = r.open().Plan(PlanRequest{Slug: demo})
		require.NoError(t, err)
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
		assert.Len(t, lines(r.git("rev-list", "HEAD")), 3)
		r.checkGit()
		reconcileNoOp(r)
	})
}
