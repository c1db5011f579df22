package state

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseResult(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Result
		err  string
	}{
		{"complete", ResultComplete, ""},
		{"done_with_limitations", ResultLimited, ""},
		{"done with limitations", ResultLimited, ""},
		{"Done  With Limitations", ResultLimited, ""},
		{"abandoned", ResultAbandoned, ""},
		{"failed", ResultFailed, ""},
		{"finished", "", `"finished" is not an outcome (one of complete, done with limitations, abandoned, failed)`},
		{"", "", `"" is not an outcome`},
	} {
		got, err := ParseResult(tc.in)
		if tc.err != "" {
			require.Error(t, err, tc.in)
			assert.Contains(t, err.Error(), tc.err)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	assert.Equal(t, "done with limitations", ResultLimited.Words())
	assert.True(t, ResultLimited.Delivered())
	assert.True(t, ResultComplete.Delivered())
	assert.False(t, ResultAbandoned.Delivered())
	assert.False(t, ResultFailed.Delivered())
}

func TestOutcomeText(t *testing.T) {
	for _, tc := range []struct {
		o    *Outcome
		want string
	}{
		{nil, ""},
		{&Outcome{Result: ResultComplete}, "complete"},
		{&Outcome{Result: ResultAbandoned, Reason: "superseded by v2"}, "abandoned: superseded by v2"},
		{&Outcome{Result: ResultFailed, Kind: KindToolError, Reason: "the API is gone"}, "failed (tool-error): the API is gone"},
		{&Outcome{Result: ResultLimited, Missing: []string{"S2", "R1"}, Limitations: "one source only"}, "done with limitations (missing S2, R1): one source only"},
	} {
		assert.Equal(t, tc.want, tc.o.Text())
	}
}

func TestOutcomeRoundTrip(t *testing.T) {
	s := New(Knowledge, "Research", "research", "2026-01-14T10:00:00Z")
	s.Outcome = &Outcome{Result: ResultLimited, At: "2026-01-14T12:00:00Z", Missing: []string{"S2", "R1"}, Limitations: "one source only"}
	data := s.Encode()
	assert.Contains(t, string(data), `"phase": "discover",
  "outcome": {
    "result": "done_with_limitations",
    "at": "2026-01-14T12:00:00Z",
    "missing": [
      "S2",
      "R1"
    ],
    "limitations": "one source only"
  },`)
	back, err := Decode(data)
	require.NoError(t, err)
	assert.Equal(t, s.Outcome, back.Outcome)
	assert.Equal(t, string(data), string(back.Encode()))
	c := back.Clone()
	c.Outcome.Missing[0] = "X9"
	assert.Equal(t, "S2", back.Outcome.Missing[0], "Clone copies the outcome")
}

func TestOutcomeDecodeErrors(t *testing.T) {
	base := `{"task": "t", "slug": "t", "mode": "development", "phase": "execute", "outcome": %s, "tasks": {}}`
	for _, tc := range []struct{ val, msg string }{
		{`"abandoned"`, `outcome: "abandoned" is not an object such as {"result": "abandoned"`},
		{`{}`, `outcome: {} is not an object such as`},
		{`{"result": "finished"}`, `outcome.result: "finished" is not a result (one of complete, done_with_limitations, abandoned, failed)`},
		{`{"result": "done with limitations"}`, `outcome.result: "done with limitations" is not a result`},
	} {
		_, err := Decode([]byte(fmt.Sprintf(base, tc.val)))
		require.Error(t, err, tc.val)
		assert.Contains(t, err.Error(), tc.msg, tc.val)
	}
}
