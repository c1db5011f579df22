package progresslog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailedAndSkippedEntries checks the two unit events of issue #19:
// appended, they read back as themselves with their fields, and headings
// written otherwise say how to write them.
func TestFailedAndSkippedEntries(t *testing.T) {
	var log []byte
	var err error
	for _, e := range []Entry{
		{Kind: KindFailed, Unit: "T2", Stamp: "2026-01-14T10:00:00Z", Fields: []Field{{Name: "Reason", Value: "the API is gone"}, {Name: "Kind", Value: "needs-human"}}},
		{Kind: KindSkipped, Unit: "T3", Stamp: "2026-01-14T10:01:00Z", Fields: []Field{{Name: "Reason", Value: "out of scope"}}},
	} {
		log, err = Append(log, e)
		require.NoError(t, err)
	}
	assert.Equal(t, "# Progress Log\n\n## T2 - Failed - 2026-01-14T10:00:00Z\n**Reason:** the API is gone\n**Kind:** needs-human\n\n## T3 - Skipped - 2026-01-14T10:01:00Z\n**Reason:** out of scope\n", string(log))
	l := Parse(log)
	require.Len(t, l.Entries, 2)
	assert.Empty(t, l.Problems)
	assert.Equal(t, KindFailed, l.Entries[0].Kind)
	assert.Equal(t, "T2", l.Entries[0].Unit)
	kind, _ := l.Entries[0].Field("Kind")
	assert.Equal(t, "needs-human", kind)
	assert.Equal(t, KindSkipped, l.Entries[1].Kind)
	assert.Equal(t, "failed", KindFailed.String())
	assert.Equal(t, "skipped", KindSkipped.String())

	_, err = Append(nil, Entry{Kind: KindFailed, Stamp: "2026-01-14T10:00:00Z"})
	assert.ErrorContains(t, err, `failed entry: unit ID "" is not valid`)
	l = Parse([]byte("## Task - Skipped - 2026-01-14T10:00:00Z\n"))
	require.Len(t, l.Problems, 1)
	assert.Contains(t, l.Problems[0].Msg, `Skipped is about a unit, so its subject must be a unit ID such as T1, not "Task"; write it as "## T1 - Skipped - 2026-01-14T10:00:00Z"`)
}
