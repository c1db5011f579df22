package progresslog

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decisionsWithoutLines(d *Decisions) Decisions {
	c := *d
	c.Entries = zeroLines(d.Entries, func(e *Decision) *int { return &e.Line })
	c.Problems = zeroLines(d.Problems, problemLine)
	return c
}

func TestParseDecisions(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Decision // Title and Line are not compared
	}{
		{"itr's form", "- **Choice**: SQLite\n- **Why**: one file\n- **Unit**: T2\n- **Decided**: 2026-01-14T10:30:00Z\n",
			Decision{Choice: "SQLite", Why: "one file", Unit: "T2", Decided: "2026-01-14T10:30:00Z"}},
		{"colon inside the bold", "- **Choice:** a\n- **Why:** b\n", Decision{Choice: "a", Why: "b"}},
		{"names without regard to case", "- **CHOICE**: a\n- **why**: b\n", Decision{Choice: "a", Why: "b"}},
		{"unknown fields kept in order", "- **Owner**: me\n- **Choice**: a\n- **Link**: x\n",
			Decision{Choice: "a", Extra: []Field{{"Owner", "me"}, {"Link", "x"}}}},
		{"second choice goes to Extra", "- **Choice**: a\n- **Choice**: b\n", Decision{Choice: "a", Extra: []Field{{"Choice", "b"}}}},
		{"continuation lines", "- **Why**: first\n  second\n", Decision{Why: "first\nsecond"}},
		{"forged heading in a value", "- **Why**: a\n  ## Another\n", Decision{Why: "a\n## Another"}},
		{"free text", "Some words.\n", Decision{Extra: []Field{{"", "Some words."}}}},
		{"progress fields are free text here", "**Choice:** x\n", Decision{Extra: []Field{{"", "**Choice:** x"}}}},
		{"empty", "", Decision{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ParseDecisions([]byte(decisionsTitle + "## Storage engine\n" + tt.body))
			require.Len(t, d.Entries, 1)
			got := d.Entries[0]
			assert.Equal(t, "Storage engine", got.Title)
			assert.Equal(t, 5, got.Line)
			got.Title, got.Line = "", 0
			assert.Equal(t, tt.want, got)
			again := ParseDecisions(d.Render())
			assert.Equal(t, decisionsWithoutLines(d), decisionsWithoutLines(again), "render then parse:\n%s", d.Render())
		})
	}
}

func TestParseDecisionsDocument(t *testing.T) {
	data, err := os.ReadFile("testdata/decisions/two.md")
	require.NoError(t, err)
	d := ParseDecisions(data)
	require.Len(t, d.Entries, 3)
	assert.Equal(t, decisionsTitle, d.Preamble)
	assert.Equal(t, []int{5, 11, 18}, []int{d.Entries[0].Line, d.Entries[1].Line, d.Entries[2].Line})
	assert.Equal(t, "one file, no server to run\nand the data fits in memory", d.Entries[1].Why)
	assert.Equal(t, []Field{{"Reviewer", "Ana"}}, d.Entries[1].Extra)

	d = ParseDecisions([]byte("## A\n<<<<<<< ours\n- **Choice**: x\n=======\n- **Choice**: y\n>>>>>>> theirs\n"))
	assert.True(t, d.Conflicted)
	require.Len(t, d.Entries, 2)
	assert.Equal(t, Decision{Title: "A", Choice: "x", Line: 1, Side: Ours}, d.Entries[0])
	assert.Equal(t, Decision{Title: "A", Choice: "y", Line: 1, Side: Theirs}, d.Entries[1])
}

func TestDecisionsLatest(t *testing.T) {
	d := ParseDecisions([]byte("## Storage\n- **Choice**: a\n\n## API\n- **Choice**: REST\n\n## storage\n- **Choice**: b\n\n## Cache\n- **Choice**: none\n"))
	latest := d.Latest()
	var got []string
	for _, x := range latest {
		got = append(got, x.Title+"="+x.Choice)
	}
	// The storage decision was taken again: the newer one, in its place.
	assert.Equal(t, []string{"API=REST", "storage=b", "Cache=none"}, got)
	assert.Equal(t, 1, d.Superseded())
	assert.Equal(t, "plan approval", TitleKey("  Plan \t APPROVAL "))
	assert.Empty(t, ParseDecisions(nil).Latest())
}

func TestAppendDecision(t *testing.T) {
	dec := Decision{Title: "Storage engine", Choice: "SQLite", Why: "one file", Unit: "T2", Decided: "2026-01-14T10:30:00Z"}
	const rendered = "## Storage engine\n- **Choice**: SQLite\n- **Why**: one file\n- **Unit**: T2\n- **Decided**: 2026-01-14T10:30:00Z\n"
	tests := []struct {
		name string
		old  string
		d    Decision
		want string
	}{
		{"new file gets the title", "", dec, decisionsTitle + rendered},
		{"after a decision", decisionsTitle + rendered, dec, decisionsTitle + rendered + "\n" + rendered},
		{"no final newline", "# Decisions", dec, "# Decisions\n\n" + rendered},
		{"CRLF file stays CRLF", "# Decisions\r\n", dec, "# Decisions\r\n\r\n" + strings.ReplaceAll(rendered, "\n", "\r\n")},
		{"empty fields left out", "", Decision{Title: "T", Choice: "c"}, decisionsTitle + "## T\n- **Choice**: c\n"},
		{"multi-line value indented", "", Decision{Title: "T", Choice: "c", Why: "a\n## forged\n- **Choice**: x"},
			decisionsTitle + "## T\n- **Choice**: c\n- **Why**: a\n  ## forged\n  - **Choice**: x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AppendDecision([]byte(tt.old), tt.d)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(out))
			assert.True(t, bytes.HasPrefix(out, []byte(tt.old)))
			assert.Nil(t, IsDecisionsAppendOnly([]byte(tt.old), out))
		})
	}
	for _, bad := range []struct {
		d   Decision
		msg string
	}{
		{Decision{Choice: "c"}, "no title"},
		{Decision{Title: "a\nb", Choice: "c"}, "one line"},
		{Decision{Title: "T", Why: "w"}, "no choice"},
		{Decision{Title: "T", Choice: "c", Extra: []Field{{"why", "x"}}}, "would read back as the Why field"},
	} {
		_, err := AppendDecision(nil, bad.d)
		require.Error(t, err)
		assert.Contains(t, err.Error(), bad.msg)
	}
}

func TestIsDecisionsAppendOnly(t *testing.T) {
	old := []byte(decisionsTitle + "## Storage\n- **Choice**: a\n\n## API\n- **Choice**: REST\n")
	assert.Nil(t, IsDecisionsAppendOnly(old, append(bytes.Clone(old), "\n## X\n- **Choice**: y\n"...)))
	v := IsDecisionsAppendOnly(old, bytes.Replace(old, []byte("REST"), []byte("gRPC"), 1))
	require.NotNil(t, v)
	assert.Equal(t, "API", v.Entry)
	assert.Equal(t, "decisions.md", v.File)
	assert.Contains(t, v.Error(), `decisions.md: entry "API" changed at line 9`)
}

func TestStrictUnionDecisions(t *testing.T) {
	base := []byte(decisionsTitle + "## Storage\n- **Choice**: a\n")
	ours := append(bytes.Clone(base), "\n## API\n- **Choice**: REST\n"...)
	theirs := append(bytes.Clone(base), "\n## Storage\n- **Choice**: b\n"...)
	merged, err := StrictUnionDecisions(base, ours, theirs)
	require.NoError(t, err)
	assert.Equal(t, string(ours)+"\n## Storage\n- **Choice**: b\n", string(merged))
	// Both decisions on storage are kept; theirs, later in the file, holds.
	latest := ParseDecisions(merged).Latest()
	require.Len(t, latest, 2)
	assert.Equal(t, "b", latest[1].Choice)

	// The same decision on both sides is written once.
	merged, err = StrictUnionDecisions(base, ours, ours)
	require.NoError(t, err)
	assert.Equal(t, string(ours), string(merged))

	// A side that rewrote a decision of the base is refused.
	_, err = StrictUnionDecisions(base, ours, bytes.Replace(base, []byte("Choice**: a"), []byte("Choice**: z"), 1))
	var me *MergeError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "theirs", me.Version)
	assert.True(t, errors.Is(err, ErrRewritten))
	assert.Contains(t, err.Error(), `decision "Storage"`)

	_, err = StrictUnionDecisions(base, ours, []byte("## A\n<<<<<<< x\n=======\n>>>>>>> y\n"))
	assert.ErrorIs(t, err, ErrConflicted)
	_, err = StrictUnionDecisions(base, []byte("a\x00"), ours)
	assert.ErrorIs(t, err, ErrBinary)

	// An add on both sides (no base) keeps both.
	merged, err = StrictUnionDecisions(nil, ours, theirs)
	require.NoError(t, err)
	assert.Len(t, ParseDecisions(merged).Entries, 3)
}

func TestSummaryHelpers(t *testing.T) {
	assert.Equal(t, 0, Tokens(nil))
	assert.Equal(t, 1, Tokens([]byte("abc")))
	assert.Equal(t, 1, Tokens([]byte("abcd")))
	assert.Equal(t, 2, Tokens([]byte("abcde")))
	assert.Equal(t, 1, Tokens([]byte("日本語")), "characters, not bytes")
	l := Parse([]byte("# Progress Log\n\n## Task - Summary - 2026-01-14T10:30:00Z\n**Did:** a\n\n## T1 - Iteration 1 - 2026-01-14T10:31:00Z\n\n## Task - Summary - 2026-01-14T10:32:00Z\n**Did:** b\n"))
	require.Len(t, l.Entries, 3)
	assert.Equal(t, KindSummary, l.Entries[0].Kind)
	assert.Equal(t, 2, LastSummary(l.Entries))
	assert.Equal(t, -1, LastSummary(l.Entries[1:2]))
	assert.Equal(t, "c\n", string(FromLine([]byte("a\nb\nc\n"), 3)))
	assert.Equal(t, "a\nb\n", string(FromLine([]byte("a\nb\n"), 0)))
	assert.Empty(t, FromLine([]byte("a\nb\n"), 5))

	out, err := Append(nil, Entry{Kind: KindSummary, Stamp: "2026-01-14T10:30:00Z", Fields: []Field{{"Did", "x"}, {"Covers", "entries 1–3"}}})
	require.NoError(t, err)
	assert.Equal(t, "# Progress Log\n\n## Task - Summary - 2026-01-14T10:30:00Z\n**Did:** x\n**Covers:** entries 1–3\n", string(out))
	_, err = Append(nil, Entry{Kind: KindSummary, Unit: "T1", Stamp: "2026-01-14T10:30:00Z"})
	assert.Error(t, err, "a summary is about the whole task")
}
