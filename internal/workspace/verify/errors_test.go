package verify_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
)

var errInjected = errors.New("injected failure")

// faulty is the fake with errors injected call by call: fail returns the
// error for one call of a method with its arguments, nil to let it through.
// (gitfake's own Fail fails every call of a method.)
type faulty struct {
	*gitfake.Repo
	fail func(method string, args ...string) error
}

func (f *faulty) History(rev string, fn func(gitstate.Commit) bool) error {
	if err := f.fail("History", rev); err != nil {
		return err
	}
	return f.Repo.History(rev, fn)
}

func (f *faulty) FolderHashes(rev, dir string) (map[string]string, error) {
	if err := f.fail("FolderHashes", rev, dir); err != nil {
		return nil, err
	}
	return f.Repo.FolderHashes(rev, dir)
}

func (f *faulty) ReadBlob(hash string) ([]byte, error) {
	if err := f.fail("ReadBlob", hash); err != nil {
		return nil, err
	}
	return f.Repo.ReadBlob(hash)
}

func (f *faulty) FileHashAt(rev, path string) (string, error) {
	if err := f.fail("FileHashAt", rev, path); err != nil {
		return "", err
	}
	return f.Repo.FileHashAt(rev, path)
}

func (f *faulty) ReadFile(rev, path string) ([]byte, error) {
	if err := f.fail("ReadFile", rev, path); err != nil {
		return nil, err
	}
	return f.Repo.ReadFile(rev, path)
}

func (f *faulty) RawRefs(prefix string) (map[string]string, error) {
	if err := f.fail("RawRefs", prefix); err != nil {
		return nil, err
	}
	return f.Repo.RawRefs(prefix)
}

// failing is h's store reading through faulty with fail.
func failing(h *hist, fail func(method string, args ...string) error) *store.Store {
	st := *h.st
	st.Repo = &faulty{Repo: h.repo, fail: fail}
	return &st
}

// when fails the calls of method whose arguments match match.
func when(method string, match func(args ...string) bool) func(string, ...string) error {
	return func(m string, args ...string) error {
		if m == method && match(args...) {
			return errInjected
		}
		return nil
	}
}

// blobOf is the object name of a file as committed at rev.
func blobOf(t *testing.T, h *hist, rev, name string) string {
	t.Helper()
	hash, err := h.repo.FileHashAt(rev, h.rel(name))
	require.NoError(t, err)
	return hash
}

// merged is a history with a side branch (a checkpoint and a hand edit of
// an earlier entry) merged into main: base is where side left main, side
// the side's newest commit, m the merge.
func merged(t *testing.T) (h *hist, base, side, m gitstate.Commit) {
	t.Helper()
	h = newHist(t)
	base = h.iteration("T1", 1, "one")
	baseLog := h.log
	h.branch("side", base.Hash)
	h.iteration("T2", 1, "on the side")
	side = h.git("edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
	h.checkout("main")
	h.log = baseLog
	h.iteration("T1", 2, "two")
	return h, base, side, h.merge("side", "merge side\n")
}

func TestTaskErrors(t *testing.T) {
	any := func(...string) bool { return true }
	cases := []struct {
		name string
		// noSlug runs verify without naming the task.
		noSlug bool
		// setup builds the history and returns the store to verify with,
		// errors injected.
		setup func(t *testing.T) *store.Store
	}{
		{
			name: "HEAD cannot be read",
			setup: func(t *testing.T) *store.Store {
				h := newHist(t)
				h.repo.Fail("Head", errInjected)
				return h.st
			},
		},
		{
			name: "the history cannot be walked",
			setup: func(t *testing.T) *store.Store {
				h := newHist(t)
				h.iteration("T1", 1, "one")
				h.repo.Fail("History", errInjected)
				return h.st
			},
		},
		{
			name: "the archive refs cannot be listed",
			setup: func(t *testing.T) *store.Store {
				h := newHist(t)
				h.repo.Fail("RawRefs", errInjected)
				return h.st
			},
		},
		{
			name:   "the archive refs cannot be read again, with no task active",
			noSlug: true,
			setup: func(t *testing.T) *store.Store {
				h, a := archived(t)
				archive(t, h, a.Hash, store.ArchiveTagPrefix+slug+"/2026-01-14")
				h.removeTask()
				// Task lists the archive refs (one call per prefix), then
				// ArchiveFindings lists them again: that fails.
				calls := 0
				return failing(h, func(m string, _ ...string) error {
					if m != "RawRefs" {
						return nil
					}
					if calls++; calls > 2 {
						return errInjected
					}
					return nil
				})
			},
		},
		{
			name: "an older commit's folder cannot be read",
			setup: func(t *testing.T) *store.Store {
				h := newHist(t)
				one := h.iteration("T1", 1, "one")
				h.iteration("T1", 2, "two")
				return failing(h, when("FolderHashes", func(a ...string) bool { return a[0] == one.Hash }))
			},
		},
		{
			name: "an older log cannot be read",
			setup: func(t *testing.T) *store.Store {
				h := newHist(t)
				h.iteration("T1", 1, "one")
				h.log = appendEntry(t, h.log, progresslog.Entry{Kind: progresslog.KindOther, Heading: "A note"})
				note := h.git("note", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				h.iteration("T1", 2, "two")
				blob := blobOf(t, h, note.Hash, store.ProgressFile)
				return failing(h, when("ReadBlob", func(a ...string) bool { return a[0] == blob }))
			},
		},
		{
			name: "older guardrails cannot be read",
			setup: func(t *testing.T) *store.Store {
				h := newHist(t)
				a := h.lesson("Flaky network")
				h.lesson("Slow disk")
				blob := blobOf(t, h, a.Hash, store.GuardrailsFile)
				return failing(h, when("ReadBlob", func(a ...string) bool { return a[0] == blob }))
			},
		},
		{
			name: "a merged branch cannot be walked",
			setup: func(t *testing.T) *store.Store {
				h, _, _, _ := merged(t)
				return failing(h, when("History", func(a ...string) bool { return a[0] != "HEAD" }))
			},
		},
		{
			name: "the log at the fork cannot be found",
			setup: func(t *testing.T) *store.Store {
				h, base, _, _ := merged(t)
				return failing(h, when("FileHashAt", func(a ...string) bool { return a[0] == base.Hash }))
			},
		},
		{
			name: "the log at the fork cannot be read",
			setup: func(t *testing.T) *store.Store {
				h, base, _, _ := merged(t)
				blob := blobOf(t, h, base.Hash, store.ProgressFile)
				return failing(h, when("ReadBlob", func(a ...string) bool { return a[0] == blob }))
			},
		},
		{
			name: "the log on the merged branch cannot be found",
			setup: func(t *testing.T) *store.Store {
				h, _, side, _ := merged(t)
				return failing(h, when("FileHashAt", func(a ...string) bool { return a[0] == side.Hash }))
			},
		},
		{
			name: "the log on the merged branch cannot be read",
			setup: func(t *testing.T) *store.Store {
				h, _, side, _ := merged(t)
				blob := blobOf(t, h, side.Hash, store.ProgressFile)
				return failing(h, when("ReadBlob", func(a ...string) bool { return a[0] == blob }))
			},
		},
		{
			name: "the merge's log cannot be read",
			setup: func(t *testing.T) *store.Store {
				h, _, _, m := merged(t)
				return failing(h, when("ReadFile", func(a ...string) bool { return a[0] == m.Hash }))
			},
		},
		{
			name: "a merge parent's log cannot be read",
			setup: func(t *testing.T) *store.Store {
				h, _, side, _ := merged(t)
				return failing(h, when("ReadFile", func(a ...string) bool { return a[0] == side.Hash }))
			},
		},
		{
			name: "the blob of a commit its Itr-Log does not describe cannot be read",
			setup: func(t *testing.T) *store.Store {
				h, amended, _ := amendedPutBack(t)
				blob := blobOf(t, h, amended.Hash, store.ProgressFile)
				return failing(h, when("ReadBlob", func(a ...string) bool { return a[0] == blob }))
			},
		},
		{
			name: "every read fails after the task is loaded",
			setup: func(t *testing.T) *store.Store {
				h, _, _, _ := merged(t)
				return failing(h, when("FileHashAt", any))
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := tc.setup(t)
			name := slug
			if tc.noSlug {
				name = ""
			}
			rep, err := verify.Task(st, name)
			require.ErrorIs(t, err, errInjected)
			require.Nil(t, rep)
		})
	}
}

// TestTaskMergeWithoutInjectedErrors checks the merged history the error
// cases start from is itself read without error, so each error above comes
// from the call it injects.
func TestTaskMergeWithoutInjectedErrors(t *testing.T) {
	h, _, side, m := merged(t)
	rep, err := verify.Task(failing(h, func(string, ...string) error { return nil }), slug)
	require.NoError(t, err)
	checkFindings(t, "finding", rep.Findings, []finding{{file: h.rel(store.ProgressFile), commit: side.Hash,
		problem: "merged by " + short(m.Hash) + ", broke the append-only history on its branch"}})
}

func TestFindUndosErrors(t *testing.T) {
	// undone is a history whose last commit, made with git, took out the
	// last entry and lesson itr committed and put back an older state.json:
	// last is itr's last commit, by the one that undid it.
	undone := func(t *testing.T) (h *hist, last, by gitstate.Commit) {
		h = newHist(t)
		one := h.iteration("T1", 1, "one")
		h.iteration("T1", 2, "two")
		last = h.lesson("Slow disk")
		by = h.git("user work", false, map[string][]byte{
			h.rel(store.ProgressFile):   h.at(one.Hash, store.ProgressFile),
			h.rel(store.StateFile):      h.at(one.Hash, store.StateFile),
			h.rel(store.GuardrailsFile): h.at(one.Hash, store.GuardrailsFile),
		})
		return h, last, by
	}
	// staleView is a history whose last commit, made with git, put back an
	// older state.json only.
	staleView := func(t *testing.T) (h *hist, last, by gitstate.Commit) {
		h = newHist(t)
		one := h.iteration("T1", 1, "one")
		last = h.iteration("T1", 2, "two")
		by = h.git("view only", false, map[string][]byte{h.rel(store.StateFile): h.at(one.Hash, store.StateFile)})
		return h, last, by
	}
	cases := []struct {
		name  string
		setup func(t *testing.T) (*hist, func(string, ...string) error)
	}{
		{
			name: "the history before itr's last commit cannot be walked, to see which text itr committed",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h := newHist(t)
				one := h.iteration("T1", 1, "one")
				last := h.iteration("T1", 2, "two")
				h.git("stale and edited", false, map[string][]byte{
					h.rel(store.ProgressFile): edit(t, h.at(one.Hash, store.ProgressFile), "**Did:** one", "**Did:** one, edited"),
				})
				return h, when("History", func(a ...string) bool { return a[0] == last.Hash })
			},
		},
		{
			name: "the history cannot be walked",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h, _, _ := undone(t)
				return h, when("History", func(...string) bool { return true })
			},
		},
		{
			name: "itr's last log cannot be found",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h, last, _ := undone(t)
				return h, when("FileHashAt", func(a ...string) bool { return a[0] == last.Hash })
			},
		},
		{
			name: "itr's last log cannot be read",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h, last, _ := undone(t)
				blob := blobOf(t, h, last.Hash, store.ProgressFile)
				return h, when("ReadBlob", func(a ...string) bool { return a[0] == blob })
			},
		},
		{
			name: "the log after itr's cannot be found",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h, _, by := undone(t)
				return h, when("FileHashAt", func(a ...string) bool { return a[0] == by.Hash })
			},
		},
		{
			name: "the log after itr's cannot be read",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h, _, by := undone(t)
				blob := blobOf(t, h, by.Hash, store.ProgressFile)
				return h, when("ReadBlob", func(a ...string) bool { return a[0] == blob })
			},
		},
		{
			name: "the guardrails after itr's cannot be read",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h, _, by := undone(t)
				blob := blobOf(t, h, by.Hash, store.GuardrailsFile)
				return h, when("ReadBlob", func(a ...string) bool { return a[0] == blob })
			},
		},
		{
			name: "itr's last state.json cannot be found",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h, last, _ := staleView(t)
				return h, when("FileHashAt", func(a ...string) bool { return a[0] == last.Hash && a[1] == h.rel(store.StateFile) })
			},
		},
		{
			name: "the state.json after itr's cannot be found",
			setup: func(t *testing.T) (*hist, func(string, ...string) error) {
				h, _, by := staleView(t)
				return h, when("FileHashAt", func(a ...string) bool { return a[0] == by.Hash && a[1] == h.rel(store.StateFile) })
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, fail := tc.setup(t)
			task, err := h.st.Load(slug)
			require.NoError(t, err)
			// Without the injected error, there is an undo to find.
			found, err := verify.FindUndos(h.st, task)
			require.NoError(t, err)
			require.NotEmpty(t, found)

			got, err := verify.FindUndos(failing(h, fail), task)
			require.ErrorIs(t, err, errInjected)
			require.Nil(t, got)
		})
	}
}

// TestTaskFixWithoutUndos: when the undos cannot be looked for (here a
// read fails; also a log FindUndos cannot write again), a break that
// itr reconcile would repair gets the fix that writes the log back, which
// always applies.
func TestTaskFixWithoutUndos(t *testing.T) {
	h := newHist(t)
	one := h.iteration("T1", 1, "one")
	h.iteration("T1", 2, "two")
	c := h.git("user work", false, map[string][]byte{h.rel(store.ProgressFile): h.at(one.Hash, store.ProgressFile)})
	rep, err := verify.Task(h.st, slug)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	require.Contains(t, rep.Findings[0].Fix, "run `itr reconcile`")

	rep, err = verify.Task(failing(h, when("History", func(a ...string) bool { return a[0] == c.Hash })), slug)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	require.Contains(t, rep.Findings[0].Fix, "put them back: the log as it was before the commit, with what was appended since, committed: `git checkout "+short(c.Hash)+"^ -- ")
}
