package verify_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// unitCommit is an itr commit about unit id leaving it in status st, with
// files.
func (h *hist) unitCommit(event, id string, st state.Status, files map[string][]byte) gitstate.Commit {
	h.t.Helper()
	msg := fmt.Sprintf("itr(%s): %s %s\n\nItr-Task: %s\nItr-Event: %s\nItr-Unit: %s\nItr-Status: %s\n", slug, event, id, slug, event, id, st)
	h.tick++
	if files == nil {
		files = map[string][]byte{}
	}
	files[h.rel("progress.md")] = []byte(fmt.Sprintf("entry %d\n", h.tick))
	return h.git(msg, true, files)
}

// TestStaleInputs: R2 reads R1's output and a plain file; a plain commit
// that changes R1's output after R2 was done is named (the newest of the
// commits that changed it, and how many did), a file changed only in the
// working tree is named as uncommitted, R3 whose upstream R1 was reopened
// (and is done again) since is named, and a re-check moves the point of
// comparison to its own commit.
func TestStaleInputs(t *testing.T) {
	h := newHist(t)
	p, err := plan.Parse("plan.md", []byte("## Phases\n- [ ] **R1**: survey\n  - Output: `outputs/survey.md`\n- [ ] **R2**: synthesis\n  - Inputs: R1.output, `sources/list.md`\n  - Output: `outputs/synthesis.md`\n- [ ] **R3**: memo\n  - Depends: R1\n- [ ] **R4**: untouched\n  - Inputs: R1.output\n"))
	require.NoError(t, err)
	survey, list := h.rel("outputs/survey.md"), h.rel("sources/list.md")
	h.unitCommit("iteration", "R1", state.Done, map[string][]byte{survey: []byte("first survey\n"), list: []byte("a list\n")})
	done2 := h.unitCommit("iteration", "R2", state.Done, map[string][]byte{h.rel("outputs/synthesis.md"): []byte("synthesis\n")})
	done3 := h.unitCommit("iteration", "R3", state.Done, nil)
	first := h.git("reword the survey", true, map[string][]byte{survey: []byte("second survey\n")})
	for i := 0; i < 5; i++ {
		h.git(fmt.Sprintf("work %d", i), true, map[string][]byte{"work.txt": []byte(fmt.Sprint(i))})
	}
	reopened := h.unitCommit("reopened", "R1", state.InProgress, nil)
	last := h.unitCommit("iteration", "R1", state.Done, map[string][]byte{survey: []byte("third survey\n")})
	require.NoError(t, os.WriteFile(filepath.Join(h.repo.Root(), filepath.FromSlash(list)), []byte("a longer list\n"), 0o644))

	s := state.New(state.Knowledge, "Demo", slug, "2026-01-14T10:00:00Z")
	for _, id := range []string{"R1", "R2", "R3"} {
		s.Units[id] = &state.Unit{ID: id, Status: state.Done}
	}
	s.Units["R4"] = &state.Unit{ID: "R4", Status: state.Pending}
	task := &store.Task{Slug: slug, State: s, Plan: p, Head: gitstate.Head{Hash: last.Hash}}

	stale, err := verify.StaleInputs(h.st, task, true)
	require.NoError(t, err)
	require.Len(t, stale, 4, "%v", stale)
	assert.Equal(t, verify.StaleInput{Unit: "R2", Kind: verify.StaleChanged, Input: "outputs/survey.md", From: "R1", Path: survey,
		DoneCommit: done2.Hash, Commit: last.Hash, Subject: last.Subject, Commits: 2}, stale[0])
	assert.Equal(t, verify.StaleUncommitted, stale[1].Kind)
	assert.Equal(t, list, stale[1].Path)
	assert.Equal(t, verify.StaleInput{Unit: "R2", Kind: verify.StaleReopened, Input: "R1", DoneCommit: done2.Hash, Commit: reopened.Hash, Subject: reopened.Subject}, stale[2])
	assert.Equal(t, verify.StaleInput{Unit: "R3", Kind: verify.StaleReopened, Input: "R1", DoneCommit: done3.Hash, Commit: reopened.Hash, Subject: reopened.Subject}, stale[3])
	assert.Contains(t, stale[3].String(), "R3: R1, which it builds on, was reopened in commit "+store.Short(reopened.Hash))
	assert.Contains(t, stale[0].String(), "R2: its input outputs/survey.md (R1's output) changed in commit "+store.Short(last.Hash))
	assert.Contains(t, stale[0].String(), "(and 1 commit before it)")
	assert.Contains(t, stale[0].Fix(), "git diff "+store.Short(done2.Hash)+" -- "+survey)
	assert.Contains(t, stale[0].Fix(), "itr recheck R2 --did")
	assert.NotEqual(t, first.Hash, stale[0].Commit, "the newest change is named, not the first")

	// Committed history only (verify's view without the working tree),
	// and a re-check of R2 and R3 after the change: nothing stale.
	h.unitCommit("rechecked", "R3", state.Done, nil)
	recheck := h.unitCommit("rechecked", "R2", state.Done, map[string][]byte{list: []byte("a longer list\n")})
	task.Head.Hash = recheck.Hash
	stale, err = verify.StaleInputs(h.st, task, true)
	require.NoError(t, err)
	assert.Empty(t, stale)
	assert.Len(t, verify.StaleFindings([]verify.StaleInput{{Unit: "R2", Kind: verify.StaleChanged, Input: "a", Path: "x", DoneCommit: done2.Hash, Commit: last.Hash}}), 1)
}
