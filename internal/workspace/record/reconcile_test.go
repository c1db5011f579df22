package record_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// plainCommit commits one file as a person does with git, without itr.
func (w *world) plainCommit(rel, data, msg string) {
	w.t.Helper()
	w.write(rel, data)
	if w.fake == nil {
		w.git("add", rel)
		w.git("commit", "-q", "-m", msg)
		return
	}
	_, err := w.fake.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{{Path: rel, Data: []byte(data)}},
		Message: msg + "\n", When: w.now, Expect: w.head(), Worktree: true})
	require.NoError(w.t, err)
}

// Reconcile rebuilds state.json from the log by the rule "trust git over
// state": what it finds, what it commits, and that a second run finds
// nothing.
func TestReconcile(t *testing.T) {
	stateRel := dir + "/" + store.StateFile
	progressRel := dir + "/" + store.ProgressFile
	cases := []struct {
		name string
		// setup breaks the task; it returns what reconcile must find.
		setup   func(w *world)
		opts    record.ReconcileOptions
		commits int          // commits reconcile makes
		adopted int          // entries adopted
		found   string       // a discrepancy's text, "" for none
		t1      state.Status // T1 after reconcile, as committed
	}{
		{"a healthy task: nothing to do", func(w *world) {
			w.record(w.iteration("T1", 1, "wrote the model", false))
		}, record.ReconcileOptions{}, 0, 0, "", state.InProgress},
		{"a record stopped before its commit: its entry is adopted", func(w *world) {
			w.tick()
			w.write(progressRel, w.read(progressRel)+"\n## T1 - Iteration 1 - 2026-03-02T09:05:00Z\n**Did:** wrote the model\n**Remaining:** none\n**Blockers:** none\n")
		}, record.ReconcileOptions{}, 1, 1, "current_task", state.InProgress},
		{"two entries appended by hand: both adopted, counted past the committed lines", func(w *world) {
			w.record(w.iteration("T1", 1, "wrote the model", false))
			w.tick()
			w.write(progressRel, w.read(progressRel)+"\n## T1 - Iteration 2 - 2026-03-02T09:05:00Z\n**Did:** more\n**Remaining:** none\n**Blockers:** none\n"+
				"\n## T1 - Iteration 3 - 2026-03-02T09:06:00Z\n**Did:** more still\n**Remaining:** none\n**Blockers:** none\n")
		}, record.ReconcileOptions{}, 1, 2, "T1", state.Timeout}, // T1 may take three iterations
		{"text appended to the last entry by hand: one adopted", func(w *world) {
			w.record(w.iteration("T1", 1, "wrote the model", false))
			w.tick()
			w.write(progressRel, w.read(progressRel)+"A line added by hand.\n")
		}, record.ReconcileOptions{}, 1, 1, "", state.InProgress},
		{"state.json committed stale by hand: rebuilt from the log", func(w *world) {
			stale := w.read(stateRel)
			w.record(w.iteration("T1", 1, "wrote the model", false))
			w.plainCommit(stateRel, stale, "restore an old state.json")
		}, record.ReconcileOptions{}, 1, 0, "T1", state.InProgress},
		{"--check reports and writes nothing", func(w *world) {
			stale := w.read(stateRel)
			w.record(w.iteration("T1", 1, "wrote the model", false))
			w.plainCommit(stateRel, stale, "restore an old state.json")
		}, record.ReconcileOptions{Check: true}, 0, 0, "T1", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			each(t, func(t *testing.T, w *world) {
				c.setup(w)
				n := w.commits()
				disk := w.read(stateRel)
				opts := c.opts
				opts.Slug = slug
				rep, err := record.Reconcile(w.st, opts)
				require.NoError(t, err)
				assert.Equal(t, n+c.commits, w.commits(), "commits made")
				assert.Equal(t, c.adopted, rep.Adopted)
				if c.found == "" {
					assert.Empty(t, rep.Discrepancies)
				} else {
					require.NotEmpty(t, rep.Discrepancies)
					var texts []string
					for _, d := range rep.Discrepancies {
						texts = append(texts, d.String())
					}
					assert.Contains(t, strings.Join(texts, "\n"), c.found)
				}
				if c.commits == 0 {
					assert.Equal(t, disk, w.read(stateRel), "state.json stays")
					assert.Empty(t, rep.Commit)
					return
				}
				assert.Equal(t, w.head(), rep.Commit)
				assert.Contains(t, w.committed(progressRel), " - Reconciled - ", "the log says what reconcile found")
				s, err := state.Decode([]byte(w.committed(stateRel)))
				require.NoError(t, err)
				assert.Equal(t, c.t1, s.Units["T1"].Status)
				w.checkGit()
				again, err := record.Reconcile(w.st, record.ReconcileOptions{Slug: slug})
				require.NoError(t, err)
				assert.True(t, again.Clean(), "a second reconcile finds nothing: %+v", again)
				assert.Equal(t, rep.Commit, w.head())
			})
		})
	}
}

// record runs one record and requires it to land.
func (w *world) record(build func(*store.Task) (*record.Change, error)) *record.Outcome {
	w.t.Helper()
	w.tick()
	out, err := record.Record(w.st, slug, build)
	require.NoError(w.t, err)
	return out
}

// The note a migrating write carries names both schema versions.
func TestMigrationNote(t *testing.T) {
	assert.Contains(t, record.MigrationNote(0), "schema_version absent →")
	assert.Contains(t, record.MigrationNote(1), "schema_version 1 →")
}

// Inside a merge whose two sides each recorded T1's first iteration,
// reconcile joins the logs, rebuilds the view, and stages itr's files, so
// `git commit` concludes the merge with nothing lost.
func TestReconcileResolvesAMerge(t *testing.T) {
	for _, kind := range []string{"native", "git"} {
		t.Run(kind, func(t *testing.T) {
			w := newWorld(t, kind)
			w.seed()
			base := w.head()
			w.record(w.iteration("T1", 1, "on main", false))
			w.git("checkout", "-q", "-b", "side", base)
			w.record(w.iteration("T1", 1, "on the side", false))
			w.git("checkout", "-q", "main")
			_, err := w.gitErr("merge", "-q", "--no-edit", "side")
			require.Error(t, err, "the logs conflict")

			rep, err := record.Reconcile(w.st, record.ReconcileOptions{Slug: slug})
			require.NoError(t, err)
			assert.Equal(t, "merge", rep.Operation)
			assert.Contains(t, rep.Staged, dir+"/"+store.ProgressFile)
			assert.Empty(t, rep.Unresolved)
			w.git("commit", "-q", "--no-edit")
			log := w.committed(dir + "/" + store.ProgressFile)
			assert.Contains(t, log, "on main")
			assert.Contains(t, log, "on the side")
			assert.NotContains(t, log, "<<<<<<<")
			w.checkGit()
			again, err := record.Reconcile(w.st, record.ReconcileOptions{Slug: slug})
			require.NoError(t, err)
			assert.True(t, again.Clean(), "%+v", again)
		})
	}
}
