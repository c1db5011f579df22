package verify_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
)

// finding is what one verify.Finding should say: its file and commit
// exactly ("" for the commit skips it), substrings of its problem (two:
// problem and more), fix and diff ("" skips them).
type finding struct {
	file, commit, problem, more, fix, diff string
}

// taskWant is what verify.Task should report.
type taskWant struct {
	findings []finding
	// repaired are the breaks a later commit put back (their Fix is empty).
	repaired []finding
	// commits is how many of itr's own commits of the task were checked (0
	// skips the check).
	commits int
}

func checkFindings(t *testing.T, what string, got []verify.Finding, want []finding) {
	t.Helper()
	require.Len(t, got, len(want), "%s: %q", what, problems(got))
	for i, w := range want {
		g := got[i]
		assert.Equal(t, w.file, g.File, "%s %d: file", what, i)
		if w.commit != "" {
			assert.Equal(t, w.commit, g.Commit, "%s %d: commit", what, i)
		}
		assert.Contains(t, g.Problem, w.problem, "%s %d: problem", what, i)
		assert.Contains(t, g.Problem, w.more, "%s %d: problem", what, i)
		if w.fix != "" {
			assert.Contains(t, g.Fix, w.fix, "%s %d: fix", what, i)
		} else {
			assert.NotEmpty(t, g.Fix, "%s %d: every finding names a fix", what, i)
		}
		if w.diff != "" {
			assert.Contains(t, g.Diff, w.diff, "%s %d: diff", what, i)
		}
	}
}

func TestTask(t *testing.T) {
	progress, state, guard := store.DefaultRoot+"/demo/progress.md", store.DefaultRoot+"/demo/state.json", store.DefaultRoot+"/demo/guardrails.md"
	cases := []struct {
		name  string
		build func(t *testing.T, h *hist) taskWant
	}{
		{
			name: "healthy history with work commits between itr's",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				h.git("user work", true, map[string][]byte{"work.txt": []byte("work\n")})
				h.iteration("T1", 2, "two")
				h.lesson("Flaky network")
				h.unitEvent(progresslog.KindBlocked, "T1", progresslog.Field{Name: "Reason", Value: "waiting"})
				h.git("more user work", true, map[string][]byte{"work.txt": []byte("more work\n")})
				h.unitEvent(progresslog.KindUnblocked, "T1")
				h.iteration("T1", 3, "three")
				return taskWant{commits: 7}
			},
		},
		{
			name: "entry appended by hand and committed with git, then adopted",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				h.log = appendEntry(t, h.log, progresslog.Entry{Kind: progresslog.KindOther, Heading: "A note by hand"})
				h.git("note", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				h.iteration("T1", 2, "two")
				return taskWant{commits: 3}
			},
		},
		{
			name: "entries whose text holds markdown subheadings count once",
			build: func(t *testing.T, h *hist) taskWant {
				for n := 1; n <= 2; n++ {
					h.itr(store.EventIteration, "T1 iteration", &progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: n, Stamp: h.stamp(),
						Fields: []progresslog.Field{{Name: "Did", Value: "work"}, {Value: "### Details\n##not a heading\nmore"}}}, nil)
				}
				return taskWant{commits: 3}
			},
		},
		{
			name: "an earlier entry rewritten in a later commit",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "the original words")
				h.iteration("T1", 2, "two")
				h.log = edit(t, h.log, "**Did:** the original words", "**Did:** rewritten later")
				c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				h.iteration("T1", 3, "three")
				return taskWant{commits: 4, findings: []finding{{
					file: progress, commit: c.Hash,
					problem: fmt.Sprintf("commit %s (%q) broke the append-only history", short(c.Hash), "hand edit"),
					fix:     "`git checkout " + short(c.Hash) + "^ -- " + progress + " && git show HEAD:" + progress + " | tail -c +" + fmt.Sprint(len(h.at(c.Hash, store.ProgressFile))+1) + " >> " + progress + " && git commit --no-verify -q -m 'restore progress.md as before " + short(c.Hash) + "' -- " + progress + "`",
					diff:    "-**Did:** the original words\n+**Did:** rewritten later",
				}}}
			},
		},
		{
			name: "an itr commit amended by hand keeps an Itr-Log its log does not match",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "the original words")
				e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2, Stamp: h.stamp(),
					Fields: []progresslog.Field{{Name: "Did", Value: "second"}}}
				honest := appendEntry(t, h.log, e)
				h.log = edit(t, honest, "the original words", "rewritten later")
				c := h.commitTask(itrMessage("T1 iteration 2: second", trailers(store.EventIteration, &e, "in_progress", honest)), true,
					map[string][]byte{store.ProgressFile: h.log, store.StateFile: fold(t, h.log)})
				return taskWant{commits: 3, findings: []finding{{
					file: progress, commit: c.Hash, problem: "broke the append-only history",
					diff: "+**Did:** rewritten later",
				}}}
			},
		},
		{
			name: "an Itr-Log trailer that is wrong or malformed is not trusted, and not needed",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				// "" writes no Itr-Log at all, as before itr had it.
				for i, digest := range []string{store.LogDigest([]byte("something else")), "garbage", "12 not-hex", "-1 " + string(bytes.Repeat([]byte("a"), 64)), ""} {
					e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: i + 2, Stamp: h.stamp(),
						Fields: []progresslog.Field{{Name: "Did", Value: "more"}}}
					h.log = appendEntry(t, h.log, e)
					tr := trailers(store.EventIteration, &e, "in_progress", nil)
					if digest != "" {
						tr = append(tr, gitstate.Trailer{Key: store.TrailerLog, Value: digest})
					}
					h.commitTask(itrMessage("T1 iteration", tr), true, map[string][]byte{store.ProgressFile: h.log, store.StateFile: fold(t, h.log)})
				}
				return taskWant{commits: 7}
			},
		},
		{
			name: "a commit of a stale index took out an entry",
			build: func(t *testing.T, h *hist) taskWant {
				one := h.iteration("T1", 1, "one")
				h.iteration("T1", 2, "two")
				c := h.git("user work", false, map[string][]byte{
					h.rel(store.ProgressFile): h.at(one.Hash, store.ProgressFile),
					h.rel(store.StateFile):    h.at(one.Hash, store.StateFile),
					"work.txt":                []byte("work\n"),
				})
				return taskWant{commits: 3, findings: []finding{{
					file: progress, commit: c.Hash,
					problem: fmt.Sprintf("commit %s (%q) took out 1 committed entry: %s", short(c.Hash), "user work", lastTitle(t, h.log)),
					fix:     "run `itr reconcile`: it puts them back from git's history",
				}}}
			},
		},
		{
			name: "entries taken out, then put back by itr reconcile",
			build: func(t *testing.T, h *hist) taskWant {
				one := h.iteration("T1", 1, "one")
				h.iteration("T1", 2, "two")
				two := lastTitle(t, h.log)
				h.iteration("T1", 3, "three")
				three := lastTitle(t, h.log)
				c := h.git("user work", false, map[string][]byte{
					h.rel(store.ProgressFile): h.at(one.Hash, store.ProgressFile),
					h.rel(store.StateFile):    h.at(one.Hash, store.StateFile),
				})
				r := h.reconciled()
				h.iteration("T1", 4, "four")
				return taskWant{commits: 6, repaired: []finding{{
					file: progress, commit: c.Hash,
					problem: fmt.Sprintf("commit %s (%q) took out 2 committed entries: %s; %s; put back by commit %s (%q)",
						short(c.Hash), "user work", two, three, short(r.Hash), r.Subject),
				}}}
			},
		},
		{
			name: "two breaks: a hand edit stays, a stale index is put back",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				h.log = edit(t, h.log, "**Did:** one", "**Did:** one, edited")
				edited := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				two := h.iteration("T1", 2, "two")
				h.iteration("T1", 3, "three")
				three := lastTitle(t, h.log)
				stale := h.git("stale index", false, map[string][]byte{
					h.rel(store.ProgressFile): h.at(two.Hash, store.ProgressFile),
					h.rel(store.StateFile):    h.at(two.Hash, store.StateFile),
				})
				r := h.reconciled()
				return taskWant{commits: 5,
					findings: []finding{{file: progress, commit: edited.Hash, problem: fmt.Sprintf("commit %s (%q) broke the append-only history", short(edited.Hash), "hand edit")}},
					repaired: []finding{{file: progress, commit: stale.Hash,
						problem: fmt.Sprintf("commit %s (%q) took out 1 committed entry: %s; put back by commit %s", short(stale.Hash), "stale index", three, short(r.Hash))}},
				}
			},
		},
		{
			name: "a git revert of an itr commit is a break, not an entry taken out",
			build: func(t *testing.T, h *hist) taskWant {
				one := h.iteration("T1", 1, "one")
				two := h.iteration("T1", 2, "two")
				h.log = h.at(one.Hash, store.ProgressFile)
				c := h.git(revertMessage(two), true, map[string][]byte{
					h.rel(store.ProgressFile): h.log,
					h.rel(store.StateFile):    h.at(one.Hash, store.StateFile),
				})
				return taskWant{commits: 3, findings: []finding{{
					file: progress, commit: c.Hash,
					problem: fmt.Sprintf("commit %s (%q) broke the append-only history", short(c.Hash), c.Subject),
					fix:     "entries are never rewritten",
				}}}
			},
		},
		{
			name: "guardrails rewritten by hand",
			build: func(t *testing.T, h *hist) taskWant {
				h.lesson("Flaky network")
				h.guard = edit(t, h.guard, "it failed", "it failed twice")
				c := h.git("edit a lesson", true, map[string][]byte{h.rel(store.GuardrailsFile): h.guard})
				h.lesson("Slow disk")
				return taskWant{commits: 3, findings: []finding{{
					file: guard, commit: c.Hash,
					problem: fmt.Sprintf("commit %s (%q) rewrote earlier guardrails", short(c.Hash), "edit a lesson"),
					fix:     "`git checkout " + short(c.Hash) + "^ -- " + guard + " && git show HEAD:" + guard + " | tail -c +",
					diff:    "+- **Problem**: it failed twice",
				}}}
			},
		},
		{
			name: "a lesson taken out, then put back",
			build: func(t *testing.T, h *hist) taskWant {
				a := h.lesson("Flaky network")
				h.lesson("Slow disk")
				c := h.git("stale index", false, map[string][]byte{h.rel(store.GuardrailsFile): h.at(a.Hash, store.GuardrailsFile)})
				r := h.reconciled()
				return taskWant{commits: 4, repaired: []finding{{file: guard, commit: c.Hash,
					problem: fmt.Sprintf("commit %s (%q) took out 1 lesson of %s: lesson Slow disk", short(c.Hash), "stale index", guard),
					more:    fmt.Sprintf("; put back by commit %s (%q)", short(r.Hash), r.Subject)}}}
			},
		},
		{
			name: "state.json alone older in a commit made with git",
			build: func(t *testing.T, h *hist) taskWant {
				one := h.iteration("T1", 1, "one")
				h.iteration("T1", 2, "two")
				c := h.git("view only", false, map[string][]byte{h.rel(store.StateFile): h.at(one.Hash, store.StateFile)})
				return taskWant{commits: 3, findings: []finding{
					{file: state, commit: c.Hash, problem: "differs from the log: updated:", fix: "run `itr reconcile`"},
					{file: state, commit: c.Hash, problem: "differs from the log: current_iteration: recorded 1, derived 2"},
					{file: state, commit: c.Hash, problem: "differs from the log: T1.iterations_used: recorded 1, derived 2"},
				}}
			},
		},
		{
			name: "state.json edited by hand",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				s := edit(t, h.at("HEAD", store.StateFile), `"status": "in_progress"`, `"status": "done"`)
				c := h.git("mark done", true, map[string][]byte{h.rel(store.StateFile): s})
				return taskWant{findings: []finding{
					{file: state, commit: c.Hash, problem: `differs from the log: T1.status: recorded "done", derived "in_progress"`},
				}}
			},
		},
		{
			name: "state.json not in itr's canonical form",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				var compact bytes.Buffer
				require.NoError(t, json.Compact(&compact, h.at("HEAD", store.StateFile)))
				c := h.git("reformat", true, map[string][]byte{h.rel(store.StateFile): compact.Bytes()})
				return taskWant{findings: []finding{{file: state, commit: c.Hash, problem: "not in itr's canonical form", diff: `+  "slug": "demo",`}}}
			},
		},
		{
			name: "state.json unreadable",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				c := h.git("break it", true, map[string][]byte{h.rel(store.StateFile): []byte("{\n")})
				return taskWant{findings: []finding{{file: state, commit: c.Hash, problem: state + ":", fix: "run `itr reconcile`"}}}
			},
		},
		{
			name: "state.json deleted",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				c := h.git("drop the view", true, map[string][]byte{h.rel(store.StateFile): nil})
				return taskWant{findings: []finding{{file: state, commit: c.Hash, problem: "is missing from the last commit"}}}
			},
		},
		{
			name: "an entry the fold cannot apply",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				h.unitEvent(progresslog.KindBlocked, "T1", progresslog.Field{Name: "Reason", Value: "waiting"})
				h.log = appendEntry(t, h.log, progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2, Stamp: h.stamp(),
					Fields: []progresslog.Field{{Name: "Did", Value: "despite the block"}}})
				c := h.git("by hand", true, map[string][]byte{h.rel(store.ProgressFile): h.log, h.rel(store.StateFile): foldLoose(h.log)})
				line := progresslog.Parse(h.log).Entries[3].Line
				return taskWant{findings: []finding{{file: progress, commit: c.Hash, problem: "unit T1 is blocked (waiting)",
					fix: fmt.Sprintf("see line %d; entries are never edited", line)}}}
			},
		},
		{
			name: "a heading that does not read as an entry",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				h.log = append(bytes.Clone(h.log), "\n## T1 - Iteration 0 - 2026-01-14T12:00:00Z\n**Did:** zero\n"...)
				h.git("by hand", true, map[string][]byte{h.rel(store.ProgressFile): h.log, h.rel(store.StateFile): foldLoose(h.log)})
				line := progresslog.Parse(h.log).Entries[2].Line
				return taskWant{findings: []finding{{file: fmt.Sprintf("%s:%d", progress, line), problem: `"Iteration 0"`,
					fix: "append a correcting entry"}}}
			},
		},
		{
			name: "conflict markers committed in the log",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				h.log = append(bytes.Clone(h.log), "\n<<<<<<< ours\n## T1 - Iteration 2 - 2026-01-14T12:00:00Z\n**Did:** ours\n=======\n## T2 - Iteration 1 - 2026-01-14T12:00:00Z\n**Did:** theirs\n>>>>>>> theirs\n"...)
				c := h.git("merge by hand", true, map[string][]byte{h.rel(store.ProgressFile): h.log, h.rel(store.StateFile): foldLoose(h.log)})
				return taskWant{findings: []finding{{file: progress, commit: c.Hash, problem: "holds git conflict markers"}}}
			},
		},
		{
			name: "an itr commit that brought two entries",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				h.log = appendEntry(t, h.log, progresslog.Entry{Kind: progresslog.KindOther, Heading: "Written by hand"})
				c := h.iteration("T1", 2, "two")
				return taskWant{commits: 3, findings: []finding{{file: progress, commit: c.Hash,
					problem: fmt.Sprintf("the iteration commit %s took the log from 2 to 4 entries; each itr commit adds exactly one entry", short(c.Hash)),
					fix:     "this commit stays in the history, so record it: `printf '\\n## Correction of " + short(c.Hash) + "\\n"}}}
			},
		},
		{
			name: "an itr commit that brought no entry",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				c := h.itr(store.EventPhase, "phase", nil, nil)
				return taskWant{commits: 3, findings: []finding{{file: progress, commit: c.Hash,
					problem: fmt.Sprintf("the phase commit %s took the log from 2 to 2 entries", short(c.Hash))}}}
			},
		},
		{
			name: "a plan that does not parse",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				require.NoError(t, os.WriteFile(h.st.Abs(h.rel(store.TasksFile)), []byte("## Tasks\n\n- [ ] **T1**: a\n- [ ] **T1**: b\n"), 0o644))
				return taskWant{commits: 2, findings: []finding{{file: h.rel(store.TasksFile), problem: "T1", fix: "fix the plan, then run `itr plan`"}}}
			},
		},
		{
			name: "a break on main before a branch left it is reported once, not as the branch's",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				h.log = edit(t, h.log, "**Did:** one", "**Did:** one, edited")
				c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				base := h.iteration("T1", 2, "two")
				baseLog := h.log
				h.branch("side", base.Hash)
				h.iteration("T2", 1, "on the side")
				sideLog := h.log
				h.checkout("main")
				h.log = baseLog
				h.iteration("T1", 3, "three")
				merged, _, err := progresslog.Union(baseLog, h.log, sideLog)
				require.NoError(t, err)
				h.log = merged
				h.mergeLog("side", "Merge branch 'side'\n")
				return taskWant{commits: 4, findings: []finding{{file: progress, commit: c.Hash,
					problem: fmt.Sprintf("commit %s (%q) broke the append-only history", short(c.Hash), "hand edit")}}}
			},
		},
		{
			name: "a merged branch of checkpoints, the resolution recorded",
			build: func(t *testing.T, h *hist) taskWant {
				_, merged := h.checkpointsOnSide()
				h.log = appendEntry(t, merged, progresslog.Entry{Kind: progresslog.KindReconciled, Stamp: h.stamp(),
					Fields: []progresslog.Field{{Name: "Found", Value: "merged side"}}})
				h.mergeLog("side", "Merge branch 'side'\n")
				h.iteration("T1", 3, "after the merge")
				// created, T1 1, T1 2, T1 3 on the first-parent line.
				return taskWant{commits: 4}
			},
		},
		{
			name: "a merge carrying itr's trailers is not counted as itr's commit",
			build: func(t *testing.T, h *hist) taskWant {
				side, merged := h.checkpointsOnSide()
				h.log = merged
				h.mergeLog("side", side.Message)
				return taskWant{commits: 3}
			},
		},
		{
			name: "a merged branch with a hand edit, and a merge that invents an entry",
			build: func(t *testing.T, h *hist) taskWant {
				base := h.iteration("T1", 1, "one")
				baseLog := h.log
				h.branch("side", base.Hash)
				h.git("work on the side", true, map[string][]byte{"side.txt": []byte("side\n")})
				edited := h.git("edit an earlier entry", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, baseLog, "**Did:** one", "**Did:** one, edited")})
				h.checkout("main")
				h.log = baseLog
				h.iteration("T1", 2, "two")
				h.log = append(bytes.Clone(h.log), "\n## T1 - Iteration 9 - 2026-01-01T00:00:00Z\n**Did:** invented\n"...)
				m := h.mergeLog("side", "merge side\n")
				return taskWant{commits: 3, findings: []finding{
					{file: progress, commit: edited.Hash,
						problem: fmt.Sprintf("commit %s (%q), merged by %s, broke the append-only history on its branch", short(edited.Hash), "edit an earlier entry", short(m.Hash)),
						fix:     "`printf '\\n## Correction of " + short(edited.Hash) + "\\n",
						diff:    "+**Did:** one, edited"},
					{file: progress, commit: m.Hash,
						problem: fmt.Sprintf("merge commit %s (%q) holds 1 entry in neither parent's log: T1 - Iteration 9 - 2026-01-01T00:00:00Z", short(m.Hash), "merge side"),
						fix:     "entries come from checkpoints, not from merge resolutions, and the merge stays in the history: record it: `printf '\\n## Correction of " + short(m.Hash) + "\\n"},
				}}
			},
		},
		{
			name: "a merged branch that forked before the task",
			build: func(t *testing.T, h *hist) taskWant {
				first, err := h.repo.ResolveRev(h.created.Hash + "^")
				require.NoError(t, err)
				h.branch("feature", first)
				h.git("feature work", true, map[string][]byte{"feature.txt": []byte("feature\n")})
				h.checkout("main")
				h.iteration("T1", 1, "one")
				_, err = h.repo.Merge("refs/heads/feature", gitstate.CommitRequest{Message: "Merge branch 'feature'\n", When: h.when(),
					Changes: []gitstate.FileChange{{Path: "feature.txt", Data: []byte("feature\n")}}})
				require.NoError(t, err)
				h.iteration("T1", 2, "two")
				return taskWant{commits: 3}
			},
		},
		{
			name: "a merged branch that removed the log and put the same one back",
			build: func(t *testing.T, h *hist) taskWant {
				base := h.iteration("T1", 1, "one")
				h.branch("side", base.Hash)
				h.git("drop the log", true, map[string][]byte{h.rel(store.ProgressFile): nil})
				h.git("put it back", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				h.checkout("main")
				h.iteration("T1", 2, "two")
				h.merge("side", "merge side\n")
				return taskWant{commits: 3}
			},
		},
		{
			name: "archived, then restored",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				archived := h.itr(store.EventArchived, "archive", &progresslog.Entry{Kind: progresslog.KindArchived, Stamp: h.stamp()}, nil)
				archive(t, h, archived.Hash, "refs/tags/itr/archive/demo/2026-01-14")
				h.removeTask()
				h.itr(store.EventRestored, "restore from itr/archive/demo/2026-01-14", &progresslog.Entry{Kind: progresslog.KindRestored, Stamp: h.stamp(),
					Fields: []progresslog.Field{{Name: "From", Value: "refs/tags/itr/archive/demo/2026-01-14"}}}, nil)
				h.iteration("T1", 2, "two")
				// created, T1 1, archived, the removal, restored, T1 2.
				return taskWant{commits: 6}
			},
		},
		{
			name: "restored from an older archive: a new base",
			build: func(t *testing.T, h *hist) taskWant {
				one := h.iteration("T1", 1, "one")
				oneLog := h.log
				h.iteration("T1", 2, "two")
				archived := h.itr(store.EventArchived, "archive", &progresslog.Entry{Kind: progresslog.KindArchived, Stamp: h.stamp()}, nil)
				archive(t, h, archived.Hash, "refs/tags/itr/archive/demo/2026-01-14-2")
				_, err := h.repo.CreateTag("refs/tags/itr/archive/demo/2026-01-14", one.Hash, "older\n", gitstate.Signature{Name: "A", Email: "a@example.com", When: t0})
				require.NoError(t, err)
				h.removeTask()
				h.log = oneLog
				h.itr(store.EventRestored, "restore from itr/archive/demo/2026-01-14", &progresslog.Entry{Kind: progresslog.KindRestored, Stamp: h.stamp(),
					Fields: []progresslog.Field{{Name: "From", Value: "refs/tags/itr/archive/demo/2026-01-14"}}}, nil)
				h.iteration("T1", 2, "two again")
				return taskWant{commits: 7}
			},
		},
		{
			name: "restored from an archive older than a break: the break is left behind",
			build: func(t *testing.T, h *hist) taskWant {
				createdLog := h.log
				h.iteration("T1", 1, "one")
				h.lesson("Flaky network")
				h.log = edit(t, h.log, "**Did:** one", "**Did:** one, edited")
				c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				h.guard = edit(t, h.guard, "it failed", "it failed twice")
				g := h.git("edit a lesson", true, map[string][]byte{h.rel(store.GuardrailsFile): h.guard})
				archived := h.itr(store.EventArchived, "archive", &progresslog.Entry{Kind: progresslog.KindArchived, Stamp: h.stamp()}, nil)
				archive(t, h, archived.Hash, "refs/tags/itr/archive/demo/2026-01-14-2")
				_, err := h.repo.CreateTag("refs/tags/itr/archive/demo/2026-01-14", h.created.Hash, "older\n", gitstate.Signature{Name: "A", Email: "a@example.com", When: t0})
				require.NoError(t, err)
				h.removeTask()
				// The log as the older archive has it; guardrails.md as
				// the newer (with the edited lesson).
				h.log = createdLog
				r := h.itr(store.EventRestored, "restore from itr/archive/demo/2026-01-14", &progresslog.Entry{Kind: progresslog.KindRestored, Stamp: h.stamp(),
					Fields: []progresslog.Field{{Name: "From", Value: "refs/tags/itr/archive/demo/2026-01-14"}}}, nil)
				h.iteration("T1", 2, "two")
				return taskWant{
					findings: []finding{{file: guard, commit: g.Hash, problem: "rewrote earlier guardrails"}},
					repaired: []finding{{file: progress, commit: c.Hash, problem: "broke the append-only history",
						more: fmt.Sprintf("; left behind by the restore in commit %s (%q)", short(r.Hash), r.Subject)}},
				}
			},
		},
		{
			name: "an amended itr commit that claims to put back a rewrite is read",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "the original words")
				honest1 := h.log
				c := h.git("hand edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "the original words", "rewritten")})
				e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2, Stamp: h.stamp(),
					Fields: []progresslog.Field{{Name: "Did", Value: "second"}}}
				honest := appendEntry(t, honest1, e)
				// Its trailer says it put the words back; its log keeps
				// the rewrite.
				kept := edit(t, honest, "the original words", "rewritten")
				h.commitTask(itrMessage("T1 iteration 2: second", trailers(store.EventIteration, &e, "in_progress", honest)), true,
					map[string][]byte{store.ProgressFile: kept, store.StateFile: fold(t, kept)})
				h.log = honest
				back := h.git("put the words back", true, map[string][]byte{h.rel(store.ProgressFile): honest})
				h.iteration("T1", 3, "three")
				return taskWant{repaired: []finding{{file: progress, commit: c.Hash, problem: "broke the append-only history",
					more: fmt.Sprintf("; put back by commit %s (%q)", short(back.Hash), back.Subject)}}}
			},
		},
		{
			name: "conflict markers committed, then resolved with both sides",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				clean := h.log
				conflicted := append(bytes.Clone(clean), "\n<<<<<<< ours\n## T1 - Iteration 2 - 2026-01-14T12:00:00Z\n**Did:** ours\n=======\n## T2 - Iteration 1 - 2026-01-14T12:00:00Z\n**Did:** theirs\n>>>>>>> theirs\n"...)
				h.git("merge by hand", true, map[string][]byte{h.rel(store.ProgressFile): conflicted, h.rel(store.StateFile): foldLoose(conflicted)})
				h.log = append(bytes.Clone(clean), "\n## T1 - Iteration 2 - 2026-01-14T12:00:00Z\n**Did:** ours\n\n## T2 - Iteration 1 - 2026-01-14T12:00:00Z\n**Did:** theirs\n"...)
				h.git("resolved", true, map[string][]byte{h.rel(store.ProgressFile): h.log, h.rel(store.StateFile): foldLoose(h.log)})
				return taskWant{}
			},
		},
		{
			name: "conflict markers committed, then resolved with one side only",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				clean := h.log
				conflicted := append(bytes.Clone(clean), "\n<<<<<<< ours\n## T1 - Iteration 2 - 2026-01-14T12:00:00Z\n**Did:** ours\n=======\n## T2 - Iteration 1 - 2026-01-14T12:00:00Z\n**Did:** theirs\n>>>>>>> theirs\n"...)
				h.git("merge by hand", true, map[string][]byte{h.rel(store.ProgressFile): conflicted, h.rel(store.StateFile): foldLoose(conflicted)})
				h.log = append(bytes.Clone(clean), "\n## T1 - Iteration 2 - 2026-01-14T12:00:00Z\n**Did:** ours\n"...)
				c := h.git("resolved", true, map[string][]byte{h.rel(store.ProgressFile): h.log, h.rel(store.StateFile): foldLoose(h.log)})
				return taskWant{findings: []finding{{file: progress, commit: c.Hash, problem: "took out 1 committed entry: T2 - Iteration 1 - 2026-01-14T12:00:00Z"}}}
			},
		},
		{
			name: "conflict markers in guardrails.md resolved with both sides",
			build: func(t *testing.T, h *hist) taskWant {
				h.lesson("Flaky network")
				clean := h.guard
				lesson := func(name string) string {
					return "## " + name + "\n- **When**: w\n- **Problem**: p\n- **Solution**: s\n- **Note**: by hand\n"
				}
				h.git("merge by hand", true, map[string][]byte{h.rel(store.GuardrailsFile): append(bytes.Clone(clean), "\n<<<<<<< ours\n"+lesson("Ours")+"=======\n"+lesson("Theirs")+">>>>>>> theirs\n"...)})
				h.guard = append(bytes.Clone(clean), "\n"+lesson("Ours")+"\n"+lesson("Theirs")...)
				h.git("resolved", true, map[string][]byte{h.rel(store.GuardrailsFile): h.guard})
				return taskWant{}
			},
		},
		{
			name: "a correction without a line end after it",
			build: func(t *testing.T, h *hist) taskWant {
				base := h.iteration("T1", 1, "one")
				h.branch("side", base.Hash)
				s := h.git("edit", true, map[string][]byte{h.rel(store.ProgressFile): edit(t, h.log, "**Did:** one", "**Did:** one, edited")})
				h.checkout("main")
				h.iteration("T1", 2, "two")
				h.merge("side", "merge side\n")
				h.log = append(bytes.Clone(h.log), "\n## Not a correction\nof "+short(s.Hash)+"\n\n## Correction of "+short(s.Hash)+" \r"...)
				r := h.git("note", true, map[string][]byte{h.rel(store.ProgressFile): h.log})
				return taskWant{repaired: []finding{{file: progress, commit: s.Hash, problem: "broke the append-only history on its branch",
					more: fmt.Sprintf("; recorded by commit %s (%q)", short(r.Hash), r.Subject)}}}
			},
		},
		{
			name: "archive refs that do not resolve are reported with the task",
			build: func(t *testing.T, h *hist) taskWant {
				h.iteration("T1", 1, "one")
				dangling := "0123456789abcdef0123456789abcdef01234567"
				require.NoError(t, h.repo.SetRef("refs/heads/itr/archive/gone", dangling))
				return taskWant{commits: 2, findings: []finding{{file: "refs/heads/itr/archive/gone", commit: dangling,
					problem: "does not resolve to a commit", fix: "git update-ref -d refs/heads/itr/archive/gone"}}}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, want, rep := built(t, tc.build)
			assert.Equal(t, slug, rep.Slug)
			if want.commits != 0 {
				assert.Equal(t, want.commits, rep.Commits, "itr commits checked")
			}
			require.NotNil(t, rep.Findings, "findings are a list, never null")
			checkFindings(t, "finding", rep.Findings, want.findings)
			require.Len(t, rep.Repaired, len(want.repaired), "repaired: %q", problems(rep.Repaired))
			for i, w := range want.repaired {
				g := rep.Repaired[i]
				assert.Equal(t, w.file, g.File)
				assert.Equal(t, w.commit, g.Commit)
				assert.Contains(t, g.Problem, w.problem)
				assert.Contains(t, g.Problem, w.more)
				assert.Empty(t, g.Fix, "a repaired break needs no fix")
			}
		})
	}
}

// archive makes the archive refs of the task at commit: the branch and an
// annotated tag, as itr archive does.
func archive(t *testing.T, h *hist, commit, tag string) {
	t.Helper()
	require.NoError(t, h.repo.SetBranch(store.ArchiveBranchPrefix+slug, commit, gitstate.Signature{}, ""))
	_, err := h.repo.CreateTag(tag, commit, "archive demo\n", gitstate.Signature{Name: "A", Email: "a@example.com", When: t0})
	require.NoError(t, err)
}

// checkpointsOnSide records T1 iteration 1, then T2 iterations 1 and 2 on
// the branch side made there, then T1 iteration 2 back on main; side is
// the side's last commit and merged the union of the two logs, which a
// merge of side would hold.
func (h *hist) checkpointsOnSide() (side gitstate.Commit, merged []byte) {
	h.t.Helper()
	base := h.iteration("T1", 1, "one")
	baseLog := h.log
	h.branch("side", base.Hash)
	h.iteration("T2", 1, "on the side")
	side = h.iteration("T2", 2, "more on the side")
	sideLog := h.log
	h.checkout("main")
	h.log = baseLog
	h.iteration("T1", 2, "on main")
	merged, _, err := progresslog.Union(baseLog, h.log, sideLog)
	require.NoError(h.t, err)
	return side, merged
}

// removeTask commits the removal of the task folder, as itr archive does.
func (h *hist) removeTask() gitstate.Commit {
	h.t.Helper()
	tr := []gitstate.Trailer{{Key: store.TrailerTask, Value: slug}, {Key: store.TrailerEvent, Value: store.EventArchived},
		{Key: store.TrailerArchive, Value: "refs/tags/itr/archive/demo/2026-01-14"}}
	return h.commitTask(itrMessage("archived as itr/archive/demo/2026-01-14", tr), true,
		map[string][]byte{store.ProgressFile: nil, store.StateFile: nil, store.GuardrailsFile: nil})
}

// TestTaskReadsNoOldLogs: itr's commits carry the Itr-Log digest of the log
// they wrote, so verify knows each version of a healthy log from HEAD's
// without reading its blob: what it reads does not grow with the history.
func TestTaskReadsNoOldLogs(t *testing.T) {
	reads := func(checkpoints int) int {
		h := newHist(t)
		for n := 1; n <= checkpoints; n++ {
			h.iteration("T1", n, "more")
		}
		before := h.repo.Calls("ReadBlob")
		rep := h.verify()
		require.Empty(t, rep.Findings)
		require.Equal(t, checkpoints+1, rep.Commits)
		return h.repo.Calls("ReadBlob") - before
	}
	few, many := reads(2), reads(12)
	assert.Equal(t, few, many, "blobs read for 2 and for 12 checkpoints")
}
