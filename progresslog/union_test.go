package progresslog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const unionBase = "# Progress Log\n\n## Task - Created - 2026-01-14T10:30:00Z\n**Name:** x\n\n## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** base\n"

func TestUnion(t *testing.T) {
	ours := unionBase + "\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** ours\n"
	theirs := unionBase + "\n## T2 - Iteration 1 - 2026-01-14T10:50:00Z\n**Did:** theirs\n\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** ours\n"
	merged, added, err := Union([]byte(unionBase), []byte(ours), []byte(theirs))
	require.NoError(t, err)
	assert.Equal(t, 1, added, "the entry both sides have is kept once")
	assert.Nil(t, IsAppendOnly([]byte(ours), merged), "the result extends ours")
	l := Parse(merged)
	require.Len(t, l.Entries, 4)
	assert.Equal(t, "T2", l.Entries[3].Unit)
	assert.False(t, l.Conflicted)

	// Deterministic, and symmetric in content.
	again, _, _ := Union([]byte(unionBase), []byte(ours), []byte(theirs))
	assert.Equal(t, string(merged), string(again))
	other, _, err := Union([]byte(unionBase), []byte(theirs), []byte(ours))
	require.NoError(t, err)
	assert.Len(t, Parse(other).Entries, 4)

	// An entry the base had and ours lost is kept.
	rewritten := strings.Replace(ours, "**Did:** base", "**Did:** rewritten", 1)
	merged, added, err = Union([]byte(unionBase), []byte(rewritten), []byte(theirs))
	require.NoError(t, err)
	assert.Equal(t, 2, added, "the base entry ours rewrote, and T2")
	assert.Contains(t, string(merged), "**Did:** base")

	// A conflicted ours is rebuilt without markers.
	conflicted := unionBase + "\n<<<<<<< HEAD\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** a\n=======\n## T3 - Iteration 1 - 2026-01-14T11:00:00Z\n**Did:** b\n>>>>>>> other\n"
	merged, _, err = Union(nil, []byte(conflicted), []byte(theirs))
	require.NoError(t, err)
	assert.NotContains(t, string(merged), "<<<<<<<")
	assert.Len(t, Parse(merged).Entries, 6)
}
