package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// TestAdoptionKeepsWhatTheLogCannotSay: a log in the seed's format (no
// Created entry, no verification or block lines) folds to less than its
// committed state.json says; the Adopted entry built from the difference
// makes the fold equal the committed facts, and reads back as written.
func TestAdoptionKeepsWhatTheLogCannotSay(t *testing.T) {
	p := mustPlan(t, tasksMD)
	raw := []byte("# Progress Log\n\n" +
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** model\n**Remaining:** None\n**Signal:** T1_DONE\n**Commit:** abc1234\n\n" +
		"## T1 - Iteration 2 - 2026-01-14T10:50:00Z\n**Did:** confirmed\n**Remaining:** None\n**Signal:** T1_DONE\n**Commit:** abc1234\n")
	log := progresslog.Parse(raw)
	require.True(t, NeedsAdoption(log.Entries))

	committed := Seed(nil, "demo", p)
	committed.Phase = state.Execute
	t1 := committed.Units["T1"]
	t1.Status, t1.IterationsUsed, t1.ConfirmationsUsed = state.Done, state.Ptr(3), state.Ptr(1)
	t1.VerificationPassed, t1.CompletedAt = state.Ptr(true), state.Ptr("2026-01-14T11:15:00Z")
	t4 := committed.Units["T4"]
	t4.Status, t4.Reason = state.Blocked, state.Ptr("waits for keys, and more")
	committed.Commits = []string{"abc1234: feat: the model"}

	folded, _ := Fold(Input{Slug: "demo", Base: committed, Plan: p, Entries: log.Entries})
	assert.Equal(t, state.Verifying, folded.Units["T1"].Status, "the log alone demotes T1")
	fields := Adoption(committed, folded, p)
	require.NotNil(t, fields)

	e := progresslog.Entry{Kind: progresslog.KindAdopted, Stamp: "2026-01-14T12:00:00Z", Fields: fields}
	data, err := progresslog.Append(raw, e)
	require.NoError(t, err)
	again := progresslog.Parse(data)
	require.False(t, NeedsAdoption(again.Entries))
	s, problems := Fold(Input{Slug: "demo", Base: committed, Plan: p, Entries: again.Entries})
	for _, pr := range problems {
		assert.True(t, pr.Note, pr.Error())
	}
	for _, id := range []string{"T1", "T4"} {
		assert.Equal(t, committed.Units[id].Status, s.Units[id].Status, id)
		assert.Equal(t, state.Val(committed.Units[id].Reason), state.Val(s.Units[id].Reason), id)
	}
	assert.Equal(t, 3, state.Val(s.Units["T1"].IterationsUsed))
	assert.Equal(t, 1, state.Val(s.Units["T1"].ConfirmationsUsed))
	assert.Equal(t, "2026-01-14T11:15:00Z", state.Val(s.Units["T1"].CompletedAt))
	assert.Equal(t, []string{"abc1234: feat: the model"}, s.Commits, "the subject the log lacked")
	assert.Nil(t, Adoption(committed, s, p), "nothing more to keep")

	// A malformed Units line is a problem of the entry, never a panic.
	_, err = EventFrom(progresslog.Entry{Kind: progresslog.KindAdopted, Stamp: "2026-01-14T12:00:00Z",
		Fields: []progresslog.Field{{Name: "Units", Value: "not a unit"}}}, nil)
	assert.Error(t, err)
	_, err = EventFrom(progresslog.Entry{Kind: progresslog.KindAdopted, Stamp: "2026-01-14T12:00:00Z",
		Fields: []progresslog.Field{{Name: "Units", Value: "T1: status=nope"}}}, nil)
	assert.Error(t, err)
}
