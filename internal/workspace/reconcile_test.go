package workspace

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/state"
)

// reconcileNoOp requires Reconcile, --check and a real one, to find the
// task healthy: nothing reported, no commit, and HEAD, the index and the
// working tree byte-identical (the invariant "reconcile right after any
// sequence of itr commands is a no-op").
func reconcileNoOp(r *repo) {
	r.t.Helper()
	reconcileNoOpNoting(r)
}

// reconcileNoOpNoting is reconcileNoOp of a task whose log reconcile notes
// problems in (and changes nothing for): exactly those.
func reconcileNoOpNoting(r *repo, problems ...string) {
	r.t.Helper()
	before := r.snap()
	check, err := r.open().Reconcile(ReconcileOptions{Slug: demo, Check: true})
	require.NoError(r.t, err)
	assert.True(r.t, check.Clean(), "reconcile --check: %+v", check)
	assert.Empty(r.t, check.Diff)
	rep, err := r.open().Reconcile(ReconcileOptions{Slug: demo})
	require.NoError(r.t, err)
	assert.True(r.t, rep.Clean(), "reconcile: %+v", rep)
	assert.Equal(r.t, append([]string{}, problems...), rep.Problems)
	assert.Empty(r.t, rep.Commit, "reconcile committed")
	r.unchanged(before)
}

// crashEntry is an iteration entry appended to progress.md by a record
// that stopped before its commit, stamped after the clock's last minute.
func (r *repo) crashEntry(unit string, n int, did string) string {
	stamp := r.now.Add(30 * time.Second).Format(time.RFC3339)
	return "\n## " + unit + " - Iteration " + strconv.Itoa(n) + " - " + stamp + "\n**Did:** " + did + "\n**Signal:** " + unit + "_DONE\n"
}

// appendFile appends text to a file of the working tree.
func (r *repo) appendFile(rel, text string) {
	r.t.Helper()
	f, err := os.OpenFile(r.abs(rel), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(r.t, err)
	_, err = f.WriteString(text)
	require.NoError(r.t, err)
	require.NoError(r.t, f.Close())
}

// decodeAt decodes state.json as committed at rev.
func (r *repo) decodeAt(rev string) *state.State {
	r.t.Helper()
	s, err := state.Decode([]byte(r.show(rev, demoDir+"/state.json")))
	require.NoError(r.t, err)
	return s
}

// A record that stopped between its write and its commit left an entry
// appended to progress.md: the next record refuses, naming itr reconcile;
// reconcile adopts the entry in one commit; a second reconcile changes
// nothing.
func TestReconcileAdoptsACrashedRecord(t *testing.T) {
	engines(t, func(t *testing.T, engine gitstate.Engine) {
		r := newTask(t)
		r.engine = engine
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
		entry := r.crashEntry("T1", 2, "two, written before a crash")
		r.appendFile(demoDir+"/progress.md", entry)

		before := r.snap()
		_, err := r.open().Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "next"})
		require.EqualError(t, err, demoDir+"/progress.md has 1 entry appended that no commit holds (a record stopped before its commit); "+
			"run `itr reconcile` to record it, or discard it with `git checkout -- "+demoDir+"/progress.md`")
		r.unchanged(before)

		check, err := r.open().Reconcile(ReconcileOptions{Slug: demo, Check: true})
		require.NoError(t, err)
		assert.False(t, check.Clean())
		assert.Equal(t, 1, check.Adopted)
		r.unchanged(before)

		base := r.head()
		rep, err := r.open().Reconcile(ReconcileOptions{Slug: demo})
		require.NoError(t, err)
		assert.Equal(t, 1, rep.Adopted)
		assert.True(t, containsPart(discrepancies(rep), "T1.iterations_used: recorded 1, derived 2"), "%q", discrepancies(rep))
		require.Equal(t, []string{rep.Commit}, r.commitsSince(base), "one commit")
		assert.Equal(t, taskFiles("progress.md", "state.json"), r.filesOf("HEAD"))
		tr := r.trailers("HEAD")
		assert.Equal(t, "reconciled", tr["Itr-Event"])
		assert.Equal(t, "demo", tr["Itr-Task"])
		log := r.show("HEAD", demoDir+"/progress.md")
		assert.True(t, strings.HasPrefix(log, r.show(base, demoDir+"/progress.md")+entry), "the log only appends, the entry as it was written")
		assert.Contains(t, log, "adopted 1 uncommitted entry of progress.md")
		s := r.decodeAt("HEAD")
		assert.Equal(t, state.Confirming, s.Units["T1"].Status)
		assert.Equal(t, 2, state.Val(s.Units["T1"].IterationsUsed))
		r.checkGit()

		reconcileNoOp(r)
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "confirmed", Signal: true})
		assert.Equal(t, "3", r.trailers("HEAD")["Itr-Iteration"])
		r.checkGit()
	})
}

func discrepancies(rep *ReconcileReport) []string {
	out := make([]string, len(rep.Discrepancies))
	for i, d := range rep.Discrepancies {
		out[i] = d.String()
	}
	return out
}

// state.json deleted, edited by hand or broken is rebuilt from the log;
// content that differs from the fold is kept under .git/itr/recovered/
// first, named in the report and in the entry.
func TestReconcileRebuildsState(t *testing.T) {
	cases := []struct {
		name    string
		damage  func(r *repo) []byte // returns what it left on disk, nil for nothing
		problem string               // a problem reported, "" for none
		found   string               // a discrepancy reported, "" for none
	}{
		{"deleted", func(r *repo) []byte {
			require.NoError(r.t, os.Remove(r.abs(demoDir+"/state.json")))
			return nil
		}, demoDir + "/state.json is missing; rebuilt from the log", ""},
		{"edited by hand", func(r *repo) []byte {
			old := r.read(demoDir + "/state.json")
			edited := strings.Replace(old, `"iterations_used": 2`, `"iterations_used": 7`, 1)
			require.NotEqual(r.t, old, edited, "the edit applies")
			r.write(demoDir+"/state.json", edited)
			return []byte(edited)
		}, "", "T1.iterations_used: recorded 7, derived 2"},
		{"not JSON", func(r *repo) []byte {
			r.write(demoDir+"/state.json", "{ not json\n")
			return []byte("{ not json\n")
		}, "rebuilt from the log", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			r := newTask(t)
			r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
			r.checkpoint(CheckpointRequest{Unit: "T1", Did: "two"})
			want := r.decodeAt("HEAD")
			damaged := c.damage(r)

			// The next record refuses, naming itr reconcile.
			before := r.snap()
			_, err := r.open().Checkpoint(CheckpointRequest{Slug: demo, Unit: "T1", Did: "three"})
			require.ErrorContains(t, err, "`itr reconcile`")
			r.unchanged(before)

			base := r.head()
			rep, err := r.open().Reconcile(ReconcileOptions{Slug: demo})
			require.NoError(t, err)
			require.Equal(t, []string{rep.Commit}, r.commitsSince(base), "one commit")
			assert.Equal(t, "reconciled", r.trailers("HEAD")["Itr-Event"])
			if c.problem != "" {
				assert.True(t, containsPart(rep.Problems, c.problem), "problems %q name %q", rep.Problems, c.problem)
			}
			if c.found != "" {
				assert.True(t, containsPart(discrepancies(rep), c.found), "%q", discrepancies(rep))
			}
			if damaged == nil {
				assert.Empty(t, rep.Saved)
			} else {
				require.Len(t, rep.Saved, 1)
				saved := rep.Saved[0]
				assert.True(t, strings.HasPrefix(saved, ".git/itr/recovered/demo/") && strings.HasSuffix(saved, "-state.json"), saved)
				kept, err := os.ReadFile(r.abs(saved))
				require.NoError(t, err)
				assert.Equal(t, string(damaged), string(kept), "the replaced content is kept")
				assert.Contains(t, r.show("HEAD", demoDir+"/progress.md"), saved, "the entry names where it is kept")
			}

			got := r.decodeAt("HEAD")
			assert.Equal(t, r.read(demoDir+"/state.json"), r.show("HEAD", demoDir+"/state.json"))
			for _, id := range []string{"T1", "T2", "T3"} {
				assert.Equal(t, want.Units[id].Status, got.Units[id].Status, id)
				assert.Equal(t, state.Val(want.Units[id].IterationsUsed), state.Val(got.Units[id].IterationsUsed), id)
			}
			r.checkGit()
			reconcileNoOp(r)
			r.checkpoint(CheckpointRequest{Unit: "T1", Did: "three"})
			assert.Equal(t, "3", r.trailers("HEAD")["Itr-Iteration"])
		})
	}
}

func containsPart(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

// An uncommitted edit of an earlier entry is undone from git: the
// committed log comes back and the edited one is kept aside.
func TestReconcileRestoresAnEditedLog(t *testing.T) {
	isolate(t)
	r := newTask(t)
	r.checkpoint(CheckpointRequest{Unit: "T1", Did: "one"})
	committed := r.read(demoDir + "/progress.md")
	edited := strings.Replace(committed, "**Did:** one", "**Did:** rewritten history", 1)
	require.NotEqual(t, committed, edited)
	r.write(demoDir+"/progress.md", edited)

	base := r.head()
	rep, err := r.open().Reconcile(ReconcileOptions{Slug: demo})
	require.NoError(t, err)
	assert.True(t, rep.Restored)
	assert.True(t, containsPart(rep.Problems, "an uncommitted edit changed earlier entries"), "%q", rep.Problems)
	require.Len(t, rep.Saved, 1)
	assert.True(t, strings.HasPrefix(rep.Saved[0], ".git/itr/recovered/demo/"), rep.Saved[0])
	kept, err := os.ReadFile(r.abs(rep.Saved[0]))
	require.NoError(t, err)
	assert.Equal(t, edited, string(kept))
	require.Equal(t, []string{rep.Commit}, r.commitsSince(base))
	log := r.show("HEAD", demoDir+"/progress.md")
	assert.True(t, strings.HasPrefix(log, committed), "the committed log comes back and is only appended to")
	assert.NotContains(t, log, "rewritten history")
	r.checkGit()
	reconcileNoOp(r)
}

// Reconcile right after any sequence of itr commands is a no-op.
func TestReconcileAfterCommandsIsANoOp(t *testing.T) {
	type step func(r *repo, ws *Workspace) error
	cp := func(unit, did string, mod ...func(*CheckpointRequest)) step {
		return func(r *repo, ws *Workspace) error {
			req := CheckpointRequest{Slug: demo, Unit: unit, Did: did}
			for _, m := range mod {
				m(&req)
			}
			_, err := ws.Checkpoint(req)
			return err
		}
	}
	signal := func(req *CheckpointRequest) { req.Signal = true }
	byReview := func(req *CheckpointRequest) { req.VerifiedBy = "review" }
	ignore := func(_ any, err error) error { return err }
	cases := []struct {
		name  string
		steps []step
	}{
		{"init and plan", nil},
		{"a unit to done, the next started", []step{
			cp("T1", "one"), cp("T1", "done", signal), cp("T1", "confirmed", signal), cp("T1", "reviewed", byReview), cp("", "next unit"),
		}},
		{"finish", []step{
			cp("T1", "one"),
			func(r *repo, ws *Workspace) error {
				return ignore(ws.Finish(FinishRequest{Slug: demo, Unit: "T1", Evidence: "tests pass"}))
			},
			func(r *repo, ws *Workspace) error {
				return ignore(ws.Finish(FinishRequest{Slug: demo, Unit: "T1", Evidence: "checked again", Failed: true}))
			},
		}},
		{"block, unblock, typed block, fail, skip, reopen", []step{
			cp("T1", "one"),
			func(r *repo, ws *Workspace) error { return ignore(ws.Block(demo, "T1", "waits")) },
			func(r *repo, ws *Workspace) error { return ignore(ws.Unblock(demo, "T1")) },
			func(r *repo, ws *Workspace) error {
				return ignore(ws.BlockTyped(demo, "T3", "needs a call", state.KindNeedsHuman, "after the call"))
			},
			func(r *repo, ws *Workspace) error { return ignore(ws.Fail(demo, "T1", "cannot", state.KindToolError)) },
			func(r *repo, ws *Workspace) error { return ignore(ws.Reopen(demo, "T1", "try again")) },
			func(r *repo, ws *Workspace) error { return ignore(ws.Skip(demo, "T2", "not needed")) },
		}},
		{"pause, resume, note, guardrail, decision, phase, summary", []step{
			cp("T1", "one"),
			func(r *repo, ws *Workspace) error { return ignore(ws.Pause(demo, "lunch")) },
			func(r *repo, ws *Workspace) error { return ignore(ws.Resume(demo)) },
			func(r *repo, ws *Workspace) error { return ignore(ws.Note(demo, "keep the API", true)) },
			func(r *repo, ws *Workspace) error {
				return ignore(ws.Guardrail(GuardrailRequest{Slug: demo, Name: "Run the tests", When: "always", Problem: "broke", Solution: "run them"}))
			},
			func(r *repo, ws *Workspace) error {
				return ignore(ws.Decide(DecideRequest{Slug: demo, Title: "Storage", Choice: "files", Why: "simple"}))
			},
			func(r *repo, ws *Workspace) error { return ignore(ws.SetPhase(demo, "verify", true)) },
			cp("T1", "two"),
			func(r *repo, ws *Workspace) error {
				return ignore(ws.Summarize(SummarizeRequest{Slug: demo, Did: "T1 half done"}))
			},
		}},
		{"plan changed, with a drop", []step{
			cp("T3", "docs started"),
			func(r *repo, ws *Workspace) error {
				r.write(demoDir+"/tasks.md", "# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: Add the model\n  - Max iterations: 8\n- [ ] **T4**: New\n")
				return ignore(ws.Plan(PlanRequest{Slug: demo, Drop: []string{"T3"}, Reason: "no docs"}))
			},
			cp("T4", "new unit"),
		}},
		{"a crash adopted, then more", []step{
			cp("T1", "one"),
			func(r *repo, ws *Workspace) error {
				r.appendFile(demoDir+"/progress.md", r.crashEntry("T1", 2, "crashed"))
				return ignore(ws.Reconcile(ReconcileOptions{Slug: demo}))
			},
			cp("T1", "confirmed", signal),
		}},
		{"a log a plain commit took out, repaired by the record", []step{
			cp("T1", "one"), cp("T1", "two"),
			func(r *repo, ws *Workspace) error {
				r.git("checkout", "HEAD~1", "--", demoDir+"/progress.md")
				r.git("commit", "-q", "-m", "user work")
				return nil
			},
			cp("T1", "three"),
		}},
		{"work commits between records", []step{
			cp("T1", "one"),
			func(r *repo, ws *Workspace) error {
				r.write("src/model.go", "package model\n")
				r.git("add", "src/model.go")
				r.git("commit", "-q", "-m", "model")
				return nil
			},
			cp("T1", "done", signal, func(req *CheckpointRequest) { req.Commits = []string{"HEAD"} }),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			r := newTask(t)
			for i, s := range c.steps {
				require.NoError(t, s(r, r.open()), "step %d", i+1)
				r.checkGit()
			}
			reconcileNoOp(r)
			v, err := r.open().Verify(demo)
			require.NoError(t, err)
			assert.Empty(t, v.Findings, "itr verify")
		})
	}
}

// Inside a merge that conflicts on the task's files (no merge driver),
// reconcile reads base, ours and theirs from the index, keeps every entry
// of both sides once, folds state.json from the joined log and stages
// both; it commits nothing and leaves the other conflicts and the merge's
// conclusion to git.
func TestReconcileResolvesAMergeConflict(t *testing.T) {
	engines(t, func(t *testing.T, engine gitstate.Engine) {
		r := newRepo(t)
		_, err := r.open().Init(InitRequest{Name: "Demo", Slug: demo})
		require.NoError(t, err)
		r.git("config", "--remove-section", "merge.itr")
		r.write(demoDir+"/tasks.md", tasksMD)
		_, err = r.open().Plan(PlanRequest{Slug: demo})
		require.NoError(t, err)
		r.engine = engine
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "base"})

		r.git("checkout", "-q", "-b", "side")
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "from side"})
		r.checkpoint(CheckpointRequest{Unit: "T3", Did: "side works on T3"})
		r.write("notes.txt", "side's notes\n")
		r.git("add", "notes.txt")
		r.git("commit", "-q", "-m", "side: notes")
		r.git("checkout", "-q", "main")
		r.checkpoint(CheckpointRequest{Unit: "T1", Did: "from main", Signal: true})
		r.write("notes.txt", "main's notes\n")
		r.git("add", "notes.txt")
		r.git("commit", "-q", "-m", "main: notes")
		ours := r.head()

		_, err = r.gitErr("merge", "-q", "--no-edit", "side")
		require.Error(t, err, "the merge conflicts")
		status := r.status()
		require.Contains(t, status, "UU "+demoDir+"/progress.md")
		require.Contains(t, status, "AA notes.txt")

		before := r.snap()
		check, err := r.open().Reconcile(ReconcileOptions{Slug: demo, Check: true})
		require.NoError(t, err)
		assert.Equal(t, "merge", check.Operation)
		assert.Contains(t, check.Staged, demoDir+"/progress.md")
		r.unchanged(before)

		rep, err := r.open().Reconcile(ReconcileOptions{Slug: demo})
		require.NoError(t, err)
		assert.Equal(t, "merge", rep.Operation)
		assert.Empty(t, rep.Commit, "reconcile concludes nothing")
		assert.ElementsMatch(t, []string{demoDir + "/progress.md", demoDir + "/state.json"}, rep.Staged)
		assert.Equal(t, []string{"notes.txt"}, rep.Unresolved)
		assert.Equal(t, ours, r.head())
		_, err = os.Stat(r.abs(".git/MERGE_HEAD"))
		require.NoError(t, err, "the merge is still open")
		status = r.status()
		assert.Contains(t, status, "M  "+demoDir+"/progress.md\n")
		assert.Contains(t, status, "M  "+demoDir+"/state.json\n")
		assert.Contains(t, status, "AA notes.txt\n")
		staged := r.git("show", ":"+demoDir+"/progress.md")
		assert.Equal(t, r.read(demoDir+"/progress.md"), staged, "what is staged is what is on disk")
		assert.NotContains(t, staged, "<<<<<<<")
		for _, did := range []string{"base", "from side", "side works on T3", "from main"} {
			assert.Equal(t, 1, strings.Count(staged, "**Did:** "+did+"\n"), did)
		}

		r.write("notes.txt", "both notes\n")
		r.git("add", "notes.txt")
		r.git("commit", "-q", "--no-edit")
		assert.Len(t, strings.Fields(r.git("rev-list", "--parents", "-1", "HEAD")), 3, "a merge commit of two parents")
		r.checkGit()
		s := r.decodeAt("HEAD")
		assert.Equal(t, 3, state.Val(s.Units["T1"].IterationsUsed))
		assert.Equal(t, 1, state.Val(s.Units["T3"].IterationsUsed))
		v, err := r.open().Verify(demo)
		require.NoError(t, err)
		assert.Empty(t, v.Findings, "itr verify")
		// Both sides recorded a second iteration of T1: the log keeps
		// both, and the fold counts them as the 2nd and 3rd.
		reconcileNoOpNoting(r, demoDir+"/progress.md:27: T1 iteration 2 is the 3rd iteration of T1 in the log; counted as 3")
	})
}
