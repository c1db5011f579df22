package plan

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/state"
)

// Counts are the numbers of units by status that Sync writes into the
// "**Status:**" and "**Total:**" header lines.
type Counts struct {
	Done       int // done
	InProgress int // in_progress, confirming or verifying
	Pending    int // pending, or not in the state yet
	Blocked    int // blocked or timeout: waiting for a person
	// Failed and Skipped count the units in those statuses. Their boxes
	// stay unchecked ("- [ ]"): the box says done and nothing else, so a
	// reader of the file is never told a skipped or failed unit's work was
	// done; the Status line names them (", 1 failed, 1 skipped") and Total
	// counts them, so the numbers add up.
	Failed, Skipped int
}

// Total returns the number of units counted.
func (c Counts) Total() int {
	return c.Done + c.InProgress + c.Pending + c.Blocked + c.Failed + c.Skipped
}

// Status returns the value of the "**Status:**" line in the seed's form,
// "3 done, 1 in progress, 2 pending", followed by ", 1 blocked" when any
// unit is blocked, then ", 1 failed" and ", 1 skipped" likewise.
func (c Counts) Status() string {
	s := fmt.Sprintf("%d done, %d in progress, %d pending", c.Done, c.InProgress, c.Pending)
	if c.Blocked != 0 {
		s += fmt.Sprintf(", %d blocked", c.Blocked)
	}
	if c.Failed != 0 {
		s += fmt.Sprintf(", %d failed", c.Failed)
	}
	if c.Skipped != 0 {
		s += fmt.Sprintf(", %d skipped", c.Skipped)
	}
	return s
}

// Tally counts the units ids, each once, by the status status gives it:
// done is Done; in_progress, confirming and verifying are InProgress;
// blocked and timeout are Blocked; pending and anything else (a unit not in
// the state yet) are Pending; failed is Failed and skipped Skipped.
func Tally(ids []string, status func(id string) state.Status) Counts {
	var c Counts
	for _, id := range ids {
		switch status(id) {
		case state.Done:
			c.Done++
		case state.InProgress, state.Confirming, state.Verifying:
			c.InProgress++
		case state.Blocked, state.Timeout:
			c.Blocked++
		case state.Failed:
			c.Failed++
		case state.Skipped:
			c.Skipped++
		default:
			c.Pending++
		}
	}
	return c
}

// Sync returns the plan file data with its checkboxes and counts in step,
// and whether that changed anything. Every unit line Parse reads as a unit
// with a valid ID gets its box set: "[x]" when done(ID) reports true (an
// "[X]" is left as it is), "[ ]" otherwise; a nil done leaves the boxes
// alone. Every "**Status:**" header line gets counts.Status() as its value
// and every "**Total:**" header line counts.Total() followed by "task(s)"
// or "phase(s)" (the word already on the line, else the plan's mode); the
// key, its bold and the space around the value stay as written.
//
// No other byte changes: line endings (LF, CRLF, CR, mixed), a byte order
// mark, text after the box, units inside code fences or outside the units
// sections, and everything else are kept. A file without a Status or Total
// line gets none. Sync reads the file the way Parse does but does not need
// it to parse: with errors (a duplicate ID, template text) it still syncs
// what it can read. When nothing changes it returns data itself and false.
// Sync is idempotent: syncing its result again with the same arguments
// changes nothing.
//
// A unit line in seed 003's inline form, "- [ ] S1: Search: Find sources
// (Status: PENDING, DependsOn: P1)", keeps its Status in step with its
// box: COMPLETED when the box is checked; a COMPLETED on a box Sync
// unchecks becomes PENDING; any other value stays. SyncStatus writes every
// unit's status there.
func Sync(data []byte, done func(id string) bool, counts Counts) ([]byte, bool) {
	var word func(string) string
	if done != nil {
		word = func(id string) string {
			if done(id) {
				return StatusCompleted
			}
			return ""
		}
	}
	return syncFile(data, done, word, counts)
}

// SyncStatus is Sync with each unit's status: status(ID) is state.Done
// checks the box, and the Status of a unit line in seed 003's inline form
// becomes SeedStatus(status(ID)) (a skipped unit's stays as written,
// unless it says COMPLETED, which becomes PENDING).
func SyncStatus(data []byte, status func(id string) state.Status, counts Counts) ([]byte, bool) {
	return syncFile(data, func(id string) bool { return status(id) == state.Done }, func(id string) string { return SeedStatus(status(id)) }, counts)
}

// syncFile is Sync: done sets the boxes (nil: left alone), word the
// inline Status values ("": the value written stays, unless it says
// COMPLETED on an unchecked box; nil: left alone).
func syncFile(data []byte, done func(id string) bool, word func(id string) string, counts Counts) ([]byte, bool) {
	ps := read("", data)
	return syncParsed(data, ps.p, ps.modeOfFile, done, word, counts)
}

// syncParsed is syncFile with the plan read from data, whose units,
// header lines and mode it reads.
func syncParsed(data []byte, p *Plan, modeOfFile bool, done func(id string) bool, word func(id string) string, counts Counts) ([]byte, bool) {
	spans := splitLines(data)
	edits := map[int]string{} // 1-based line → new content
	content := func(n int) string {
		sp := spans[n-1]
		return string(data[sp.start:sp.end])
	}
	if done != nil {
		for _, u := range p.Units {
			if !ValidID(u.ID) || u.Line < 1 || u.Line > len(spans) {
				continue
			}
			c := content(u.Line)
			if len(c) < 5 || c[2] != '[' || c[4] != ']' {
				continue // not the "- [ ] " Parse read; cannot happen
			}
			want := byte(' ')
			if done(u.ID) {
				want = 'x'
				if c[3] == 'X' {
					want = 'X'
				}
			}
			if c[3] != want {
				c = c[:3] + string(want) + c[4:]
				edits[u.Line] = c
			}
			if word == nil {
				continue
			}
			if c, ok := syncStatus(c, word(u.ID), want != ' '); ok {
				edits[u.Line] = c
			}
		}
	}
	for i, f := range p.Meta {
		var value string
		switch {
		case strings.EqualFold(f.Key, "Status"):
			value = counts.Status()
		case strings.EqualFold(f.Key, "Total"):
			mode := p.Mode
			if modeOfFile {
				mode = Development // as the plan reads without its file's name
			}
			if v := strings.ToLower(f.Value); strings.Contains(v, "phase") {
				mode = Knowledge
			} else if strings.Contains(v, "task") {
				mode = Development
			}
			value = fmt.Sprintf("%d %s", counts.Total(), unitNoun(mode, counts.Total()))
		default:
			continue
		}
		n := p.metaLines[i]
		if n < 1 || n > len(spans) {
			continue
		}
		if c, ok := setMeta(content(n), value); ok {
			edits[n] = c
		}
	}
	if len(edits) == 0 {
		return data, false
	}
	out := make([]byte, 0, len(data)+64)
	pos := 0
	for i, sp := range spans {
		if c, ok := edits[i+1]; ok {
			out = append(out, data[pos:sp.start]...)
			out = append(out, c...)
			pos = sp.end
		}
	}
	return append(out, data[pos:]...), true
}

// syncStatus returns unit line c with w as the value of its inline Status,
// and whether that changed c. An empty w keeps the value written unless it
// says COMPLETED while the box is unchecked (checked false): then it is
// PENDING.
func syncStatus(c, w string, checked bool) (string, bool) {
	start, end, ok := statusSpan(c)
	if !ok {
		return c, false
	}
	if w == "" {
		if st, _ := seedStatus(c[start:end]); st != StatusCompleted || checked {
			return c, false
		}
		w = StatusPending
	}
	if c[start:end] == w {
		return c, false
	}
	return c[:start] + w + c[end:], true
}

// span is one line of a file: data[start:end] without its line ending (and
// without the byte order mark on the first line).
type span struct{ start, end int }

// splitLines cuts data into lines exactly as Parse numbers them: "\r\n",
// "\n" and a lone "\r" each end a line, and the text after the last ending
// is a line, empty or not.
func splitLines(data []byte) []span {
	start := 0
	if strings.HasPrefix(string(data[:min(len(data), len(bom))]), bom) { // Parse drops it
		start = len(bom)
	}
	var out []span
	for i := start; i < len(data); i++ {
		switch data[i] {
		case '\n':
			out = append(out, span{start, i})
			start = i + 1
		case '\r':
			out = append(out, span{start, i})
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	return append(out, span{start, len(data)})
}

// setMeta returns the header line c, a "**Key:** value" line as Parse reads
// it, with value in place of its value, and whether that differs from c.
// The text before the value (indent, key, bold, spaces) and after it
// (trailing spaces) stays; an empty value gets a space before it.
func setMeta(c, value string) (string, bool) {
	t := strings.TrimSpace(c)
	lead := strings.Index(c, t)
	m := metaRe.FindStringSubmatchIndex(t)
	if m == nil {
		m = metaRe2.FindStringSubmatchIndex(t)
	}
	if m == nil || lead < 0 {
		return c, false // not a header line; cannot happen
	}
	end := lead + len(t) // t is trimmed, so the value ends the line's text
	start := end - len(strings.TrimLeftFunc(c[lead+m[4]:end], unicode.IsSpace))
	if c[start:end] == value {
		return c, false
	}
	sep := ""
	if start == end {
		sep = " "
	}
	return c[:start] + sep + value + c[end:], true
}

// SyncViewWith is SyncView of data with p, the plan Parse returned for
// it, when the caller has it: a plan of many units is not read twice. A
// p that is not data's (or nil) is not used.
func SyncViewWith(data []byte, p *Plan, ids []string, s *state.State) ([]byte, bool) {
	ok, modeOfFile := parsedFrom(p, data)
	if !ok {
		return SyncView(data, ids, s)
	}
	status := viewStatus(s)
	// syncParsed asks done, then word, of each unit in turn: the unit
	// asked last is looked up once for both.
	var lastID string
	var last state.Status
	unitStatus := func(id string) state.Status {
		if id != lastID || lastID == "" {
			lastID, last = id, status(id)
		}
		return last
	}
	return syncParsed(data, p, modeOfFile, func(id string) bool { return unitStatus(id) == state.Done }, func(id string) string { return SeedStatus(unitStatus(id)) }, Tally(ids, status))
}

// viewStatus is each unit's status in s, pending when s has not got it.
func viewStatus(s *state.State) func(id string) state.Status {
	return func(id string) state.Status {
		if u := s.Units[id]; u != nil {
			return u.Status
		}
		return state.Pending
	}
}

// SyncView is SyncStatus with the view of the state s: the boxes of the
// units s has done checked, the inline Status of each unit its status in
// s (pending when s has not got it), and the counts of the units ids.
func SyncView(data []byte, ids []string, s *state.State) ([]byte, bool) {
	status := viewStatus(s)
	return SyncStatus(data, status, Tally(ids, status))
}
