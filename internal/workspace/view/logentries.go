package view

import (
	"sort"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// logEntries are the entries of a task's progress.md as one commit holds
// it, found again by the length of the log an itr commit left (its
// Itr-Log trailer): the log is append-only, so the entry a commit made is
// the last one within that length.
type logEntries struct {
	entries []progresslog.Entry
	// lineEnds are the offsets just after each line's end, in order.
	lineEnds []int
}

// logEntriesAt reads progress.md of slug at rev; none when it does not
// read.
func logEntriesAt(st *store.Store, rev, slug string) *logEntries {
	data, err := st.Repo.ReadFile(rev, st.Rel(slug, store.ProgressFile))
	if err != nil {
		return &logEntries{}
	}
	l := &logEntries{entries: progresslog.Parse(data).Entries}
	for i, b := range data {
		if b == '\n' {
			l.lineEnds = append(l.lineEnds, i+1)
		}
	}
	return l
}

// of is the entry commit c made, nil when it cannot tell: the commit's
// log length (Itr-Log) gives the lines the log had then, and the last
// entry within them is c's when its kind is c's event (a commit that
// appends no entry, such as a guardrail's, has none).
func (l *logEntries) of(c gitstate.Commit, event string) *progresslog.Entry {
	v, ok := c.Trailer(store.TrailerLog)
	if !ok || len(l.entries) == 0 {
		return nil
	}
	n, err := strconv.Atoi(strings.Fields(v + " ")[0])
	if err != nil || n <= 0 {
		return nil
	}
	lines := sort.SearchInts(l.lineEnds, n+1) // lines that end within n bytes
	i := sort.Search(len(l.entries), func(i int) bool { return l.entries[i].Line > lines }) - 1
	if i < 0 || l.entries[i].Kind.String() != event {
		return nil
	}
	return &l.entries[i]
}
