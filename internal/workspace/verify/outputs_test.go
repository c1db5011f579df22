package verify_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/evidence"
	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// TestOutputsFindsTheBreakingCommit checks the outputs of done units at
// HEAD and walks back, across more commits than one batch of the walk, to
// the commit after which each output fails; units that are not done and
// outputs that pass cost nothing.
func TestOutputsFindsTheBreakingCommit(t *testing.T) {
	h := newHist(t)
	p, err := plan.Parse("plan.md", []byte("## Phases\n- [x] **R1**: review\n  - Output: `outputs/review.md`, `outputs/notes.md`\n  - Min words: 4\n- [ ] **R2**: memo\n  - Output: `outputs/memo.md`\n"))
	require.NoError(t, err)
	review, notes, memo := h.rel("outputs/review.md"), h.rel("outputs/notes.md"), h.rel("outputs/memo.md")
	h.git("write the outputs", true, map[string][]byte{review: []byte("A whole review here.\n"), notes: []byte("Notes that are fine.\n")})
	for i := 0; i < 70; i++ {
		h.git(fmt.Sprintf("work %d", i), true, map[string][]byte{"work.txt": []byte(fmt.Sprint(i))})
	}
	cut := h.git("cut the review", true, map[string][]byte{review: []byte("A whole...\n"), memo: nil})
	for i := 0; i < 70; i++ {
		h.git(fmt.Sprintf("more work %d", i), true, map[string][]byte{"work.txt": []byte(fmt.Sprint("more", i))})
	}
	gone := h.git("drop the notes", true, map[string][]byte{notes: nil})
	head := h.git("last", true, map[string][]byte{"work.txt": []byte("last")})

	s := state.New(state.Knowledge, "Demo", slug, "2026-01-14T10:00:00Z")
	s.Units["R1"] = &state.Unit{ID: "R1", Status: state.Done}
	s.Units["R2"] = &state.Unit{ID: "R2", Status: state.InProgress}
	task := &store.Task{Slug: slug, State: s, Plan: p, Head: gitstate.Head{Hash: head.Hash}}
	issues, err := verify.Outputs(h.st, task)
	require.NoError(t, err)
	require.Len(t, issues, 3, "%v", issues)
	assert.Equal(t, evidence.Problem{File: "outputs/review.md", Rule: evidence.TooShort, Detail: "2 words, fewer than 4"}, issues[0].Problem)
	assert.Equal(t, evidence.Truncated, issues[1].Problem.Rule)
	for _, o := range issues[:2] {
		assert.Equal(t, cut.Hash, o.Commit, o.String())
		assert.Equal(t, review, o.Path)
	}
	assert.Equal(t, evidence.Problem{File: "outputs/notes.md", Rule: evidence.Missing}, issues[2].Problem)
	assert.Equal(t, gone.Hash, issues[2].Commit)
	assert.True(t, strings.HasSuffix(issues[2].String(), "since commit "+store.Short(gone.Hash)+" (drop the notes)"), issues[2].String())
	assert.Contains(t, issues[2].Fix(), "git checkout "+store.Short(gone.Hash)+"^ -- "+notes)

	fs := verify.OutputFindings(issues)
	require.Len(t, fs, 3)
	assert.Equal(t, notes, fs[2].File)
	assert.Equal(t, "done unit R1: outputs/notes.md: missing, since commit "+store.Short(gone.Hash)+" (drop the notes)", fs[2].Problem)

	// An output that never passed names no commit.
	p2, err := plan.Parse("plan.md", []byte("## Phases\n- [x] **R1**: review\n  - Output: `outputs/never.md`\n"))
	require.NoError(t, err)
	issues, err = verify.Outputs(h.st, &store.Task{Slug: slug, State: s, Plan: p2, Head: gitstate.Head{Hash: head.Hash}})
	require.NoError(t, err)
	require.Len(t, issues, 1)
	assert.Empty(t, issues[0].Commit)
	assert.Equal(t, "R1: outputs/never.md: missing", issues[0].String())
}

// TestOutputsRulesAndWarnings checks a done unit's output rules at HEAD:
// a plain commit that takes the footer off is a problem, with that commit,
// and a large output without a Max size is a warning apart, with no
// commit, that the walk does not count as broken.
func TestOutputsRulesAndWarnings(t *testing.T) {
	h := newHist(t)
	p, err := plan.Parse("plan.md", []byte("## Phases\n- [x] **L1**: memo\n  - Output: `outputs/memo.md`\n  - Must end with: END OF MEMORANDUM\n  - Sections: Summary\n- [x] **R1**: survey\n  - Output: `outputs/survey.md`\n"))
	require.NoError(t, err)
	memo, survey := h.rel("outputs/memo.md"), h.rel("outputs/survey.md")
	big := []byte(strings.Repeat("A line of the survey. ", evidence.DefaultWarnBytes/20))
	h.git("write the outputs", true, map[string][]byte{memo: []byte("## Summary\n\nIt holds.\n\nEND OF MEMORANDUM\n"), survey: big})
	cut := h.git("tidy the memo", true, map[string][]byte{memo: []byte("## Summary\n\nIt holds.\n")})
	head := h.git("bigger survey", true, map[string][]byte{survey: append(big, "More.\n"...)})

	s := state.New(state.Knowledge, "Demo", slug, "2026-01-14T10:00:00Z")
	s.Units["L1"] = &state.Unit{ID: "L1", Status: state.Done}
	s.Units["R1"] = &state.Unit{ID: "R1", Status: state.Done}
	task := &store.Task{Slug: slug, State: s, Plan: p, Head: gitstate.Head{Hash: head.Hash}}
	issues, warnings, err := verify.OutputsAndWarnings(h.st, task)
	require.NoError(t, err)
	require.Len(t, issues, 1, "%v", issues)
	assert.Equal(t, evidence.NoFooter, issues[0].Problem.Rule)
	assert.Equal(t, cut.Hash, issues[0].Commit)
	require.Len(t, warnings, 1, "%v", warnings)
	assert.Equal(t, evidence.Large, warnings[0].Problem.Rule)
	assert.Empty(t, warnings[0].Commit)
	assert.Equal(t, survey, warnings[0].Path)
	assert.NotContains(t, warnings[0].Fix(), "commit it")

	only, err := verify.Outputs(h.st, task)
	require.NoError(t, err)
	assert.Equal(t, issues, only, "Outputs leaves the warnings out")
}
