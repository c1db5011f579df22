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
		{"a space in the ref", a + " " + b + " refs/heads/a b\n", nil, "line 1"},
		{"a control character in the ref", a + " " + b + " refs/heads/a\x01\n", nil, "line 1"},
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

// FuzzParsePushedRefs: whatever the input, ParsePushedRefs returns
// updates or an error, never panics; the updates it returns, written back
// as a hook's input, read back the same.
func FuzzParsePushedRefs(f *testing.F) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	f.Add(a + " " + b + " refs/heads/main\n")
	f.Add(ZeroID + " " + b + " refs/heads/new\n" + a + " " + ZeroID + " refs/tags/v1\n")
	f.Add("\r\n" + a + " " + b + " refs/heads/x\r\r\r\n")
	f.Add(a + " " + b + " refs/heads/with space\n")
	f.Add("abc def ghi\n")
	f.Fuzz(func(t *testing.T, in string) {
		ups, err := ParsePushedRefs(strings.NewReader(in))
		if err != nil {
			return
		}
		var sb strings.Builder
		for _, u := range ups {
			if !isHexID(u.Old) || !isHexID(u.New) || u.Ref == "" {
				t.Fatalf("parsed %+v from %q", u, in)
			}
			sb.WriteString(u.Old + " " + u.New + " " + u.Ref + "\n")
		}
		again, err := ParsePushedRefs(strings.NewReader(sb.String()))
		if err != nil {
			t.Fatalf("the written updates do not read back: %v", err)
		}
		if len(again) != len(ups) {
			t.Fatalf("%d updates read back as %d", len(ups), len(again))
		}
		for i := range ups {
			if again[i] != ups[i] {
				t.Fatalf("update %d: %+v read back as %+v", i, ups[i], again[i])
			}
		}
	})
}
