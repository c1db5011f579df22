package state

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryTransition checks the whole 9×9 table against the seed's
// lifecycle, so adding or removing an edge is a deliberate change here.
func TestEveryTransition(t *testing.T) {
	allowed := map[string]bool{
		"pending→in_progress": true, "pending→confirming": true, "pending→blocked": true,
		"in_progress→confirming": true, "in_progress→blocked": true, "in_progress→timeout": true,
		"confirming→verifying": true, "confirming→in_progress": true, "confirming→blocked": true, "confirming→timeout": true,
		"verifying→done": true, "verifying→in_progress": true, "verifying→blocked": true, "verifying→timeout": true,
		"blocked→pending": true, "blocked→in_progress": true,
		"timeout→in_progress": true, "timeout→blocked": true,
		// failed and skipped: from every unfinished status; failed goes on
		// to skipped, and both come back only by a reopen.
		"pending→failed": true, "in_progress→failed": true, "confirming→failed": true, "verifying→failed": true, "blocked→failed": true, "timeout→failed": true,
		"pending→skipped": true, "in_progress→skipped": true, "confirming→skipped": true, "verifying→skipped": true, "blocked→skipped": true, "timeout→skipped": true,
		"failed→skipped": true, "failed→pending": true, "failed→in_progress": true,
		"skipped→pending": true, "skipped→in_progress": true,
	}
	for _, from := range Statuses {
		for _, to := range Statuses {
			key := fmt.Sprintf("%s→%s", from, to)
			t.Run(key, func(t *testing.T) {
				err := CheckMove("T3", from, to)
				switch {
				case from == to:
					assert.NoError(t, err, "staying put is always allowed")
				case allowed[key]:
					assert.True(t, CanMove(from, to))
					assert.NoError(t, err)
				default:
					assert.False(t, CanMove(from, to))
					require.Error(t, err)
					var te *TransitionError
					require.ErrorAs(t, err, &te)
					assert.Contains(t, err.Error(), "unit T3")
					assert.Contains(t, err.Error(), string(from))
					assert.Contains(t, err.Error(), string(to))
				}
			})
		}
	}
}

func TestTransitionMessages(t *testing.T) {
	assert.EqualError(t, CheckMove("T3", Pending, Done),
		"unit T3: cannot move from pending to done (from pending it can move to in_progress, confirming, blocked, failed, skipped)")
	assert.EqualError(t, CheckMove("T1", Done, InProgress),
		"unit T1: cannot move from done to in_progress: done is final")
	assert.Equal(t, []Status{Done, InProgress, Blocked, Timeout, Failed, Skipped}, AllowedNext(Verifying))
	assert.EqualError(t, CheckMove("T2", Skipped, Failed),
		"unit T2: cannot move from skipped to failed (from skipped it can move to pending, in_progress)")
}

func TestParseNames(t *testing.T) {
	for _, s := range Statuses {
		got, err := ParseStatus(string(s))
		require.NoError(t, err)
		assert.Equal(t, s, got)
	}
	_, err := ParseStatus("finished")
	assert.EqualError(t, err, `"finished" is not a status (one of pending, in_progress, confirming, verifying, done, blocked, timeout, failed, skipped)`)

	for i, p := range Phases {
		got, err := ParsePhase(string(p))
		require.NoError(t, err)
		assert.Equal(t, p, got)
		assert.Equal(t, i, p.Rank())
	}
	assert.Equal(t, -1, Phase("x").Rank())
	_, err = ParsePhase("ship")
	assert.EqualError(t, err, `"ship" is not a phase (one of discover, plan, execute, verify, deliver, complete)`)

	m, err := ParseMode("knowledge")
	require.NoError(t, err)
	assert.Equal(t, "phases", m.UnitsKey())
	assert.Equal(t, "current_phase", m.CurrentKey())
	assert.Equal(t, "tasks", Development.UnitsKey())
	assert.Equal(t, "current_task", Development.CurrentKey())
	_, err = ParseMode("research")
	assert.Error(t, err)
}

func TestStartedAndFinished(t *testing.T) {
	started := map[Status]bool{InProgress: true, Confirming: true, Verifying: true, Done: true, Timeout: true}
	for _, s := range Statuses {
		assert.Equal(t, started[s], s.Started(), s)
		assert.Equal(t, s == Done, s.Finished(), s)
		assert.Equal(t, s == Done || s == Skipped, s.Settled(), s)
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range BlockKinds {
		got, err := ParseKind("block kind", k, BlockKinds)
		require.NoError(t, err)
		assert.Equal(t, k, got)
	}
	_, err := ParseKind("failure kind", "external", FailKinds)
	assert.EqualError(t, err, `"external" is not a failure kind (one of needs-human, tool-error, missing-input)`)
	_, err = ParseKind("block kind", "Needs-Human", BlockKinds)
	assert.EqualError(t, err, `"Needs-Human" is not a block kind (one of needs-human, tool-error, missing-input, external, decision)`)
}
