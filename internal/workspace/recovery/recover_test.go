package recovery_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/workspace/recovery"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// The tests play a killed itr run against gitstate/gitfake: the commit is
// made (or not) through the fake, the working tree and the index are left
// as the run left them, the run file is written with Begin, and Recover
// must bring everything back to one side of the commit. Lock files are
// real files, as gitstate.RemoveJournaledLocks works on real files.

const taskRoot = ".claude/iterative"

var when = time.Date(2026, 1, 14, 10, 30, 0, 0, time.UTC)

func fixedClock() time.Time { return when }

var errBoom = errors.New("boom")

// The task's files the tests commit.
const (
	statePath    = taskRoot + "/auth/state.json"
	progressPath = taskRoot + "/auth/progress.md"
	guardPath    = taskRoot + "/auth/guardrails.md"
	planPath     = taskRoot + "/auth/tasks.md"
	oldPath      = taskRoot + "/auth/old.md"
	newPath      = taskRoot + "/auth/new.md"
)

type fixture struct {
	t    *testing.T
	fake *gitfake.Repo
	st   *store.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fake := gitfake.New(filepath.Join(t.TempDir(), "repo"))
	st, err := store.New(fake, taskRoot, store.Config{}, "", fixedClock)
	require.NoError(t, err)
	return &fixture{t: t, fake: fake, st: st}
}

func put(p, data string) gitstate.FileChange {
	return gitstate.FileChange{Path: p, Data: []byte(data)}
}

func del(p string) gitstate.FileChange { return gitstate.FileChange{Path: p, Delete: true} }

// commit commits changes; worktree says whether they reach the disk.
func (f *fixture) commit(worktree bool, changes ...gitstate.FileChange) gitstate.Commit {
	f.t.Helper()
	c, err := f.fake.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: "itr(auth): test\n\nItr-Task: auth\nItr-Event: iteration\n",
		When: when, Worktree: worktree})
	require.NoError(f.t, err)
	return c
}

// base commits the task as it was before the run: C0.
func (f *fixture) base() gitstate.Commit {
	f.t.Helper()
	return f.commit(true, put(statePath, "state 0\n"), put(progressPath, "progress 0\n"),
		put(planPath, "plan 0\n"), put(oldPath, "old\n"))
}

// runChanges are the changes of the killed run: C0 → C1.
func runChanges() []gitstate.FileChange {
	return []gitstate.FileChange{put(statePath, "state 1\n"), put(progressPath, "progress 0\nprogress 1\n"),
		del(oldPath), put(newPath, "new\n")}
}

var runWritten = []string{statePath, progressPath}

func (f *fixture) abs(rel string) string { return f.st.Abs(rel) }

func (f *fixture) writeDisk(rel, data string) {
	f.t.Helper()
	p := f.abs(rel)
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o777))
	require.NoError(f.t, os.WriteFile(p, []byte(data), 0o666))
}

// disk is the content of rel in the working tree; "<none>" when missing.
func (f *fixture) disk(rel string) string {
	f.t.Helper()
	data, err := os.ReadFile(f.abs(rel))
	if os.IsNotExist(err) {
		return "<none>"
	}
	require.NoError(f.t, err)
	return string(data)
}

// index is the content of rel's stage-0 index entry; "<none>" when absent.
func (f *fixture) index(rel string) string {
	f.t.Helper()
	entries, err := f.fake.Staged(rel)
	require.NoError(f.t, err)
	for _, e := range entries {
		if e.Path == rel && e.Stage == 0 {
			data, err := f.fake.ReadBlob(e.Hash)
			require.NoError(f.t, err)
			return string(data)
		}
	}
	return "<none>"
}

func (f *fixture) runFile() string { return f.fake.ItrPath("itr-run") }

func (f *fixture) legacyFile() string { return f.fake.ItrPath("itr-locks") }

// readRun is the run file's content; "<none>" when missing, "" for no
// run (End leaves a lone newline).
func (f *fixture) readRun() string {
	f.t.Helper()
	data, err := os.ReadFile(f.runFile())
	if os.IsNotExist(err) {
		return "<none>"
	}
	require.NoError(f.t, err)
	if string(data) == "\n" {
		return ""
	}
	return string(data)
}

// appendFile appends text to the file p, making it if needed.
func appendFile(t *testing.T, p, text string) {
	t.Helper()
	fh, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = fh.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, fh.Close())
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestBegin(t *testing.T) {
	tests := []struct {
		name    string
		head    string
		changes []gitstate.FileChange
		written []string
		want    map[string]any
	}{
		{name: "a run with changes", head: strings.Repeat("a", 40), changes: runChanges(), written: runWritten,
			want: map[string]any{"head": strings.Repeat("a", 40),
				"paths":   []any{statePath, progressPath, oldPath, newPath},
				"written": []any{statePath, progressPath}}},
		{name: "a first commit: no head, nothing generated", changes: []gitstate.FileChange{put(statePath, "s")},
			want: map[string]any{"head": "", "paths": []any{statePath}, "written": nil}},
		{name: "no changes", head: "h", want: map[string]any{"head": "h", "paths": nil, "written": nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			// A run file left by an earlier run, with a lock journal, is replaced.
			require.NoError(t, os.WriteFile(f.runFile(), []byte(`{"pid":1}`+"\n/x/index.lock 12\n"), 0o644))
			require.NoError(t, recovery.Begin(f.st, tc.head, tc.changes, tc.written))
			data := f.readRun()
			require.True(t, strings.HasSuffix(data, "\n"), "one line: %q", data)
			assert.Equal(t, 1, strings.Count(data, "\n"), "only the run, no journal yet: %q", data)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(data), &got))
			want := map[string]any{"pid": float64(os.Getpid())}
			for k, v := range tc.want {
				want[k] = v
			}
			assert.Equal(t, want, got)
			assert.Equal(t, f.runFile(), f.fake.Journal(), "the repository journals its locks in the run file")
		})
	}
}

func TestBeginCannotWrite(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, os.Mkdir(f.runFile(), 0o755))
	err := recovery.Begin(f.st, "h", runChanges(), runWritten)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "record the run in "+f.runFile())
	assert.Empty(t, f.fake.Journal())
	assert.Zero(t, f.fake.Calls("JournalLocks"), "no journal without a run file")
}

func TestEnd(t *testing.T) {
	t.Run("after Begin: emptied, kept, journal stopped", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, recovery.Begin(f.st, "h", runChanges(), runWritten))
		appendFile(t, f.runFile(), "/x/index.lock 12\n")
		recovery.End(f.st)
		assert.Equal(t, "", f.readRun(), "the file stays, empty")
		assert.Empty(t, f.fake.Journal())
		assert.Equal(t, 2, f.fake.Calls("JournalLocks"))
	})
	t.Run("no run file: none is made", func(t *testing.T) {
		f := newFixture(t)
		recovery.End(f.st)
		assert.Equal(t, "<none>", f.readRun())
		assert.Empty(t, f.fake.Journal())
	})
	t.Run("rewritten in place: a shorter run after a longer one leaves no stale bytes", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, recovery.Begin(f.st, "h", runChanges(), runWritten))
		appendFile(t, f.runFile(), "/x/index.lock 12\n/x/HEAD.lock 13\n")
		recovery.End(f.st)
		data, err := os.ReadFile(f.runFile())
		require.NoError(t, err)
		assert.Equal(t, "\n", string(data), "End cuts the file to one newline, never to nothing")
		require.NoError(t, recovery.Begin(f.st, "h2", nil, nil))
		run := f.readRun()
		assert.Equal(t, 1, strings.Count(run, "\n"), "one line, the run: %q", run)
		assert.Contains(t, run, `"head":"h2"`)
	})
}

// want is what a Recover leaves: files by path, on disk and in the index.
type want struct {
	disk  map[string]string
	index map[string]string
}

func TestRecover(t *testing.T) {
	tests := []struct {
		name string
		// setup plays the killed run and returns what must hold after.
		setup     func(f *fixture) want
		wantStage int  // calls of Stage by Recover
		untouched bool // Recover reads nothing of git and forgets nothing
	}{
		{name: "no run file: nothing", untouched: true, setup: func(f *fixture) want {
			f.base()
			f.writeDisk(statePath, "edited\n")
			return want{disk: map[string]string{statePath: "edited\n"}, index: map[string]string{statePath: "state 0\n"}}
		}},
		{name: "an empty run file: nothing", untouched: true, setup: func(f *fixture) want {
			f.base()
			require.NoError(f.t, os.WriteFile(f.runFile(), nil, 0o644))
			f.writeDisk(statePath, "edited\n")
			return want{disk: map[string]string{statePath: "edited\n"}}
		}},
		{name: "landed: working tree and index completed for the run's paths", wantStage: 1, setup: func(f *fixture) want {
			c0 := f.base()
			require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
			f.commit(false, runChanges()...) // the branch moved; then the run was killed
			// The index as the run had not yet updated it, the disk half written.
			require.NoError(f.t, f.fake.Stage([]gitstate.FileChange{put(statePath, "state 0\n"), put(oldPath, "old\n"), del(newPath)}))
			f.writeDisk(progressPath, "progress 0\nprog")
			f.writeDisk(planPath, "plan edited by the agent\n")
			return want{
				disk: map[string]string{statePath: "state 1\n", progressPath: "progress 0\nprogress 1\n", oldPath: "<none>",
					newPath: "new\n", planPath: "plan edited by the agent\n"},
				index: map[string]string{statePath: "state 1\n", progressPath: "progress 0\nprogress 1\n", oldPath: "<none>",
					newPath: "new\n", planPath: "plan 0\n"},
			}
		}},
		{name: "landed as the first commit of the repository", wantStage: 1, setup: func(f *fixture) want {
			changes := []gitstate.FileChange{put(statePath, "state 0\n"), put(progressPath, "progress 0\n")}
			require.NoError(f.t, recovery.Begin(f.st, "", changes, runWritten))
			f.commit(false, changes...)
			require.NoError(f.t, f.fake.Stage([]gitstate.FileChange{del(statePath), del(progressPath)}))
			return want{disk: map[string]string{statePath: "state 0\n", progressPath: "progress 0\n"},
				index: map[string]string{statePath: "state 0\n", progressPath: "progress 0\n"}}
		}},
		{name: "not landed: the files it generated are put back from HEAD", wantStage: 1, setup: func(f *fixture) want {
			c0 := f.base()
			written := []string{statePath, progressPath, guardPath, taskRoot + "/auth/never-written.md"}
			changes := append(runChanges(), put(guardPath, "lessons\n"))
			require.NoError(f.t, recovery.Begin(f.st, c0.Hash, changes, written))
			f.writeDisk(statePath, "state 1\n")
			f.writeDisk(progressPath, "progress 0\nprogr")
			f.writeDisk(guardPath, "less") // not in HEAD: removed
			f.writeDisk(planPath, "plan edited by the agent\n")
			f.writeDisk(newPath, "the agent's own file\n")
			return want{
				disk: map[string]string{statePath: "state 0\n", progressPath: "progress 0\n", guardPath: "<none>",
					planPath: "plan edited by the agent\n", newPath: "the agent's own file\n", oldPath: "old\n",
					taskRoot + "/auth/never-written.md": "<none>"},
				index: map[string]string{statePath: "state 0\n", progressPath: "progress 0\n", guardPath: "<none>", planPath: "plan 0\n"},
			}
		}},
		{name: "not landed, nothing written yet: no repair", setup: func(f *fixture) want {
			c0 := f.base()
			require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), []string{newPath}))
			return want{disk: map[string]string{statePath: "state 0\n", newPath: "<none>"}}
		}},
		{name: "not landed in an empty repository: generated files removed", wantStage: 1, setup: func(f *fixture) want {
			require.NoError(f.t, recovery.Begin(f.st, "", []gitstate.FileChange{put(statePath, "s\n"), put(planPath, "p\n")}, []string{statePath}))
			f.writeDisk(statePath, "s")
			f.writeDisk(planPath, "p\n")
			return want{disk: map[string]string{statePath: "<none>", planPath: "p\n"}}
		}},
		{name: "HEAD moved on past the run's commit: left alone", setup: func(f *fixture) want {
			c0 := f.base()
			require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
			f.commit(false, runChanges()...)
			f.commit(false, put("src/a.go", "package a\n"))
			return want{disk: map[string]string{statePath: "state 0\n", newPath: "<none>"}}
		}},
		{name: "HEAD elsewhere (a reset): left alone", setup: func(f *fixture) want {
			c0 := f.base()
			c1 := f.commit(true, put("src/a.go", "package a\n"))
			require.NoError(f.t, recovery.Begin(f.st, c1.Hash, runChanges(), runWritten))
			require.NoError(f.t, f.fake.SetBranch("refs/heads/main", c0.Hash, gitstate.Signature{Name: "a", Email: "b"}, "reset"))
			f.writeDisk(statePath, "half")
			return want{disk: map[string]string{statePath: "half"}}
		}},
		{name: "HEAD on an unborn branch: left alone", setup: func(f *fixture) want {
			c0 := f.base()
			require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
			require.NoError(f.t, f.fake.SetHead("refs/heads/orphan"))
			f.writeDisk(statePath, "half")
			return want{disk: map[string]string{statePath: "half"}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			w := tc.setup(f)
			stage, journal := f.fake.Calls("Stage"), f.fake.Calls("JournalLocks")
			require.NoError(t, recovery.Recover(f.st))
			assert.Equal(t, tc.wantStage, f.fake.Calls("Stage")-stage)
			if tc.untouched {
				assert.Zero(t, f.fake.Calls("Head"), "no git read")
				assert.Equal(t, journal, f.fake.Calls("JournalLocks"), "no End")
			}
			for p, data := range w.disk {
				assert.Equal(t, data, f.disk(p), "disk %s", p)
			}
			for p, data := range w.index {
				assert.Equal(t, data, f.index(p), "index %s", p)
			}
			if run := f.readRun(); run != "<none>" {
				assert.Empty(t, run, "the run is forgotten")
			}
			assert.Empty(t, f.fake.Journal())
			// Recovering again changes nothing.
			stage = f.fake.Calls("Stage")
			require.NoError(t, recovery.Recover(f.st))
			assert.Equal(t, stage, f.fake.Calls("Stage"))
		})
	}
}

func TestRecoverRemovesTemporaryFiles(t *testing.T) {
	f := newFixture(t)
	c0 := f.base()
	require.NoError(t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
	gone := []string{
		f.abs(statePath) + ".itr-123.tmp",
		f.abs(progressPath) + ".itr-9.tmp",
		filepath.Join(filepath.Dir(f.abs(newPath)), ".new.md.itr-abc"),
	}
	kept := []string{
		f.abs(planPath) + ".itr-1.tmp",                                    // not a path of the run
		filepath.Join(filepath.Dir(f.abs(planPath)), ".tasks.md.itr-abc"), // idem
		f.abs(statePath) + ".bak",
	}
	for _, p := range append(append([]string{}, gone...), kept...) {
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	require.NoError(t, recovery.Recover(f.st))
	for _, p := range gone {
		assert.False(t, exists(p), "left behind: %s", p)
	}
	for _, p := range kept {
		assert.True(t, exists(p), "removed: %s", p)
	}
}

func TestRecoverRemovesJournaledLocks(t *testing.T) {
	tests := []struct {
		name string
		// journal returns the lines of the run file's journal and of the
		// legacy itr-locks file ("" for none) for the locks made in dir.
		journal    func(t *testing.T, dir string) (run, legacy string)
		removed    []string // names in dir that must be gone
		kept       []string // names in dir that must stay
		corruptRun bool     // the run's JSON line does not parse
	}{
		{name: "a lock with its journaled inode is removed",
			journal: func(t *testing.T, dir string) (string, string) {
				p := filepath.Join(dir, "index.lock")
				return fmt.Sprintf("%s %d\n", p, inode(t, p)), ""
			}, removed: []string{"index.lock"}, kept: []string{"HEAD.lock", "other"}},
		{name: "a lock with another inode (git's own, taken since) is kept",
			journal: func(t *testing.T, dir string) (string, string) {
				return fmt.Sprintf("%s %d\n", filepath.Join(dir, "index.lock"), inode(t, filepath.Join(dir, "other"))), ""
			}, kept: []string{"index.lock", "HEAD.lock", "other"}},
		{name: "only .lock files are removed",
			journal: func(t *testing.T, dir string) (string, string) {
				p := filepath.Join(dir, "other")
				return fmt.Sprintf("%s %d\nnot a line\n%s notanumber\n", p, inode(t, p), filepath.Join(dir, "HEAD.lock")), ""
			}, kept: []string{"index.lock", "HEAD.lock", "other"}},
		{name: "the legacy itr-locks file is read too",
			journal: func(t *testing.T, dir string) (string, string) {
				a, b := filepath.Join(dir, "index.lock"), filepath.Join(dir, "HEAD.lock")
				return fmt.Sprintf("%s %d\n", a, inode(t, a)), fmt.Sprintf("%s %d\n", b, inode(t, b))
			}, removed: []string{"index.lock", "HEAD.lock"}, kept: []string{"other"}},
		{name: "a lock made right after its intent, never noted, is removed",
			journal: func(t *testing.T, dir string) (string, string) {
				p := filepath.Join(dir, "HEAD.lock")
				require.NoError(t, os.Remove(p))
				at := time.Now().UnixNano()
				require.NoError(t, os.WriteFile(p, nil, 0o644))
				require.NoError(t, os.WriteFile(p+".itr-4242", nil, 0o644))
				return fmt.Sprintf("intent %s %d\n", p, at), ""
			}, removed: []string{"HEAD.lock", "HEAD.lock.itr-4242"}, kept: []string{"index.lock", "other"}},
		{name: "a corrupt run line: locks are left alone",
			corruptRun: true,
			journal: func(t *testing.T, dir string) (string, string) {
				p := filepath.Join(dir, "index.lock")
				return fmt.Sprintf("%s %d\n", p, inode(t, p)), ""
			}, kept: []string{"index.lock", "HEAD.lock", "other"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			c0 := f.base()
			dir := t.TempDir()
			for _, name := range []string{"index.lock", "HEAD.lock", "other"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
			}
			require.NoError(t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
			if tc.corruptRun {
				require.NoError(t, os.WriteFile(f.runFile(), []byte(`{"pid": 12, "head": "`+"\n"), 0o644))
			}
			run, legacy := tc.journal(t, dir)
			appendFile(t, f.runFile(), run)
			if legacy != "" {
				appendFile(t, f.legacyFile(), legacy)
			}
			require.NoError(t, recovery.Recover(f.st))
			for _, name := range tc.removed {
				assert.False(t, exists(filepath.Join(dir, name)), "left behind: %s", name)
			}
			for _, name := range tc.kept {
				assert.True(t, exists(filepath.Join(dir, name)), "removed: %s", name)
			}
			assert.False(t, exists(f.legacyFile()), "the legacy journal is removed")
			assert.Equal(t, "", f.readRun(), "the run is forgotten")
		})
	}
}

func TestRecoverCorruptRunIsForgotten(t *testing.T) {
	// recover.go: a first line that does not parse is a run that wrote
	// nothing trustworthy; it is forgotten without touching the repository.
	for _, line := range []string{"not json", `{"pid":`, `["a"]`, `{"paths": "x"}`} {
		t.Run(line, func(t *testing.T) {
			f := newFixture(t)
			f.base()
			f.writeDisk(statePath, "half")
			require.NoError(t, os.WriteFile(f.runFile(), []byte(line+"\n"), 0o644))
			require.NoError(t, recovery.Recover(f.st))
			assert.Equal(t, "", f.readRun())
			assert.Zero(t, f.fake.Calls("Head"))
			assert.Zero(t, f.fake.Calls("Stage"))
			assert.Equal(t, "half", f.disk(statePath))
		})
	}
}

func TestRecoverErrors(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(f *fixture)
		wantErr []string
		wantIs  error
		keepRun bool // the run file still holds the run, for the next itr
	}{
		{name: "the run file cannot be read: error naming it",
			setup:   func(f *fixture) { require.NoError(f.t, os.Mkdir(f.runFile(), 0o755)) },
			wantErr: []string{"itr-run"}},
		{name: "the legacy journal cannot be read", keepRun: true,
			setup: func(f *fixture) {
				c0 := f.base()
				require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
				require.NoError(f.t, os.Mkdir(f.legacyFile(), 0o755))
			}, wantErr: []string{"is a directory"}},
		{name: "Head fails", keepRun: true, wantIs: errBoom,
			setup: func(f *fixture) {
				c0 := f.base()
				require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
				f.fake.Fail("Head", errBoom)
			}},
		{name: "reading the landed commit fails", keepRun: true, wantIs: errBoom,
			setup: func(f *fixture) {
				c0 := f.base()
				require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
				f.commit(false, runChanges()...)
				f.fake.Fail("ReadFile", errBoom)
			}},
		{name: "reading HEAD's version of a generated file fails", keepRun: true, wantIs: errBoom,
			setup: func(f *fixture) {
				c0 := f.base()
				require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
				f.fake.Fail("ReadFile", errBoom)
			}},
		{name: "the repair cannot be staged", keepRun: true, wantIs: errBoom,
			wantErr: []string{"repair after an interrupted itr run"},
			setup: func(f *fixture) {
				c0 := f.base()
				require.NoError(f.t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
				f.writeDisk(statePath, "half")
				f.fake.Fail("Stage", errBoom)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.setup(f)
			before := ""
			if tc.keepRun {
				before = f.readRun()
				require.NotEmpty(t, before)
			}
			err := recovery.Recover(f.st)
			require.Error(t, err)
			if tc.wantIs != nil {
				assert.ErrorIs(t, err, tc.wantIs)
			}
			for _, s := range tc.wantErr {
				assert.Contains(t, err.Error(), s)
			}
			if tc.keepRun {
				assert.Equal(t, before, f.readRun(), "the run is kept for the next itr")
			}
		})
	}
}

// TestRecoverRetriesAfterAFailedRepair: a repair that failed leaves the run,
// so the next itr completes it.
func TestRecoverRetriesAfterAFailedRepair(t *testing.T) {
	f := newFixture(t)
	c0 := f.base()
	require.NoError(t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
	f.commit(false, runChanges()...)
	f.fake.Fail("Stage", errBoom)
	require.ErrorIs(t, recovery.Recover(f.st), errBoom)
	assert.Equal(t, "state 0\n", f.disk(statePath))
	f.fake.Fail("Stage", nil)
	require.NoError(t, recovery.Recover(f.st))
	assert.Equal(t, "state 1\n", f.disk(statePath))
	assert.Equal(t, "new\n", f.disk(newPath))
	assert.Equal(t, "<none>", f.disk(oldPath))
	assert.Empty(t, f.readRun())
}

// TestRecoverHistoryFails: when the commit's parent cannot be read, the
// repair fails with the run file named and keeps the run, so the next itr
// completes it once history reads again.
func TestRecoverHistoryFails(t *testing.T) {
	f := newFixture(t)
	c0 := f.base()
	require.NoError(t, recovery.Begin(f.st, c0.Hash, runChanges(), runWritten))
	f.commit(false, runChanges()...)
	f.fake.Fail("History", errBoom)
	err := recovery.Recover(f.st)
	require.ErrorIs(t, err, errBoom)
	assert.Contains(t, err.Error(), "itr-run")
	assert.Zero(t, f.fake.Calls("Stage"))
	assert.Equal(t, "state 0\n", f.disk(statePath), "nothing repaired yet")
	assert.NotEmpty(t, f.readRun(), "the run is kept")
	f.fake.Fail("History", nil)
	require.NoError(t, recovery.Recover(f.st))
	assert.Equal(t, "state 1\n", f.disk(statePath), "the landed commit is completed")
	assert.Empty(t, f.readRun())
}
