package record_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// Each record is one commit that holds the entry, the view the reducer
// steps to, and itr's trailers; the plan's checkboxes follow the view.
func TestRecordIsOneCommit(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		lesson := func(*store.Task) (*record.Change, error) {
			return &record.Change{Event: store.EventGuardrail, Subject: "guardrail: run the tests",
				Guardrail: &progresslog.Guardrail{Name: "Run the tests", When: "before a signal", Problem: "untested code", Solution: "go test ./...", Learned: "T1"}}, nil
		}
		steps := []struct {
			name   string
			build  func(*store.Task) (*record.Change, error)
			unit   string
			status state.Status
			want   map[string]string // trailers besides Itr-Task and Itr-Log
			file   string            // a file of the task the commit must hold
			holds  string            // what that file holds
		}{
			{"first iteration", w.iteration("T1", 1, "wrote the model", false), "T1", state.InProgress,
				map[string]string{"Itr-Event": "iteration", "Itr-Unit": "T1", "Itr-Iteration": "1", "Itr-Status": "in_progress"},
				store.ProgressFile, "## T1 - Iteration 1 - "},
			{"a lesson", lesson, "T1", state.InProgress,
				map[string]string{"Itr-Event": "guardrail"}, store.GuardrailsFile, "Run the tests"},
			{"the work is done", w.iteration("T1", 2, "tested the model", true), "T1", state.Confirming,
				map[string]string{"Itr-Event": "iteration", "Itr-Unit": "T1", "Itr-Iteration": "2", "Itr-Status": "confirming"},
				store.ProgressFile, "**Signal:** T1_DONE"},
		}
		for _, step := range steps {
			w.tick()
			before := w.commits()
			out, err := record.Record(w.st, slug, step.build)
			require.NoError(t, err, step.name)
			assert.Equal(t, before+1, w.commits(), "%s: one commit", step.name)
			assert.Equal(t, w.head(), out.Commit, step.name)
			assert.Equal(t, step.status, out.After.Units[step.unit].Status, step.name)
			assert.Equal(t, string(out.After.Encode()), w.committed(dir+"/"+store.StateFile), "%s: state.json is the view after", step.name)
			assert.Contains(t, w.committed(dir+"/"+step.file), step.holds, step.name)
			c := w.lastCommit()
			got := map[string]string{}
			for _, tr := range c.Trailers {
				got[tr.Key] = tr.Value
			}
			want := map[string]string{"Itr-Task": slug, "Itr-Log": store.LogDigest([]byte(w.committed(dir + "/" + store.ProgressFile)))}
			if step.want["Itr-Event"] != "iteration" {
				delete(want, "Itr-Log") // no log written, no digest
			}
			for k, v := range step.want {
				want[k] = v
			}
			assert.Equal(t, want, got, step.name)
			assert.True(t, strings.HasPrefix(c.Message, "itr("+slug+"): "), "%s: subject %q", step.name, c.Message)
			w.checkGit()
		}
	})
}

// A record also commits what the agent wrote in the task folder, and the
// plan's checkbox follows a unit that is done.
func TestRecordTakesTheFolderAlong(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		w.write(dir+"/context.md", "# Context\n\nThe model lives in model.go.\n")
		out, err := record.Record(w.st, slug, w.iteration("T1", 1, "wrote the model", false))
		require.NoError(t, err)
		assert.Contains(t, out.Files, dir+"/context.md")
		assert.Equal(t, "# Context\n\nThe model lives in model.go.\n", w.committed(dir+"/context.md"))
		w.checkGit()
	})
}

// A refused record changes nothing: HEAD, the commits and the task's
// files stay as they were, and the message names the fix.
func TestRefusedRecordChangesNothing(t *testing.T) {
	refused := errors.New("the rule book refuses")
	cases := []struct {
		name  string
		setup func(w *world)
		build func(w *world) func(*store.Task) (*record.Change, error)
		is    error
		want  []string
	}{
		{"the change is refused", nil,
			func(*world) func(*store.Task) (*record.Change, error) {
				return func(*store.Task) (*record.Change, error) { return nil, refused }
			}, refused, nil},
		{"a git merge is in progress", func(w *world) { w.operation("merge") },
			func(w *world) func(*store.Task) (*record.Change, error) { return w.iteration("T1", 1, "x", false) },
			nil, []string{"a git merge is in progress", "itr reconcile", "git merge --continue"}},
		{"state.json edited by hand", func(w *world) { w.write(dir+"/state.json", w.read(dir+"/state.json")+" ") },
			func(w *world) func(*store.Task) (*record.Change, error) { return w.iteration("T1", 1, "x", false) },
			nil, []string{dir + "/state.json has uncommitted changes", "itr reconcile", "git checkout -- " + dir + "/state.json"}},
		{"progress.md deleted", func(w *world) { require.NoError(w.t, os.Remove(filepath.Join(w.dir, dir, "progress.md"))) },
			func(w *world) func(*store.Task) (*record.Change, error) { return w.iteration("T1", 1, "x", false) },
			nil, []string{dir + "/progress.md", "itr reconcile"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			each(t, func(t *testing.T, w *world) {
				if c.setup != nil {
					c.setup(w)
				}
				head, n := w.head(), w.commits()
				progress, _ := os.ReadFile(filepath.Join(w.dir, dir, "progress.md"))
				_, err := record.Record(w.st, slug, c.build(w))
				require.Error(t, err)
				if c.is != nil {
					assert.ErrorIs(t, err, c.is)
				}
				for _, part := range c.want {
					assert.Contains(t, err.Error(), part)
				}
				assert.Equal(t, head, w.head(), "HEAD stays")
				assert.Equal(t, n, w.commits())
				after, _ := os.ReadFile(filepath.Join(w.dir, dir, "progress.md"))
				assert.Equal(t, string(progress), string(after), "progress.md stays")
			})
		})
	}
}

// operation puts the repository in the middle of a git operation, as git
// leaves it while a merge waits for its conflicts.
func (w *world) operation(op string) {
	w.t.Helper()
	if w.fake != nil {
		w.fake.SetOperation(op, w.head())
		return
	}
	name := map[string]string{"merge": "MERGE_HEAD", "cherry-pick": "CHERRY_PICK_HEAD", "revert": "REVERT_HEAD"}[op]
	gitDir := strings.TrimSpace(w.git("rev-parse", "--absolute-git-dir"))
	require.NoError(w.t, os.WriteFile(filepath.Join(gitDir, name), []byte(w.head()+"\n"), 0o644))
}

// The locks refuse in a git operation, and a lock let go is taken again.
func TestLock(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		unlock, err := record.Lock(w.st)
		require.NoError(t, err)
		unlock()
		unlock, err = record.LockIdle(w.st)
		require.NoError(t, err)
		unlock()
		w.operation("cherry-pick")
		_, err = record.LockIdle(w.st)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "git cherry-pick --continue")
		assert.Error(t, record.NoOperation(w.st))
		unlock, err = record.Lock(w.st) // reconcile resolves inside an operation
		require.NoError(t, err)
		unlock()
	})
}

// The fields of a request are named in their domain's words, with the fix.
func TestFieldErrors(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		field  string
		worded string
	}{
		{"required", record.Required("did", "say what this iteration did"), "did", "--did is required: say what this iteration did"},
		{"a NUL byte", record.PlainText(100, "did", "ok", "reason", "a\x00b"), "reason", "--reason holds a NUL byte"},
		{"over the limit", record.PlainText(10, "did", "ok", "why", "eleven byte"), "why", "--why is 11 bytes, over the limit of 10 bytes for one field of an entry: shorten it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var fe *record.FieldError
			require.ErrorAs(t, c.err, &fe)
			assert.Equal(t, c.field, fe.Field)
			assert.True(t, strings.HasPrefix(fe.Worded("--"+fe.Field), c.worded), fe.Worded("--"+fe.Field))
			assert.True(t, strings.HasPrefix(fe.Error(), c.field+" "), "MCP words the field by its name: %q", fe.Error())
		})
	}
	assert.NoError(t, record.PlainText(10, "did", "plain", "reason", "text", "why", "ten bytes!"))
}

// RetryMoved redoes an operation that lost the race for the branch, and
// only that: any other outcome is returned at once.
func TestRetryMoved(t *testing.T) {
	moved := fmt.Errorf("commit: %w: main is at abc, expected def", gitstate.ErrHeadMoved)
	other := errors.New("disk full")
	cases := []struct {
		name    string
		results []error // what the op returns, call by call; the last repeats
		calls   int
		err     error
	}{
		{"succeeds at once", []error{nil}, 1, nil},
		{"moved three times, then lands", []error{moved, moved, moved, nil}, 4, nil},
		{"another error is not retried", []error{other}, 1, other},
		{"moved, then another error", []error{moved, other}, 2, other},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			out, err := record.RetryMoved(func() (int, error) {
				calls++
				err := c.results[min(calls, len(c.results))-1]
				if err != nil {
					return -1, err
				}
				return calls, nil
			})
			assert.Equal(t, c.calls, calls)
			if c.err != nil {
				assert.ErrorIs(t, err, c.err)
				assert.Equal(t, -1, out)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.calls, out)
		})
	}
}
