package state

import (
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSeedExamplesRoundTripByteForByte(t *testing.T) {
	for _, name := range []string{"state-development.json", "state-knowledge.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + name)
			require.NoError(t, err)
			s, err := Decode(data)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(s.Encode()))
		})
	}
}

func TestDecodeSeedDevelopmentFields(t *testing.T) {
	data, err := os.ReadFile("testdata/state-development.json")
	require.NoError(t, err)
	s, err := Decode(data)
	require.NoError(t, err)
	assert.Equal(t, "user-authentication", s.Task)
	assert.Equal(t, "user-auth", s.Slug)
	assert.Equal(t, Development, s.Mode)
	assert.Equal(t, Execute, s.Phase)
	assert.Equal(t, "T3", Val(s.Current))
	assert.Equal(t, 2, Val(s.CurrentIteration))
	assert.Equal(t, []string{"T1", "T2", "T3", "T4", "T5"}, s.IDs())
	assert.Equal(t, Done, s.Units["T1"].Status)
	assert.Equal(t, 3, Val(s.Units["T1"].IterationsUsed))
	assert.Equal(t, true, Val(s.Units["T1"].VerificationPassed))
	assert.Equal(t, "2026-01-14T11:15:00Z", Val(s.Units["T1"].CompletedAt))
	assert.Nil(t, s.Units["T4"].IterationsUsed)
	assert.Equal(t, "Waiting on T3", Val(s.Units["T5"].Reason))
	assert.Len(t, s.Commits, 2)
}

func TestDecodeSeedKnowledgeFields(t *testing.T) {
	data, err := os.ReadFile("testdata/state-knowledge.json")
	require.NoError(t, err)
	s, err := Decode(data)
	require.NoError(t, err)
	assert.Equal(t, Knowledge, s.Mode)
	assert.Equal(t, "research", Val(s.Domain))
	assert.Equal(t, "R3", Val(s.Current))
	assert.Equal(t, []string{"R1", "R2", "R3", "R4"}, s.IDs())
	assert.Nil(t, s.Commits)
	assert.NotContains(t, string(s.Encode()), "commits")
}

func TestUnknownFieldsKeptInPlace(t *testing.T) {
	in := `{
  "task": "x",
  "agent_note": {"by": "claude", "tags": ["a", "b"]},
  "slug": "x",
  "mode": "development",
  "phase": "plan",
  "tasks": {
    "T2": {
      "status": "in_progress",
      "owner": "sam",
      "iterations_used": 1,
      "history": [1, 2]
    },
    "T1": { "status": "pending", "priority": 1.50, "label": "a<b" }
  },
  "zz": null
}
`
	s, err := Decode([]byte(in))
	require.NoError(t, err)
	out := string(s.Encode())
	want := `{
  "task": "x",
  "agent_note": {
    "by": "claude",
    "tags": [
      "a",
      "b"
    ]
  },
  "slug": "x",
  "mode": "development",
  "phase": "plan",
  "tasks": {
    "T1": { "status": "pending", "priority": 1.50, "label": "a<b" },
    "T2": {
      "status": "in_progress",
      "owner": "sam",
      "iterations_used": 1,
      "history": [
        1,
        2
      ]
    }
  },
  "zz": null
}
`
	assert.Equal(t, want, out)
	s2, err := Decode([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, out, string(s2.Encode()), "canonical form is stable")
	assert.Equal(t, []string{"owner", "history"}, s2.Units["T2"].ExtraKeys())
	raw, ok := s2.Extra("agent_note")
	require.True(t, ok)
	assert.JSONEq(t, `{"by":"claude","tags":["a","b"]}`, string(raw))
}

func TestNaturalOrder(t *testing.T) {
	s := New(Development, "t", "t", "2026-01-01T00:00:00Z")
	for _, id := range []string{"T10", "T2", "T1", "T11", "T3", "A9"} {
		s.Units[id] = &Unit{ID: id, Status: Pending}
	}
	assert.Equal(t, []string{"A9", "T1", "T2", "T3", "T10", "T11"}, s.IDs())
	out := string(s.Encode())
	assert.Less(t, strings.Index(out, `"T2"`), strings.Index(out, `"T10"`))
}

func TestCompareIDs(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"T1", "T2", -1}, {"T2", "T10", -1}, {"T10", "T2", 1}, {"T10", "T10", 0},
		{"R1", "T1", -1}, {"T01", "T1", -1}, {"T99999999999999999999", "T100000000000000000000", -1},
		{"x", "T1", 1}, {"T1a", "T1", 1},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, CompareIDs(c.a, c.b), "%s vs %s", c.a, c.b)
	}
}

func TestNewKeysTakeCanonicalPlace(t *testing.T) {
	in := `{"task":"x","slug":"x","mode":"development","phase":"execute","custom":1,"tasks":{"T1":{"status":"pending","note":"n"}}}`
	s, err := Decode([]byte(in))
	require.NoError(t, err)
	s.Current = Ptr("T1")
	s.CurrentIteration = Ptr(1)
	s.Updated = Ptr("2026-01-01T00:00:00Z")
	u := s.Units["T1"]
	u.Status = InProgress
	u.IterationsUsed = Ptr(1)
	u.ConfirmationsUsed = Ptr(0)
	s.Commits = []string{}
	want := `{
  "task": "x",
  "slug": "x",
  "mode": "development",
  "updated": "2026-01-01T00:00:00Z",
  "phase": "execute",
  "current_task": "T1",
  "current_iteration": 1,
  "custom": 1,
  "tasks": {
    "T1": {
      "status": "in_progress",
      "iterations_used": 1,
      "confirmations_used": 0,
      "note": "n"
    }
  },
  "commits": []
}
`
	assert.Equal(t, want, string(s.Encode()))
}

func TestDecodeErrors(t *testing.T) {
	base := func(mut string) string {
		return `{"task":"x","slug":"x","mode":"development","phase":"execute","tasks":{"T3":` + mut + `}}`
	}
	cases := []struct {
		name, in, want string
	}{
		{"bad status", base(`{"status":"finished"}`), `tasks.T3.status: "finished" is not a status (one of pending, in_progress, confirming, verifying, done, blocked, timeout, failed, skipped)`},
		{"missing status", base(`{"iterations_used":1}`), `tasks.T3.status: missing (one of pending,`},
		{"status not string", base(`{"status":3}`), `tasks.T3.status: 3 is not a string`},
		{"negative count", base(`{"status":"pending","iterations_used":-1}`), `tasks.T3.iterations_used: -1 is not a whole number of 0 or more`},
		{"fraction count", base(`{"status":"pending","confirmations_used":1.5}`), `tasks.T3.confirmations_used: 1.5 is not a whole number`},
		{"zero max", base(`{"status":"pending","max_iterations":0}`), `tasks.T3.max_iterations: 0 is not a limit`},
		{"bool", base(`{"status":"done","verification_passed":"yes"}`), `tasks.T3.verification_passed: "yes" is not true or false`},
		{"time", base(`{"status":"done","completed_at":"yesterday"}`), `tasks.T3.completed_at: "yesterday" is not an RFC 3339 time`},
		{"started time", base(`{"status":"in_progress","started_at":"14:46"}`), `tasks.T3.started_at: "14:46" is not an RFC 3339 time`},
		{"restarts", base(`{"status":"pending","restarts":-2}`), `tasks.T3.restarts: -2 is not a whole number of 0 or more`},
		{"unit not object", base(`"done"`), `tasks.T3: tasks.T3 must be a JSON object, found "done"`},
		{"reason", base(`{"status":"blocked","reason":7}`), `tasks.T3.reason: 7 is not a string`},
		{"bad phase", `{"task":"x","slug":"x","mode":"development","phase":"shipping"}`, `phase: "shipping" is not a phase (one of discover, plan, execute, verify, deliver, complete)`},
		{"bad mode", `{"task":"x","slug":"x","mode":"dev","phase":"plan"}`, `mode: "dev" is not a mode (one of development, knowledge)`},
		{"mode type", `{"task":"x","slug":"x","mode":1,"phase":"plan"}`, `mode: 1 is not a string`},
		{"missing slug", `{"task":"x","mode":"development","phase":"plan"}`, `slug: missing`},
		{"dangling current", `{"task":"x","slug":"x","mode":"development","phase":"plan","current_task":"T9","tasks":{}}`, `current_task: "T9" is not a unit of tasks`},
		{"duplicate key", `{"task":"x","task":"y"}`, `task: the key appears twice`},
		{"unit twice", `{"task":"x","slug":"x","mode":"development","phase":"plan","tasks":{"T1":{"status":"pending"},"T2":{"status":"done"},"T1":{"status":"done"}}}`, `tasks.T1: the key appears twice`},
		{"unit key twice", base(`{"status":"pending","status":"done"}`), `tasks.T3.status: the key appears twice`},
		{"not object", `[1,2]`, `state.json must be a JSON object, found [1,2]`},
		{"truncated", "{\n  \"task\": \"x\",\n  \"slug\"", `line 3, column 9: unexpected end of file (the file is truncated)`},
		{"syntax", "{\n  \"task\": \"x\",,\n}", `line 2, column 15: invalid character ','`},
		{"trailing", `{"task":"x","slug":"x","mode":"development","phase":"plan"} {}`, `text after the end of the JSON object`},
		{"empty", ``, `line 1, column 1: unexpected end of file`},
		{"commits", `{"task":"x","slug":"x","mode":"development","phase":"plan","commits":"abc"}`, `commits: "abc" is not a list of strings`},
		{"created", `{"task":"x","slug":"x","mode":"development","phase":"plan","created":"2026-13-01"}`, `created: "2026-13-01" is not an RFC 3339 time`},
		{"task null", `{"task":null,"slug":"x","mode":"development","phase":"plan"}`, `task: null is not a string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			var de *DecodeError
			assert.True(t, errors.As(err, &de))
		})
	}
}

func TestDecodeConflictMarkers(t *testing.T) {
	in := "{\n<<<<<<< HEAD\n  \"task\": \"a\",\n=======\n  \"task\": \"b\",\n>>>>>>> other\n}\n"
	_, err := Decode([]byte(in))
	require.ErrorIs(t, err, ErrConflict)
	assert.Contains(t, err.Error(), "line 2")
	assert.Contains(t, err.Error(), "itr reconcile")
}

func TestKnowledgeModeKeepsDevKeysAsUnknown(t *testing.T) {
	in := `{"task":"x","slug":"x","mode":"knowledge","phase":"plan","tasks":{"T1":"whatever"},"phases":{"R1":{"status":"pending"}}}`
	s, err := Decode([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, []string{"R1"}, s.IDs())
	raw, ok := s.Extra("tasks")
	require.True(t, ok)
	assert.Equal(t, `{"T1":"whatever"}`, string(raw))
}

func TestCloneIsDeep(t *testing.T) {
	data, err := os.ReadFile("testdata/state-development.json")
	require.NoError(t, err)
	s, err := Decode(data)
	require.NoError(t, err)
	c := s.Clone()
	*c.Units["T1"].IterationsUsed = 99
	c.Units["T4"].Status = Done
	c.Commits[0] = "changed"
	*c.Current = "T1"
	c.SetExtra("new", json.RawMessage(`1`))
	assert.Equal(t, string(data), string(s.Encode()), "the original is untouched")
	assert.Nil(t, (*State)(nil).Clone())
}

func TestExtraSetters(t *testing.T) {
	u := &Unit{ID: "T1", Status: Pending}
	u.SetExtra("a", json.RawMessage(`1`))
	u.SetExtra("b", json.RawMessage(`[1]`))
	u.SetExtra("a", json.RawMessage(`2`))
	assert.Equal(t, []string{"a", "b"}, u.ExtraKeys())
	raw, _ := u.Extra("a")
	assert.Equal(t, "2", string(raw))
	assert.False(t, u.inline(), "an array value forces the multi-line form")
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"state-development.json", "state-knowledge.json"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"task":"x","slug":"x","mode":"development","phase":"plan","x":{"y":[1,{"z":"<"}]},"tasks":{"T10":{"status":"pending","k":"\u00e9"},"T2":{"status":"done"}}}`))
	f.Add([]byte(`{"task":"","slug":"","mode":"knowledge","phase":"plan","phases":{}}`))
	f.Add([]byte(`{"schema_version":1,"task":"x","slug":"x","mode":"development","phase":"plan","tasks":{}}`))
	f.Add([]byte(`{"task":"x","schema_version":9,"slug":"x","mode":"knowledge","phase":"plan","phases":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			return
		}
		out := s.Encode()
		s2, err := Decode(out)
		if err != nil {
			t.Fatalf("re-decode of own encoding failed: %v\n%s", err, out)
		}
		if out2 := s2.Encode(); string(out2) != string(out) {
			t.Fatalf("encoding is not stable:\n%s\n---\n%s", out, out2)
		}
	})
}

func TestSchemaVersion(t *testing.T) {
	const old = `{"task":"x","slug":"x","mode":"development","phase":"plan","tasks":{}}`
	s, err := Decode([]byte(old))
	require.NoError(t, err)
	assert.Equal(t, 0, s.SchemaVersion, "a file without the key is version 0")
	assert.True(t, s.Outdated())
	assert.NotContains(t, string(s.Encode()), "schema_version", "decode and encode change no byte: the key is the writer's to add")

	s.SchemaVersion = CurrentSchema
	out := s.Encode()
	assert.True(t, strings.HasPrefix(string(out), "{\n  \"schema_version\": 1,\n  \"task\": \"x\","), "the key comes first:\n%s", out)
	s2, err := Decode(out)
	require.NoError(t, err)
	assert.Equal(t, CurrentSchema, s2.SchemaVersion)
	assert.False(t, s2.Outdated())
	assert.Equal(t, string(out), string(s2.Encode()))

	assert.Equal(t, CurrentSchema, New(Development, "t", "t", "2026-01-01T00:00:00Z").SchemaVersion, "a new task is of the current version")

	// Kept in its place when it is not first.
	mid := `{"task":"x","schema_version":1,"slug":"x","mode":"development","phase":"plan","tasks":{}}`
	s3, err := Decode([]byte(mid))
	require.NoError(t, err)
	assert.Contains(t, string(s3.Encode()), "\"task\": \"x\",\n  \"schema_version\": 1,")
}

func TestSchemaVersionRefused(t *testing.T) {
	cases := []struct{ name, in, want string }{
		// A newer file is refused before anything else is read: its other
		// keys may mean what this itr cannot know (a new status).
		{"newer", `{"schema_version":2,"task":"x","slug":"x","mode":"development","phase":"plan","tasks":{"T1":{"status":"failed"}}}`,
			"schema_version: 2 is newer than this itr reads (1): the file was written by a newer itr; upgrade itr"},
		{"newer last", `{"task":"x","slug":"x","mode":"development","phase":"shipping","schema_version":7}`, "schema_version: 7 is newer"},
		{"text", `{"schema_version":"1","task":"x","slug":"x","mode":"development","phase":"plan"}`, `schema_version: "1" is not a whole number`},
		{"negative", `{"schema_version":-1,"task":"x","slug":"x","mode":"development","phase":"plan"}`, `schema_version: -1 is not a whole number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Equal(t, strings.HasPrefix(c.name, "newer"), errors.Is(err, ErrNewerSchema))
		})
	}
}

// executeState is a state.json of a development task in phase execute,
// with tasks as the body of its "tasks" object and no commits.
func executeState(tasks string) string {
	return "{\n  \"task\": \"x\",\n  \"slug\": \"x\",\n  \"mode\": \"development\",\n  \"phase\": \"execute\",\n  \"tasks\": {\n" +
		tasks + "  },\n  \"commits\": []\n}\n"
}

// TestReasonKindAndClearWhen checks the keys of a typed block and of a
// failure: read, written back byte for byte, and placed after reason when
// new.
func TestReasonKindAndClearWhen(t *testing.T) {
	in := executeState(`    "T1": {
      "status": "blocked",
      "reason": "waiting for the API key",
      "reason_kind": "missing-input",
      "clear_when": "the key is in .env",
      "iterations_used": 1
    },
    "T2": { "status": "failed", "reason": "the model refused", "reason_kind": "needs-human" },
    "T3": { "status": "skipped", "reason": "out of scope" }
`)
	s, err := Decode([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, "missing-input", Val(s.Units["T1"].ReasonKind))
	assert.Equal(t, "the key is in .env", Val(s.Units["T1"].ClearWhen))
	assert.Equal(t, Failed, s.Units["T2"].Status)
	assert.Equal(t, Skipped, s.Units["T3"].Status)
	assert.Equal(t, in, string(s.Encode()))

	c := s.Clone()
	c.Units["T3"].ReasonKind = Ptr("decision")
	*c.Units["T1"].ClearWhen = "changed"
	assert.Equal(t, "the key is in .env", Val(s.Units["T1"].ClearWhen), "Clone copies the pointers")
	assert.Contains(t, string(c.Encode()), `"T3": { "status": "skipped", "reason": "out of scope", "reason_kind": "decision" }`)

	_, err = Decode([]byte(`{"task":"x","slug":"x","mode":"development","phase":"plan","tasks":{"T1":{"status":"blocked","clear_when":3}}}`))
	assert.ErrorContains(t, err, "tasks.T1.clear_when: 3 is not a string")
}

// TestSortIDsAgreesWithCompareIDs: SortIDs, which splits each ID once,
// orders every list as sorting by CompareIDs does (leading zeros, suffixes,
// other prefixes, and strings that are no ID at all included).
func TestSortIDsAgreesWithCompareIDs(t *testing.T) {
	parts := []string{"T", "R", "QA", "", "t", "T0", "007", "1", "2", "10", "9", "a", "-x", "01", "IV-", "_", "-"}
	for seed := 0; seed < 500; seed++ {
		var ids []string
		for i := 0; i < 1+seed%17; i++ {
			id := ""
			for j := 0; j <= (seed*7+i*3)%4; j++ {
				id += parts[(seed*31+i*13+j*5)%len(parts)]
			}
			ids = append(ids, id)
		}
		want := append([]string(nil), ids...)
		sort.SliceStable(want, func(i, j int) bool { return CompareIDs(want[i], want[j]) < 0 })
		got := append([]string(nil), ids...)
		SortIDs(got)
		assert.Equal(t, want, got, "seed %d", seed)
	}
}

// TestSortIDsLargeAgreesWithCompareIDs: lists long enough for SortIDs to
// split the IDs into keys sort as CompareIDs sorts them, with and without
// an ID that is not of the common form (text, then digits) among them.
func TestSortIDsLargeAgreesWithCompareIDs(t *testing.T) {
	texts := []string{"T", "R", "QA", "", "t", "IV-", "_", "-", "TA"}
	nums := []string{"", "0", "1", "01", "007", "2", "9", "10", "18446744073709551615", "1234567890123456789"}
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		var ids []string
		for i := 0; i < 64+rng.Intn(200); i++ {
			ids = append(ids, texts[rng.Intn(len(texts))]+nums[rng.Intn(len(nums))])
		}
		if round%3 == 0 {
			ids = append(ids, "W2-10", "W2-9", "T1a", "T99999999999999999999")
		}
		want := append([]string(nil), ids...)
		sort.SliceStable(want, func(i, j int) bool { return CompareIDs(want[i], want[j]) < 0 })
		got := append([]string(nil), ids...)
		SortIDs(got)
		assert.Equal(t, want, got, "round %d", round)
	}
}

// TestStartedAtAndRestarts: started_at and restarts read, keep their place
// and their canonical one when new (restarts after confirmations_used,
// started_at before completed_at), and are copied by Clone.
func TestStartedAtAndRestarts(t *testing.T) {
	in := executeState(`    "T1": {
      "status": "done",
      "iterations_used": 3,
      "confirmations_used": 1,
      "verification_passed": true,
      "started_at": "2026-02-03T14:01:00Z",
      "completed_at": "2026-02-03T14:45:00Z"
    },
    "T2": {
      "status": "in_progress",
      "iterations_used": 4,
      "confirmations_used": 0,
      "restarts": 1,
      "started_at": "2026-02-03T15:30:00Z"
    }
`)
	s, err := Decode([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, "2026-02-03T14:01:00Z", Val(s.Units["T1"].StartedAt))
	assert.Equal(t, 1, Val(s.Units["T2"].Restarts))
	assert.Nil(t, s.Units["T1"].Restarts)
	assert.Equal(t, in, string(s.Encode()))

	c := s.Clone()
	*c.Units["T2"].Restarts = 2
	c.Units["T1"].Restarts = Ptr(0)
	assert.Equal(t, 1, Val(s.Units["T2"].Restarts), "Clone copies the pointers")

	fresh := New(Development, "x", "x", "2026-02-03T14:00:00Z")
	fresh.Units["T1"] = &Unit{ID: "T1", Status: InProgress, IterationsUsed: Ptr(1), ConfirmationsUsed: Ptr(0), Restarts: Ptr(1),
		StartedAt: Ptr("2026-02-03T14:01:00Z"), CompletedAt: nil, MaxIterations: Ptr(5)}
	assert.Contains(t, string(fresh.Encode()), `"iterations_used": 1,
      "confirmations_used": 0,
      "restarts": 1,
      "max_iterations": 5,
      "started_at": "2026-02-03T14:01:00Z"`)
}

func TestChecksRoundTrip(t *testing.T) {
	in := `{
  "schema_version": 1,
  "task": "memo",
  "slug": "memo",
  "mode": "knowledge",
  "phase": "execute",
  "current_phase": "M1",
  "current_iteration": 2,
  "phases": {
    "M1": {
      "status": "verifying",
      "iterations_used": 2,
      "checks": {
        "footer": {
          "command": "grep -c end memo.md",
          "outcome": "error",
          "exit_code": 2,
          "duration_ms": 3,
          "runs": 1
        },
        "words": {
          "command": "wc -w memo.md",
          "outcome": "passed",
          "exit_code": 0,
          "target": ">= 800",
          "actual": "812",
          "duration_ms": 12,
          "commit": "abc1234",
          "tree": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
          "inputs": "0123456789abcdef",
          "iteration": 2,
          "runs": 2,
          "log": "runs/M1-2-words.log"
        }
      },
      "gate_rounds": {
        "confirm": 1,
        "verify": 0
      }
    }
  }
}
`
	s, err := Decode([]byte(in))
	require.NoError(t, err)
	u := s.Units["M1"]
	require.NotNil(t, u.Checks["words"])
	assert.Equal(t, "812", u.Checks["words"].Actual)
	assert.Equal(t, 2, u.Checks["words"].Runs)
	assert.Equal(t, CheckError, u.Checks["footer"].Outcome)
	assert.Equal(t, &GateRounds{Confirm: 1}, u.GateRounds)
	assert.Equal(t, in, string(s.Encode()))
	c := u.Clone()
	c.Checks["words"].Runs = 9
	c.GateRounds.Verify = 3
	assert.Equal(t, 2, u.Checks["words"].Runs)
	assert.Equal(t, 0, u.GateRounds.Verify)

	for _, bad := range []struct{ in, want string }{
		{`"checks": []`, `phases.M1.checks: `},
		{`"checks": {"9x": {"command": "x", "outcome": "passed"}}`, `phases.M1.checks.9x: "9x" is not a check's name`},
		{`"checks": {"words": {"command": "x", "outcome": "fine"}}`, `phases.M1.checks.words.outcome: "fine" is not an outcome (one of passed, failed, error)`},
		{`"gate_rounds": {"confirm": -1}`, `phases.M1.gate_rounds: `},
		{`"gate_rounds": {"rounds": 1}`, `phases.M1.gate_rounds: `},
	} {
		doc := `{"task": "m", "slug": "m", "mode": "knowledge", "phase": "execute", "phases": {"M1": {"status": "in_progress", ` + bad.in + `}}}`
		_, err := Decode([]byte(doc))
		require.Error(t, err, bad.in)
		assert.Contains(t, err.Error(), bad.want)
	}
}
