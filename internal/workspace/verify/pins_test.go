package verify_test

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestPinsNameTheChange compares pins with HEAD and the working tree in a
// real repository: a shrink, an overwrite and a removal made by plain
// commits (the walk crosses more than one batch), and a truncation only
// in the working tree; a pin that holds costs no walk and is no issue.
func TestPinsNameTheChange(t *testing.T) {
	h := newHist(t)
	p, err := plan.Parse("plan.md", []byte("## Phases\n- [x] **R1**: survey\n  - Output: `outputs/a.md`, `outputs/b.md`, `outputs/c.md`, `outputs/d.md`, `outputs/e.md`\n"))
	require.NoError(t, err)
	a, b, c, d, e := h.rel("outputs/a.md"), h.rel("outputs/b.md"), h.rel("outputs/c.md"), h.rel("outputs/d.md"), h.rel("outputs/e.md")
	body := []byte("A whole survey, long enough to shrink.\n")
	h.git("write the outputs", true, map[string][]byte{a: body, b: body, c: body, d: body, e: body})
	pin := state.OutputPin{Bytes: int64(len(body)), Blob: h.repo.BlobID(body)}
	pinOf := func(path string) state.OutputPin { q := pin; q.Path = path; return q }
	for i := 0; i < 70; i++ {
		h.git(fmt.Sprintf("work %d", i), true, map[string][]byte{"work.txt": []byte(fmt.Sprint(i))})
	}
	shrink := h.git("tidy", true, map[string][]byte{a: []byte("Ok.\n")})
	over := h.git("rewrite", true, map[string][]byte{b: []byte("Another survey, written over the first one, longer.\n")})
	gone := h.git("drop", true, map[string][]byte{c: nil})
	head := h.git("last", true, map[string][]byte{"work.txt": []byte("last")})
	require.NoError(t, os.WriteFile(filepath.Join(h.repo.Root(), filepath.FromSlash(d)), []byte("A whole [continue\n"), 0o644))

	s := state.New(state.Knowledge, "Demo", slug, "2026-01-14T10:00:00Z")
	s.Units["R1"] = &state.Unit{ID: "R1", Status: state.Done, Outputs: []state.OutputPin{pinOf(a), pinOf(b), pinOf(c), pinOf(d), pinOf(e)}}
	s.Units["R2"] = &state.Unit{ID: "R2", Status: state.InProgress, Outputs: []state.OutputPin{pinOf(c)}}
	task := &store.Task{Slug: slug, State: s, Plan: p, Head: gitstate.Head{Hash: head.Hash}}
	issues, err := verify.Pins(h.st, task)
	require.NoError(t, err)
	require.Len(t, issues, 4, "%v", issues)

	assert.Equal(t, verify.PinShrunk, issues[0].Change)
	assert.Equal(t, shrink.Hash, issues[0].Commit)
	assert.Equal(t, int64(4), issues[0].Bytes)
	assert.Equal(t, fmt.Sprintf("R1: %s shrank from %d to 4 bytes since the unit was done, in commit %s (tidy)", a, len(body), store.Short(shrink.Hash)), issues[0].String())
	assert.Contains(t, issues[0].Fix(), "git checkout "+store.Short(shrink.Hash)+"^ -- "+a)
	assert.Contains(t, issues[0].Fix(), "itr reopen R1")
	assert.NotContains(t, issues[0].Fix(), "--accept-outputs", "c.md is missing: the outputs fail their check, so the change cannot be accepted")

	assert.Equal(t, verify.PinOverwritten, issues[1].Change)
	assert.Equal(t, over.Hash, issues[1].Commit)
	assert.Equal(t, verify.PinRemoved, issues[2].Change)
	assert.Equal(t, gone.Hash, issues[2].Commit)

	assert.Equal(t, verify.PinShrunk, issues[3].Change)
	assert.True(t, issues[3].Uncommitted)
	assert.Empty(t, issues[3].Commit)
	assert.Contains(t, issues[3].String(), "in the working tree (not committed)")
	assert.Contains(t, issues[3].Fix(), "git checkout -- "+d)
	require.Len(t, issues[3].Problems, 1, "the working tree's version is told with the rule it fails")
	assert.Equal(t, evidence.Truncated, issues[3].Problems[0].Rule)
	assert.Contains(t, issues[3].String(), `as it is now it fails the output check: truncated (ends in "[continue")`)
	assert.Empty(t, issues[0].Problems, "only a change in the working tree is checked again: verify's output check tells HEAD's")

	found, warned := verify.PinFindings(issues)
	assert.Len(t, found, 2, "the removal is the output check's finding (missing, with the commit), not told twice")
	assert.Len(t, warned, 1, "a change in the working tree only is a warning of itr verify")
	assert.Equal(t, d, warned[0].File)
}
