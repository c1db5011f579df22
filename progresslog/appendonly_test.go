package progresslog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lines joins its arguments, each ended by "\n".
func lines(s ...string) string {
	return strings.Join(s, "\n") + "\n"
}

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{"one line changed, two lines of context",
			lines("a", "b", "c", "d", "e", "f", "g"), lines("a", "b", "c", "D", "e", "f", "g"),
			"@@ -2,5 +2,5 @@\n b\n c\n-d\n+D\n e\n f\n"},
		{"distant changes make two hunks",
			lines("1", "2", "3", "4", "5", "6", "7", "8", "9", "10"), lines("1", "2x", "3", "4", "5", "6", "7", "8", "9x", "10"),
			"@@ -1,4 +1,4 @@\n 1\n-2\n+2x\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n-9\n+9x\n 10\n"},
		{"close changes share a hunk",
			lines("1", "2", "3", "4", "5", "6", "7"), lines("1", "2x", "3", "4", "5", "6x", "7"),
			"@@ -1,7 +1,7 @@\n 1\n-2\n+2x\n 3\n 4\n 5\n-6\n+6x\n 7\n"},
		{"insert at the start", "x\n", "new\nx\n", "@@ -1,1 +1,2 @@\n+new\n x\n"},
		{"from nothing", "", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"to nothing", "x\n", "", "@@ -1,1 +0,0 @@\n-x\n"},
		{"deleted line", lines("a", "b", "c"), lines("a", "c"), "@@ -1,3 +1,2 @@\n a\n-b\n c\n"},
		{"missing final newline", "a", "a\n", "@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"non-ASCII", "naïve\n", "naive\n", "@@ -1,1 +1,1 @@\n-naïve\n+naive\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, LineDiff(tt.a, tt.b))
		})
	}
}

func TestIsAppendOnly(t *testing.T) {
	old := lines(
		"# Progress Log", // 1
		"",
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z", // 3
		"**Did:** a",
		"",
		"## T1 - Iteration 2 - 2026-01-14T11:15:00Z", // 6
		"**Did:** b",
		"**Remaining:** None",
	)
	tests := []struct {
		name  string
		old   string
		new   string
		line  int
		entry string // "" when append-only
		diff  string
	}{
		{"unchanged", old, old, 0, "", ""},
		{"appended", old, old + "\n## T2 - Iteration 1 - ts\n", 0, "", ""},
		{"from nothing", "", "# Progress Log\n", 0, "", ""},
		{"final newline added", strings.TrimSuffix(old, "\n"), old + "\n## X\n", 0, "", ""},
		{"value edited", old, strings.Replace(old, "**Did:** b", "**Did:** B", 1), 7, "T1 - Iteration 2 - 2026-01-14T11:15:00Z",
			"@@ -5,4 +5,4 @@\n \n ## T1 - Iteration 2 - 2026-01-14T11:15:00Z\n-**Did:** b\n+**Did:** B\n **Remaining:** None\n"},
		{"heading edited", old, strings.Replace(old, "Iteration 1", "Iteration 9", 1), 3, "T1 - Iteration 1 - 2026-01-14T10:40:00Z",
			"@@ -1,5 +1,5 @@\n # Progress Log\n \n-## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n+## T1 - Iteration 9 - 2026-01-14T10:40:00Z\n **Did:** a\n \n"},
		{"title edited", old, strings.Replace(old, "# Progress Log", "# Log", 1), 1, "preamble",
			"@@ -1,3 +1,3 @@\n-# Progress Log\n+# Log\n \n ## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n"},
		{"last entry truncated", old, strings.TrimSuffix(old, "**Remaining:** None\n"), 8, "T1 - Iteration 2 - 2026-01-14T11:15:00Z",
			"@@ -6,3 +6,2 @@\n ## T1 - Iteration 2 - 2026-01-14T11:15:00Z\n **Did:** b\n-**Remaining:** None\n"},
		{"final newline removed", old, strings.TrimSuffix(old, "\n"), 8, "T1 - Iteration 2 - 2026-01-14T11:15:00Z",
			"@@ -6,3 +6,3 @@\n ## T1 - Iteration 2 - 2026-01-14T11:15:00Z\n **Did:** b\n-**Remaining:** None\n+**Remaining:** None\n\\ No newline at end of file\n"},
		{"CRLF rewritten as LF", "# P\r\n## A\r\n", "# P\n## A\n", 1, "preamble",
			"@@ -1,2 +1,2 @@\n-# P\r\n-## A\r\n+# P\n+## A\n"},
		{"emptied", old, "", 1, "preamble", LineDiff(old, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := IsAppendOnly([]byte(tt.old), []byte(tt.new))
			if tt.entry == "" {
				assert.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			assert.Equal(t, tt.line, v.Line)
			assert.Equal(t, tt.entry, v.Entry)
			assert.Equal(t, tt.diff, v.Diff)
			assert.Equal(t, "progress.md", v.File)
		})
	}
}

func TestViolationError(t *testing.T) {
	tests := []struct {
		v    Violation
		want string
	}{
		{Violation{Line: 14, Entry: "T1 - Iteration 2 - 2026-01-14T11:15:00Z"},
			`progress.md: entry "T1 - Iteration 2 - 2026-01-14T11:15:00Z" changed at line 14 (entries are append-only: restore the earlier text from git and append a new entry instead)`},
		{Violation{File: "guardrails.md", Line: 2, Entry: "preamble"},
			`guardrails.md: the preamble changed at line 2 (entries are append-only: restore the earlier text from git and append a new entry instead)`},
		{Violation{Line: 3, Entry: strings.Repeat("x", 100)},
			`progress.md: entry "` + strings.Repeat("x", 59) + `…" changed at line 3 (entries are append-only: restore the earlier text from git and append a new entry instead)`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.v.Error())
	}
}

func TestIsAppendOnlyConflicted(t *testing.T) {
	old := "## A\n<<<<<<< a\n## B\nb\n=======\n## C\n>>>>>>> c\n## D\nd\n"
	v := IsAppendOnly([]byte(old), []byte(strings.Replace(old, "\nb\n", "\nB\n", 1)))
	require.NotNil(t, v)
	assert.Equal(t, 4, v.Line)
	assert.Equal(t, "B", v.Entry, "the entry holding the line, whatever the side")
	v = IsAppendOnly([]byte(old), []byte(strings.Replace(old, "\nd\n", "\nD\n", 1)))
	require.NotNil(t, v)
	assert.Equal(t, "D", v.Entry)
}

func TestIsGuardrailsAppendOnly(t *testing.T) {
	old := guardrailsTitle + "## Flaky tests\n- **When**: CI\n"
	assert.Nil(t, IsGuardrailsAppendOnly([]byte(old), []byte(old+"\n## Next\n")))
	v := IsGuardrailsAppendOnly([]byte(old), []byte(strings.Replace(old, "CI", "always", 1)))
	require.NotNil(t, v)
	assert.Equal(t, Violation{File: "guardrails.md", Line: 6, Entry: "Flaky tests",
		Diff: "@@ -4,3 +4,3 @@\n \n ## Flaky tests\n-- **When**: CI\n+- **When**: always\n"}, *v)
	v = IsGuardrailsAppendOnly([]byte(old), []byte(strings.Replace(old, "Append", "Add", 1)))
	require.NotNil(t, v)
	assert.Equal(t, "preamble", v.Entry)
	assert.Equal(t, 3, v.Line)
}
