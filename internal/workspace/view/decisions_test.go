package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/progresslog"
)

func TestDecisionsOf(t *testing.T) {
	assert.Equal(t, []Decision{}, decisionsOf(nil))
	raw := "# Decisions\n\n## Storage\n- **Choice**: PostgreSQL\n- **Why**: known\n- **Unit**: T1\n\n" +
		"## API\n- **Choice**: REST\n\n## storage\n- **Choice**: SQLite\n- **Why**: one file\n- **Decided**: 2026-01-14T10:30:00Z\n"
	got := decisionsOf([]byte(raw))
	assert.Equal(t, []Decision{
		{Title: "API", Choice: "REST", Line: 8},
		{Title: "storage", Choice: "SQLite", Why: "one file", Decided: "2026-01-14T10:30:00Z", Line: 11, Supersedes: 1},
	}, got)

	var many []Decision
	for i := range 25 {
		many = append(many, Decision{Title: fmt.Sprint(i)})
	}
	kept, more := newestDecisions(many, primeDecisionsMax)
	assert.Equal(t, 5, more)
	require.Len(t, kept, 20)
	assert.Equal(t, "5", kept[0].Title, "the newest are kept")
	kept, more = newestDecisions(many[:3], primeDecisionsMax)
	assert.Len(t, kept, 3)
	assert.Zero(t, more)
}

func TestReadSize(t *testing.T) {
	head := "# Progress Log\n\n## Task - Created - 2026-01-14T10:30:00Z\n**Name:** x\n\n"
	iter := func(n int) string {
		return fmt.Sprintf("## T1 - Iteration %d - 2026-01-14T11:%02d:00Z\n**Did:** %s\n\n", n, n, strings.Repeat("é", 40))
	}
	data := head + iter(1) + iter(2)
	sf := readSize([]byte(data), progresslog.Parse([]byte(data)).Entries)
	assert.Nil(t, sf.Summary)
	assert.Equal(t, 1, sf.FromLine)
	assert.Equal(t, len([]rune(data)), sf.Characters, "characters, not bytes")
	z := sizeOf(sf, 10)
	assert.True(t, z.Over)
	assert.Equal(t, (sf.Characters+3)/4, z.Tokens)
	assert.False(t, sizeOf(sf, z.Tokens).Over, "at the limit is not over it")

	summary := "## Task - Summary - 2026-01-14T12:00:00Z\n**Did:** all of it\n  and more\n**Covers:** entries 1–3\n\n"
	data += summary + iter(3)
	entries := progresslog.Parse([]byte(data)).Entries
	sf = readSize([]byte(data), entries)
	require.NotNil(t, sf.Summary)
	assert.Equal(t, entries[3].Line, sf.FromLine)
	assert.Equal(t, len([]rune(summary+iter(3))), sf.Characters, "measured from the summary's heading")
	assert.Equal(t, &LogSummary{Line: entries[3].Line, Time: "2026-01-14T12:00:00Z", Did: "all of it\nand more", Covers: "entries 1–3",
		Since: 1, SinceTitles: []string{"T1 - Iteration 3 - 2026-01-14T11:03:00Z"}}, sf.Summary)
	w := sizeWarning("p/progress.md", sizeOf(sf, 1), true)
	assert.Contains(t, w, fmt.Sprintf("from its last Summary entry (line %d) on", sf.FromLine))
	assert.Contains(t, w, "over the limit of 1 (progress_token_limit in .itr.yaml)")
	assert.Contains(t, w, "`itr summarize --did \"...\"`")
}
