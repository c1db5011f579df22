package view

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// Decision is one settled choice of decisions.md as status and prime show
// it: the newest decision with its title. Its JSON field names are part of
// itr's interface.
type Decision struct {
	Title   string `json:"title"`
	Choice  string `json:"choice"`
	Why     string `json:"why,omitempty"`
	Unit    string `json:"unit,omitempty"`
	Decided string `json:"decided,omitempty"`
	Line    int    `json:"line"`
	// Supersedes counts the earlier decisions with the same title that
	// this one replaced.
	Supersedes int `json:"supersedes,omitempty"`
}

// decisionsOf reads the decisions in force from decisions.md: the newest
// per title, in the order they were last decided.
func decisionsOf(raw []byte) []Decision {
	d := progresslog.ParseDecisions(raw)
	count := map[string]int{}
	for _, e := range d.Entries {
		count[progresslog.TitleKey(e.Title)]++
	}
	out := []Decision{}
	for _, e := range d.Latest() {
		out = append(out, Decision{Title: e.Title, Choice: strings.TrimSpace(e.Choice), Why: strings.TrimSpace(e.Why),
			Unit: strings.TrimSpace(e.Unit), Decided: strings.TrimSpace(e.Decided), Line: e.Line,
			Supersedes: count[progresslog.TitleKey(e.Title)] - 1})
	}
	return out
}

// primeDecisionsMax is how many decisions prime lists; the newest are kept.
const primeDecisionsMax = 20

// newestDecisions keeps the newest n decisions (the last ones) and counts
// the others.
func newestDecisions(ds []Decision, n int) ([]Decision, int) {
	if len(ds) <= n {
		return ds, 0
	}
	return ds[len(ds)-n:], len(ds) - n
}

// LogSize is the size of progress.md that a reader has to read: from its
// last Summary entry on (the whole log without one), in characters and in
// tokens of progresslog.CharsPerToken characters, against the limit of
// .itr.yaml's progress_token_limit.
type LogSize struct {
	Characters int  `json:"characters"`
	Tokens     int  `json:"tokens"`
	Limit      int  `json:"limit"`
	Over       bool `json:"over"`
	// FromLine is where the measure starts: the last Summary entry's
	// heading, 1 without one.
	FromLine int `json:"from_line"`
}

// LogSummary is the newest Summary entry of progress.md (itr summarize):
// a reader may start there, since it stands for every entry before it.
type LogSummary struct {
	Line   int    `json:"line"`
	Time   string `json:"time"`
	Did    string `json:"did"`
	Covers string `json:"covers,omitempty"`
	// Since counts the entries after it; SinceTitles are their headings,
	// the newest last (at most summarySinceMax).
	Since       int      `json:"since"`
	SinceTitles []string `json:"since_titles,omitempty"`
}

// summarySinceMax is how many headings after the summary are kept.
const summarySinceMax = 15

// sizeFacts measures the committed log from its last Summary entry on and
// reads that entry; it is part of the remembered log facts.
type sizeFacts struct {
	Characters int         `json:"characters"`
	FromLine   int         `json:"from_line"`
	Summary    *LogSummary `json:"summary,omitempty"`
}

// readSize measures data (progress.md) and finds its last summary.
func readSize(data []byte, entries []progresslog.Entry) sizeFacts {
	sf := sizeFacts{FromLine: 1}
	i := progresslog.LastSummary(entries)
	if i >= 0 {
		e := entries[i]
		sf.FromLine = e.Line
		did, _ := e.Field("Did")
		covers, _ := e.Field("Covers")
		s := &LogSummary{Line: e.Line, Time: e.Stamp, Did: strings.TrimSpace(did), Covers: strings.TrimSpace(covers), Since: len(entries) - i - 1}
		for _, x := range entries[max(i+1, len(entries)-summarySinceMax):] {
			s.SinceTitles = append(s.SinceTitles, x.Title())
		}
		sf.Summary = s
	}
	tail := progresslog.FromLine(data, sf.FromLine)
	sf.Characters = utf8.RuneCount(tail)
	return sf
}

// sizeOf is the log's size against limit.
func sizeOf(sf sizeFacts, limit int) LogSize {
	tokens := (sf.Characters + progresslog.CharsPerToken - 1) / progresslog.CharsPerToken
	return LogSize{Characters: sf.Characters, Tokens: tokens, Limit: limit, Over: tokens > limit, FromLine: sf.FromLine}
}

// sizeWarning words a log over its limit, with the fix.
func sizeWarning(rel string, z LogSize, summarized bool) string {
	from := ""
	if summarized {
		from = fmt.Sprintf(" from its last Summary entry (line %d) on", z.FromLine)
	}
	return fmt.Sprintf("%s is about %d tokens%s (%d characters at %d a token), over the limit of %d (progress_token_limit in %s): write what the work so far came to with `itr summarize --did \"...\"`; readers then start from that entry",
		rel, z.Tokens, from, z.Characters, progresslog.CharsPerToken, z.Limit, store.ConfigFile)
}
