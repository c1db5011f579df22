package gitstate

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitParseTrailers runs `git interpret-trailers --parse` on msg.
func gitParseTrailers(t testing.TB, msg string) string {
	t.Helper()
	cmd := exec.Command("git", "-c", "trailer.separators=:", "interpret-trailers", "--parse")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(msg)
	out, err := cmd.Output()
	require.NoError(t, err)
	return string(out)
}

var trailerMessages = []string{
	"itr: checkpoint\n\nItr-Task: slug\nItr-Iteration: 3\n",
	"subject only\n",
	"subject\n\nbody text\n",
	"subject\n\nbody\n\nKey: value\nOther-Key: other value\n",
	"subject\n\nbody\n\nKey: value\nnot a trailer\n",
	"subject\n\nbody\n\nSigned-off-by: A <a@b>\nfree text one\nfree text two\nKey: v\n",
	"subject\n\nbody\n\nKey: long\n  continued here\n\tand here\nNext: x\n",
	"subject\n\nKey: v\n\n# a comment\n# another\n",
	"subject\n\nKey: v\n---\npatch: no\n",
	"Key: in title\n",
	"subject\n\nKey : spaced\nK2:nospace\n",
	"subject\n\nKey: v\n\n\n",
	"subject\n\n(cherry picked from commit abc)\nKey: v\n",
	"subject\n\nKey:\nEmpty-Next: y\n",
	"",
	"\n\n",
	"subject\n\nbody\n\nItr-Task: slug\n\nConflicts:\n\tfile.txt\n",
	"subject\nstill title\n\nA: 1",
	"subject\n\n  Indented: no\n",
}

func TestParseTrailersMatchesGit(t *testing.T) {
	for _, msg := range trailerMessages {
		got := FormatTrailers(ParseTrailers(msg))
		assert.Equal(t, gitParseTrailers(t, msg), got, "message %q", msg)
	}
}

func TestParseTrailersValues(t *testing.T) {
	cases := []struct {
		msg  string
		want []Trailer
	}{
		{"s\n\nItr-Task: slug\nItr-Iteration: 3\n", []Trailer{{"Itr-Task", "slug"}, {"Itr-Iteration", "3"}}},
		{"s\n\nK: a\n  b\n", []Trailer{{"K", "a b"}}},
		{"s\n\nbody\n", nil},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, ParseTrailers(tc.msg), tc.msg)
	}
	c := Commit{Trailers: []Trailer{{"Itr-Unit", "T1"}, {"itr-unit", "T2"}}}
	v, ok := c.Trailer("ITR-UNIT")
	assert.True(t, ok)
	assert.Equal(t, "T2", v)
	_, ok = c.Trailer("Missing")
	assert.False(t, ok)
}

func FuzzParseTrailers(f *testing.F) {
	for _, m := range trailerMessages {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		tr := ParseTrailers(msg)
		for _, x := range tr {
			if strings.ContainsAny(x.Key, "\n:") || strings.Contains(x.Value, "\n") || x.Key == "" {
				return // not representable as a single trailer line
			}
		}
		again := ParseTrailers("subject\n\n" + FormatTrailers(tr))
		if len(tr) == 0 {
			return
		}
		assert.Equal(t, tr, again)
	})
}
