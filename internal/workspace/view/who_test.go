package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// whoPlan gives T1 a model.
const whoPlan = `# Login - Tasks

## Tasks

- [ ] **T1**: Add the user model
  - Model: opus
- [ ] **T2**: Add the login form
`

// TestLogAndStatusWho: itr log finds each commit's entry by the log length
// its Itr-Log trailer gives and shows who made it and the files; a commit
// that appends no entry (a guardrail) and older entries name no one;
// status shows who ran a unit's newest iteration and the plan's model
// where it differs.
func TestLogAndStatusWho(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := freshTask(f).planned(whoPlan)
	b.checkpoint("T1", "an older entry", iterOpts{})
	e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: "T1", Iteration: 2, Stamp: f.tick(), Fields: []progresslog.Field{
		{Name: "Did", Value: "the model"},
		{Name: "Commit", Value: "None"},
		{Name: progresslog.FieldFiles, Value: progresslog.FormatFiles([]string{"a.go", "b.go", "c.go"}, 2)},
		{Name: progresslog.FieldAgent, Value: "synthesizer"},
		{Name: progresslog.FieldModel, Value: "sonnet"},
		{Name: progresslog.FieldSession, Value: "s-1"},
	}}
	b.record(e, store.EventIteration, "T1 iteration 2: the model")
	b.guardrail("Mock the mailer", "")

	rows, err := Log(f.st, "login", 0)
	require.NoError(t, err)
	require.Len(t, rows, 5)
	assert.Equal(t, "guardrail", rows[0].Event)
	assert.Empty(t, rows[0].Agent, "a guardrail appends no entry: it is not the iteration's")
	got := rows[1]
	assert.Equal(t, "iteration", got.Event)
	assert.Equal(t, "synthesizer", got.Agent)
	assert.Equal(t, "sonnet", got.Model)
	assert.Equal(t, "s-1", got.Session)
	assert.Equal(t, []string{"a.go", "b.go"}, got.Files)
	assert.Equal(t, 1, got.FilesMore)
	assert.Empty(t, rows[2].Agent, "an older entry names no one")

	sum, err := Status(f.st, "")
	require.NoError(t, err)
	require.NotNil(t, sum.Current)
	assert.Equal(t, "synthesizer", sum.Current.Agent)
	assert.Equal(t, "sonnet", sum.Current.Model)
	assert.Equal(t, "opus", sum.Current.PlanModel)
	assert.Equal(t, []string{"a.go", "b.go"}, sum.Last.Files)
	assert.Equal(t, "s-1", sum.Last.Session)

	for _, c := range []struct {
		planned, recorded string
		differ            bool
	}{
		{"opus", "sonnet", true},
		{"sonnet", "claude-sonnet-4-5", false},
		{"Claude-Opus-4", "opus", false},
		{"", "sonnet", false},
		{"opus", "", false},
	} {
		assert.Equal(t, c.differ, modelsDiffer(c.planned, c.recorded), "%q vs %q", c.planned, c.recorded)
	}
}
