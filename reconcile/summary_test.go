package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// TestSummaryChangesNoState: a Summary entry is an event (it moves
// `updated`) that changes nothing else, wherever it falls in the log.
func TestSummaryChangesNoState(t *testing.T) {
	p := mustPlan(t, tasksMD)
	log := "# Progress Log\n\n## Task - Created - 2026-01-14T10:30:00Z\n**Name:** Auth\n\n" +
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** a\n\n" +
		"## T1 - Iteration 2 - 2026-01-14T10:50:00Z\n**Did:** b\n**Signal:** T1_DONE\n\n" +
		"## T3 - Blocked - 2026-01-14T11:00:00Z\n**Reason:** keys\n"
	summary := "\n## Task - Summary - 2026-01-14T12:00:00Z\n**Did:** T1 is done\n**Covers:** entries 1–4\n"
	without, problems := Fold(Input{Slug: "auth", Plan: p, Entries: progresslog.Parse([]byte(log)).Entries})
	require.Empty(t, problems)
	with, problems := Fold(Input{Slug: "auth", Plan: p, Entries: progresslog.Parse([]byte(log + summary)).Entries})
	require.Empty(t, problems)
	assert.Equal(t, "2026-01-14T12:00:00Z", state.Val(with.Updated))
	with.Updated = without.Updated
	assert.Equal(t, string(without.Encode()), string(with.Encode()))

	// Step (what itr summarize runs) and Fold agree.
	ev, err := EventFrom(progresslog.Parse([]byte(summary)).Entries[0], nil)
	require.NoError(t, err)
	assert.Equal(t, progresslog.KindSummary, ev.Kind)
	stepped, err := Step(without, p, ev)
	require.NoError(t, err)
	again, _ := Fold(Input{Slug: "auth", Plan: p, Entries: progresslog.Parse([]byte(log + summary)).Entries})
	assert.Equal(t, string(again.Encode()), string(stepped.Encode()))
	assert.Empty(t, Diff(again, stepped, p))
}
