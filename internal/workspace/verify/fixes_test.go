package verify_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// TestFollowingTheFix: every fix verify prints is a command that repairs
// what it names, as the history is: following the fixes one by one (the
// first finding whose fix holds a command, each time) leaves verify
// clean, each finding listed as repaired.
func TestFollowingTheFix(t *testing.T) {
	progress, guard := store.DefaultRoot+"/demo/progress.md", store.DefaultRoot+"/demo/guardrails.md"
	command := regexp.MustCompile("`[^`]*`")
	cases := []struct {
		name  string
		build func(t *testing.T, h *hist) []finding
		// steps is how many fixes are followed before verify is clean.
		steps int
		// repaired is how many breaks verify then lists as repaired.
		repaired int
	}{
		{
			name: "a rewrite, the log unchanged since",
			build: func(t *testing.T, h *hist) []finding {
				h.iteration("T1", 1, "one")
				c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				return []finding{{file: progress, commit: c.Hash, problem: "broke the append-only history",
					fix: "`git checkout " + short(c.Hash) + "^ -- " + progress + " && git commit --no-verify -q -m 'restore progress.md as before " + short(c.Hash) + "' -- " + progress + "`"}}
			},
			steps: 1, repaired: 1,
		},
		{
			name: "a rewrite that came with other work, entries appended since",
			build: func(t *testing.T, h *hist) []finding {
				h.iteration("T1", 1, "one")
				c := h.git("work and an edit", true, map[string][]byte{"work.txt": []byte("work\n"), h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				h.log = h.at(c.Hash, store.ProgressFile)
				h.iteration("T1", 2, "two")
				h.iteration("T1", 3, "three")
				return []finding{{file: progress, commit: c.Hash, problem: "broke the append-only history",
					fix: "`git checkout " + short(c.Hash) + "^ -- " + progress + " && git show HEAD:" + progress + " | tail -c +"}}
			},
			steps: 1, repaired: 1,
		},
		{
			name: "the log deleted, then an edited one committed",
			build: func(t *testing.T, h *hist) []finding {
				one := h.iteration("T1", 1, "one")
				h.git("drop the log", true, map[string][]byte{h.rel(store.ProgressFile): nil})
				c := h.git("an edited one", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				return []finding{{file: progress, commit: c.Hash, problem: "broke the append-only history",
					fix: "`git checkout " + short(one.Hash) + " -- " + progress + " && git commit"}}
			},
			steps: 1, repaired: 1,
		},
		{
			name: "a note written by hand taken out: itr never committed it",
			build: func(t *testing.T, h *hist) []finding {
				h.iteration("T1", 1, "one")
				before := h.log
				h.git("a note", true, map[string][]byte{h.rel(store.ProgressFile): appendEntry(t, h.log, progresslog.Entry{Kind: progresslog.KindOther, Heading: "A note by hand"})})
				c := h.git("work, the note gone", true, map[string][]byte{"work.txt": []byte("work\n"), h.rel(store.ProgressFile): before})
				return []finding{{file: progress, commit: c.Hash, problem: "took out 1 committed entry: A note by hand",
					fix: "put them back: the log as it was before the commit, with what was appended since, committed: `git checkout " + short(c.Hash) + "^ -- " + progress}}
			},
			steps: 1, repaired: 1,
		},
		{
			name: "a lesson taken out: itr reconcile puts it back",
			build: func(t *testing.T, h *hist) []finding {
				a := h.lesson("Flaky network")
				h.lesson("Slow disk")
				c := h.git("stale index", false, map[string][]byte{h.rel(store.GuardrailsFile): h.at(a.Hash, store.GuardrailsFile)})
				return []finding{{file: guard, commit: c.Hash, problem: "took out 1 lesson of " + guard + ": lesson Slow disk", fix: "run `itr reconcile`"}}
			},
			steps: 1, repaired: 1,
		},
		{
			name: "a lesson rewritten",
			build: func(t *testing.T, h *hist) []finding {
				h.lesson("Flaky network")
				c := h.git("edit a lesson", true, map[string][]byte{h.rel(store.GuardrailsFile): edit(t, h.guard, "it failed", "it failed twice")})
				h.iteration("T1", 1, "one")
				return []finding{{file: guard, commit: c.Hash, problem: "rewrote earlier guardrails",
					fix: "`git checkout " + short(c.Hash) + "^ -- " + guard + " && git commit"}}
			},
			steps: 1, repaired: 1,
		},
		{
			name: "put back as before a rewrite, losing itr's entries appended since",
			build: func(t *testing.T, h *hist) []finding {
				h.iteration("T1", 1, "one")
				c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				h.log = h.at(c.Hash, store.ProgressFile)
				h.iteration("T1", 2, "two")
				two := lastTitle(t, h.log)
				r := h.git("restore", true, map[string][]byte{h.rel(store.ProgressFile): h.at(c.Hash+"^", store.ProgressFile)})
				return []finding{{file: progress, commit: r.Hash,
					problem: fmt.Sprintf("commit %s (%q) put back %s as it was before commit %s but took out the 1 entry appended since: %s", short(r.Hash), "restore", progress, short(c.Hash), two),
					fix:     "run `itr reconcile`"}}
			},
			steps: 1, repaired: 2,
		},
		{
			name: "put back as before a rewrite, losing a note appended since",
			build: func(t *testing.T, h *hist) []finding {
				one := h.iteration("T1", 1, "one")
				c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				h.git("a note", true, map[string][]byte{h.rel(store.ProgressFile): appendEntry(t, h.at(c.Hash, store.ProgressFile), progresslog.Entry{Kind: progresslog.KindOther, Heading: "A note by hand"})})
				r := h.git("restore", true, map[string][]byte{h.rel(store.ProgressFile): h.at(c.Hash+"^", store.ProgressFile)})
				return []finding{{file: progress, commit: r.Hash, problem: "but took out the 1 entry appended since: A note by hand",
					fix: "append again what was appended since, after the version the commit put back, and commit: `git checkout " + short(one.Hash) + " -- " + progress +
						" && git show " + short(r.Hash) + "^:" + progress + " | tail -c +" + fmt.Sprint(len(h.at(c.Hash, store.ProgressFile))+1) + " >> " + progress + " && git commit"}}
			},
			steps: 1, repaired: 2,
		},
		{
			name: "put back as before a lesson was rewritten, losing a lesson learned since",
			build: func(t *testing.T, h *hist) []finding {
				h.lesson("Flaky network")
				c := h.git("edit a lesson", true, map[string][]byte{h.rel(store.GuardrailsFile): edit(t, h.guard, "it failed", "it failed twice")})
				h.guard = h.at(c.Hash, store.GuardrailsFile)
				h.lesson("Slow disk")
				r := h.git("restore", true, map[string][]byte{h.rel(store.GuardrailsFile): h.at(c.Hash+"^", store.GuardrailsFile)})
				return []finding{{file: guard, commit: r.Hash, problem: "but took out the 1 lesson appended since: lesson Slow disk"}}
			},
			steps: 1, repaired: 2,
		},
		{
			name: "a rewrite rewritten again, both put back at once",
			build: func(t *testing.T, h *hist) []finding {
				h.iteration("T1", 1, "one")
				c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				h.git("again", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited twice")})
				h.git("restore", true, map[string][]byte{h.rel(store.ProgressFile): h.at(c.Hash+"^", store.ProgressFile)})
				h.iteration("T1", 2, "two")
				return nil
			},
			repaired: 2,
		},
		{
			name: "two rewrites, the later of an entry appended after the earlier",
			build: func(t *testing.T, h *hist) []finding {
				h.iteration("T1", 1, "one")
				c1 := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				h.log = h.at(c1.Hash, store.ProgressFile)
				h.iteration("T1", 2, "two")
				c2 := h.git("another edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** two", "**Did:** two, edited")})
				h.log = h.at(c2.Hash, store.ProgressFile)
				h.iteration("T1", 3, "three")
				return []finding{
					{file: progress, commit: c1.Hash, problem: "broke the append-only history", fix: "`git checkout " + short(c1.Hash) + "^ -- "},
					{file: progress, commit: c2.Hash, problem: "broke the append-only history", fix: "`git checkout " + short(c2.Hash) + "^ -- "},
				}
			},
			steps: 2, repaired: 2,
		},
		{
			name: "an entry rewritten twice: the later break is repaired first",
			build: func(t *testing.T, h *hist) []finding {
				h.iteration("T1", 1, "one")
				c1 := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				c2 := h.git("again", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited twice")})
				h.log = h.at(c2.Hash, store.ProgressFile)
				h.iteration("T1", 2, "two")
				return []finding{
					{file: progress, commit: c1.Hash, problem: "broke the append-only history",
						fix: fmt.Sprintf("a later commit (%s) changed %s again: repair that one first, then run itr verify again for this one", short(c2.Hash), progress)},
					{file: progress, commit: c2.Hash, problem: "broke the append-only history", fix: "`git checkout " + short(c2.Hash) + "^ -- "},
				}
			},
			steps: 2, repaired: 2,
		},
		{
			name: "a rewrite on a merged branch is recorded by a correction",
			build: func(t *testing.T, h *hist) []finding {
				base := h.iteration("T1", 1, "one")
				h.branch("side", base.Hash)
				s := h.git("edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				h.checkout("main")
				h.iteration("T1", 2, "two")
				m := h.merge("side", "merge side\n")
				return []finding{{file: progress, commit: s.Hash, problem: "merged by " + short(m.Hash),
					fix: "`printf '\\n## Correction of " + short(s.Hash) + "\\nThis commit on a merged branch rewrote entries committed before it.\\n' >> " + progress +
						" && git commit -q -m 'correction of " + short(s.Hash) + "' -- " + progress + "`"}}
			},
			steps: 1, repaired: 1,
		},
		{
			name: "an itr commit amended to bring a second entry is recorded by a correction",
			build: func(t *testing.T, h *hist) []finding {
				h.iteration("T1", 1, "one")
				e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2, Stamp: h.stamp(), Fields: []progresslog.Field{{Name: "Did", Value: "two"}}}
				honest := appendEntry(t, h.log, e)
				h.log = appendEntry(t, honest, progresslog.Entry{Kind: progresslog.KindOther, Heading: "A note by hand"})
				c := h.commitTask(itrMessage("T1 iteration 2: two", trailers(store.EventIteration, &e, "in_progress", honest)), true,
					map[string][]byte{store.ProgressFile: h.log, store.StateFile: fold(t, h.log)})
				// The next checkpoint builds on it: its entry count is
				// right once the amended commit's blob is read.
				h.iteration("T1", 3, "three")
				return []finding{{file: progress, commit: c.Hash, problem: "the iteration commit " + short(c.Hash) + " took the log from 2 to 4 entries",
					fix: "`printf '\\n## Correction of " + short(c.Hash) + "\\n"}}
			},
			steps: 1, repaired: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, want, rep := built(t, tc.build)
			// The findings named first (state.json's, when the log lost
			// entries, come after).
			require.GreaterOrEqual(t, len(rep.Findings), len(want), "%q", problems(rep.Findings))
			checkFindings(t, "finding", rep.Findings[:len(want)], want)
			for step := 0; len(rep.Findings) > 0; step++ {
				require.Less(t, step, tc.steps, "still not clean: %q", problems(rep.Findings))
				i := 0
				for i < len(rep.Findings) && !command.MatchString(rep.Findings[i].Fix) {
					i++
				}
				require.Less(t, i, len(rep.Findings), "no fix names a command: %q", rep.Findings)
				follow(t, h, rep.Findings[i].Fix)
				rep = h.verify()
			}
			assert.Empty(t, problems(rep.Findings))
			assert.Len(t, rep.Repaired, tc.repaired, "repaired: %q", problems(rep.Repaired))
			for _, f := range rep.Repaired {
				assert.True(t, strings.Contains(f.Problem, "; put back by commit") || strings.Contains(f.Problem, "; recorded by commit"), f.Problem)
			}
		})
	}
}

// TestFixQuotesPaths: a task under a root whose path sh would split gets
// fixes whose commands quote it.
func TestFixQuotesPaths(t *testing.T) {
	h := newHist(t)
	st, err := store.New(h.repo, "my notes/it's", store.Config{}, "", func() time.Time { return t0 })
	require.NoError(t, err)
	h.st, h.log, h.guard = st, nil, []byte(guardTitle)
	h.created = h.itr(store.EventCreated, "start task Demo", &progresslog.Entry{Kind: progresslog.KindCreated, Stamp: h.stamp(),
		Fields: []progresslog.Field{{Name: "Name", Value: "Demo"}, {Name: "Mode", Value: "development"}}}, nil)
	h.iteration("T1", 1, "one")
	h.log = edit(t, h.log, "**Did:** one", "**Did:** one, edited")
	c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
	h.iteration("T1", 2, "two")
	rep := h.verify()
	require.Len(t, rep.Findings, 1)
	quoted := `'my notes/it'\''s/demo/progress.md'`
	assert.Contains(t, rep.Findings[0].Fix, "`git checkout "+short(c.Hash)+"^ -- "+quoted+" && git show 'HEAD:my notes/it'\\''s/demo/progress.md' | tail -c +")
	assert.Contains(t, rep.Findings[0].Fix, "' -- "+quoted+"`")
}
