package merge

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// hide deletes branch "other", so theirs is no branch tip.
func hide(t *testing.T, f *fixture) {
	t.Helper()
	require.NoError(t, f.repo.SetRef("refs/heads/other", ""))
}

func TestDriverStateRebuilt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// locate makes theirs' commit findable one way, given it; it
		// returns the heads the caller gives.
		locate func(t *testing.T, f *fixture, theirs string) []string
	}{
		{"theirs is a branch tip", func(t *testing.T, f *fixture, theirs string) []string { return nil }},
		{"theirs is an operation head", func(t *testing.T, f *fixture, theirs string) []string {
			hide(t, f)
			f.repo.SetOperation("merge", theirs)
			return nil
		}},
		{"theirs is in req.Heads, abbreviated", func(t *testing.T, f *fixture, theirs string) []string {
			hide(t, f)
			return []string{"no-such-rev", theirs[:10]}
		}},
		{"theirs is in req.Heads, as a full hash", func(t *testing.T, f *fixture, theirs string) []string {
			hide(t, f)
			return []string{theirs}
		}},
		{"theirs is a remote-tracking branch", func(t *testing.T, f *fixture, theirs string) []string {
			hide(t, f)
			require.NoError(t, f.repo.SetRef("refs/remotes/origin/other", theirs))
			return nil
		}},
		{"theirs is a tag", func(t *testing.T, f *fixture, theirs string) []string {
			hide(t, f)
			require.NoError(t, f.repo.SetRef("refs/tags/v1", theirs))
			return nil
		}},
		{"a rebase: operation head among others", func(t *testing.T, f *fixture, theirs string) []string {
			hide(t, f)
			h, err := f.repo.ResolveRev("HEAD")
			require.NoError(t, err)
			f.repo.SetOperation("rebase", h, "", theirs)
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			base, ours, theirs := f.diverged()
			req := f.stateRequest(base, ours, theirs)
			req.Heads = tt.locate(t, f, theirs.last.Hash)

			require.NoError(t, Driver(f.st, req))

			got := f.read(req.Ours)
			assert.Equal(t, string(f.expectedState(ours, theirs)), string(got))
			s, err := state.Decode(got)
			require.NoError(t, err)
			assert.Equal(t, 2, state.Val(s.Units["T1"].IterationsUsed), "ours' iterations of T1")
			assert.Equal(t, 1, state.Val(s.Units["T2"].IterationsUsed), "theirs' iteration of T2")
			assert.Equal(t, "Demo", s.Task)

			// The progress.md driver on the same merge gives the log whose
			// fold, as `itr reconcile` does it, is this state.json: a
			// reconcile right after the merge changes nothing.
			lreq := f.request(store.ProgressFile, base.progress, ours.progress, theirs.progress)
			require.NoError(t, Driver(f.st, lreq))
			again, err := FoldMerged(f.st, slug, got, got, f.read(lreq.Ours), taskRoot+"/"+slug)
			require.NoError(t, err)
			assert.Equal(t, string(got), string(again))
		})
	}
}

func TestDriverStateBothSidesSame(t *testing.T) {
	t.Parallel()
	// A cherry-pick of a checkpoint already there: the fold of the one log.
	f := newFixture(t)
	base := f.newTask().checkpoint("T1", "one")
	ours := base.fork("main").checkpoint("T1", "two")
	req := f.stateRequest(base, ours, ours)
	require.NoError(t, Driver(f.st, req))
	assert.Equal(t, string(ours.state.Encode()), string(f.read(req.Ours)))
}

func TestDriverStateWithoutBase(t *testing.T) {
	t.Parallel()
	// The two sides share no commit within reach (unrelated histories): the
	// logs are unioned without a base to check against.
	f := newFixture(t)
	ours := f.newTask().checkpoint("T1", "ours")
	require.NoError(t, f.repo.SetHead("refs/heads/orphan"))
	f.tick()
	theirs := f.newTask().checkpoint("T2", "theirs")
	f.switchTo("main")
	req := f.request(store.StateFile, nil, ours.state.Encode(), theirs.state.Encode())
	require.NoError(t, Driver(f.st, req))
	s, err := state.Decode(f.read(req.Ours))
	require.NoError(t, err)
	assert.Equal(t, 1, state.Val(s.Units["T1"].IterationsUsed))
	assert.Equal(t, 1, state.Val(s.Units["T2"].IterationsUsed))
}

func TestDriverStateRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture) Request
		want  []string
	}{
		{"theirs cannot be found", func(t *testing.T, f *fixture) Request {
			base, ours, theirs := f.diverged()
			hide(t, f)
			return f.stateRequest(base, ours, theirs)
		}, []string{"cannot tell which commit the other side of the merge is; run `itr reconcile` to resolve it"}},

		{"theirs is a state.json no commit holds", func(t *testing.T, f *fixture) Request {
			base, ours, theirs := f.diverged()
			s, err := state.Decode(theirs.state.Encode())
			require.NoError(t, err)
			s.Task = "Edited by hand"
			return f.request(store.StateFile, base.state.Encode(), ours.state.Encode(), s.Encode())
		}, []string{"cannot tell which commit the other side of the merge is", "run `itr reconcile`"}},

		{"HEAD has no commit", func(t *testing.T, f *fixture) Request {
			s := state.New(state.Development, "Demo", slug, "2026-01-14T10:00:00Z")
			return f.request(store.StateFile, nil, s.Encode(), s.Encode())
		}, []string{"HEAD has no commit, so ours' log cannot be read"}},

		{"theirs' commit has no progress.md", func(t *testing.T, f *fixture) Request {
			base, ours, theirs := f.diverged()
			f.switchTo("other")
			f.tick()
			c, err := f.repo.CommitFiles(gitstate.CommitRequest{Message: "drop the log",
				Changes: []gitstate.FileChange{{Path: rel(store.ProgressFile), Delete: true}}, When: f.now})
			require.NoError(t, err)
			hide(t, f)
			f.switchTo("main")
			f.repo.SetOperation("merge", c.Hash)
			return f.stateRequest(base, ours, theirs)
		}, []string{"theirs has state.json but no progress.md in commit "}},

		{"ours' commit has no progress.md", func(t *testing.T, f *fixture) Request {
			base, ours, theirs := f.diverged()
			f.tick()
			_, err := f.repo.CommitFiles(gitstate.CommitRequest{Message: "drop the log",
				Changes: []gitstate.FileChange{{Path: rel(store.ProgressFile), Delete: true}}, When: f.now})
			require.NoError(t, err)
			return f.stateRequest(base, ours, theirs)
		}, []string{"ours has state.json but no progress.md in commit "}},

		{"theirs' log rewrote an entry of the base", func(t *testing.T, f *fixture) Request {
			base := f.newTask().checkpoint("T1", "one")
			theirs := base.fork("other")
			theirs.progress = bytes.Replace(theirs.progress, []byte("**Did:** one\n"), []byte("**Did:** one, edited by hand\n"), 1)
			theirs.commit("hand edit", "iteration")
			theirs.checkpoint("T2", "edited works on T2")
			ours := base.fork("main").checkpoint("T1", "main works on T1")
			return f.stateRequest(base, ours, theirs)
		}, []string{"the log of theirs (" + rel(store.ProgressFile) + " in commit ", `): rewrote entry "T1 - Iteration 1 - `, "entries are append-only"}},

		{"ours' log removed an entry of the base", func(t *testing.T, f *fixture) Request {
			base := f.newTask().checkpoint("T1", "one")
			theirs := base.fork("other").checkpoint("T2", "theirs")
			ours := base.fork("main")
			l := progresslog.Parse(ours.progress)
			var kept []byte
			for _, e := range l.Entries {
				if e.Kind != progresslog.KindIteration {
					var err error
					kept, err = progresslog.Append(kept, e)
					require.NoError(t, err)
				}
			}
			ours.progress = kept
			ours.commit("hand removal", "iteration")
			return f.stateRequest(base, ours, theirs)
		}, []string{"the log of ours (", `lacks entry "T1 - Iteration 1 - `}},

		{"the common log is not text", func(t *testing.T, f *fixture) Request {
			base := f.newTask()
			base.progress = append(base.progress, "\x00"...)
			base.commit("binary", "iteration")
			theirs := base.fork("other")
			theirs.state.Task = "Theirs"
			theirs.commit("theirs", "iteration")
			ours := base.fork("main")
			ours.state.Task = "Ours"
			ours.commit("ours", "iteration")
			return f.stateRequest(base, ours, theirs)
		}, []string{"the log both sides descend from (" + rel(store.ProgressFile) + " in commit ", "a NUL byte on line "}},

		{"the plan on disk does not parse", func(t *testing.T, f *fixture) Request {
			base, ours, theirs := f.diverged()
			cycle := "# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: First\n  - Depends: T2\n- [ ] **T2**: Second\n  - Depends: T1\n"
			require.NoError(t, os.WriteFile(f.st.Abs(rel(store.TasksFile)), []byte(cycle), 0o644))
			return f.stateRequest(base, ours, theirs)
		}, []string{rel(store.TasksFile), "(resolve the plan first, then run `itr reconcile`)"}},

		{"the plan on disk is a directory", func(t *testing.T, f *fixture) Request {
			base, ours, theirs := f.diverged()
			p := f.st.Abs(rel(store.TasksFile))
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Mkdir(p, 0o755))
			return f.stateRequest(base, ours, theirs)
		}, []string{rel(store.TasksFile) + " is not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			req := tt.setup(t, f)
			before := f.read(req.Ours)
			assertRefused(t, Driver(f.st, req), req.Path, tt.want)
			assert.Equal(t, string(before), string(f.read(req.Ours)), "ours must be left as it was")
		})
	}
}

func TestDriverStateFakeErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, method := range []string{"Head", "Refs", "ReadFile"} {
		t.Run(method, func(t *testing.T) {
			f := newFixture(t)
			base, ours, theirs := f.diverged()
			req := f.stateRequest(base, ours, theirs)
			f.repo.Fail(method, boom)
			err := Driver(f.st, req)
			require.ErrorIs(t, err, boom)
			assert.Equal(t, string(ours.state.Encode()), string(f.read(req.Ours)))
		})
	}
	t.Run("FileHashAt: theirs cannot be found", func(t *testing.T) {
		f := newFixture(t)
		base, ours, theirs := f.diverged()
		req := f.stateRequest(base, ours, theirs)
		f.repo.Fail("FileHashAt", boom)
		err := Driver(f.st, req)
		require.ErrorIs(t, err, errNoTheirs)
	})
	t.Run("ResolveRev: the heads are skipped", func(t *testing.T) {
		f := newFixture(t)
		base, ours, theirs := f.diverged()
		hide(t, f)
		req := f.stateRequest(base, ours, theirs)
		req.Heads = []string{theirs.last.Hash}
		f.repo.Fail("ResolveRev", boom)
		require.ErrorIs(t, Driver(f.st, req), errNoTheirs)
		f.repo.Fail("ResolveRev", nil)
		require.NoError(t, Driver(f.st, req))
	})
	t.Run("History: merged without a base", func(t *testing.T) {
		f := newFixture(t)
		base, ours, theirs := f.diverged()
		req := f.stateRequest(base, ours, theirs)
		f.repo.Fail("History", boom)
		require.NoError(t, Driver(f.st, req))
		assert.Equal(t, string(f.expectedState(ours, theirs)), string(f.read(req.Ours)))
	})
}

func TestCommonAncestor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base := f.newTask()
	for i := 0; i < 20; i++ {
		base.checkpoint("T1", "shared")
	}
	theirs := base.fork("other")
	for i := 0; i < 20; i++ {
		theirs.checkpoint("T2", "theirs")
	}
	ours := base.fork("main").checkpoint("T1", "ours")
	require.NoError(t, f.repo.SetHead("refs/heads/orphan"))
	orphan := f.newTask()
	f.switchTo("main")

	assert.Equal(t, base.last.Hash, commonAncestor(f.st, ours.last.Hash, theirs.last.Hash, ancestorWalk))
	assert.Equal(t, base.last.Hash, commonAncestor(f.st, theirs.last.Hash, ours.last.Hash, ancestorWalk))
	assert.Equal(t, ours.last.Hash, commonAncestor(f.st, ours.last.Hash, ours.last.Hash, ancestorWalk))
	assert.Equal(t, base.last.Hash, commonAncestor(f.st, base.last.Hash, theirs.last.Hash, ancestorWalk), "an ancestor of the other side")
	assert.Equal(t, "", commonAncestor(f.st, ours.last.Hash, orphan.last.Hash, ancestorWalk), "unrelated histories")
	// Theirs is 20 commits ahead of the base: a walk of 20 each does not
	// reach it, one of 21 does, however the runs fall.
	assert.Equal(t, "", commonAncestor(f.st, ours.last.Hash, theirs.last.Hash, 5), "beyond the limit")
	assert.Equal(t, "", commonAncestor(f.st, ours.last.Hash, theirs.last.Hash, 20), "beyond the limit")
	assert.Equal(t, base.last.Hash, commonAncestor(f.st, ours.last.Hash, theirs.last.Hash, 21), "just within the limit")
	assert.Equal(t, "", commonAncestor(f.st, "", "", ancestorWalk))
}

func TestFoldMerged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, ours, theirs := f.diverged()
	merged, _, err := progresslog.Union(nil, ours.progress, theirs.progress)
	require.NoError(t, err)
	dir := taskRoot + "/" + slug
	want := f.expectedState(ours, theirs)

	got, err := FoldMerged(f.st, slug, ours.state.Encode(), theirs.state.Encode(), merged, dir)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	t.Run("ours unreadable: what no event knows comes from theirs", func(t *testing.T) {
		th, err := state.Decode(theirs.state.Encode())
		require.NoError(t, err)
		th.Domain = state.Ptr("from theirs")
		got, err := FoldMerged(f.st, slug, []byte("{broken"), th.Encode(), merged, dir)
		require.NoError(t, err)
		s, err := state.Decode(got)
		require.NoError(t, err)
		assert.Equal(t, "from theirs", state.Val(s.Domain))
		assert.Equal(t, 2, state.Val(s.Units["T1"].IterationsUsed))
	})
	t.Run("both unreadable: the log alone", func(t *testing.T) {
		got, err := FoldMerged(f.st, slug, nil, []byte("<<<<<<<"), merged, dir)
		require.NoError(t, err)
		s, _ := reconcile.Fold(reconcile.Input{Slug: slug, Plan: f.plan, Entries: progresslog.Parse(merged).Entries})
		assert.Equal(t, string(s.Encode()), string(got))
	})
	t.Run("plan.md when there is no tasks.md", func(t *testing.T) {
		require.NoError(t, os.Rename(f.st.Abs(rel(store.TasksFile)), f.st.Abs(rel(store.PlanFile))))
		t.Cleanup(func() { _ = os.Rename(f.st.Abs(rel(store.PlanFile)), f.st.Abs(rel(store.TasksFile))) })
		got, err := FoldMerged(f.st, slug, ours.state.Encode(), theirs.state.Encode(), merged, dir)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	})
	t.Run("no plan on disk", func(t *testing.T) {
		other := newFixture(t)
		got, err := FoldMerged(other.st, slug, ours.state.Encode(), theirs.state.Encode(), merged, dir)
		require.NoError(t, err)
		s, _ := reconcile.Fold(reconcile.Input{Slug: slug, Base: ours.state, Entries: progresslog.Parse(merged).Entries})
		assert.Equal(t, string(s.Encode()), string(got))
	})
	t.Run("the template's placeholder plan counts as none", func(t *testing.T) {
		other := newFixture(t)
		p := other.st.Abs(rel(store.TasksFile))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		placeholder := "# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: {title}\n  - Max iterations: 5\n"
		require.NoError(t, os.WriteFile(p, []byte(placeholder), 0o644))
		got, err := FoldMerged(other.st, slug, ours.state.Encode(), theirs.state.Encode(), merged, dir)
		require.NoError(t, err)
		s, _ := reconcile.Fold(reconcile.Input{Slug: slug, Base: ours.state, Entries: progresslog.Parse(merged).Entries})
		assert.Equal(t, string(s.Encode()), string(got))
	})
}

// An operation head that names no commit the fake has is skipped, and the
// search goes on to the next one.
func TestOperationHeadsSkipsUnknown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base, ours, theirs := f.diverged()
	hide(t, f)
	f.repo.SetOperation("cherry-pick", strings.Repeat("0", 40), theirs.last.Hash)
	req := f.stateRequest(base, ours, theirs)
	require.NoError(t, Driver(f.st, req))
	assert.Equal(t, string(f.expectedState(ours, theirs)), string(f.read(req.Ours)))
	assert.NotZero(t, f.repo.Calls("OperationHeads"))
}
