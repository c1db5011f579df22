package verify_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/workspace/store"
)

// TestKnownBugs states what verify should do in cases where it does not
// yet. They fail today, so they run only with ITR_VERIFY_KNOWN_BUGS=1; each
// drops its guard when the bug is fixed.
func TestKnownBugs(t *testing.T) {
	if os.Getenv("ITR_VERIFY_KNOWN_BUGS") == "" {
		t.Skip("known bugs of workspace/verify; run with ITR_VERIFY_KNOWN_BUGS=1")
	}

	// Following the Fix of a rewrite finding (`git revert <c>`, or
	// `git checkout <c>^ -- progress.md` and commit) puts the log back: the
	// rewrite moves to Repaired, but the commit that put it back is then
	// reported as a new break (its Fix: revert it), so verify is never clean.
	for _, how := range []string{"git revert", "git checkout"} {
		t.Run("following the fix of a rewrite with "+how+" leaves verify clean", func(t *testing.T) {
			h := newHist(t)
			one := h.iteration("T1", 1, "the original words")
			c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "the original words", "rewritten")})
			msg := "restore the log\n"
			if how == "git revert" {
				msg = revertMessage(c)
			}
			h.git(msg, true, map[string][]byte{h.rel(store.ProgressFile): h.at(one.Hash, store.ProgressFile)})
			h.iteration("T1", 2, "two")
			rep := h.verify()
			assert.Empty(t, problems(rep.Findings))
			assert.Len(t, rep.Repaired, 1)
		})
	}

	// The Itr-Log fast path trusts the trailer without the blob: an itr
	// commit amended to rewrite an entry keeps its trailer, and once the
	// words are put back the trailer matches HEAD's log, so the rewrite is
	// never seen. Without the trailer verify lists it.
	t.Run("an amended itr commit put back later is seen despite its Itr-Log", func(t *testing.T) {
		h := newHist(t)
		h.iteration("T1", 1, "the original words")
		e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2, Stamp: h.stamp(),
			Fields: []progresslog.Field{{Name: "Did", Value: "second"}}}
		honest := appendEntry(t, h.log, e)
		rewritten := edit(t, honest, "the original words", "rewritten later")
		amended := h.commitTask(itrMessage("T1 iteration 2: second", trailers(store.EventIteration, &e, "in_progress", honest)), true,
			map[string][]byte{store.ProgressFile: rewritten, store.StateFile: fold(t, rewritten)})
		h.log = honest
		h.git("put the words back", true, map[string][]byte{h.rel(store.ProgressFile): honest})
		h.iteration("T1", 3, "three")
		rep := h.verify()
		var named []string
		for _, f := range append(rep.Findings, rep.Repaired...) {
			named = append(named, f.Commit)
		}
		assert.Contains(t, named, amended.Hash)
	})

	// A commit made with git that took out an entry and also rewrote an
	// earlier one: FindUndos reports the entry taken out, and Restored
	// (which reconcile and the next checkpoint commit) holds the rewritten
	// entry a second time after itr's, so the fold counts one iteration
	// more than there were.
	t.Run("Restored never holds an entry twice", func(t *testing.T) {
		h := newHist(t)
		one := h.iteration("T1", 1, "one")
		h.iteration("T1", 2, "two")
		h.git("stale and edited", false, map[string][]byte{
			h.rel(store.ProgressFile): edit(t, h.at(one.Hash, store.ProgressFile), "**Did:** one", "**Did:** one, edited"),
			h.rel(store.StateFile):    h.at(one.Hash, store.StateFile),
		})
		for _, u := range h.undos() {
			seen := map[string]bool{}
			for _, e := range progresslog.Parse(u.Restored).Entries {
				assert.False(t, seen[e.Title()], "%s twice in Restored:\n%s", e.Title(), u.Restored)
				seen[e.Title()] = true
			}
		}
	})

	// A branch merged twice: its commits before the first merge are walked
	// again for the second, and a break on it is reported once per merge.
	t.Run("a break on a branch merged twice is reported once", func(t *testing.T) {
		h := newHist(t)
		base := h.iteration("T1", 1, "one")
		require.NoError(t, h.repo.SetBranch("refs/heads/side", base.Hash, gitstate.Signature{}, ""))
		require.NoError(t, h.repo.SetHead("refs/heads/side"))
		h.git("edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
		require.NoError(t, h.repo.SetHead("refs/heads/main"))
		h.iteration("T1", 2, "two")
		_, err := h.repo.Merge("refs/heads/side", gitstate.CommitRequest{Message: "merge side\n", When: h.when()})
		require.NoError(t, err)
		require.NoError(t, h.repo.SetHead("refs/heads/side"))
		h.git("more side work", true, map[string][]byte{"side.txt": []byte("side\n")})
		require.NoError(t, h.repo.SetHead("refs/heads/main"))
		h.iteration("T1", 3, "three")
		_, err = h.repo.Merge("refs/heads/side", gitstate.CommitRequest{Message: "merge side again\n", When: h.when()})
		require.NoError(t, err)
		assert.Len(t, h.verify().Findings, 1)
	})

	// A branch that removed the log and then committed an edited one: the
	// removal resets the branch check, so the rewrite is not reported (the
	// same edit without the removal is).
	t.Run("a rewrite after the log was removed on a merged branch is reported", func(t *testing.T) {
		h := newHist(t)
		base := h.iteration("T1", 1, "one")
		require.NoError(t, h.repo.SetBranch("refs/heads/side", base.Hash, gitstate.Signature{}, ""))
		require.NoError(t, h.repo.SetHead("refs/heads/side"))
		h.git("drop the log", true, map[string][]byte{h.rel(store.ProgressFile): nil})
		edited := h.git("edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
		require.NoError(t, h.repo.SetHead("refs/heads/main"))
		h.iteration("T1", 2, "two")
		_, err := h.repo.Merge("refs/heads/side", gitstate.CommitRequest{Message: "merge side\n", When: h.when()})
		require.NoError(t, err)
		var named []string
		for _, f := range h.verify().Findings {
			named = append(named, f.Commit)
		}
		assert.Contains(t, named, edited.Hash)
	})

}
