package verify_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
)

// follow does what the command of a fix says (the text between its
// backticks), in the fake: `git checkout REV -- PATH`, `git show REV:PATH |
// tail -c +N >> PATH`, `printf 'TEXT' >> PATH` and `git commit ... -m 'MSG'
// -- PATH`, joined by &&; or `itr reconcile`, done as reconcile does it
// (the logs FindUndos restores, then a Reconciled entry). It returns the
// commit made.
func follow(t *testing.T, h *hist, fix string) gitstate.Commit {
	t.Helper()
	m := regexp.MustCompile("`([^`]*)`").FindStringSubmatch(fix)
	require.NotNil(t, m, "no command in %q", fix)
	if m[1] == "itr reconcile" {
		for _, u := range h.undos() {
			switch u.File {
			case h.rel(store.ProgressFile):
				h.log = u.Restored
			case h.rel(store.GuardrailsFile):
				h.guard = u.Restored
			}
		}
		return h.reconciled()
	}
	files := map[string][]byte{}
	var done gitstate.Commit
	for _, part := range strings.Split(m[1], " && ") {
		f := strings.Fields(part)
		switch {
		case strings.HasPrefix(part, "git checkout "):
			require.Len(t, f, 5, part)
			data, err := h.repo.ReadFile(f[2], f[4])
			require.NoError(t, err, part)
			files[f[4]] = data
		case strings.HasPrefix(part, "git show "):
			rev, path, ok := strings.Cut(f[2], ":")
			require.True(t, ok, part)
			require.Equal(t, []string{"|", "tail", "-c"}, f[3:6], part)
			n, err := strconv.Atoi(strings.TrimPrefix(f[6], "+"))
			require.NoError(t, err, part)
			data, err := h.repo.ReadFile(rev, path)
			require.NoError(t, err, part)
			require.Equal(t, path, f[8], part)
			files[path] = append(files[path], data[n-1:]...)
		case strings.HasPrefix(part, "printf '"):
			text, rest, ok := strings.Cut(strings.TrimPrefix(part, "printf '"), "' >> ")
			require.True(t, ok, part)
			if files[rest] == nil {
				data, err := h.repo.ReadFile("HEAD", rest)
				require.NoError(t, err, part)
				files[rest] = data
			}
			files[rest] = append(files[rest], strings.ReplaceAll(text, `\n`, "\n")...)
		case strings.HasPrefix(part, "git commit "):
			msg := regexp.MustCompile(`-m '([^']*)'`).FindStringSubmatch(part)
			require.NotNil(t, msg, part)
			path := f[len(f)-1]
			require.Equal(t, "--", f[len(f)-2], part)
			done = h.git(msg[1], true, map[string][]byte{path: files[path]})
		default:
			t.Fatalf("not a command follow knows: %q", part)
		}
	}
	require.NotEmpty(t, done.Hash, "the command commits nothing: %q", m[1])
	return done
}

// TestRegressions: what verify once did wrong, each as found by the table
// tests and fixed since.
func TestRegressions(t *testing.T) {
	// Following the Fix of a rewrite finding (`git revert <c>`, or
	// `git checkout <c>^ -- progress.md` and commit) put the log back: the
	// rewrite moved to Repaired, but the commit that put it back was then
	// reported as a new break (its Fix: revert it), so verify was never
	// clean. A commit that puts back the version before a break is a
	// repair.
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

	// The Itr-Log fast path trusted the trailer without the blob: an itr
	// commit amended to rewrite an entry keeps its trailer, and once the
	// words are put back the trailer matches HEAD's log, so the rewrite was
	// never seen. The run's last trusted version is now checked against
	// its blob hash.
	t.Run("an amended itr commit put back later is seen despite its Itr-Log", func(t *testing.T) {
		h, amended, back := amendedPutBack(t)
		rep := h.verify()
		assert.Empty(t, problems(rep.Findings))
		require.Len(t, rep.Repaired, 1)
		assert.Equal(t, amended.Hash, rep.Repaired[0].Commit)
		assert.Contains(t, rep.Repaired[0].Problem, "put back by commit "+short(back.Hash))
	})

	// A commit made with git that took out an entry and also rewrote an
	// earlier one: FindUndos reported the entry taken out, and Restored
	// (which reconcile and the next checkpoint commit) held the rewritten
	// entry a second time after itr's, so the fold counted one iteration
	// more than there were. itr's committed version now wins.
	t.Run("Restored never holds an entry twice", func(t *testing.T) {
		h := newHist(t)
		one := h.iteration("T1", 1, "one")
		h.iteration("T1", 2, "two")
		itrs := h.log
		c := h.git("stale and edited", false, map[string][]byte{
			h.rel(store.ProgressFile): edit(t, h.at(one.Hash, store.ProgressFile), "**Did:** one", "**Did:** one, edited"),
			h.rel(store.StateFile):    h.at(one.Hash, store.StateFile),
		})
		undos := h.undos()
		require.Len(t, undos, 1)
		for _, u := range undos {
			seen := map[string]bool{}
			for _, e := range progresslog.Parse(u.Restored).Entries {
				assert.False(t, seen[e.Title()], "%s twice in Restored:\n%s", e.Title(), u.Restored)
				seen[e.Title()] = true
			}
		}
		assert.Equal(t, string(itrs), string(undos[0].Restored), "itr's committed text wins")
		// verify names the commit; following its fix (reconcile) repairs it.
		rep := h.verify()
		require.Len(t, rep.Findings, 1)
		assert.Equal(t, c.Hash, rep.Findings[0].Commit)
		follow(t, h, rep.Findings[0].Fix)
		rep = h.verify()
		assert.Empty(t, problems(rep.Findings))
		assert.Len(t, rep.Repaired, 1)
	})

	// A branch merged twice: its commits before the first merge were
	// walked again for the second, and a break on it was reported once per
	// merge.
	t.Run("a break on a branch merged twice is reported once", func(t *testing.T) {
		h := newHist(t)
		base := h.iteration("T1", 1, "one")
		h.branch("side", base.Hash)
		h.git("edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
		h.checkout("main")
		h.iteration("T1", 2, "two")
		h.merge("side", "merge side\n")
		h.checkout("side")
		h.git("more side work", true, map[string][]byte{"side.txt": []byte("side\n")})
		h.checkout("main")
		h.iteration("T1", 3, "three")
		h.merge("side", "merge side again\n")
		assert.Len(t, h.verify().Findings, 1)
	})

	// A branch that removed the log and then committed an edited one: the
	// removal reset the branch check, so the rewrite was not reported (the
	// same edit without the removal was).
	t.Run("a rewrite after the log was removed on a merged branch is reported", func(t *testing.T) {
		h := newHist(t)
		base := h.iteration("T1", 1, "one")
		h.branch("side", base.Hash)
		h.git("drop the log", true, map[string][]byte{h.rel(store.ProgressFile): nil})
		edited := h.git("edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
		h.checkout("main")
		h.iteration("T1", 2, "two")
		h.merge("side", "merge side\n")
		var named []string
		for _, f := range h.verify().Findings {
			named = append(named, f.Commit)
		}
		assert.Contains(t, named, edited.Hash)
	})

	// A lesson taken out of guardrails.md read as "the lesson before it
	// changed": it is named as taken out.
	t.Run("a lesson taken out is named", func(t *testing.T) {
		h := newHist(t)
		a := h.lesson("Flaky network")
		h.lesson("Slow disk")
		c := h.git("stale index", false, map[string][]byte{h.rel(store.GuardrailsFile): h.at(a.Hash, store.GuardrailsFile)})
		rep := h.verify()
		require.Len(t, rep.Findings, 1)
		assert.Equal(t, c.Hash, rep.Findings[0].Commit)
		assert.Contains(t, rep.Findings[0].Problem, "took out 1 lesson of "+h.rel(store.GuardrailsFile)+": lesson Slow disk")
		assert.NotContains(t, rep.Findings[0].Problem, "Flaky network")
	})

	// A commit that deleted state.json while the working tree holds itr's
	// read as "put an older state.json in place".
	t.Run("state.json deleted is named as deleted", func(t *testing.T) {
		h := newHist(t)
		last := h.iteration("T1", 1, "one")
		c := h.git("drop the view", false, map[string][]byte{h.rel(store.StateFile): nil})
		undos := h.undos()
		require.Len(t, undos, 1)
		assert.True(t, undos[0].Deleted)
		assert.Equal(t, c.Hash, undos[0].By.Hash)
		assert.Equal(t, "commit "+short(c.Hash)+` ("drop the view") deleted `+h.rel(store.StateFile)+", which itr had committed in "+short(last.Hash)+" (the working tree still holds itr's)", undos[0].String())
		assert.Equal(t, undos[0].String(), verify.ReportOf(undos[0]).Text)
	})
}

// amendedPutBack is a task whose T1 iteration 2 is an itr commit amended
// to rewrite the first entry (its trailers, Itr-Log among them, describe
// the honest log), then a plain commit that puts the words back, then T1
// iteration 3.
func amendedPutBack(t *testing.T) (h *hist, amended, back gitstate.Commit) {
	t.Helper()
	h = newHist(t)
	h.iteration("T1", 1, "the original words")
	e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2, Stamp: h.stamp(),
		Fields: []progresslog.Field{{Name: "Did", Value: "second"}}}
	honest := appendEntry(t, h.log, e)
	rewritten := edit(t, honest, "the original words", "rewritten later")
	amended = h.commitTask(itrMessage("T1 iteration 2: second", trailers(store.EventIteration, &e, "in_progress", honest)), true,
		map[string][]byte{store.ProgressFile: rewritten, store.StateFile: fold(t, rewritten)})
	h.log = honest
	back = h.git("put the words back", true, map[string][]byte{h.rel(store.ProgressFile): honest})
	h.iteration("T1", 3, "three")
	return h, amended, back
}
