package progresslog

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidUnitID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"T1", true},
		{"R12", true},
		{"AB07", true},
		{"T", true},
		{"t1", true},
		{"T1a", true},
		{"T-1", true},
		{"IV-A", true},
		{"PHASE_3_HIGH_SEVERITY", true},
		{"W2-001", true},
		{"A-", true},
		{"1", false},
		{"IV.A", false},
		{"-A", false},
		{"A B", false},
		{"A - B", false},
		{"", false},
		{"Task", false},
		{"task", false},
		{"Ｔ1", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ValidUnitID(tt.id), tt.id)
	}
}

func TestKindAndSideString(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{KindOther.String(), "other"},
		{KindIteration.String(), "iteration"},
		{KindBlocked.String(), "blocked"},
		{KindUnblocked.String(), "unblocked"},
		{KindCreated.String(), "created"},
		{KindPhase.String(), "phase"},
		{KindPlanned.String(), "planned"},
		{KindReconciled.String(), "reconciled"},
		{KindArchived.String(), "archived"},
		{KindRestored.String(), "restored"},
		{KindReopened.String(), "reopened"},
		{Kind(42).String(), "Kind(42)"},
		{Both.String(), "both"},
		{Ours.String(), "ours"},
		{Theirs.String(), "theirs"},
		{Side(7).String(), "Side(7)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.got)
	}
}

func TestParseHeading(t *testing.T) {
	tests := []struct {
		name    string
		heading string
		want    Entry  // Heading and Fields are not compared
		problem string // part of the problem's message; "" for none
	}{
		{"iteration", "T1 - Iteration 1 - 2026-01-14T10:40:00Z",
			Entry{Kind: KindIteration, Unit: "T1", Iteration: 1, Stamp: "2026-01-14T10:40:00Z"}, ""},
		{"large iteration", "R12 - Iteration 140 - 2026-01-14 10:40",
			Entry{Kind: KindIteration, Unit: "R12", Iteration: 140, Stamp: "2026-01-14 10:40"}, ""},
		{"stamp with dashes kept whole", "T1 - Iteration 1 - 2026-01-14 - late",
			Entry{Kind: KindIteration, Unit: "T1", Iteration: 1, Stamp: "2026-01-14 - late"}, ""},
		{"unparseable stamp is still a stamp", "T1 - Iteration 1 - yesterday",
			Entry{Kind: KindIteration, Unit: "T1", Iteration: 1, Stamp: "yesterday"}, ""},
		{"blocked", "T3 - Blocked - 2026-01-14T12:00:00Z", Entry{Kind: KindBlocked, Unit: "T3", Stamp: "2026-01-14T12:00:00Z"}, ""},
		{"unblocked", "T3 - Unblocked - ts", Entry{Kind: KindUnblocked, Unit: "T3", Stamp: "ts"}, ""},
		{"reopened", "T1 - Reopened - 2026-01-14T13:00:00Z", Entry{Kind: KindReopened, Unit: "T1", Stamp: "2026-01-14T13:00:00Z"}, ""},
		{"task subject for a reopen", "Task - Reopened - ts", Entry{}, "must be a unit ID such as T1"},
		{"reopened with more words", "T1 - Reopened again - ts", Entry{}, `must be written "Reopened"`},
		{"created", "Task - Created - ts", Entry{Kind: KindCreated, Stamp: "ts"}, ""},
		{"phase", "Task - Phase execute - ts", Entry{Kind: KindPhase, Phase: "execute", Stamp: "ts"}, ""},
		{"planned", "Task - Planned - ts", Entry{Kind: KindPlanned, Stamp: "ts"}, ""},
		{"reconciled", "Task - Reconciled - ts", Entry{Kind: KindReconciled, Stamp: "ts"}, ""},
		{"archived", "Task - Archived - ts", Entry{Kind: KindArchived, Stamp: "ts"}, ""},
		{"restored", "Task - Restored - ts", Entry{Kind: KindRestored, Stamp: "ts"}, ""},

		{"a person's heading", "Design notes", Entry{}, ""},
		{"a person's heading with dashes", "Meeting - Monday - notes", Entry{}, ""},
		{"unknown event of a unit", "T1 - Done - ts", Entry{}, ""},
		{"empty heading", "", Entry{}, ""},

		{"iteration not a number", "T1 - Iteration x - ts", Entry{}, `not "Iteration x"`},
		{"iteration zero", "T1 - Iteration 0 - ts", Entry{}, `N a whole number from 1, not "Iteration 0"`},
		{"iteration negative", "T1 - Iteration -1 - ts", Entry{}, `not "Iteration -1"`},
		{"iteration leading zero", "T1 - Iteration 01 - ts", Entry{}, `not "Iteration 01"`},
		{"iteration plus sign", "T1 - Iteration +1 - ts", Entry{}, `not "Iteration +1"`},
		{"iteration too large", "T1 - Iteration 99999999999999999999 - ts", Entry{}, "whole number"},
		{"iteration without number", "T1 - Iteration - ts", Entry{}, `not "Iteration"`},
		{"iteration two spaces", "T1 - Iteration  1 - ts", Entry{}, `not "Iteration  1"`},
		{"missing timestamp", "T1 - Iteration 2", Entry{}, "the timestamp is missing"},
		{"empty timestamp", "T1 - Iteration 2 - ", Entry{}, "the timestamp is missing"},
		{"blank timestamp", "T1 - Iteration 2 -  \t", Entry{}, "the timestamp is missing"},
		{"dash without stamp", "T1 - Iteration 2 -", Entry{}, "Iteration 2 -"},
		{"lower-case subject is its own unit", "t1 - Iteration 1 - ts", Entry{Kind: KindIteration, Unit: "t1", Iteration: 1, Stamp: "ts"}, ""},
		{"seed 001 unit with a hyphen", "IV-A - Iteration 1 - 2026-01-14T10:40:00Z",
			Entry{Kind: KindIteration, Unit: "IV-A", Iteration: 1, Stamp: "2026-01-14T10:40:00Z"}, ""},
		{"seed 001 unit with underscores", "PHASE_3_HIGH_SEVERITY - Blocked - ts", Entry{Kind: KindBlocked, Unit: "PHASE_3_HIGH_SEVERITY", Stamp: "ts"}, ""},
		{"seed 001 unit with a number after a hyphen", "W2-001 - Skipped - ts", Entry{Kind: KindSkipped, Unit: "W2-001", Stamp: "ts"}, ""},
		{"unit ending in a hyphen", "A- - Iteration 2 - ts", Entry{Kind: KindIteration, Unit: "A-", Iteration: 2, Stamp: "ts"}, ""},
		{"hyphenated unit with a bad event", "IV-A - Iteration x - ts", Entry{}, `write it as "## IV-A - Iteration N - ts"`},
		{"a dot is no unit ID", "IV.A - Iteration 1 - ts", Entry{}, ""},
		{"lower-case event", "T1 - iteration 1 - ts", Entry{}, `not "iteration 1"`},
		{"task subject for a unit event", "Task - Blocked - ts", Entry{}, "must be a unit ID such as T1"},
		{"unit subject for a task event", "T2 - Created - ts", Entry{}, `its subject must be "Task"`},
		{"lower-case task", "task - Archived - ts", Entry{}, `the subject must be written "Task"`},
		{"phase without a name", "Task - Phase - ts", Entry{}, `"Phase NAME"`},
		{"phase of two words", "Task - Phase two words - ts", Entry{}, `"Phase NAME"`},
		{"event with extra words", "Task - Created now - ts", Entry{}, `must be written "Created", not "Created now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msg := parseHeading(tt.heading)
			assert.Equal(t, tt.heading, got.Heading, "Heading keeps the raw text")
			got.Heading = ""
			assert.Equal(t, tt.want, got)
			if tt.problem == "" {
				assert.Empty(t, msg)
				return
			}
			assert.Contains(t, msg, tt.problem)
			assert.Contains(t, msg, "write it as \"## ", "the message says how to fix it")
		})
	}
}

func TestParseFields(t *testing.T) {
	const head = "## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n"
	tests := []struct {
		name string
		body string
		want []Field
	}{
		{"seed fields", "**Did:** Added the model\n**Remaining:** tests\n**Blockers:** None\n**Commit:** abc1234: feat: x\n",
			[]Field{{"Did", "Added the model"}, {"Remaining", "tests"}, {"Blockers", "None"}, {"Commit", "abc1234: feat: x"}}},
		{"empty value", "**Remaining:**\n", []Field{{"Remaining", ""}}},
		{"no space after colon", "**Did:**x\n", []Field{{"Did", "x"}}},
		{"one space is syntax, more are value", "**Did:**   x\n", []Field{{"Did", "  x"}}},
		{"colon outside the bold", "**Did**: x\n", []Field{{"Did", "x"}}},
		{"unknown field kept in order", "**Zeta:** 1\n**Did:** 2\n**Alpha beta:** 3\n",
			[]Field{{"Zeta", "1"}, {"Did", "2"}, {"Alpha beta", "3"}}},
		{"bold text is not a field", "**Important** read this\n**Note: this**\n",
			[]Field{{"", "**Important** read this"}, {"", "**Note: this**"}}},
		{"a name with a star is not a field", "***Did:** x\n", []Field{{"", "***Did:** x"}}},
		{"continuation lines", "**Did:** one\n  two\n    three\n", []Field{{"Did", "one\ntwo\n  three"}}},
		{"blank line inside a value", "**Did:** one\n\n  two\n", []Field{{"Did", "one\n\ntwo"}}},
		{"trailing blank lines are the separator", "**Did:** one\n\n\n", []Field{{"Did", "one"}}},
		{"blank line before a new field is dropped", "**Did:** one\n\n**Remaining:** two\n",
			[]Field{{"Did", "one"}, {"Remaining", "two"}}},
		{"trailing white space trimmed", "**Did:** one \t \n  two  \n", []Field{{"Did", "one \t \ntwo"}}},
		{"value starting on the next line", "**Found:**\n  - a\n  - b\n", []Field{{"Found", "\n- a\n- b"}}},
		{"signal in the middle of a line is value", "**Did:** x **Signal:** T1_DONE\n",
			[]Field{{"Did", "x **Signal:** T1_DONE"}}},
		{"forged heading and signal in continuation lines",
			"**Did:** x\n  ## T1 - Iteration 9 - ts\n  **Signal:** T1_DONE\n",
			[]Field{{"Did", "x\n## T1 - Iteration 9 - ts\n**Signal:** T1_DONE"}}},
		{"free text", "Some words.\nMore words.\n", []Field{{"", "Some words."}, {"", "More words."}}},
		{"free text with continuation", "Some words\n  continued\n", []Field{{"", "Some words\ncontinued"}}},
		{"indented first line is free text", "  indented\n**Did:** x\n", []Field{{"", "  indented"}, {"Did", "x"}}},
		{"tab-led line is free text", "**Did:** x\n\tnot a continuation\n", []Field{{"Did", "x"}, {"", "\tnot a continuation"}}},
		{"escaped heading", `\## T1 - Iteration 2 - ts` + "\n", []Field{{"", "## T1 - Iteration 2 - ts"}}},
		{"escaped field", `\**Signal:** T1_DONE` + "\n", []Field{{"", "**Signal:** T1_DONE"}}},
		{"escaped blank", `\` + "\n", []Field{{"", ""}}},
		{"escaped indent", `\  x` + "\n", []Field{{"", "  x"}}},
		{"escaped backslash", `\\## x` + "\n", []Field{{"", `\## x`}}},
		{"backslash before plain text stays", `\n is a newline` + "\n", []Field{{"", `\n is a newline`}}},
		{"backslash before a marker stays", `\<<<<<<< HEAD` + "\n", []Field{{"", `\<<<<<<< HEAD`}}},
		{"non-ASCII", "**Did:** naïve façade — 日本語\n  Ünïcödé\n", []Field{{"Did", "naïve façade — 日本語\nÜnïcödé"}}},
		{"tabs kept", "**Did:** \ta\tb\n", []Field{{"Did", "\ta\tb"}}},
		{"CRLF", "**Did:** a\r\n  b\r\n\r\n**Remaining:** c\r\n", []Field{{"Did", "a\nb"}, {"Remaining", "c"}}},
		{"carriage return inside a line kept", "**Did:** a\rb\n", []Field{{"Did", "a\rb"}}},
		{"level-3 heading is text", "### Sub\n", []Field{{"", "### Sub"}}},
		{"no fields", "\n\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Parse([]byte(head + tt.body))
			require.Len(t, l.Entries, 1)
			assert.Equal(t, tt.want, l.Entries[0].Fields)
			again := Parse(l.Render())
			require.Len(t, again.Entries, 1)
			assert.Equal(t, tt.want, again.Entries[0].Fields, "render then parse")
		})
	}
}

func TestParseDocument(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		preamble string
		headings []string
		lines    []int
		newline  string
	}{
		{"empty", "", "", nil, nil, "\n"},
		{"title only, no final newline", "# Progress Log", "# Progress Log\n", nil, nil, "\n"},
		{"title and entries", "# Progress Log\n\n## A\n## B\n", "# Progress Log\n\n", []string{"A", "B"}, []int{3, 4}, "\n"},
		{"no title", "## A\n", "", []string{"A"}, []int{1}, "\n"},
		{"CRLF", "# P\r\n\r\n## A\r\nx\r\n", "# P\n\n", []string{"A"}, []int{3}, "\r\n"},
		{"CRLF decided by the first line", "# P\n## A\r\n", "# P\n", []string{"A"}, []int{2}, "\n"},
		{"heading needs a space", "##A\n## \n", "##A\n", []string{""}, []int{2}, "\n"},
		{"heading trailing CR stripped", "## A\r\r\n", "", []string{"A"}, []int{1}, "\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Parse([]byte(tt.data))
			assert.Equal(t, tt.preamble, l.Preamble)
			assert.Equal(t, tt.newline, l.Newline)
			var headings []string
			var lines []int
			for _, e := range l.Entries {
				headings = append(headings, e.Heading)
				lines = append(lines, e.Line)
			}
			assert.Equal(t, tt.headings, headings)
			assert.Equal(t, tt.lines, lines)
			assert.False(t, l.Conflicted)
			assert.Empty(t, l.Problems)
		})
	}
}

// sided is an entry's side and heading, for comparing merges.
type sided struct {
	Side    Side
	Heading string
}

func sidesOf(l *Log) []sided {
	var out []sided
	for _, e := range l.Entries {
		out = append(out, sided{e.Side, e.Heading})
	}
	return out
}

func TestParseConflicts(t *testing.T) {
	tests := []struct {
		name       string
		data       string
		want       []sided
		conflicted bool
		problem    string // part of the only problem; "" for none
		preamble   string // theirs preamble when it differs; "" when not split
	}{
		{"between entries",
			"# P\n\n## A\nx\n\n<<<<<<< HEAD\n## B\n=======\n## C\n\n## D\n>>>>>>> other\n\n## E\n",
			[]sided{{Both, "A"}, {Ours, "B"}, {Theirs, "C"}, {Theirs, "D"}, {Both, "E"}}, true, "", ""},
		{"diff3 base dropped",
			"<<<<<<< ours\n## B\n||||||| base\n## Base\n=======\n## C\n>>>>>>> theirs\n",
			[]sided{{Ours, "B"}, {Theirs, "C"}}, true, "", ""},
		{"same entry on both sides appears once",
			"## A\n<<<<<<< ours\n## X\nsame\n\n## B\n=======\n## X\nsame\n## C\n>>>>>>> theirs\n",
			[]sided{{Both, "A"}, {Both, "X"}, {Ours, "B"}, {Theirs, "C"}}, true, "", ""},
		{"block starting mid-entry",
			"## A\n**Did:** x\n<<<<<<< ours\n**Remaining:** a\n=======\n**Remaining:** b\n>>>>>>> theirs\n## Z\n",
			[]sided{{Ours, "A"}, {Theirs, "A"}, {Both, "Z"}}, true, "", ""},
		{"block ending mid-entry",
			"<<<<<<< ours\n## A\n=======\n## B\n>>>>>>> theirs\n**Did:** shared tail\n",
			[]sided{{Ours, "A"}, {Theirs, "B"}}, true, "", ""},
		{"two blocks around a common entry",
			"<<<<<<< a\n## A1\n=======\n## B1\n>>>>>>> b\n## C\n<<<<<<< a\n## A2\n=======\n## B2\n>>>>>>> b\n",
			[]sided{{Ours, "A1"}, {Theirs, "B1"}, {Both, "C"}, {Ours, "A2"}, {Theirs, "B2"}}, true, "", ""},
		{"identical sides",
			"## A\n<<<<<<< a\n## B\n=======\n## B\n>>>>>>> b\n",
			[]sided{{Both, "A"}, {Both, "B"}}, true, "", ""},
		{"one side empty",
			"## A\n<<<<<<< a\n=======\n## B\n>>>>>>> b\n",
			[]sided{{Both, "A"}, {Theirs, "B"}}, true, "", ""},
		{"preamble differs",
			"<<<<<<< a\n# Ours\n=======\n# Theirs\n>>>>>>> b\n\n## A\n",
			[]sided{{Both, "A"}}, true, "", "# Theirs\n\n"},
		{"CRLF markers", "<<<<<<< a\r\n## A\r\n=======\r\n## B\r\n>>>>>>> b\r\n",
			[]sided{{Ours, "A"}, {Theirs, "B"}}, true, "", ""},
		{"unclosed block is plain text",
			"## A\n<<<<<<< HEAD\n**Did:** x\n",
			[]sided{{Both, "A"}}, false, "never closed", ""},
		{"separator without start is plain text",
			"## A\n=======\n## B\n",
			[]sided{{Both, "A"}, {Both, "B"}}, false, "marker ======= is out of place", ""},
		{"end without separator is plain text",
			"<<<<<<< a\n## A\n>>>>>>> b\n",
			[]sided{{Both, "A"}}, false, "marker >>>>>>> is out of place", ""},
		{"indented markers are value text",
			"## A\n**Did:** x\n  <<<<<<< a\n  =======\n  >>>>>>> b\n",
			[]sided{{Both, "A"}}, false, "", ""},
		{"longer runs are not markers",
			"## A\n<<<<<<<<\n========\n>>>>>>>>\n",
			[]sided{{Both, "A"}}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Parse([]byte(tt.data))
			assert.Equal(t, tt.want, sidesOf(l))
			assert.Equal(t, tt.conflicted, l.Conflicted)
			if tt.problem == "" {
				assert.Empty(t, l.Problems)
			} else {
				require.Len(t, l.Problems, 1)
				assert.Contains(t, l.Problems[0].Msg, tt.problem)
				assert.Contains(t, l.Problems[0].Msg, "finish resolving the merge")
			}
			assert.Equal(t, tt.preamble != "", l.PreambleConflict)
			assert.Equal(t, tt.preamble, l.TheirsPreamble)
			again := Parse(l.Render())
			assert.Equal(t, withoutLines(l), withoutLines(again), "render keeps the sides:\n%s", l.Render())
		})
	}
}

func TestParseConflictLinesAndFields(t *testing.T) {
	data := "## A\n**Did:** x\n<<<<<<< ours\n**Remaining:** a\n=======\n**Remaining:** b\n**Signal:** A_DONE\n>>>>>>> theirs\n\n## T1 - Iteration x - ts\n"
	l := Parse([]byte(data))
	require.Len(t, l.Entries, 3)
	assert.Equal(t, Entry{Kind: KindOther, Heading: "A", Line: 1, Side: Ours,
		Fields: []Field{{"Did", "x"}, {"Remaining", "a"}}}, l.Entries[0])
	assert.Equal(t, Entry{Kind: KindOther, Heading: "A", Line: 1, Side: Theirs,
		Fields: []Field{{"Did", "x"}, {"Remaining", "b"}, {"Signal", "A_DONE"}}}, l.Entries[1])
	assert.Equal(t, 10, l.Entries[2].Line, "line numbers are the file's, not a side's")
	require.Len(t, l.Problems, 1, "a problem of a common entry is reported once")
	assert.Equal(t, 10, l.Problems[0].Line)
}

func TestRenderConflicted(t *testing.T) {
	l := &Log{
		Preamble:   "# Progress Log\n\n",
		Newline:    "\n",
		Conflicted: true,
		Entries: []Entry{
			{Kind: KindOther, Heading: "A"},
			{Kind: KindOther, Heading: "B", Side: Ours, Fields: []Field{{"Did", "b"}}},
			{Kind: KindOther, Heading: "C", Side: Theirs},
			{Kind: KindOther, Heading: "D"},
		},
	}
	want := "# Progress Log\n\n## A\n\n<<<<<<< ours\n## B\n**Did:** b\n=======\n## C\n>>>>>>> theirs\n\n## D\n"
	assert.Equal(t, want, string(l.Render()))

	l.Entries = l.Entries[:1]
	assert.Equal(t, "<<<<<<< ours\n=======\n>>>>>>> theirs\n# Progress Log\n\n## A\n", string(l.Render()),
		"a conflicted log with nothing left to differ still reads as conflicted")
	assert.True(t, Parse(l.Render()).Conflicted)
}

func TestRenderPreambleConflict(t *testing.T) {
	l := &Log{
		Preamble:         "# Progress Log\n\nours\nshared\n",
		TheirsPreamble:   "# Progress Log\n\ntheirs\nshared\n",
		PreambleConflict: true,
		Conflicted:       true,
		Newline:          "\r\n",
	}
	want := "# Progress Log\r\n\r\n<<<<<<< ours\r\nours\r\n=======\r\ntheirs\r\n>>>>>>> theirs\r\nshared\r\n"
	assert.Equal(t, want, string(l.Render()))
	assert.Equal(t, withoutLines(l), withoutLines(Parse(l.Render())))
}

func TestRenderEscapes(t *testing.T) {
	tests := []struct {
		name  string
		field Field
		want  string // the body line(s)
	}{
		{"heading", Field{"", "## T1 - Iteration 2 - ts"}, `\## T1 - Iteration 2 - ts`},
		{"field", Field{"", "**Signal:** T1_DONE"}, `\**Signal:** T1_DONE`},
		{"alternative field", Field{"", "**Signal**: T1_DONE"}, `\**Signal**: T1_DONE`},
		{"indent", Field{"", "  x"}, `\  x`},
		{"blank first line", Field{"", "\nx"}, "\\\n  x"},
		{"escape of an escape", Field{"", `\## x`}, `\\## x`},
		{"plain backslash", Field{"", `\d+`}, `\d+`},
		{"plain text", Field{"", "words"}, "words"},
		{"guardrail field is plain text here", Field{"", "- **When**: x"}, "- **When**: x"},
		{"named value starting with a heading", Field{"Did", "## x"}, "**Did:** ## x"},
		{"named value with forged lines", Field{"Did", "a\n## T1 - Iteration 9 - ts\n**Signal:** T1_DONE\n\nb"},
			"**Did:** a\n  ## T1 - Iteration 9 - ts\n  **Signal:** T1_DONE\n\n  b"},
		{"whitespace-only inner line", Field{"Did", "a\n \nb"}, "**Did:** a\n   \n  b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Log{Newline: "\n", Entries: []Entry{{Kind: KindOther, Heading: "N", Fields: []Field{tt.field}}}}
			out := string(l.Render())
			assert.Equal(t, "## N\n"+tt.want+"\n", out)
			again := Parse([]byte(out))
			require.Len(t, again.Entries, 1)
			assert.Equal(t, []Field{tt.field}, again.Entries[0].Fields)
		})
	}
}

func TestEntryTime(t *testing.T) {
	tests := []struct {
		stamp string
		want  string // RFC 3339 in UTC; "" when not a time
	}{
		{"2026-01-14T10:30:00Z", "2026-01-14T10:30:00Z"},
		{"2026-01-14T10:30:00.5Z", "2026-01-14T10:30:00.5Z"},
		{"2026-01-14T10:30:00+02:00", "2026-01-14T08:30:00Z"},
		{"2026-01-14T10:30Z", "2026-01-14T10:30:00Z"},
		{"2026-01-14T10:30-05:00", "2026-01-14T15:30:00Z"},
		{"2026-01-14 10:30", "2026-01-14T10:30:00Z"},
		{"2026-01-14 10:30:15", "2026-01-14T10:30:15Z"},
		{"2026-01-14T10:30:15", "2026-01-14T10:30:15Z"},
		{" 2026-01-14T10:30:00Z ", "2026-01-14T10:30:00Z"},
		{"2026-01-14", ""},
		{"yesterday", ""},
		{"", ""},
		{"2026-13-14T10:30:00Z", ""},
	}
	for _, tt := range tests {
		t.Run(tt.stamp, func(t *testing.T) {
			got, ok := Entry{Stamp: tt.stamp}.Time()
			if tt.want == "" {
				assert.False(t, ok)
				assert.True(t, got.IsZero())
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.want, got.UTC().Format(time.RFC3339Nano))
		})
	}
}

func TestEntryFieldAndTitle(t *testing.T) {
	e := Entry{Kind: KindIteration, Unit: "T1", Iteration: 3, Stamp: "ts", Fields: []Field{
		{"", "free text"}, {"Did", "first"}, {"did", "second"}, {"Signal", ""},
	}}
	tests := []struct {
		name  string
		want  string
		found bool
	}{
		{"Did", "first", true},
		{"DID", "first", true},
		{"Signal", "", true},
		{"Remaining", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := e.Field(tt.name)
		assert.Equal(t, tt.found, ok, tt.name)
		assert.Equal(t, tt.want, got, tt.name)
	}

	titles := []struct {
		e    Entry
		want string
	}{
		{e, "T1 - Iteration 3 - ts"},
		{Entry{Kind: KindBlocked, Unit: "T2", Stamp: "ts"}, "T2 - Blocked - ts"},
		{Entry{Kind: KindUnblocked, Unit: "T2", Stamp: "ts"}, "T2 - Unblocked - ts"},
		{Entry{Kind: KindReopened, Unit: "T2", Stamp: "ts"}, "T2 - Reopened - ts"},
		{Entry{Kind: KindCreated, Stamp: "ts"}, "Task - Created - ts"},
		{Entry{Kind: KindPhase, Phase: "verify", Stamp: "ts"}, "Task - Phase verify - ts"},
		{Entry{Kind: KindPlanned, Stamp: "ts"}, "Task - Planned - ts"},
		{Entry{Kind: KindReconciled, Stamp: "ts"}, "Task - Reconciled - ts"},
		{Entry{Kind: KindArchived, Stamp: "ts"}, "Task - Archived - ts"},
		{Entry{Kind: KindRestored, Stamp: "ts"}, "Task - Restored - ts"},
		{Entry{Kind: KindOther, Heading: "My notes"}, "My notes"},
		{Entry{Kind: Kind(99), Heading: "odd"}, "odd"},
	}
	for _, tt := range titles {
		assert.Equal(t, tt.want, tt.e.Title())
		if tt.e.Kind.known() {
			p, msg := parseHeading(tt.e.Title())
			assert.Empty(t, msg)
			assert.Equal(t, tt.e.Kind, p.Kind, "Title reads back as the same kind")
		}
	}
}

func TestRenderEntry(t *testing.T) {
	e := Entry{Kind: KindIteration, Unit: "T1", Iteration: 1, Stamp: "ts", Fields: []Field{{"Did", "a\r\nb  "}, {"", ""}, {"Remaining", ""}}}
	got, err := RenderEntry(e, "\r\n")
	require.NoError(t, err)
	assert.Equal(t, "## T1 - Iteration 1 - ts\r\n**Did:** a\r\n  b\r\n**Remaining:**\r\n", string(got))
	got, err = RenderEntry(e, "")
	require.NoError(t, err)
	assert.Equal(t, "## T1 - Iteration 1 - ts\n**Did:** a\n  b\n**Remaining:**\n", string(got))
	_, err = RenderEntry(Entry{Kind: KindIteration, Unit: "T1", Stamp: "ts"}, "\n")
	assert.ErrorContains(t, err, "iteration 0 must be 1 or more")
}

func TestAppend(t *testing.T) {
	entry := Entry{Kind: KindIteration, Unit: "T1", Iteration: 2, Stamp: "2026-01-14T11:15:00Z",
		Fields: []Field{{"Did", "tests"}, {"Signal", "T1_DONE"}}}
	const rendered = "## T1 - Iteration 2 - 2026-01-14T11:15:00Z\n**Did:** tests\n**Signal:** T1_DONE\n"
	tests := []struct {
		name string
		old  string
		e    Entry
		want string
	}{
		{"empty file gets the title", "", entry, "# Progress Log\n\n" + rendered},
		{"after an entry", "# Progress Log\n\n## A\nx\n", entry, "# Progress Log\n\n## A\nx\n\n" + rendered},
		{"after a blank line", "# Progress Log\n\n", entry, "# Progress Log\n\n" + rendered},
		{"missing final newline", "# Progress Log\n\n## A\nx", entry, "# Progress Log\n\n## A\nx\n\n" + rendered},
		{"CRLF file", "# P\r\n\r\n## A\r\n", entry,
			"# P\r\n\r\n## A\r\n\r\n" + strings.ReplaceAll(rendered, "\n", "\r\n")},
		{"CRLF file without final newline", "# P\r\n## A", entry,
			"# P\r\n## A\r\n\r\n" + strings.ReplaceAll(rendered, "\n", "\r\n")},
		{"values normalised", "", Entry{Kind: KindBlocked, Unit: "T3", Stamp: "ts",
			Fields: []Field{{"Reason", "waiting\r\n  on T2 \t\n\n"}, {"", "  "}}},
			"# Progress Log\n\n## T3 - Blocked - ts\n**Reason:** waiting\n    on T2\n"},
		{"forged structure stays inside the entry", "", Entry{Kind: KindIteration, Unit: "T1", Iteration: 1, Stamp: "ts",
			Fields: []Field{{"Did", "x\n## T1 - Iteration 9 - ts\n**Signal:** T1_DONE"}, {"", "## T2 - Iteration 1 - ts"},
				{"", "<<<<<<< HEAD"}, {"", "=======\nmore"}, {"", ">>>>>>> b"}}},
			"# Progress Log\n\n## T1 - Iteration 1 - ts\n**Did:** x\n  ## T1 - Iteration 9 - ts\n  **Signal:** T1_DONE\n" +
				"\\## T2 - Iteration 1 - ts\n\\<<<<<<< HEAD\n\\=======\n  more\n\\>>>>>>> b\n"},
		{"task events", "", Entry{Kind: KindPhase, Phase: "execute", Stamp: "ts"},
			"# Progress Log\n\n## Task - Phase execute - ts\n"},
		{"a person's note", "", Entry{Kind: KindOther, Heading: "Review notes", Fields: []Field{{"", "fine"}}},
			"# Progress Log\n\n## Review notes\nfine\n"},
		{"heading set by the caller is replaced by the title", "", Entry{Kind: KindArchived, Stamp: "ts", Heading: "stale"},
			"# Progress Log\n\n## Task - Archived - ts\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Append([]byte(tt.old), tt.e)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.Nil(t, IsAppendOnly([]byte(tt.old), got))
			l := Parse(got)
			require.NotEmpty(t, l.Entries)
			want, err := canonical(tt.e)
			require.NoError(t, err)
			last := l.Entries[len(l.Entries)-1]
			want.Line = last.Line
			assert.Equal(t, want, last)
			assert.False(t, l.Conflicted)
			assert.Empty(t, l.Problems)
		})
	}
}

func TestAppendErrors(t *testing.T) {
	tests := []struct {
		name string
		e    Entry
		want string
	}{
		{"no stamp", Entry{Kind: KindIteration, Unit: "T1", Iteration: 1}, "has no timestamp: set Stamp"},
		{"blank stamp", Entry{Kind: KindCreated, Stamp: "  "}, "has no timestamp"},
		{"stamp with newline", Entry{Kind: KindCreated, Stamp: "a\nb"}, "must be one line"},
		{"bad unit", Entry{Kind: KindIteration, Unit: "IV.A", Iteration: 1, Stamp: "ts"}, `iteration entry: unit ID "IV.A" is not valid: an ID starts with a letter`},
		{"no unit", Entry{Kind: KindBlocked, Stamp: "ts"}, `unit ID "" is not valid`},
		{"the task is no unit", Entry{Kind: KindBlocked, Unit: "Task", Stamp: "ts"}, `unit ID "Task" is not valid`},
		{"iteration zero", Entry{Kind: KindIteration, Unit: "T1", Stamp: "ts"}, "iteration 0 must be 1 or more"},
		{"unit on a task event", Entry{Kind: KindCreated, Unit: "T1", Stamp: "ts"}, "leave Unit empty"},
		{"iteration on another event", Entry{Kind: KindBlocked, Unit: "T1", Iteration: 2, Stamp: "ts"}, "leave Iteration 0"},
		{"phase missing", Entry{Kind: KindPhase, Stamp: "ts"}, "must be one word"},
		{"phase of two words", Entry{Kind: KindPhase, Phase: "a b", Stamp: "ts"}, "must be one word"},
		{"phase on another event", Entry{Kind: KindCreated, Phase: "x", Stamp: "ts"}, "leave Phase empty"},
		{"unknown kind", Entry{Kind: Kind(99), Stamp: "ts"}, "unknown entry kind 99"},
		{"note without heading", Entry{Kind: KindOther}, "must be one non-empty line"},
		{"note heading with newline", Entry{Kind: KindOther, Heading: "a\nb"}, "must be one non-empty line"},
		{"note with a stamp", Entry{Kind: KindOther, Heading: "a", Stamp: "ts"}, "leave Unit, Iteration, Phase and Stamp empty"},
		{"note forging an iteration", Entry{Kind: KindOther, Heading: "T1 - Iteration 9 - ts"}, "would read as an event of kind iteration"},
		{"note with a malformed event heading", Entry{Kind: KindOther, Heading: "T1 - Iteration x - ts"}, "not a valid iteration entry"},
		{"field name with a colon", Entry{Kind: KindCreated, Stamp: "ts", Fields: []Field{{"a:b", "x"}}}, `field 1: name "a:b" cannot be written`},
		{"field name with a star", Entry{Kind: KindCreated, Stamp: "ts", Fields: []Field{{"ok", ""}, {"a*", "x"}}}, "field 2"},
		{"field name with a newline", Entry{Kind: KindCreated, Stamp: "ts", Fields: []Field{{"a\nb", "x"}}}, "line break"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Append([]byte("# Progress Log\n"), tt.e)
			assert.ErrorContains(t, err, tt.want)
			assert.Nil(t, got)
			_, err = RenderEntry(tt.e, "\n")
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestAppendKeepsOldEntries(t *testing.T) {
	old := []byte("# Progress Log\n\n## T1 - Iteration 1 - ts\n**Did:** a\n  b\n\n\n<<<<<<< x")
	next, err := Append(old, Entry{Kind: KindIteration, Unit: "T1", Iteration: 2, Stamp: "ts"})
	require.NoError(t, err)
	before, after := Parse(old), Parse(next)
	require.Len(t, after.Entries, 2)
	assert.Equal(t, before.Entries, after.Entries[:1])
	assert.Equal(t, before.Problems, after.Problems, "a stray marker stays a stray marker")
}
