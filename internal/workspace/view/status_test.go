package view

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

var errBoom = errors.New("boom")

// TestStatusPhases builds a task at each point of its life and checks the
// summary: what is current, the counts, and the next action worded from
// the rule book's move. A task built by itr's own steps has no warnings.
func TestStatusPhases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		build    func(f *fixture) *task
		slug     string
		phase    state.Phase
		done     int
		total    int
		current  string // "" for none
		curState state.Status
		next     string
		action   string
		progress string
		blocked  []string
		archived bool
	}{
		{
			name:     "fresh",
			build:    freshTask,
			phase:    state.Discover,
			action:   "write the plan in tasks.md (units with criteria and limits) and run `itr plan`",
			progress: "no units planned yet",
		},
		{
			name:     "fresh knowledge",
			build:    func(f *fixture) *task { return f.newTask("survey", "Survey", state.Knowledge) },
			phase:    state.Discover,
			action:   "write the plan in plan.md (units with criteria and limits) and run `itr plan`",
			progress: "no units planned yet",
		},
		{
			name:     "planned",
			build:    plannedTask,
			phase:    state.Plan,
			total:    3,
			next:     "T1",
			action:   "start T1 with `itr checkpoint T1 --did ...` after its first iteration",
			progress: "0/3 units done, 0% complete",
		},
		{
			name:     "T1 in progress",
			build:    inProgressTask,
			phase:    state.Execute,
			total:    3,
			current:  "T1",
			curState: state.InProgress,
			next:     "T3",
			action:   "continue T1 (iteration 2); when its work is done, checkpoint with --signal",
			progress: "0/3 units done, 0% complete",
		},
		{
			name: "T1 confirming",
			build: func(f *fixture) *task {
				return plannedTask(f).checkpoint("T1", "model done", iterOpts{signal: true})
			},
			phase: state.Execute, total: 3, current: "T1", curState: state.Confirming, next: "T3",
			action:   "run the N+1 confirmation of T1: re-check the work; checkpoint with --signal if it holds, without if it needs more work",
			progress: "0/3 units done, 0% complete",
		},
		{
			name: "T1 verifying",
			build: func(f *fixture) *task {
				return plannedTask(f).checkpoint("T1", "model done", iterOpts{signal: true}).checkpoint("T1", "confirmed", iterOpts{signal: true})
			},
			phase: state.Execute, total: 3, current: "T1", curState: state.Verifying, next: "T3",
			action:   "verify T1 (quality and code review): checkpoint with --verified --verify to run its check (or --verified-by WHO for a check made elsewhere); without them it goes back to in_progress",
			progress: "0/3 units done, 0% complete",
		},
		{
			name:     "T1 done",
			build:    func(f *fixture) *task { return plannedTask(f).finish("T1") },
			phase:    state.Execute,
			done:     1,
			total:    3,
			next:     "T2",
			action:   "start T2 with `itr checkpoint T2 --did ...` after its first iteration",
			progress: "1/3 units done, 33% complete",
		},
		{
			name:  "current unit blocked",
			build: func(f *fixture) *task { return inProgressTask(f).block("T1", "the database is down") },
			phase: state.Execute, total: 3, current: "T1", curState: state.Blocked, next: "T3",
			action:   "T1 is blocked (“the database is down”): resolve it and run `itr unblock T1`",
			progress: "0/3 units done, 0% complete",
			blocked:  []string{"T1"},
		},
		{
			name:  "unblocked again",
			build: func(f *fixture) *task { return inProgressTask(f).block("T1", "db").unblock("T1") },
			phase: state.Execute, total: 3, current: "T1", curState: state.InProgress, next: "T3",
			action:   "continue T1 (iteration 2); when its work is done, checkpoint with --signal",
			progress: "0/3 units done, 0% complete",
		},
		{
			name: "every remaining unit waits on a block",
			build: func(f *fixture) *task {
				return plannedTask(f).block("T1", "needs a decision").finish("T3")
			},
			phase: state.Execute, done: 1, total: 3,
			action:   "every remaining unit waits: resolve the block of T1 (“needs a decision”) and run `itr unblock T1`",
			progress: "1/3 units done, 33% complete",
			blocked:  []string{"T1"},
		},
		{
			name: "current unit timed out",
			build: func(f *fixture) *task {
				b := plannedTask(f)
				for i := 0; i < 3; i++ {
					b.checkpoint("T1", "tried", iterOpts{})
				}
				return b
			},
			phase: state.Execute, total: 3, current: "T1", curState: state.Timeout, next: "T3",
			action:   "T1 used all 3 iterations: raise its Max iterations in tasks.md and run `itr plan`, or simplify it",
			progress: "0/3 units done, 0% complete",
		},
		{
			name: "current phase timed out in knowledge mode",
			build: func(f *fixture) *task {
				b := f.newTask("survey", "Survey", state.Knowledge).planned(knowledgePlan)
				return b.checkpoint("R1", "read", iterOpts{}).checkpoint("R1", "read more", iterOpts{})
			},
			phase: state.Execute, total: 2, current: "R1", curState: state.Timeout,
			action:   "R1 used all 2 iterations: raise its Max iterations in plan.md and run `itr plan`, or simplify it",
			progress: "0/2 units done, 0% complete",
		},
		{
			name: "a timed-out unit holds the rest",
			build: func(f *fixture) *task {
				b := plannedTask(f)
				for i := 0; i < 3; i++ {
					b.checkpoint("T1", "tried", iterOpts{})
				}
				return b.finish("T3")
			},
			phase: state.Execute, done: 1, total: 3,
			action:   "T1 used all 3 iterations: raise its Max iterations and run `itr plan`",
			progress: "1/3 units done, 33% complete",
		},
		{
			name: "a started unit that is no longer current",
			build: func(f *fixture) *task {
				return plannedTask(f).checkpoint("T1", "started", iterOpts{}).finish("T3")
			},
			phase: state.Execute, done: 1, total: 3,
			action:   "continue T1 (iteration 2); when its work is done, checkpoint with --signal",
			progress: "1/3 units done, 33% complete",
		},
		{
			name:     "all done",
			build:    func(f *fixture) *task { return plannedTask(f).finish("T1").finish("T2").finish("T3") },
			phase:    state.Execute,
			done:     3,
			total:    3,
			action:   "every unit is done: move the task to verify with `itr phase verify` and review the work as a whole there, then `itr archive`",
			progress: "3/3 units done, 100% complete",
		},
		{
			name: "archive recorded, folder still active",
			build: func(f *fixture) *task {
				b := plannedTask(f).finish("T1").finish("T2").finish("T3")
				return b.record(progresslog.Entry{Kind: progresslog.KindArchived, Stamp: f.tick()}, store.EventArchived, "archive")
			},
			phase: state.Complete, done: 3, total: 3,
			action:   "the task's archive was recorded but stopped before it took the folder out of the working tree: run `itr archive` again to finish it",
			progress: "3/3 units done, 100% complete",
		},
		{
			name: "archived",
			build: func(f *fixture) *task {
				b := plannedTask(f).finish("T1").finish("T2").finish("T3")
				b.archive()
				return b
			},
			slug:  "login",
			phase: state.Complete, done: 3, total: 3,
			action:   "the task is archived: nothing can be recorded in it; bring it back with `itr restore login` to continue it",
			progress: "3/3 units done, 100% complete",
			archived: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			b := tc.build(f)
			sum, err := Status(f.st, tc.slug)
			require.NoError(t, err)
			assert.Equal(t, b.slug, sum.Slug)
			assert.Equal(t, b.state.Task, sum.Task)
			assert.Equal(t, string(b.mode), sum.Mode)
			assert.Equal(t, string(tc.phase), sum.Phase)
			assert.Equal(t, taskRoot+"/"+b.slug, sum.Dir)
			assert.Equal(t, tc.done, sum.Done, "done")
			assert.Equal(t, tc.total, sum.Total, "total")
			assert.Len(t, sum.Units, tc.total)
			if tc.current == "" {
				assert.Nil(t, sum.Current)
			} else if assert.NotNil(t, sum.Current) {
				assert.Equal(t, tc.current, sum.Current.ID)
				assert.Equal(t, string(tc.curState), sum.Current.Status)
			}
			assert.Equal(t, tc.next, sum.Next, "next")
			// A second reading comes from what the first remembered of the
			// log: it must give the same summary, field for field.
			if sum.Archive == "" {
				assert.FileExists(t, f.repo.WorktreeItrPath("itr-view-"+b.slug+".json"), "the reading of an active task is remembered")
			}
			if again, err := Status(f.st, tc.slug); assert.NoError(t, err) {
				first, _ := json.Marshal(sum)
				second, _ := json.Marshal(again)
				assert.JSONEq(t, string(first), string(second), "the remembered reading differs from the fresh one")
			}
			assert.Equal(t, tc.action, sum.NextAction)
			assert.Equal(t, tc.action, sum.CompactionSummary.NextAction)
			assert.Equal(t, tc.progress, sum.CompactionSummary.Progress)
			assert.Equal(t, b.state.Task, sum.CompactionSummary.Task)
			var blocked []string
			for _, u := range sum.Blocked {
				blocked = append(blocked, u.ID)
			}
			assert.Equal(t, tc.blocked, blocked)
			assert.Len(t, sum.DoNotRepeat, tc.done)
			assert.Equal(t, sum.DoNotRepeat, sum.CompactionSummary.DoNotRepeat)
			assert.Empty(t, sum.Warnings, "a task built by itr's steps is healthy")
			assert.Empty(t, sum.Discrepancies)
			assert.Empty(t, sum.Undone)
			assert.Equal(t, state.Val(b.state.Updated), sum.LastCheckpoint)
			if tc.archived {
				assert.Equal(t, store.ArchiveTagPrefix+"login/2026-01-14", sum.Archive)
				assert.Equal(t, "1m", sum.SinceLast, "the folder removal came one minute after the archive")
			} else {
				assert.Empty(t, sum.Archive)
				assert.Equal(t, "0s", sum.SinceLast)
			}
		})
	}
}

// TestStatusDetails checks the units, the last entry and the compaction
// summary of one task in detail.
func TestStatusDetails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := plannedTask(f).finish("T3").checkpoint("T1", "added the model", iterOpts{remaining: "validation", blockers: "flaky db"})
	f.now = f.now.Add(3*time.Hour + 7*time.Minute)

	sum, err := Status(f.st, "")
	require.NoError(t, err)
	assert.Equal(t, []UnitStatus{
		{ID: "T1", Title: "Add the user model", Status: "in_progress", Iterations: 1, Max: 3, StartedAt: "2026-01-14T10:06:00Z"},
		{ID: "T2", Title: "Add the login form", Status: "pending", Iterations: 0, Max: 5, Depends: []string{"T1"}},
		{ID: "T3", Title: "Write the docs", Status: "done", Iterations: 3, Max: 4, StartedAt: "2026-01-14T10:03:00Z"},
	}, sum.Units)
	assert.Equal(t, &LastEntry{Unit: "T1", Iteration: 1, Time: state.Val(b.state.Updated), Did: "added the model", Remaining: "validation", Blockers: "flaky db"}, sum.Last)
	assert.Equal(t, "3h07m", sum.SinceLast)
	assert.Equal(t, []string{"T3"}, sum.DoNotRepeat)
	assert.Equal(t, []string{"remaining on T1: “validation”", "blockers on T1: “flaky db”"}, sum.CompactionSummary.CriticalContext)
	assert.Equal(t, "", sum.Next, "T2 waits for T1 and T3 is done")
}

// TestStatusCriticalContext checks what the compaction summary keeps: the
// last entry's remaining work and blockers unless "None", and every block.
func TestStatusCriticalContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(f *fixture) *task
		want  []string
	}{
		{"nothing yet", plannedTask, []string{}},
		{"none written as None", func(f *fixture) *task {
			return plannedTask(f).checkpoint("T1", "x", iterOpts{remaining: "none", blockers: "NONE"})
		}, []string{}},
		{"remaining only", func(f *fixture) *task {
			return plannedTask(f).checkpoint("T1", "x", iterOpts{remaining: "tests"})
		}, []string{"remaining on T1: “tests”"}},
		{"blocks", func(f *fixture) *task {
			return plannedTask(f).block("T1", "needs a key").block("T3", "no access")
		}, []string{"T1 blocked: “needs a key”", "T3 blocked: “no access”"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			tc.build(f)
			sum, err := Status(f.st, "")
			require.NoError(t, err)
			assert.Equal(t, tc.want, sum.CompactionSummary.CriticalContext)
		})
	}
}

// TestStatusWarnings checks each thing the summary warns about.
func TestStatusWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(f *fixture, b *task)
		want  []string // substrings, one a warning, in order
		check func(t *testing.T, sum *Summary, b *task)
	}{
		{
			name: "state.json edited on disk",
			setup: func(f *fixture, b *task) {
				f.writeDisk(b.rel(store.StateFile), "{}\n")
			},
			want: []string{".claude/iterative/login/state.json has uncommitted changes; the summary shows the committed state (run `itr reconcile`)"},
			check: func(t *testing.T, sum *Summary, b *task) {
				require.NotNil(t, sum.Current, "the committed state is shown")
				assert.Equal(t, "T1", sum.Current.ID)
			},
		},
		{
			name: "state.json deleted on disk is no warning",
			setup: func(f *fixture, b *task) {
				require.NoError(t, os.Remove(f.abs(b.rel(store.StateFile))))
			},
		},
		{
			name: "state.json on disk is a symbolic link",
			setup: func(f *fixture, b *task) {
				p := f.abs(b.rel(store.StateFile))
				require.NoError(t, os.Remove(p))
				require.NoError(t, os.Symlink(filepath.Join(f.repo.Root(), "elsewhere.json"), p))
			},
			want: []string{"state.json is a symbolic link"},
		},
		{
			name: "committed state.json differs from the log",
			setup: func(f *fixture, b *task) {
				s := b.state.Clone()
				s.Units["T1"].IterationsUsed = state.Ptr(7)
				f.plainCommit("edit state by hand", true, gitstate.FileChange{Path: b.rel(store.StateFile), Data: s.Encode()})
			},
			want: []string{"state.json differs from what the log says in 1 places (first: T1.iterations_used: recorded 7, derived 1 (from progress.md)); run `itr reconcile`"},
			check: func(t *testing.T, sum *Summary, b *task) {
				require.Len(t, sum.Discrepancies, 1)
				assert.Equal(t, "T1", sum.Discrepancies[0].Unit)
				assert.Equal(t, 7, sum.Current.Iterations, "the summary shows the recorded state")
			},
		},
		{
			name: "state.json missing from the commit",
			setup: func(f *fixture, b *task) {
				f.plainCommit("drop state", true, gitstate.FileChange{Path: b.rel(store.StateFile), Delete: true})
			},
			want: []string{".claude/iterative/login/state.json is missing from the last commit; run `itr reconcile` to rebuild it; showing the state rebuilt from the log"},
			check: func(t *testing.T, sum *Summary, b *task) {
				require.NotNil(t, sum.Current, "the fold is shown")
				assert.Equal(t, "T1", sum.Current.ID)
				assert.Equal(t, 1, sum.Current.Iterations)
				assert.Equal(t, "Login page", sum.Task)
			},
		},
		{
			name: "state.json unreadable",
			setup: func(f *fixture, b *task) {
				f.plainCommit("break state", true, gitstate.FileChange{Path: b.rel(store.StateFile), Data: []byte("{not json")})
			},
			want: []string{".claude/iterative/login/state.json: line 1, column 2: invalid character 'n' (fix the JSON, or run `itr reconcile` to rebuild it); showing the state rebuilt from the log"},
		},
		{
			name: "log entry the fold cannot apply",
			setup: func(f *fixture, b *task) {
				bad, err := progresslog.Append(b.progress, progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T9", Iteration: 1, Stamp: f.tick(),
					Fields: []progresslog.Field{{Name: "Did", Value: "x"}}})
				require.NoError(t, err)
				f.plainCommit("log by hand", true, gitstate.FileChange{Path: b.rel(store.ProgressFile), Data: bad})
			},
			want: []string{"progress.md:16: unit T9 is not in .claude/iterative/login/tasks.md (units: T1, T2, T3); the entry was not applied"},
		},
		{
			name: "plan does not parse",
			setup: func(f *fixture, b *task) {
				f.writeDisk(b.rel(store.TasksFile), "# x\n\n## Tasks\n\n- [ ] **T1**: a\n- [ ] **T1**: again\n")
			},
			want: []string{"tasks.md:6: unit T1 is defined twice", "1 file of the task folder has changes no commit holds (.claude/iterative/login/tasks.md)"},
		},
		{
			name: "an undo by a plain commit",
			setup: func(f *fixture, b *task) {
				// A commit of an index from before the checkpoint: progress.md
				// as the plan left it, the working tree keeping itr's.
				old, err := f.st.ReadAt(b.lastCommit.Parents[0], b.rel(store.ProgressFile))
				require.NoError(t, err)
				f.plainCommit("wip", false, gitstate.FileChange{Path: b.rel(store.ProgressFile), Data: old})
			},
			want: []string{
				// HEAD's state.json is itr's, its log the older one.
				"state.json differs from what the log says in 8 places",
				`("wip") took 1 entry out of .claude/iterative/login/progress.md that itr had committed in `,
			},
			check: func(t *testing.T, sum *Summary, b *task) {
				require.Len(t, sum.Undone, 1)
				assert.Equal(t, "wip", sum.Undone[0].Subject)
				assert.Equal(t, []string{"T1 - Iteration 1 - 2026-01-14T10:03:00Z"}, sum.Undone[0].Missing)
				assert.Equal(t, sum.Undone[0].Text+"; they are in git's history: `itr reconcile` puts them back (so does the next checkpoint)", sum.Warnings[1])
				assert.Contains(t, sum.Warnings[1], "that itr had committed in "+store.Short(b.lastCommit.Hash))
				assert.Equal(t, ".claude/iterative/login/progress.md", sum.Undone[0].File)
			},
		},
		{
			name:  "undo check fails",
			setup: func(f *fixture, b *task) { f.repo.Fail("History", errBoom) },
			want:  []string{"boom"},
		},
		{
			name:  "last checkpoint in the future",
			setup: func(f *fixture, b *task) { f.now = f.now.Add(-90 * time.Second) },
			check: func(t *testing.T, sum *Summary, b *task) {
				assert.Equal(t, "1m"+FutureSuffix, sum.SinceLast)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			b := inProgressTask(f)
			tc.setup(f, b)
			sum, err := Status(f.st, "")
			require.NoError(t, err)
			require.Len(t, sum.Warnings, len(tc.want), "warnings: %q", sum.Warnings)
			for i, w := range tc.want {
				assert.Contains(t, sum.Warnings[i], w)
			}
			if tc.check != nil {
				tc.check(t, sum, b)
			}
		})
	}
}

// TestStatusArchivedIgnoresDisk: an archived task is read from its ref;
// a state.json on disk under its old folder is not its uncommitted change.
func TestStatusArchivedIgnoresDisk(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := freshTask(f).planned(twoIndependent).finish("T1").finish("T2")
	b.archive()
	f.writeDisk(b.rel(store.StateFile), "{}\n")
	sum, err := Status(f.st, "login")
	require.NoError(t, err)
	assert.NotEmpty(t, sum.Archive)
	assert.Empty(t, sum.Warnings)
	assert.Empty(t, sum.Undone)
}

// TestStatusErrors checks what Status refuses.
func TestStatusErrors(t *testing.T) {
	t.Parallel()
	t.Run("no task", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		_, err := Status(f.st, "")
		assert.ErrorIs(t, err, store.ErrNoTask)
	})
	t.Run("bad slug", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		_, err := Status(f.st, "Bad/Slug")
		assert.ErrorContains(t, err, "is not a safe folder name")
	})
	t.Run("several tasks, none chosen", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		freshTask(f)
		f.newTask("other", "Other", state.Development)
		_, err := Status(f.st, "")
		assert.ErrorIs(t, err, store.ErrNoTask)
		assert.ErrorContains(t, err, "2 tasks are active (login, other)")
	})
	t.Run("unknown task, not archived", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		freshTask(f)
		_, err := Status(f.st, "nope")
		assert.ErrorIs(t, err, store.ErrNoTask)
		assert.ErrorContains(t, err, `task "nope" not found`)
	})
	t.Run("archive without the task", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		b := freshTask(f)
		// An archive ref at a commit that does not hold the task.
		who := gitstate.Signature{Name: "a", Email: "a@b", When: f.now}
		require.NoError(t, f.repo.SetBranch(store.ArchiveBranchPrefix+"ghost", b.lastCommit.Hash, who, "x"))
		_, err := Status(f.st, "ghost")
		assert.ErrorIs(t, err, store.ErrNoTask)
	})
	t.Run("HEAD unreadable", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		freshTask(f)
		f.repo.Fail("Head", errBoom)
		_, err := Status(f.st, "login")
		assert.ErrorIs(t, err, errBoom)
	})
	t.Run("blob unreadable", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		freshTask(f)
		f.repo.Fail("ReadBlob", errBoom)
		_, err := Status(f.st, "login")
		assert.ErrorIs(t, err, errBoom)
	})
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{42 * time.Second, "42s"},
		{59*time.Second + 999*time.Millisecond, "59s"},
		{time.Minute, "1m"},
		{5*time.Minute + 30*time.Second, "5m"},
		{59 * time.Minute, "59m"},
		{time.Hour, "1h00m"},
		{3*time.Hour + 7*time.Minute, "3h07m"},
		{47*time.Hour + 59*time.Minute, "47h59m"},
		{48 * time.Hour, "2d"},
		{4*24*time.Hour + 23*time.Hour, "4d"},
		{-42 * time.Second, "42s" + FutureSuffix},
		{-3 * time.Hour, "3h00m" + FutureSuffix},
		{-9 * 24 * time.Hour, "9d" + FutureSuffix},
	}
	for _, tc := range tests {
		t.Run(tc.d.String(), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, humanDuration(tc.d))
		})
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "no units planned yet", progressLine(0, 0))
	assert.Equal(t, "0/4 units done, 0% complete", progressLine(0, 4))
	assert.Equal(t, "2/3 units done, 66% complete", progressLine(2, 3))
	assert.Equal(t, "3/3 units done, 100% complete", progressLine(3, 3))
}

func TestProgressOf(t *testing.T) {
	t.Parallel()
	s := state.New(state.Development, "x", "x", "")
	for id, st := range map[string]state.Status{"T1": state.Done, "T2": state.InProgress, "T10": state.Done, "T3": state.Blocked} {
		s.Units[id] = &state.Unit{ID: id, Status: st}
	}
	done, total, unfinished := ProgressOf(s)
	assert.Equal(t, 2, done)
	assert.Equal(t, 4, total)
	assert.Equal(t, []string{"T2 (in_progress)", "T3 (blocked)"}, unfinished, "in natural ID order")

	done, total, unfinished = ProgressOf(state.New(state.Knowledge, "y", "y", ""))
	assert.Zero(t, done)
	assert.Zero(t, total)
	assert.NotNil(t, unfinished)
	assert.Empty(t, unfinished)
}

func TestUnitOf(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := inProgressTask(f)
	tk, err := f.st.Load("login")
	require.NoError(t, err)
	assert.Equal(t, UnitStatus{ID: "T2", Title: "Add the login form", Status: "pending", Max: 5, Depends: []string{"T1"}}, UnitOf(f.st, tk, b.state, "T2"))

	// A unit the plan does not have, and no plan at all.
	s := b.state.Clone()
	s.Units["T7"] = &state.Unit{ID: "T7", Status: state.Blocked, Reason: state.Ptr("why"), IterationsUsed: state.Ptr(2)}
	assert.Equal(t, UnitStatus{ID: "T7", Status: "blocked", Iterations: 2, Reason: "why"}, UnitOf(f.st, tk, s, "T7"))
	tk.Plan = nil
	assert.Equal(t, UnitStatus{ID: "T1", Status: "in_progress", Iterations: 1, Max: 3, StartedAt: "2026-01-14T10:03:00Z"}, UnitOf(f.st, tk, b.state, "T1"))
}

// TestStatusWithoutPlan: units brought in by the log alone have no titles
// or dependencies.
func TestStatusWithoutPlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	freshTask(f).checkpoint("T1", "spike", iterOpts{remaining: "more"})
	sum, err := Status(f.st, "")
	require.NoError(t, err)
	assert.Empty(t, sum.Warnings)
	require.Len(t, sum.Units, 1)
	assert.Equal(t, UnitStatus{ID: "T1", Status: "in_progress", Iterations: 1, StartedAt: "2026-01-14T10:02:00Z"}, sum.Units[0])
	assert.Equal(t, "continue T1 (iteration 2); when its work is done, checkpoint with --signal", sum.NextAction)
}

// TestMentions: a guardrail names a unit as a whole word, the seeds' IDs
// with a hyphen or underscores included.
func TestMentions(t *testing.T) {
	tests := []struct {
		text, unit string
		want       bool
	}{
		{"before IV-A's draft", "IV-A", true},
		{"see (PHASE_3_HIGH_SEVERITY).", "PHASE_3_HIGH_SEVERITY", true},
		{"W2-001: check the cites", "W2-001", true},
		{"T1 needs the key", "T1", true},
		{"IV-A only", "IV", false},
		{"T10 only", "T1", false},
		{"IV-AB only", "IV-A", false},
		{"PHASE_3 only", "PHASE_3_HIGH_SEVERITY", false},
		{"nothing here", "T1", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, mentions(progresslog.Guardrail{When: tt.text}, tt.unit), "%q in %q", tt.unit, tt.text)
	}
}
