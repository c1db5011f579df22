package verify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
)

// archived is a history whose task was archived: the archived commit (with
// the Archived entry) and the folder removed after it.
func archived(t *testing.T) (*hist, gitstate.Commit) {
	t.Helper()
	h := newHist(t)
	h.iteration("T1", 1, "one")
	a := h.itr(store.EventArchived, "archive", &progresslog.Entry{Kind: progresslog.KindArchived, Stamp: h.stamp()}, nil)
	return h, a
}

func TestArchiveFindings(t *testing.T) {
	const (
		branch   = store.ArchiveBranchPrefix + slug
		tag      = store.ArchiveTagPrefix + slug + "/2026-01-14"
		dangling = "0123456789abcdef0123456789abcdef01234567"
	)
	tagger := gitstate.Signature{Name: "A", Email: "a@example.com", When: t0}
	cases := []struct {
		name string
		// refs makes the archive refs; a is the archived commit.
		refs func(t *testing.T, h *hist, a gitstate.Commit) []finding
	}{
		{
			name: "no archive refs",
			refs: func(t *testing.T, h *hist, a gitstate.Commit) []finding { return nil },
		},
		{
			name: "a branch and an annotated tag at the archived commit",
			refs: func(t *testing.T, h *hist, a gitstate.Commit) []finding {
				archive(t, h, a.Hash, tag)
				_, err := h.repo.CreateTag(tag+"-2", a.Hash, "again\n", tagger)
				require.NoError(t, err)
				return nil
			},
		},
		{
			name: "a tag that is not annotated",
			refs: func(t *testing.T, h *hist, a gitstate.Commit) []finding {
				require.NoError(t, h.repo.SetRef(tag, a.Hash))
				return []finding{{file: tag, commit: a.Hash, problem: "does not resolve to an annotated tag: ",
					fix: "git fetch origin '+" + tag + ":" + tag + "'"}}
			},
		},
		{
			name: "tags whose names are not itr's",
			refs: func(t *testing.T, h *hist, a gitstate.Commit) []finding {
				bad := []string{store.ArchiveTagPrefix + slug + "/yesterday", store.ArchiveTagPrefix + "Demo/2026-01-14", store.ArchiveTagPrefix + "loose"}
				var out []finding
				for _, name := range bad {
					_, err := h.repo.CreateTag(name, a.Hash, "x\n", tagger)
					require.NoError(t, err)
				}
				// In ref-name order.
				for _, name := range []string{bad[1], bad[0], bad[2]} {
					ref, err := h.repo.ReadRef(name)
					require.NoError(t, err)
					out = append(out, finding{file: name, commit: ref, problem: "not an itr archive tag name (itr/archive/<slug>/<YYYY-MM-DD>[-n])",
						fix: "`git tag -d " + name[len("refs/tags/"):] + "`"})
				}
				return out
			},
		},
		{
			name: "a branch whose name is not a slug",
			refs: func(t *testing.T, h *hist, a gitstate.Commit) []finding {
				name := store.ArchiveBranchPrefix + "Not_A_Slug"
				require.NoError(t, h.repo.SetBranch(name, a.Hash, gitstate.Signature{}, ""))
				return []finding{{file: name, commit: a.Hash, problem: "not an itr archive branch name (itr/archive/<slug>)", fix: "git branch -D"}}
			},
		},
		{
			name: "refs that do not resolve",
			refs: func(t *testing.T, h *hist, a gitstate.Commit) []finding {
				require.NoError(t, h.repo.SetRef(branch, dangling))
				require.NoError(t, h.repo.SetRef(tag, dangling))
				blob := h.repo.Blob([]byte("not a commit\n"))
				require.NoError(t, h.repo.SetRef(store.ArchiveBranchPrefix+"blob", blob))
				return []finding{
					{file: store.ArchiveBranchPrefix + "blob", commit: blob, problem: "does not resolve to a commit: ", fix: "git update-ref -d " + store.ArchiveBranchPrefix + "blob"},
					{file: branch, commit: dangling, problem: "does not resolve to a commit: "},
					{file: tag, commit: dangling, problem: "does not resolve to an annotated tag: "},
				}
			},
		},
		{
			name: "archived commits that lack the task's files",
			refs: func(t *testing.T, h *hist, a gitstate.Commit) []finding {
				// The first commit, before the task.
				first, err := h.repo.ResolveRev(h.created.Hash + "^")
				require.NoError(t, err)
				archive(t, h, first, tag)
				// A commit holding state.json but no progress.md.
				h.checkout("other")
				require.NoError(t, h.repo.SetBranch("refs/heads/other", a.Hash, gitstate.Signature{}, ""))
				c := h.git("drop the log", false, map[string][]byte{h.rel(store.ProgressFile): nil})
				require.NoError(t, h.repo.SetBranch(store.ArchiveBranchPrefix+"other", c.Hash, gitstate.Signature{}, ""))
				require.NoError(t, h.repo.SetBranch(store.ArchiveBranchPrefix+"elsewhere", a.Hash, gitstate.Signature{}, ""))
				return []finding{
					{file: branch, commit: first, problem: "the archived commit does not hold " + h.rel(store.StateFile) + ": ",
						fix: "if the task was archived under another root, run itr with --root"},
					{file: store.ArchiveBranchPrefix + "elsewhere", commit: a.Hash, problem: "does not hold " + store.DefaultRoot + "/elsewhere/state.json"},
					{file: store.ArchiveBranchPrefix + "other", commit: c.Hash, problem: "does not hold " + store.DefaultRoot + "/other/state.json"},
					{file: tag, commit: first, problem: "the archived commit does not hold " + h.rel(store.StateFile)},
				}
			},
		},
		{
			name: "an archive of another slug missing only its log",
			refs: func(t *testing.T, h *hist, a gitstate.Commit) []finding {
				c := h.git("drop the log", false, map[string][]byte{h.rel(store.ProgressFile): nil})
				require.NoError(t, h.repo.SetBranch(branch, c.Hash, gitstate.Signature{}, ""))
				return []finding{{file: branch, commit: c.Hash, problem: "the archived commit does not hold " + h.rel(store.ProgressFile) + ": "}}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, a := archived(t)
			want := tc.refs(t, h, a)
			got, err := verify.ArchiveFindings(h.st)
			require.NoError(t, err)
			checkFindings(t, "archive finding", got, want)
		})
	}
}

// TestTaskOnlyArchives: with no task active and no task named, verify
// checks the archive refs alone.
func TestTaskOnlyArchives(t *testing.T) {
	h, a := archived(t)
	archive(t, h, a.Hash, store.ArchiveTagPrefix+slug+"/2026-01-14")
	h.removeTask()

	rep, err := verify.Task(h.st, "")
	require.NoError(t, err)
	assert.Equal(t, &verify.Report{Slug: store.ArchivePattern, Findings: []verify.Finding{}}, rep)

	require.NoError(t, h.repo.SetRef(store.ArchiveBranchPrefix+"gone", "0123456789abcdef0123456789abcdef01234567"))
	rep, err = verify.Task(h.st, "")
	require.NoError(t, err)
	assert.Equal(t, store.ArchivePattern, rep.Slug)
	checkFindings(t, "archive finding", rep.Findings, []finding{{file: store.ArchiveBranchPrefix + "gone", problem: "does not resolve to a commit"}})

	// Named, the archived task is not active: no task to verify.
	_, err = verify.Task(h.st, slug)
	require.ErrorIs(t, err, store.ErrNoTask)
	assert.Contains(t, err.Error(), "it is archived as")
}

// TestTaskChoosesTheTask: without a slug verify checks the only active
// task, or the one the store names; it refuses bad and unknown slugs.
func TestTaskChoosesTheTask(t *testing.T) {
	h := newHist(t)
	h.iteration("T1", 1, "one")

	rep, err := verify.Task(h.st, "")
	require.NoError(t, err)
	assert.Equal(t, slug, rep.Slug)
	assert.Equal(t, 2, rep.Commits)

	h.st.Task = slug
	rep, err = verify.Task(h.st, "")
	require.NoError(t, err)
	assert.Equal(t, slug, rep.Slug)
	h.st.Task = ""

	_, err = verify.Task(h.st, "Not A Slug")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a safe folder name")

	_, err = verify.Task(h.st, "missing")
	require.ErrorIs(t, err, store.ErrNoTask)

	// No task at all, no archives.
	_, st := newRepo(t)
	_, err = verify.Task(st, "")
	require.ErrorIs(t, err, store.ErrNoTask)
	// A repository without commits.
	_, err = verify.Task(st, slug)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no commits yet")
}
