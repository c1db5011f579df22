package verify_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
)

// undoWant is one Undo FindUndos should return.
type undoWant struct {
	file     string
	by, last gitstate.Commit
	missing  []string
	restored []byte
	text     string // a substring of String()
}

func TestFindUndos(t *testing.T) {
	progress, state, guard := store.DefaultRoot+"/demo/progress.md", store.DefaultRoot+"/demo/state.json", store.DefaultRoot+"/demo/guardrails.md"
	// stale commits the files of the task folder as they were at rev, as a
	// git commit of an index read before itr's later writes does.
	stale := func(h *hist, msg, rev string, names ...string) gitstate.Commit {
		files := map[string][]byte{"work.txt": []byte(msg + "\n")}
		for _, n := range names {
			files[h.rel(n)] = h.at(rev, n)
		}
		return h.git(msg, false, files)
	}
	cases := []struct {
		name  string
		build func(t *testing.T, h *hist) []undoWant
	}{
		{
			name:  "HEAD is itr's own commit",
			build: func(t *testing.T, h *hist) []undoWant { h.iteration("T1", 1, "one"); return nil },
		},
		{
			name: "work committed after itr's commit",
			build: func(t *testing.T, h *hist) []undoWant {
				h.iteration("T1", 1, "one")
				h.git("user work", true, map[string][]byte{"work.txt": []byte("work\n")})
				return nil
			},
		},
		{
			name: "an entry appended by hand",
			build: func(t *testing.T, h *hist) []undoWant {
				h.iteration("T1", 1, "one")
				log := appendEntry(t, h.log, progresslog.Entry{Kind: progresslog.KindOther, Heading: "A note"})
				h.git("note", true, map[string][]byte{h.rel(store.ProgressFile): log})
				return nil
			},
		},
		{
			name: "a stale index took out the last entry",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				two := h.iteration("T1", 2, "two")
				c := stale(h, "user work", one.Hash, store.ProgressFile, store.StateFile)
				return []undoWant{{file: progress, by: c, last: two, missing: []string{lastTitle(t, h.log)}, restored: h.log,
					text: fmt.Sprintf("commit %s (%q) took 1 entry out of %s that itr had committed in %s (%s)", short(c.Hash), "user work", progress, short(two.Hash), lastTitle(t, h.log))}}
			},
		},
		{
			name: "the commit that took them out is named, not a later one",
			build: func(t *testing.T, h *hist) []undoWant {
				var titles []string
				one := h.iteration("T1", 1, "one")
				for n := 2; n <= 5; n++ {
					h.iteration("T1", n, "more")
					titles = append(titles, lastTitle(t, h.log))
				}
				last := h.iteration("T1", 6, "six")
				titles = append(titles, lastTitle(t, h.log))
				h.git("work first", true, map[string][]byte{"first.txt": []byte("first\n")})
				c := stale(h, "user work", one.Hash, store.ProgressFile, store.StateFile)
				h.git("more user work", true, map[string][]byte{"more.txt": []byte("more\n")})
				return []undoWant{{file: progress, by: c, last: last, missing: titles, restored: h.log,
					text: fmt.Sprintf("took 5 entries out of %s that itr had committed in %s (%s; %s; %s; and 2 more)", progress, short(last.Hash), titles[0], titles[1], titles[2])}}
			},
		},
		{
			name: "entries appended on top of the older log are kept in Restored",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				two := h.iteration("T1", 2, "two")
				c := stale(h, "user work", one.Hash, store.ProgressFile, store.StateFile)
				note := progresslog.Entry{Kind: progresslog.KindOther, Heading: "A note by hand"}
				h.git("note", true, map[string][]byte{h.rel(store.ProgressFile): appendEntry(t, h.at(c.Hash, store.ProgressFile), note)})
				return []undoWant{{file: progress, by: c, last: two, missing: []string{lastTitle(t, h.log)}, restored: appendEntry(t, h.log, note)}}
			},
		},
		{
			name: "a lesson taken out",
			build: func(t *testing.T, h *hist) []undoWant {
				a := h.lesson("Flaky network")
				b := h.lesson("Slow disk")
				c := stale(h, "user work", a.Hash, store.GuardrailsFile)
				return []undoWant{{file: guard, by: c, last: b, missing: []string{"lesson Slow disk"}, restored: h.guard,
					text: "took 1 entry out of " + guard}}
			},
		},
		{
			name: "an entry and a lesson taken out by one commit",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				h.iteration("T1", 2, "two")
				two := lastTitle(t, h.log)
				last := h.lesson("Slow disk")
				c := stale(h, "user work", one.Hash, store.ProgressFile, store.StateFile, store.GuardrailsFile)
				return []undoWant{
					{file: progress, by: c, last: last, missing: []string{two}, restored: h.log},
					{file: guard, by: c, last: last, missing: []string{"lesson Slow disk"}, restored: h.guard},
				}
			},
		},
		{
			name: "a task whose guardrails.md was removed",
			build: func(t *testing.T, h *hist) []undoWant {
				h.git("no lessons", true, map[string][]byte{h.rel(store.GuardrailsFile): nil})
				one := h.iteration("T1", 1, "one")
				two := h.iteration("T1", 2, "two")
				c := stale(h, "user work", one.Hash, store.ProgressFile, store.StateFile)
				return []undoWant{{file: progress, by: c, last: two, missing: []string{lastTitle(t, h.log)}, restored: h.log}}
			},
		},
		{
			name: "a merge carrying itr's trailers is not itr's commit",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				h.branch("side", one.Hash)
				side := h.iteration("T2", 1, "on the side")
				h.checkout("main")
				h.log = h.at(one.Hash, store.ProgressFile)
				two := h.iteration("T1", 2, "two")
				// The merge took its message from the side's checkpoint and
				// the log from before both.
				m, err := h.repo.Merge("refs/heads/side", gitstate.CommitRequest{Message: side.Message, When: h.when(),
					Changes: []gitstate.FileChange{{Path: h.rel(store.ProgressFile), Data: h.at(one.Hash, store.ProgressFile)}}})
				require.NoError(t, err)
				return []undoWant{{file: progress, by: m, last: two, missing: []string{lastTitle(t, h.log)}, restored: h.log}}
			},
		},
		{
			name: "a lesson taken out, another written by hand on top",
			build: func(t *testing.T, h *hist) []undoWant {
				a := h.lesson("Flaky network")
				b := h.lesson("Slow disk")
				c := stale(h, "user work", a.Hash, store.GuardrailsFile)
				hand := "\n## By hand\n- **When**: w\n- **Problem**: p\n- **Solution**: s\n"
				h.git("a lesson by hand", true, map[string][]byte{h.rel(store.GuardrailsFile): append(h.at(c.Hash, store.GuardrailsFile), hand...)})
				return []undoWant{{file: guard, by: c, last: b, missing: []string{"lesson Slow disk"}, restored: append(bytes.Clone(h.guard), hand...)}}
			},
		},
		{
			name: "a lesson taken out and another rewritten: itr's text is kept",
			build: func(t *testing.T, h *hist) []undoWant {
				a := h.lesson("Flaky network")
				b := h.lesson("Slow disk")
				c := h.git("stale and edited", false, map[string][]byte{h.rel(store.GuardrailsFile): edit(t, h.at(a.Hash, store.GuardrailsFile), "it failed", "it failed twice")})
				return []undoWant{{file: guard, by: c, last: b, missing: []string{"lesson Slow disk"}, restored: h.guard}}
			},
		},
		{
			name: "put back as itr first committed an entry, losing one appended since: HEAD's text is kept",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				// A hand edit that itr's next checkpoint carried along...
				h.log = edit(t, h.log, "**Did:** one", "**Did:** one, edited")
				h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				two := h.iteration("T1", 2, "two")
				// ... then the log put back as itr wrote it first.
				c := h.git("restore", true, map[string][]byte{h.rel(store.ProgressFile): h.at(one.Hash, store.ProgressFile)})
				want := appendEntry(t, h.at(one.Hash, store.ProgressFile), progresslog.Parse(h.log).Entries[2])
				return []undoWant{{file: progress, by: c, last: two, missing: []string{lastTitle(t, h.log)}, restored: want}}
			},
		},
		{
			name: "a git revert of itr's commit is followed",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				two := h.iteration("T1", 2, "two")
				h.git(revertMessage(two), true, map[string][]byte{
					h.rel(store.ProgressFile): h.at(one.Hash, store.ProgressFile),
					h.rel(store.StateFile):    h.at(one.Hash, store.StateFile),
				})
				return nil
			},
		},
		{
			name: "a git revert of a lesson is followed",
			build: func(t *testing.T, h *hist) []undoWant {
				a := h.lesson("Flaky network")
				b := h.lesson("Slow disk")
				h.git(revertMessage(b), true, map[string][]byte{h.rel(store.GuardrailsFile): h.at(a.Hash, store.GuardrailsFile)})
				return nil
			},
		},
		{
			name: "a revert of another task's commit is not itr's to follow",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				two := h.iteration("T1", 2, "two")
				msg := "Revert \"itr(other): T1 iteration 2\"\n\nThis reverts commit " + two.Hash + ".\n"
				c := h.git(msg, false, map[string][]byte{
					h.rel(store.ProgressFile): h.at(one.Hash, store.ProgressFile),
					h.rel(store.StateFile):    h.at(one.Hash, store.StateFile),
				})
				return []undoWant{{file: progress, by: c, last: two, missing: []string{lastTitle(t, h.log)}, restored: h.log}}
			},
		},
		{
			name: "a subject like a revert's without git revert's body is not a revert",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				two := h.iteration("T1", 2, "two")
				c := h.git("Revert \""+two.Subject+"\"\n", false, map[string][]byte{
					h.rel(store.ProgressFile): h.at(one.Hash, store.ProgressFile),
					h.rel(store.StateFile):    h.at(one.Hash, store.StateFile),
				})
				return []undoWant{{file: progress, by: c, last: two, missing: []string{lastTitle(t, h.log)}, restored: h.log}}
			},
		},
		{
			name: "an entry rewritten, not taken out, is verify's to report",
			build: func(t *testing.T, h *hist) []undoWant {
				h.iteration("T1", 1, "one")
				h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				return nil
			},
		},
		{
			name: "the log removed, then an older one committed",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				h.iteration("T1", 2, "two")
				h.git("drop the log", false, map[string][]byte{h.rel(store.ProgressFile): nil})
				stale(h, "bring an old one back", one.Hash, store.ProgressFile)
				return nil
			},
		},
		{
			name: "state.json alone older, the working tree still itr's",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				two := h.iteration("T1", 2, "two")
				c := stale(h, "view only", one.Hash, store.StateFile)
				h.git("more user work", true, map[string][]byte{"more.txt": []byte("more\n")})
				return []undoWant{{file: state, by: c, last: two, restored: fold(t, h.log),
					text: fmt.Sprintf("commit %s (%q) put an older %s in place of the one itr had committed in %s (the working tree still holds itr's)", short(c.Hash), "view only", state, short(two.Hash))}}
			},
		},
		{
			name: "state.json edited by hand on disk and committed",
			build: func(t *testing.T, h *hist) []undoWant {
				h.iteration("T1", 1, "one")
				h.git("edit the view", true, map[string][]byte{h.rel(store.StateFile): edit(t, fold(t, h.log), `"in_progress"`, `"done"`)})
				return nil
			},
		},
		{
			name: "state.json put back by a git revert",
			build: func(t *testing.T, h *hist) []undoWant {
				one := h.iteration("T1", 1, "one")
				two := h.itr(store.EventPhase, "phase", nil, nil)
				c := h.git(revertMessage(two), false, map[string][]byte{h.rel(store.StateFile): edit(t, h.at(one.Hash, store.StateFile), "\n}", "\n}\n")})
				require.NotEmpty(t, c.Hash)
				return nil
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHist(t)
			want := tc.build(t, h)
			got := h.undos()
			require.Len(t, got, len(want), "undos: %v", got)
			for i, w := range want {
				u := got[i]
				assert.Equal(t, w.file, u.File)
				assert.Equal(t, w.by.Hash, u.By.Hash, "By")
				assert.Equal(t, w.by.Subject, u.By.Subject)
				assert.Equal(t, w.last.Hash, u.Last.Hash, "Last")
				assert.Equal(t, w.missing, u.Missing, "Missing")
				assert.Equal(t, string(w.restored), string(u.Restored), "Restored")
				assert.Contains(t, u.String(), w.text)
				r := verify.ReportOf(u)
				assert.Equal(t, verify.UndoReport{File: w.file, Commit: w.by.Hash, Subject: w.by.Subject, Missing: w.missing, Text: u.String()}, r)
			}
		})
	}
}

// TestFindUndosWithoutItrCommit: a task with no commit, or with no commit
// of itr's on HEAD's line, has nothing to compare with; one whose folder a
// commit removed has nothing taken out.
func TestFindUndosWithoutItrCommit(t *testing.T) {
	h := newHist(t)
	h.iteration("T1", 1, "one")
	head, err := h.repo.Head()
	require.NoError(t, err)

	got, err := verify.FindUndos(h.st, &store.Task{Slug: slug})
	require.NoError(t, err)
	assert.Empty(t, got, "no HEAD")

	got, err = verify.FindUndos(h.st, &store.Task{Slug: "other", Dir: h.st.TaskDir("other"), Head: head, HeadFiles: map[string]string{}})
	require.NoError(t, err)
	assert.Empty(t, got, "no itr commit of the task")

	c := h.git("remove the task", true, map[string][]byte{h.rel(store.ProgressFile): nil, h.rel(store.StateFile): nil, h.rel(store.GuardrailsFile): nil})
	got, err = verify.FindUndos(h.st, &store.Task{Slug: slug, Dir: h.st.TaskDir(slug), Head: gitstate.Head{Hash: c.Hash, Branch: "refs/heads/main"}, HeadFiles: map[string]string{}})
	require.NoError(t, err)
	assert.Empty(t, got, "the folder was removed: nothing taken out")
}

func TestTakenOut(t *testing.T) {
	entry := func(unit string, n int, did string) progresslog.Entry {
		return progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: n, Stamp: fmt.Sprintf("2026-01-14T10:0%d:00Z", n),
			Fields: []progresslog.Field{{Name: "Did", Value: did}}}
	}
	log := func(es ...progresslog.Entry) []byte {
		var out []byte
		for _, e := range es {
			out = appendEntry(t, out, e)
		}
		return out
	}
	one, two, three := entry("T1", 1, "one"), entry("T1", 2, "two"), entry("T1", 3, "three")
	cases := []struct {
		name     string
		old, new []byte
		want     []string
	}{
		{"nothing taken out", log(one, two), log(one, two), nil},
		{"appended", log(one), log(one, two), nil},
		{"the last taken out", log(one, two, three), log(one, two), []string{three.Title()}},
		{"one in the middle taken out", log(one, two, three), log(one, three), []string{two.Title()}},
		{"all taken out", log(one, two), nil, []string{one.Title(), two.Title()}},
		{"an entry rewritten", log(one, two), log(one, entry("T1", 2, "two, edited")), nil},
		{"taken out and another added", log(one, two), log(one, three), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, verify.TakenOut(tc.old, tc.new))
		})
	}
}

// TestFindUndosUnwritable: an entry (or lesson) that cannot be written
// again as it reads fails the restore, naming the file.
func TestFindUndosUnwritable(t *testing.T) {
	for _, name := range []string{store.ProgressFile, store.GuardrailsFile} {
		t.Run(name, func(t *testing.T) {
			h := newHist(t)
			one := h.iteration("T1", 1, "one")
			a := h.lesson("Flaky network")
			h.iteration("T1", 2, "two")
			h.lesson("Slow disk")
			bad := map[string]string{
				store.ProgressFile:   "\n## T1 - Iteration 0 - 2026-01-14T12:00:00Z\n**Did:** zero\n",
				store.GuardrailsFile: "\n## \n- **When**: w\n",
			}[name]
			old := map[string]string{store.ProgressFile: one.Hash, store.GuardrailsFile: a.Hash}[name]
			h.git("stale, and more by hand", false, map[string][]byte{h.rel(name): append(h.at(old, name), bad...)})
			task, err := h.st.Load(slug)
			require.NoError(t, err)
			_, err = verify.FindUndos(h.st, task)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "restore "+h.rel(name)+": ")
		})
	}
}
