package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// The entry a record appends, read from the appended bytes alone, is the
// whole log's last entry, numbered as in the whole log; the log's size and
// summary grown by it are the whole log's; for logs with LF and CRLF line
// ends, ended by a newline or not, with and without a summary.
func TestAppendedEntry(t *testing.T) {
	base := "# Progress\n\n## Task - Created - 2026-01-14T09:00:00Z\n\n**Name:** Demo\n\n## T1 - Iteration 1 - 2026-01-14T09:01:00Z\n\n**Did:** ünïcode\n**Remaining:** more\n  and more\n"
	summary := "\n## Task - Summary - 2026-01-14T09:02:00Z\n\n**Did:** the work so far\n**Covers:** lines 1-12\n"
	entries := []progresslog.Entry{
		{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2, Stamp: "2026-01-14T09:03:00Z", Fields: []progresslog.Field{{Name: "Did", Value: "two\nlines"}}},
		{Kind: progresslog.KindNote, Stamp: "2026-01-14T09:04:00Z", Fields: []progresslog.Field{{Name: "Critical", Value: "keep it"}}},
		{Kind: progresslog.KindSummary, Stamp: "2026-01-14T09:05:00Z", Fields: []progresslog.Field{{Name: "Did", Value: "all of it"}, {Name: "Covers", Value: "everything"}}},
		{Kind: progresslog.KindReopened, Unit: "T1", Stamp: "2026-01-14T09:06:00Z", Fields: []progresslog.Field{{Name: "Reason", Value: "broke"}}},
	}
	for _, crlf := range []bool{false, true} {
		for _, cut := range []bool{false, true} {
			for _, withSummary := range []bool{false, true} {
				old := base
				if withSummary {
					old += summary
				}
				if cut {
					old = strings.TrimSuffix(old, "\n")
				}
				if crlf {
					old = strings.ReplaceAll(old, "\n", "\r\n")
				}
				for _, e := range entries {
					name := e.Title()
					t.Run(name, func(t *testing.T) {
						next, err := progresslog.Append([]byte(old), e)
						require.NoError(t, err)
						whole := progresslog.Parse(next).Entries
						oldEntries := progresslog.Parse([]byte(old)).Entries
						suffix, lines := next[len(old):], strings.Count(old, "\n")
						got, ok := appendedEntry(suffix, lines)
						require.True(t, ok, "crlf %v, cut %v", crlf, cut)
						require.Equal(t, whole[len(whole)-1], got)
						f := &logFacts{Size: readSize([]byte(old), oldEntries), Entries: len(oldEntries)}
						f.grow(got, suffix, lines)
						want := readSize(next, whole)
						gotJSON, _ := json.Marshal(f.Size)
						wantJSON, _ := json.Marshal(want)
						require.Equal(t, string(wantJSON), string(gotJSON), "the size of the log grown by the entry (crlf %v, cut %v, summary %v)", crlf, cut, withSummary)
					})
				}
			}
		}
	}
}

// Appended bytes that are not one entry a fresh reading reads alike are
// not stepped.
func TestAppendedEntryRefuses(t *testing.T) {
	for name, suffix := range map[string]string{
		"two entries":       "\n## T1 - Iteration 2 - 2026-01-14T09:03:00Z\n\n**Did:** a\n\n## T1 - Iteration 3 - 2026-01-14T09:04:00Z\n\n**Did:** b\n",
		"text before":       "more of the last entry\n\n## T1 - Iteration 2 - 2026-01-14T09:03:00Z\n\n**Did:** a\n",
		"conflict markers":  "\n<<<<<<< ours\n## T1 - Iteration 2 - 2026-01-14T09:03:00Z\n=======\n>>>>>>> theirs\n",
		"a planned entry":   "\n## Task - Planned - 2026-01-14T09:03:00Z\n\n**Dropped:** T2\n",
		"a heading of odds": "\n## T1 - Iteration two - 2026-01-14T09:03:00Z\n",
		"nothing":           "",
	} {
		t.Run(name, func(t *testing.T) {
			_, ok := appendedEntry([]byte(suffix), 10)
			require.False(t, ok)
		})
	}
}

// A remembered file is read only as written: another version, a body
// edited or cut short, or another key is a miss.
func TestDecodeFacts(t *testing.T) {
	f := &logFacts{Key: "k", Derived: string(state.New(state.Development, "demo", "Demo", "2026-01-14T09:00:00Z").Encode()), Units: map[string]*unitFacts{"T1": {Session: "s"}}, Activity: map[string]int{"T1": 1}}
	data, err := encodeFacts(f)
	require.NoError(t, err)
	require.NotNil(t, decodeFacts(data, "k", nil), "the file as written")
	for name, bad := range map[string][]byte{
		"another key":     nil,
		"body edited":     []byte(strings.Replace(string(data), `"session":"s"`, `"session":"x"`, 1)),
		"cut short":       data[:len(data)-3],
		"another version": []byte(strings.Replace(string(data), factsVersion, "itr-view-5", 1)),
		"no first line":   data[strings.IndexByte(string(data), '\n')+1:],
		"empty":           {},
	} {
		t.Run(name, func(t *testing.T) {
			key := "k"
			if bad == nil {
				bad, key = data, "other"
			}
			require.Nil(t, decodeFacts(bad, key, nil))
		})
	}
}

// TestDecodeFactsTakesTheRecordedState: remembered facts whose fold is
// the task's committed state.json byte for byte are that state, not a
// second decoding, and cannot differ from it; a fold that is not the
// state.json is decoded, and the view compares them.
func TestDecodeFactsTakesTheRecordedState(t *testing.T) {
	s := state.New(state.Development, "demo", "Demo", "2026-01-14T09:00:00Z")
	raw := s.Encode()
	f := &logFacts{Key: "k", Derived: string(raw), Units: map[string]*unitFacts{}, Activity: map[string]int{}}
	data, err := encodeFacts(f)
	require.NoError(t, err)

	task := &store.Task{State: s, StateRaw: raw}
	got := decodeFacts(data, "k", task)
	require.NotNil(t, got)
	assert.True(t, got.asRecorded)
	assert.Same(t, s, got.derived, "the recorded state itself")
	assert.Empty(t, recordedDiff(task, got))

	other := state.New(state.Development, "demo", "Demo", "2026-01-15T09:00:00Z")
	task = &store.Task{State: other, StateRaw: other.Encode()}
	got = decodeFacts(data, "k", task)
	require.NotNil(t, got)
	assert.False(t, got.asRecorded)
	assert.NotEmpty(t, recordedDiff(task, got), "a state.json the log does not say is told")
}
