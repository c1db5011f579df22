package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/reconcile"
)

func TestLogAgentEvent(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(f *fixture)
		task   string // the store's Task (--task / ITR_TASK)
		event  string
		fields map[string]string
		want   string // the line written
	}{
		{name: "no task: time, event, sorted fields", event: "PreCompact",
			fields: map[string]string{"trigger": "auto", "session": "s-1", "agent": "claude"},
			want:   fixedStamp + " PreCompact agent=claude session=s-1 trigger=auto"},
		{name: "values are made one line and empty ones dropped", event: "PreCompact",
			fields: map[string]string{"b": "  two\n words\there ", "a": " \n ", "c": ""},
			want:   fixedStamp + " PreCompact b=two words here"},
		{name: "no fields", event: "Stop", want: fixedStamp + " Stop"},
		{name: "event and names are one word each; escapes leave the values", event: "Pre\nCompact",
			fields: map[string]string{"a b": "x", "k=v": "y\x1b[31mred", "": "z"},
			want:   fixedStamp + " Pre_Compact _=z a_b=x k_v=y [31mred"},
		{name: "one task without a current unit: its slug", event: "PreCompact",
			setup: func(f *fixture) { f.newTask("auth").planned() },
			want:  fixedStamp + " PreCompact task=auth"},
		{name: "one task with a current unit: slug, unit, status, iterations", event: "PreCompact",
			fields: map[string]string{"trigger": "manual"},
			setup: func(f *fixture) {
				f.newTask("auth").planned().checkpoint("T1", "one", false, "").checkpoint("T1", "two", false, "")
			},
			want: fixedStamp + " PreCompact task=auth unit=T1 status=in_progress iterations=2 trigger=manual"},
		{name: "a confirming unit", event: "PreCompact",
			setup: func(f *fixture) { f.newTask("auth").planned().checkpoint("T1", "one", true, "") },
			want:  fixedStamp + " PreCompact task=auth unit=T1 status=confirming iterations=1"},
		{name: "two tasks: none named", event: "PreCompact",
			setup: func(f *fixture) {
				f.newTask("auth").planned().checkpoint("T1", "one", false, "")
				f.newTask("docs")
			},
			want: fixedStamp + " PreCompact"},
		{name: "the task chosen with --task", event: "PreCompact", task: "docs",
			setup: func(f *fixture) {
				f.newTask("auth").planned().checkpoint("T1", "one", false, "")
				f.newTask("docs").planned().checkpoint("T2", "one", false, "")
			},
			want: fixedStamp + " PreCompact task=docs unit=T2 status=in_progress iterations=1"},
		{name: "a task only on disk: slug but no unit", event: "PreCompact",
			setup: func(f *fixture) { f.writeDisk(taskRoot+"/draft/state.json", "{}\n") },
			want:  fixedStamp + " PreCompact task=draft"},
		{name: "a committed state.json that does not parse: slug only", event: "PreCompact",
			setup: func(f *fixture) {
				f.newTask("auth").breakState()
			},
			want: fixedStamp + " PreCompact task=auth"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixtureFor(t, tc.task, tc.setup)
			require.NoError(t, LogAgentEvent(f.st, tc.event, tc.fields))
			logPath := f.fake.WorktreeItrPath(AgentLogFile)
			assert.Equal(t, tc.want+"\n", readOrEmpty(t, logPath))

			// A second event is appended after the first.
			require.NoError(t, LogAgentEvent(f.st, "Stop", nil))
			lines := strings.Split(strings.TrimSuffix(readOrEmpty(t, logPath), "\n"), "\n")
			require.Len(t, lines, 2)
			assert.Equal(t, tc.want, lines[0])
			assert.True(t, strings.HasPrefix(lines[1], fixedStamp+" Stop"), lines[1])
		})
	}
}

func TestLogAgentEventErrors(t *testing.T) {
	t.Run("the log cannot be opened", func(t *testing.T) {
		f := newFixture(t)
		logPath := f.fake.WorktreeItrPath(AgentLogFile)
		require.NoError(t, os.Mkdir(logPath, 0o755))
		err := LogAgentEvent(f.st, "PreCompact", nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "open "+logPath)
	})
	t.Run("the log's folder is missing", func(t *testing.T) {
		f := newFixture(t)
		logPath := filepath.Join(t.TempDir(), "gone", AgentLogFile)
		err := LogAgentEvent(f.wrap(&wrapped{itrPath: logPath}), "PreCompact", nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), logPath)
	})
	t.Run("the write fails", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full")
		}
		f := newFixture(t)
		err := LogAgentEvent(f.wrap(&wrapped{itrPath: "/dev/full"}), "PreCompact", map[string]string{"a": "b"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "write /dev/full")
	})
}

func TestUnrecordedWork(t *testing.T) {
	tests := []struct {
		name    string
		task    string // the store's Task
		setup   func(f *fixture)
		want    string   // exact message, when set
		wantHas []string // parts of the message
		wantErr string
	}{
		{name: "no task: error", wantErr: "no task"},
		{name: "two tasks: error", wantErr: "2 tasks are active",
			setup: func(f *fixture) { f.newTask("auth"); f.newTask("docs") }},
		{name: "a unit under way with one work commit", setup: func(f *fixture) {
			f.newTask("auth").planned().checkpoint("T1", "one", false, "")
			f.workCommit("add the model")
		}, want: "1 work commit(s) since the last checkpoint of T1 (in_progress) are not recorded in task auth. " +
			"Record them before stopping: itr checkpoint T1 --did \"what this iteration did\" (add --signal when the unit's work is done)."},
		{name: "two work commits while confirming", setup: func(f *fixture) {
			f.newTask("auth").planned().checkpoint("T1", "one", true, "")
			f.workCommit("fix a")
			f.workCommit("fix b")
		}, wantHas: []string{"2 work commit(s) since the last checkpoint of T1 (confirming)", "itr checkpoint T1 "}},
		{name: "verifying", setup: func(f *fixture) {
			f.newTask("auth").planned().checkpoint("T1", "one", true, "").checkpoint("T1", "two", true, "")
			f.workCommit("fix a")
		}, wantHas: []string{"1 work commit(s) since the last checkpoint of T1 (verifying)"}},
		{name: "under way, no work commit since the checkpoint", setup: func(f *fixture) {
			f.workCommit("before")
			f.newTask("auth").planned().checkpoint("T1", "one", false, "")
		}},
		{name: "no current unit", setup: func(f *fixture) {
			f.newTask("auth").planned()
			f.workCommit("exploring")
		}},
		{name: "the current unit is done", setup: func(f *fixture) {
			f.newTask("auth").planned().checkpoint("T1", "one", true, "").checkpoint("T1", "two", true, "").
				checkpoint("T1", "review", false, "passed")
			f.workCommit("after")
		}},
		{name: "the current unit is blocked", setup: func(f *fixture) {
			f.newTask("auth").planned().checkpoint("T1", "one", false, "").block("T1", "waits for keys")
			f.workCommit("after")
		}},
		{name: "another task's itr commits are not work", task: "auth", setup: func(f *fixture) {
			f.newTask("auth").planned().checkpoint("T1", "one", false, "")
			f.workCommit("mine")
			f.newTask("docs").planned().checkpoint("T2", "theirs", false, "")
		}, wantHas: []string{"1 work commit(s) since the last checkpoint of T1 (in_progress) are not recorded in task auth."}},
		{name: "the chosen task is not committed: error", task: "ghost",
			setup: func(f *fixture) { f.newTask("auth") }, wantErr: "ghost"},
		{name: "a task only on disk in an empty repository: error", wantErr: "no commits yet",
			setup: func(f *fixture) { f.writeDisk(taskRoot+"/draft/state.json", "{}\n") }},
		{name: "a committed state.json that does not parse: nothing", setup: func(f *fixture) {
			f.newTask("auth").breakState()
			f.workCommit("after")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixtureFor(t, tc.task, tc.setup)
			got, err := UnrecordedWork(f.st, pureAdvice(f.st))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			switch {
			case tc.want != "":
				assert.Equal(t, tc.want, got)
			case len(tc.wantHas) > 0:
				for _, s := range tc.wantHas {
					assert.Contains(t, got, s)
				}
			default:
				assert.Empty(t, got)
			}
		})
	}
}

func TestUnrecordedWorkHistoryFails(t *testing.T) {
	f := newFixture(t)
	f.newTask("auth").planned().checkpoint("T1", "one", false, "")
	f.workCommit("add the model")
	f.fake.Fail("History", errBoom)
	got, err := UnrecordedWork(f.st, pureAdvice(f.st))
	require.ErrorIs(t, err, errBoom)
	assert.Empty(t, got)
}

// TestCompactionMark: the pre-compact hook marks the compaction with the
// session's id; the next prompt of that session takes it, once; a mark
// another session left waits for that one.
func TestCompactionMark(t *testing.T) {
	t.Run("marked, then taken exactly once", func(t *testing.T) {
		f := newFixture(t)
		assert.False(t, CompactionPending(f.st, "s-1"), "nothing marked yet")
		assert.False(t, TakeCompaction(f.st, "s-1"))
		require.NoError(t, MarkCompacted(f.st, "s-1"))
		data, err := os.ReadFile(f.st.Repo.WorktreeItrPath(CompactedFile))
		require.NoError(t, err)
		assert.Equal(t, "s-1\n", string(data))
		assert.True(t, CompactionPending(f.st, "s-1"))
		assert.True(t, CompactionPending(f.st, "s-1"), "looking does not take it")
		assert.True(t, TakeCompaction(f.st, "s-1"))
		assert.False(t, CompactionPending(f.st, "s-1"))
		assert.False(t, TakeCompaction(f.st, "s-1"), "the second prompt gets nothing")
		_, err = os.Stat(f.st.Repo.WorktreeItrPath(CompactedFile))
		assert.True(t, os.IsNotExist(err), "the mark is gone")
	})
	for _, tc := range []struct {
		name  string
		steps []compactionStep
	}{
		{"another session's mark stays for it", []compactionStep{
			mark("s-1"), pending("s-2", false), take("s-2", false), take("s-1", true)}},
		{"no session id on either side matches", []compactionStep{
			mark(""), take("s-9", true), mark("s-1"), take("", true)}},
		{"a second compaction marks again", []compactionStep{
			mark("s-1"), mark("s-1"), take("s-1", true), take("s-1", false), mark("s-1"), take("s-1", true)}},
		{"an id is kept to one line", []compactionStep{
			mark("s\n-1"), pending("s -1", true), pending(" s\n-1 ", true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for i, step := range tc.steps {
				switch step.op {
				case "mark":
					require.NoError(t, MarkCompacted(f.st, step.id), "step %d", i)
				case "take":
					assert.Equal(t, step.want, TakeCompaction(f.st, step.id), "step %d: take %q", i, step.id)
				default:
					assert.Equal(t, step.want, CompactionPending(f.st, step.id), "step %d: pending %q", i, step.id)
				}
			}
		})
	}
	t.Run("an unwritable git folder is an error", func(t *testing.T) {
		f := newFixture(t)
		st := f.wrap(&wrapped{itrPath: filepath.Join(t.TempDir(), "missing", CompactedFile)})
		require.ErrorContains(t, MarkCompacted(st, "s-1"), "write ")
		assert.False(t, CompactionPending(st, "s-1"))
	})
}

// newFixtureFor is a fixture set up by setup (when not nil) whose store
// has task as the --task the command was given.
func newFixtureFor(t *testing.T, task string, setup func(*fixture)) *fixture {
	t.Helper()
	f := newFixture(t)
	if setup != nil {
		setup(f)
	}
	f.st.Task = task
	return f
}

// compactionStep is one call of a compaction test: mark (MarkCompacted),
// take (TakeCompaction) or pending (CompactionPending), the session id,
// and what take and pending must answer.
type compactionStep struct {
	op, id string
	want   bool
}

func mark(id string) compactionStep { return compactionStep{op: "mark", id: id} }

func take(id string, want bool) compactionStep {
	return compactionStep{op: "take", id: id, want: want}
}

func pending(id string, want bool) compactionStep {
	return compactionStep{op: "pending", id: id, want: want}
}

// pureAdvice is the rule book's advice for the hook, read from the view
// and the plan alone (the CLI's, with everything status reads, is
// workspace.UnrecordedWork's; its scenarios cover it).
func pureAdvice(st *store.Store) func(string) (Advice, error) {
	return func(slug string) (Advice, error) {
		t, err := st.LoadLight(slug)
		if err != nil {
			return Advice{}, err
		}
		adv := reconcile.AdviseIn(t.State, t.Plan, reconcile.Situation{})
		if adv.Hold != nil {
			return Advice{Hold: string(adv.Hold.Code)}, nil
		}
		for _, o := range adv.Offers {
			if o.Op == reconcile.OpCheckpoint && o.For != reconcile.MoveStart {
				cmd := "itr checkpoint " + o.Unit + ` --did "what this iteration did"`
				if o.For == reconcile.MoveContinue {
					cmd += " (add --signal when the unit's work is done)"
				}
				return Advice{Unit: o.Unit, Command: cmd}, nil
			}
		}
		return Advice{}, nil
	}
}
