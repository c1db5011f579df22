package gitstate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePushedRefs(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	tests := []struct {
		name, in string
		want     []PushedRef
		err      string
	}{
		{"empty", "", nil, ""},
		{"one", a + " " + b + " refs/heads/main\n", []PushedRef{{a, b, "refs/heads/main"}}, ""},
		{"create and delete", ZeroID + " " + b + " refs/heads/new\n" + a + " " + ZeroID + " refs/tags/v1\n",
			[]PushedRef{{ZeroID, b, "refs/heads/new"}, {a, ZeroID, "refs/tags/v1"}}, ""},
		{"blank lines and CRLF", "\n" + a + " " + b + " refs/heads/x\r\n", []PushedRef{{a, b, "refs/heads/x"}}, ""},
		{"sha256", strings.Repeat("c", 64) + " " + strings.Repeat("d", 64) + " refs/heads/m\n",
			[]PushedRef{{strings.Repeat("c", 64), strings.Repeat("d", 64), "refs/heads/m"}}, ""},
		{"short id", "abc " + b + " refs/heads/main\n", nil, `line 1: "abc `},
		{"no ref", a + " " + b + "\n", nil, "is not \"<old-id> <new-id> <ref>\""},
		{"upper case", strings.ToUpper(a) + " " + b + " refs/heads/main\n", nil, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePushedRefs(strings.NewReader(tt.in))
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseDiffTree(t *testing.T) {
	c, p := strings.Repeat("c", 40), strings.Repeat("p", 40)
	o, n := strings.Repeat("1", 40), strings.Repeat("2", 40)
	out := c + "\x00:100644 100644 " + o + " " + n + " M\x00t/a/progress.md\x00:100644 000000 " + o + " " + ZeroID + " D\x00:odd name\x00"
	got, err := parseDiffTree([]byte(out), map[string]string{c: p}, "")
	require.NoError(t, err)
	require.Equal(t, []PushedChange{
		{Commit: c, Base: p, Path: "t/a/progress.md", OldBlob: o, NewBlob: n, Status: "M"},
		{Commit: c, Base: p, Path: ":odd name", OldBlob: o, NewBlob: ZeroID, Status: "D"},
	}, got)
	_, err = parseDiffTree([]byte(":100644 M\x00x\x00"), nil, "")
	require.ErrorContains(t, err, "unexpected output")
}
