package view

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

func TestNext(t *testing.T) {
	t.Parallel()
	timeOut := func(b *task, unit string, n int) *task {
		for i := 0; i < n; i++ {
			b.checkpoint(unit, "tried", iterOpts{})
		}
		return b
	}
	tests := []struct {
		name    string
		build   func(f *fixture) *task
		want    NextInfo
		wantErr string
		// wantReason is the start of the hold's reason, when it holds.
		wantReason string
	}{
		{
			name:  "first ready unit",
			build: plannedTask,
			want:  NextInfo{Unit: "T1", Title: "Add the user model", Status: "pending", Reasons: []string{}},
		},
		{
			name:  "the current unit before a ready one",
			build: inProgressTask,
			want:  NextInfo{Unit: "T1", Title: "Add the user model", Status: "in_progress", Reasons: []string{}},
		},
		{
			name:  "a ready unit when the current one is blocked",
			build: func(f *fixture) *task { return inProgressTask(f).block("T1", "x") },
			want:  NextInfo{Unit: "T3", Title: "Write the docs", Status: "pending", Reasons: []string{}},
		},
		{
			name: "a unit without a plan has no title",
			build: func(f *fixture) *task {
				return freshTask(f).checkpoint("T1", "spike", iterOpts{})
			},
			want: NextInfo{Unit: "T1", Status: "in_progress", Reasons: []string{}},
		},
		{
			name:  "no units",
			build: freshTask,
			want:  NextInfo{Reasons: []string{"no units: write tasks.md and run `itr plan`"}},
		},
		{
			name:  "no phases",
			build: func(f *fixture) *task { return f.newTask("survey", "Survey", state.Knowledge) },
			want:  NextInfo{Reasons: []string{"no units: write plan.md and run `itr plan`"}},
		},
		{
			name: "blocked",
			build: func(f *fixture) *task {
				return freshTask(f).planned(twoIndependent).block("T1", "needs a key").block("T2", "no access")
			},
			want: NextInfo{Reasons: []string{"T1 is blocked: needs a key", "T2 is blocked: no access"}},
		},
		{
			name: "timed out and waiting",
			build: func(f *fixture) *task {
				return timeOut(plannedTask(f), "T1", 3).finish("T3")
			},
			want: NextInfo{Reasons: []string{
				"T1 used all 3 iterations (raise Max iterations, then `itr plan`)",
				"T2 waits for T1 (timeout)",
			}},
		},
		{
			name: "a started unit that is no longer current is still the next",
			build: func(f *fixture) *task {
				return plannedTask(f).checkpoint("T1", "started", iterOpts{}).finish("T3")
			},
			want: NextInfo{Unit: "T1", Title: "Add the user model", Status: "in_progress", Reasons: []string{}},
		},
		{
			name: "all done",
			build: func(f *fixture) *task {
				return freshTask(f).planned(twoIndependent).finish("T1").finish("T2")
			},
			want: NextInfo{Reasons: []string{"every unit is done"}},
		},
		{
			name: "state.json unreadable",
			build: func(f *fixture) *task {
				b := plannedTask(f)
				f.plainCommit("break", true, gitstate.FileChange{Path: b.rel(store.StateFile), Data: []byte("[]")})
				return b
			},
			wantReason: ".claude/iterative/login/state.json: state.json must be a JSON object",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			tc.build(f)
			got, err := Next(f.st, "")
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			if tc.wantReason != "" {
				require.Len(t, got.Reasons, 1)
				assert.True(t, strings.HasPrefix(got.Reasons[0], tc.wantReason), got.Reasons[0])
				assert.Contains(t, got.Reasons[0], "`itr reconcile` rebuilds it from the log")
				assert.Equal(t, "itr reconcile", got.Hold.Command)
				return
			}
			got.Next, got.Actions, got.Hold = "", nil, nil // the advice's own tests cover these
			assert.Equal(t, tc.want, *got)
		})
	}
}

func TestNextErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := Next(f.st, "")
	assert.ErrorIs(t, err, store.ErrNoTask)
	_, err = Next(f.st, "-bad")
	assert.ErrorContains(t, err, "not a safe folder name")
	_, err = Next(f.st, "login")
	assert.ErrorContains(t, err, "no commits yet")

	freshTask(f)
	_, err = Next(f.st, "other")
	assert.ErrorIs(t, err, store.ErrNoTask)
}

// logOf returns the events and units of rows, newest first, as "event unit".
func logOf(rows []LogRow) []string {
	out := []string{}
	for _, r := range rows {
		s := r.Event
		if r.Unit != "" {
			s += " " + r.Unit + "#" + r.Iteration + " " + r.Status
		}
		out = append(out, s)
	}
	return out
}

func TestLog(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// An older commit naming the slug, before the task's Created commit:
	// the walk stops at Created and never reaches it.
	f.plainCommit("itr(login): an older life\n\nItr-Task: login\nItr-Event: iteration\n", true,
		gitstate.FileChange{Path: "README.md", Data: []byte("hi\n")})
	b := freshTask(f)
	created := b.lastCommit
	other := f.newTask("other", "Other", state.Development)
	b.planned(threeUnits)
	f.plainCommit("work on the model", true, gitstate.FileChange{Path: "model.go", Data: []byte("package m\n")})
	b.checkpoint("T1", "model", iterOpts{})
	other.checkpoint("T1", "other work", iterOpts{})
	b.checkpoint("T1", "model done", iterOpts{signal: true})

	rows, err := Log(f.st, "login", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"iteration T1#2 confirming", "iteration T1#1 in_progress", "planned", "created"}, logOf(rows))
	assert.Equal(t, b.lastCommit.Hash, rows[0].Commit)
	assert.Equal(t, "itr(login): T1 iteration 2: model done", rows[0].Subject)
	assert.Equal(t, "2026-01-14T10:08:00Z", rows[0].Time)
	assert.Equal(t, created.Hash, rows[3].Commit)
	assert.Equal(t, "itr(login): start task Login page", rows[3].Subject)

	rows, err = Log(f.st, "login", 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"iteration T1#2 confirming", "iteration T1#1 in_progress"}, logOf(rows))

	rows, err = Log(f.st, "login", 4)
	require.NoError(t, err)
	assert.Len(t, rows, 4, "a limit of exactly the history")

	rows, err = Log(f.st, "other", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"iteration T1#1 in_progress", "created"}, logOf(rows))

	// The task chosen when only one is active.
	f2 := newFixture(t)
	freshTask(f2)
	rows, err = Log(f2.st, "", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"created"}, logOf(rows))
}

func TestLogArchived(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := freshTask(f).planned(twoIndependent).finish("T1").finish("T2")
	b.archive()
	// Work after the archive, on the branch the task left.
	f.plainCommit("later", true, gitstate.FileChange{Path: "later.txt", Data: []byte("x")})

	rows, err := Log(f.st, "login", 0)
	require.NoError(t, err)
	// Read from the archive ref: the Archived entry's commit first, not
	// the commit that removed the folder.
	assert.Equal(t, []string{"archived",
		"iteration T2#3 done", "iteration T2#2 verifying", "iteration T2#1 confirming",
		"iteration T1#3 done", "iteration T1#2 verifying", "iteration T1#1 confirming",
		"planned", "created"}, logOf(rows))
	assert.Equal(t, "itr(login): archive", rows[0].Subject)

	rows, err = Log(f.st, "login", 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"archived"}, logOf(rows))
}

func TestLogEdges(t *testing.T) {
	t.Parallel()
	t.Run("no commits yet", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		rows, err := Log(f.st, "login", 0)
		require.NoError(t, err)
		assert.NotNil(t, rows)
		assert.Empty(t, rows)
	})
	t.Run("never existed", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		freshTask(f)
		rows, err := Log(f.st, "ghost", 0)
		require.NoError(t, err)
		assert.Empty(t, rows, "the whole history is walked, nothing names the slug")
	})
	t.Run("bad slug", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		_, err := Log(f.st, "A", 0)
		assert.ErrorContains(t, err, "not a safe folder name")
	})
	t.Run("no task chosen", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		_, err := Log(f.st, "", 0)
		assert.ErrorIs(t, err, store.ErrNoTask)
	})
	for _, method := range []string{"Head", "ListFiles", "History"} {
		t.Run(method+" fails", func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			freshTask(f)
			f.repo.Fail(method, errBoom)
			_, err := Log(f.st, "login", 0)
			assert.ErrorIs(t, err, errBoom)
		})
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	who := gitstate.Signature{Name: "a", Email: "a@b", When: f.now}

	// Two active tasks.
	login := inProgressTask(f)
	f.newTask("notes", "Notes", state.Knowledge).planned(knowledgePlan).finish("R1")
	// An active task whose committed state.json is broken.
	broken := f.newTask("broken", "Broken", state.Development)
	f.plainCommit("break", true, gitstate.FileChange{Path: broken.rel(store.StateFile), Data: []byte("{")})
	// A folder that looks like a task but was never committed.
	f.writeDisk(taskRoot+"/draft/progress.md", "# Progress Log\n")
	// A folder that is no task, and the archive folder: not listed.
	f.writeDisk(taskRoot+"/misc/readme.txt", "x")
	f.writeDisk(taskRoot+"/archive/old/state.json", "{}")

	// An archived task.
	done := f.newTask("done", "Done task", state.Development).planned(twoIndependent).finish("T1").finish("T2")
	tag := done.archive()
	// An archive whose state.json is broken.
	bad := f.newTask("badarch", "Bad archive", state.Development)
	f.plainCommit("break", true, gitstate.FileChange{Path: bad.rel(store.StateFile), Data: []byte("nope")})
	head, err := f.repo.Head()
	require.NoError(t, err)
	require.NoError(t, f.repo.SetBranch(store.ArchiveBranchPrefix+"badarch", head.Hash, who, "x"))
	f.plainCommit("drop", true, gitstate.FileChange{Path: f.st.TaskDir("badarch"), Delete: true})
	// An archive ref at a commit without the task.
	require.NoError(t, f.repo.SetBranch(store.ArchiveBranchPrefix+"ghost", head.Hash, who, "x"))

	rows, err := List(f.st)
	require.NoError(t, err)
	bySlug := map[string]ListRow{}
	var order []string
	for _, r := range rows {
		order = append(order, r.Slug+":"+firstWord(r.State))
		bySlug[r.Slug+"/"+firstWord(r.State)] = r
	}
	assert.Equal(t, []string{
		"broken:.claude/iterative/broken/state.json:", "draft:task", "login:active", "notes:active",
		"badarch:archived", "done:archived", "ghost:archived",
	}, order)

	assert.Equal(t, ListRow{Slug: "login", Task: "Login page", Mode: "development", Phase: "execute", Done: 0, Total: 3,
		LastActivity: state.Val(login.state.Updated), State: "active"}, bySlug["login/active"])
	n := bySlug["notes/active"]
	assert.Equal(t, "knowledge", n.Mode)
	assert.Equal(t, 1, n.Done)
	assert.Equal(t, 2, n.Total)
	assert.Contains(t, bySlug["broken/.claude/iterative/broken/state.json:"].State, "state.json: ")
	assert.Empty(t, bySlug["broken/.claude/iterative/broken/state.json:"].Task)
	assert.Contains(t, bySlug["draft/task"].State, `task "draft" not found`)

	d := bySlug["done/archived"]
	assert.Equal(t, ListRow{Slug: "done", Task: "Done task", Mode: "development", Phase: "complete", Done: 2, Total: 2,
		LastActivity: state.Val(done.state.Updated), State: "archived", Archive: tag, Archives: []string{tag},
		Outcome: &state.Outcome{Result: state.ResultComplete, At: state.Val(done.state.Updated)}}, d)
	assert.Contains(t, bySlug["badarch/archived"].State, "archived in refs/heads/itr/archive/badarch, unreadable: .claude/iterative/badarch/state.json")
	assert.Equal(t, "refs/heads/itr/archive/badarch", bySlug["badarch/archived"].Archive)
	assert.Contains(t, bySlug["ghost/archived"].State, "archived in refs/heads/itr/archive/ghost, unreadable: ")
	assert.Contains(t, bySlug["ghost/archived"].State, `task "ghost" not found`)
}

func firstWord(s string) string {
	for i, r := range s {
		if r == ' ' {
			return s[:i]
		}
	}
	return s
}

func TestListEdges(t *testing.T) {
	t.Parallel()
	t.Run("empty repository", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		rows, err := List(f.st)
		require.NoError(t, err)
		assert.NotNil(t, rows)
		assert.Empty(t, rows)
	})
	t.Run("task root unreadable", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.writeDisk(".claude/iterative", "a file, not a folder")
		_, err := List(f.st)
		assert.ErrorContains(t, err, "read the task root .claude/iterative")
	})
	t.Run("refs unreadable", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		freshTask(f)
		f.repo.Fail("RawRefs", errBoom)
		_, err := List(f.st)
		assert.ErrorIs(t, err, errBoom)
	})
	t.Run("archive unreadable", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		b := freshTask(f).planned(twoIndependent).finish("T1").finish("T2")
		b.archive()
		f.repo.Fail("FolderHashes", errBoom)
		rows, err := List(f.st)
		require.NoError(t, err)
		require.Len(t, rows, 1)
		assert.Equal(t, "archived in refs/tags/itr/archive/login/2026-01-14, unreadable: boom", rows[0].State)
	})
	t.Run("no commits yet", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.writeDisk(taskRoot+"/login/state.json", "{}")
		rows, err := List(f.st)
		require.NoError(t, err)
		require.Len(t, rows, 1)
		assert.Contains(t, rows[0].State, "no commits yet")
		require.NoError(t, os.RemoveAll(f.abs(taskRoot)))
	})
}
