package workspace

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
)

// A view's remembered reading of the log (in the worktree's git directory)
// never changes an answer: a file edited or cut short by hand is a miss,
// read again from the log, never believed.
func TestEditedViewCacheIsAMiss(t *testing.T) {
	edits := []struct {
		name string
		edit func(t *testing.T, data []byte) []byte
	}{
		{"the last Did of a unit", func(t *testing.T, data []byte) []byte {
			require.Contains(t, string(data), "model written")
			return []byte(strings.ReplaceAll(string(data), "model written", "model forged"))
		}},
		{"the fold of the log", func(t *testing.T, data []byte) []byte {
			// The fold says T1 is done: status would report state.json as
			// disagreeing with its log.
			body := string(data)
			require.Contains(t, body, `in_progress`)
			return []byte(strings.Replace(body, `in_progress`, `done`, 1))
		}},
		{"cut short", func(t *testing.T, data []byte) []byte { return data[:len(data)/2] }},
		{"emptied", func(t *testing.T, data []byte) []byte { return nil }},
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			r := newTask(t)
			r.checkpoint(CheckpointRequest{Unit: "T1", Did: "model written"})
			ws := r.open()
			want := statusJSON(t, ws)
			path := ws.Repo.WorktreeItrPath("itr-view-" + demo + ".json")
			data, err := os.ReadFile(path)
			require.NoError(t, err, "status remembers its reading of the log")
			require.NoError(t, os.WriteFile(path, tc.edit(t, data), 0o644))
			require.Equal(t, want, statusJSON(t, ws), "status after the cache was edited: %s", tc.name)
			again, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(data), string(again), "the edited cache is replaced by the reading of the log")
		})
	}
}

// statusJSON is what itr status --json says of the task demo.
func statusJSON(t *testing.T, ws *Workspace) string {
	t.Helper()
	sum, err := ws.Status(demo)
	require.NoError(t, err)
	out, err := json.MarshalIndent(sum, "", " ")
	require.NoError(t, err)
	return string(out)
}

// warmPlan is a plan of four units with room for long random histories.
const warmPlan = `# Demo - Tasks

## Tasks

- [ ] **T1**: Add the model
  - Max iterations: 60
- [ ] **T2**: Use the model
  - Depends: T1
  - Max iterations: 60
- [ ] **T3**: Docs
  - Max iterations: 60
- [ ] **T4**: Examples
  - Max iterations: 60
`

// The facts a record leaves remembered (the facts before it, stepped by
// its entry) are the facts a fresh reading of the whole log gives, byte for
// byte, over random histories of every kind of record; a record that
// cannot step them leaves the old ones, which its commit makes a miss.
func TestRecordLeavesTheViewFactsCurrent(t *testing.T) {
	seed := uint64(0)
	engines(t, func(t *testing.T, _ gitstate.Engine) {
		{
			seed++
			r := newRepo(t)
			r.initPlan(warmPlan)
			rng := rand.New(rand.NewPCG(seed, 33))
			path := r.open().Repo.WorktreeItrPath("itr-view-" + demo + ".json")
			statusJSON(t, r.open()) // the facts are remembered from here on
			stepped, plain := 0, 0
			for i := 0; i < 60; i++ {
				before := viewFactsKey(t, path)
				op, ok := warmOp(r, rng, i)
				left, err := os.ReadFile(path)
				require.NoError(t, err)
				require.NoError(t, os.Remove(path))
				statusJSON(t, r.open())
				cold, err := os.ReadFile(path)
				require.NoError(t, err)
				if viewFactsKey(t, path) == before {
					require.Equal(t, string(cold), string(left), "after %s (refused: %v), nothing changed", op, !ok)
					continue
				}
				if key := factsKeyOf(t, left); key == before {
					continue // not stepped: a miss, read again
				}
				require.Equal(t, string(cold), string(left), "step %d: %s: the facts the record left against a fresh reading", i, op)
				stepped++
				if strings.HasPrefix(op, "checkpoint ") && !strings.HasPrefix(op, "checkpoint -") {
					plain++
				}
			}
			t.Logf("seed %d: %d records stepped the facts (%d plain checkpoints)", seed, stepped, plain)
			require.Positive(t, plain, "plain checkpoints step the facts")
			r.checkGit()
		}
	})
}

// warmOp runs one random record on the task demo and names it; ok is
// false when itr refused it (which changes nothing).
func warmOp(r *repo, rng *rand.Rand, i int) (string, bool) {
	ws := r.open()
	unit := ""
	if rng.IntN(2) == 0 {
		unit = []string{"T1", "T2", "T3", "T4"}[rng.IntN(4)]
	}
	did := fmt.Sprintf("step %d: ünïcode and **bold** text", i)
	var err error
	op := ""
	switch n := rng.IntN(40); {
	case n < 12:
		op = "checkpoint"
		_, err = ws.Checkpoint(CheckpointRequest{Slug: demo, Unit: unit, Did: did, Remaining: "more"})
	case n < 19:
		op = "checkpoint --signal"
		_, err = ws.Checkpoint(CheckpointRequest{Slug: demo, Unit: unit, Did: did, Signal: true})
	case n < 23:
		op = "checkpoint --verified-by"
		_, err = ws.Checkpoint(CheckpointRequest{Slug: demo, Unit: unit, Did: did, VerifiedBy: "review"})
	case n < 25:
		op = "note"
		_, err = ws.Note(demo, did, rng.IntN(2) == 0)
	case n < 27:
		op = "summarize"
		_, err = ws.Summarize(SummarizeRequest{Slug: demo, Did: did})
	case n < 29:
		op = "block"
		_, err = ws.Block(demo, orT(unit, "T3"), "waits on "+did)
	case n < 31:
		op = "unblock"
		_, err = ws.Unblock(demo, orT(unit, "T3"))
	case n < 34:
		op = "reopen"
		_, err = ws.Reopen(demo, orT(unit, "T1"), "broke again")
	case n < 35:
		op = "pause"
		_, err = ws.Pause(demo, "a break")
	case n < 37:
		op = "resume"
		_, err = ws.Resume(demo)
	case n < 38:
		op = "skip"
		_, err = ws.Skip(demo, orT(unit, "T4"), "not needed")
	default:
		op = "guardrail"
		_, err = ws.Guardrail(GuardrailRequest{Slug: demo, Name: did, When: "always", Problem: "it broke", Solution: "fix it", Learned: "keep it"})
	}
	return op + " " + unit, err == nil
}

// orT is unit, or def when unit is "".
func orT(unit, def string) string {
	if unit == "" {
		return def
	}
	return unit
}

// viewFactsKey is the key of the view's remembered facts at path.
func viewFactsKey(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return factsKeyOf(t, data)
}

// factsKeyOf is the key a remembered facts file names.
func factsKeyOf(t *testing.T, data []byte) string {
	t.Helper()
	_, body, ok := strings.Cut(string(data), "\n")
	require.True(t, ok, "a first line, then the facts")
	var f struct {
		Key string `json:"key"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &f))
	return f.Key
}
