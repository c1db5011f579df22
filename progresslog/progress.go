package progresslog

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/itr-dev/itr/state"
)

// Kind is the event an entry of progress.md records.
type Kind int

// The kinds of entries. The heading of each is "## {Subject} - {Event} -
// {Timestamp}", the subject a unit ID for unit events and "Task" otherwise.
const (
	// KindOther is any other "## " heading: a person's note. It never counts
	// as an event.
	KindOther Kind = iota
	// KindIteration is "## T1 - Iteration N - ts" (N ≥ 1).
	KindIteration
	// KindBlocked is "## T1 - Blocked - ts", with a Reason field.
	KindBlocked
	// KindUnblocked is "## T1 - Unblocked - ts".
	KindUnblocked
	// KindCreated is "## Task - Created - ts", with Name, Mode and Domain.
	KindCreated
	// KindPhase is "## Task - Phase execute - ts".
	KindPhase
	// KindPlanned is "## Task - Planned - ts", with Added, Changed, Removed.
	KindPlanned
	// KindReconciled is "## Task - Reconciled - ts", with a Found list.
	KindReconciled
	// KindArchived is "## Task - Archived - ts".
	KindArchived
	// KindRestored is "## Task - Restored - ts".
	KindRestored
	// KindAdopted is "## Task - Adopted - ts": the facts of a task folder
	// written without itr that its log holds no evidence for, taken from
	// its committed state.json, with Units and Commits.
	KindAdopted
	// KindReopened is "## T1 - Reopened - ts", with a Reason field: a done
	// unit found wrong goes back to in_progress.
	KindReopened
	// KindPaused is "## Task - Paused - ts", with a Reason field: the task
	// is on hold until a Resumed entry.
	KindPaused
	// KindResumed is "## Task - Resumed - ts".
	KindResumed
	// KindNote is "## Task - Note - ts", with a Note or a Critical field:
	// where things stand, in someone's words (a check-in), or context that
	// must survive every compaction.
	KindNote
	// KindSummary is "## Task - Summary - ts", with Did (what the work so
	// far came to, in someone's words) and Covers (the entries before it
	// that it stands for): a reader may start at the last Summary entry.
	// It changes no state.
	KindSummary
	// KindFailed is "## T1 - Failed - ts", with Reason and Kind fields: the
	// unit cannot go on without someone; final until a Reopened entry.
	KindFailed
	// KindSkipped is "## T1 - Skipped - ts", with a Reason field: the unit
	// is left out on purpose and its dependants may proceed.
	KindSkipped
	// KindRestarted is "## T1 - Restarted - ts", with a Reason field: the
	// unit's work starts over from nothing (back to pending); its
	// iterations stay spent and its entries stay in the log.
	KindRestarted
	// KindConcluded is "## Task - Concluded - ts", with an Outcome field
	// (complete, done with limitations, abandoned, failed) and, as the
	// outcome has them, Reason, Kind, Missing and Limitations: how the task
	// ended. A Resumed entry takes it back to work.
	KindConcluded
	// KindApproved is "## Task - Approved - ts", with By and Note fields:
	// a person approved the plan (a plan whose header says "**Approval:**
	// required" takes no unit work before it).
	KindApproved
	// KindRechecked is "## T1 - Rechecked - ts", with a Did field: a done
	// unit whose inputs changed after it was done was checked against them
	// again and still holds; it stays done.
	KindRechecked
	// KindPinned is "## T1 - Pinned - ts", with Reason and Outputs fields:
	// a change to a done unit's outputs accepted on purpose; the outputs
	// are pinned again as they are now.
	KindPinned
)

// events are the event words of the headings, by kind.
var events = [...]string{
	KindOther:      "",
	KindIteration:  "Iteration",
	KindBlocked:    "Blocked",
	KindUnblocked:  "Unblocked",
	KindCreated:    "Created",
	KindPhase:      "Phase",
	KindPlanned:    "Planned",
	KindReconciled: "Reconciled",
	KindArchived:   "Archived",
	KindRestored:   "Restored",
	KindAdopted:    "Adopted",
	KindReopened:   "Reopened",
	KindPaused:     "Paused",
	KindResumed:    "Resumed",
	KindNote:       "Note",
	KindSummary:    "Summary",
	KindFailed:     "Failed",
	KindSkipped:    "Skipped",
	KindRestarted:  "Restarted",
	KindConcluded:  "Concluded",
	KindApproved:   "Approved",
	KindRechecked:  "Rechecked",
	KindPinned:     "Pinned",
}

// String returns the kind's name in lower case ("iteration"), "other" for
// KindOther.
func (k Kind) String() string {
	switch {
	case k == KindOther:
		return "other"
	case k > KindOther && int(k) < len(events):
		return strings.ToLower(events[k])
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// unitKind reports whether events of kind k have a unit as their subject.
func (k Kind) unitKind() bool {
	return k == KindIteration || k == KindBlocked || k == KindUnblocked || k == KindReopened ||
		k == KindFailed || k == KindSkipped || k == KindRestarted || k == KindRechecked || k == KindPinned
}

// known reports whether k is one of the event kinds.
func (k Kind) known() bool {
	return k > KindOther && int(k) < len(events)
}

// ValidUnitID reports whether s is a unit ID: an ASCII letter, then ASCII
// letters, digits, '-' and '_', such as T1, IV-A or PHASE_3
// (state.ValidID). Such an ID never holds " - ", the separator of a
// heading's parts, so "## IV-A - Iteration 1 - ts" reads as unit IV-A.
func ValidUnitID(s string) bool { return state.ValidID(s) }

// Entry is one entry of progress.md.
type Entry struct {
	Kind      Kind
	Unit      string // unit ID for unit events; "" for Task events and KindOther
	Iteration int    // KindIteration: the iteration number, from 1
	Phase     string // KindPhase: the phase name, such as "execute"
	Stamp     string // the heading's timestamp as written; see Time
	Heading   string // the heading without "## ", as parsed or as Render writes it
	Fields    []Field
	Line      int  // 1-based line of the heading in the parsed file; 0 for new entries
	Side      Side // which side of a merge conflict the entry comes from
}

// Field returns the value of the entry's first field with that name,
// compared without regard to case.
func (e Entry) Field(name string) (string, bool) {
	for _, f := range e.Fields {
		if f.Name != "" && strings.EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

// timeLayouts are the timestamp forms Time accepts; those without a zone
// are read as UTC.
var timeLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
}

// Time reads the entry's timestamp: RFC 3339 (2026-01-14T10:30:00Z), also
// without seconds (2026-01-14T10:30Z) or as "2026-01-14 10:30" (UTC). ok is
// false when the stamp is none of these.
func (e Entry) Time() (t time.Time, ok bool) {
	s := strings.TrimSpace(e.Stamp)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Title returns the heading as Render writes it (without "## "): built from
// Kind, Unit, Iteration, Phase and Stamp for events, Heading for KindOther.
func (e Entry) Title() string {
	var subject, event string
	switch {
	case e.Kind == KindIteration:
		subject, event = e.Unit, "Iteration "+strconv.Itoa(e.Iteration)
	case e.Kind.unitKind():
		subject, event = e.Unit, events[e.Kind]
	case e.Kind == KindPhase:
		subject, event = "Task", "Phase "+e.Phase
	case e.Kind.known():
		subject, event = "Task", events[e.Kind]
	default:
		return e.Heading
	}
	return subject + " - " + event + " - " + e.Stamp
}

// Log is a parsed progress.md.
type Log struct {
	// Preamble is the text before the first "## " heading (the title and
	// anything under it), verbatim but with each line ended by "\n".
	Preamble string
	Entries  []Entry
	// Newline is the file's line end, "\r\n" when its first line ends so,
	// else "\n". Render writes it.
	Newline string
	// Conflicted is true when the file holds git conflict blocks.
	Conflicted bool
	// PreambleConflict is true when the two sides of a conflict disagree on
	// the preamble; then Preamble is ours and TheirsPreamble theirs.
	PreambleConflict bool
	TheirsPreamble   string
	// Problems are the probable mistakes found, in file order (in a
	// conflicted file, in the order of the entries they belong to).
	Problems []Problem
}

// Parse reads progress.md. It never fails: headings it does not recognise
// are KindOther entries, and probable mistakes are listed in Problems.
//
// A file with git conflict blocks (<<<<<<<, an optional ||||||| diff3 base,
// =======, >>>>>>>) is read as both sides, whatever its blocks cut through,
// even the middle of an entry: the full "ours" text (every line outside the
// blocks plus the ours part of each) and the full "theirs" text are parsed
// separately, the base parts dropped, and their entries merged. Entries
// equal on both sides appear once with Side Both; between two such runs
// come first the entries only ours has (Side Ours), then those only theirs
// has (Side Theirs). For a single block this is the common prefix, then
// ours-only, then theirs-only, then the common suffix; with several blocks
// the two lists of entries are aligned by a diff. Conflicted is then true.
// Markers that do not form complete blocks leave the file read as plain
// text, with a Problem.
func Parse(data []byte) *Log {
	return parseText(string(data))
}

// ParseOwned is Parse without a copy of data: the entries' text are
// substrings of data itself, so a long log is held once. The caller gives
// data up: it must not change while the Log or anything taken from it is
// in use (a blob read for this parse, never a buffer that is reused).
func ParseOwned(data []byte) *Log {
	return parseText(unsafe.String(unsafe.SliceData(data), len(data))) //nolint:gosec // G103: the caller gives data up (above); no byte of it changes after
}

// parseText parses progress.md's text.
func parseText(text string) *Log {
	lines, newline := splitText(text)
	s := splitConflicts(lines)
	l := &Log{Newline: newline, Conflicted: s.conflicted}
	if !s.conflicted {
		// The lines are let go once cut into sections (a long log's
		// lines weigh a fifth of its text), and the entries are the
		// side's own.
		plain := s.ours
		s.ours, s.theirs = nil, nil
		ours := parseSide(plain)
		l.Preamble, l.Entries = ours.preamble, ours.entries
		for i, e := range ours.entries {
			if s.problem != nil && s.problem.Line < e.Line {
				l.Problems = append(l.Problems, *s.problem)
				s.problem = nil
			}
			l.Problems = append(l.Problems, ours.problems[i]...)
		}
		if s.problem != nil {
			l.Problems = append(l.Problems, *s.problem)
		}
		return l
	}
	ours := parseSide(s.ours)
	theirs := parseSide(s.theirs)
	l.Preamble = ours.preamble
	if theirs.preamble != ours.preamble {
		l.PreambleConflict, l.TheirsPreamble = true, theirs.preamble
	}
	for _, p := range alignSides(ours.keys(), theirs.keys()) {
		side := ours
		if p.side == Theirs {
			side = theirs
		}
		e := side.entries[p.i]
		e.Side = p.side
		l.Entries = append(l.Entries, e)
		l.Problems = append(l.Problems, side.problems[p.i]...)
	}
	return l
}

// parsedSide is one side of a file, parsed.
type parsedSide struct {
	preamble string
	entries  []Entry
	problems [][]Problem // per entry
}

func (p parsedSide) keys() []string {
	keys := make([]string, len(p.entries))
	for i, e := range p.entries {
		keys[i] = strings.Join(renderEntryLines(e), "\n")
	}
	return keys
}

func parseSide(lines []rawLine) parsedSide {
	pre, secs := progressSyntax.sectionize(lines)
	p := parsedSide{preamble: pre}
	if len(secs) > 0 { // none stays nil, as before
		p.entries, p.problems = make([]Entry, 0, len(secs)), make([][]Problem, 0, len(secs))
	}
	for _, sec := range secs {
		e, msg := parseHeading(sec.heading)
		e.Line, e.Fields = sec.line, sec.fields
		var probs []Problem
		if msg != "" {
			probs = []Problem{{Line: sec.line, Msg: msg}}
		}
		p.entries = append(p.entries, e)
		p.problems = append(p.problems, probs)
	}
	return p
}

// eventKind finds the kind whose event word is w, ignoring case.
func eventKind(w string) (Kind, bool) {
	for k := KindIteration; int(k) < len(events); k++ {
		if strings.EqualFold(events[k], w) {
			return k, true
		}
	}
	return KindOther, false
}

// parseHeading reads a heading (without "## "). A heading that names a
// known event but is not written exactly as Title would write it is
// KindOther, with a message saying what is wrong and how to write it.
func parseHeading(h string) (Entry, string) {
	e := Entry{Kind: KindOther, Heading: h}
	hp, ok := splitHeading(h)
	if !ok {
		return e, "" // a heading of someone's own
	}
	reason := hp.subjectProblem()
	iteration, phase := 0, ""
	if reason == "" {
		iteration, phase, reason = hp.readEvent()
	}
	if reason != "" {
		return e, hp.invalid(reason)
	}
	e.Kind, e.Stamp = hp.kind, hp.stamp
	e.Iteration, e.Phase = iteration, phase
	if hp.kind.unitKind() {
		e.Unit = hp.subject
	}
	return e, ""
}

// headingParts is a heading that names a known event, split into its
// parts: "SUBJECT - EVENT - STAMP".
type headingParts struct {
	heading               string
	subject, event, stamp string
	words                 []string // the words of event
	kind                  Kind     // the kind the first word of event names
	looksUnit, looksTask  bool     // subject is a unit ID; subject, ignoring case, is "Task"
}

// splitHeading splits a heading (without "## ") into its parts. It
// reports false for a heading that names no known event or whose
// subject is neither a unit ID nor "Task" (in any case).
func splitHeading(h string) (headingParts, bool) {
	parts := strings.SplitN(h, " - ", 3)
	if len(parts) < 2 {
		return headingParts{}, false
	}
	hp := headingParts{heading: h, subject: parts[0], event: parts[1], words: strings.Fields(parts[1])}
	if len(hp.words) == 0 {
		return headingParts{}, false
	}
	kind, ok := eventKind(hp.words[0])
	hp.kind = kind
	hp.looksUnit, hp.looksTask = ValidUnitID(hp.subject), strings.EqualFold(hp.subject, "Task")
	if !ok || (!hp.looksUnit && !hp.looksTask) {
		return headingParts{}, false
	}
	if len(parts) == 3 {
		hp.stamp = parts[2]
	}
	return hp, true
}

// word is the event word of the heading's kind, as Title writes it.
func (hp headingParts) word() string { return events[hp.kind] }

// subjectProblem says what is wrong with the subject or the timestamp of
// the heading, "" when nothing is.
func (hp headingParts) subjectProblem() string {
	unit, word := hp.kind.unitKind(), hp.word()
	switch {
	case unit && !hp.looksUnit:
		return fmt.Sprintf("%s is about a unit, so its subject must be a unit ID such as T1, not %q", word, hp.subject)
	case !unit && !hp.looksTask:
		return fmt.Sprintf("%s is about the whole task, so its subject must be \"Task\", not %q", word, hp.subject)
	case !unit && hp.subject != "Task":
		subject, _, _ := hp.example()
		return fmt.Sprintf("the subject must be written %q", subject)
	case strings.TrimSpace(hp.stamp) == "":
		return "the timestamp is missing"
	}
	return ""
}

// readEvent reads the event of the heading: the iteration of an
// iteration entry, the phase of a phase entry. reason says what is wrong
// with the event, "" when nothing is.
func (hp headingParts) readEvent() (iteration int, phase, reason string) {
	event := hp.event
	switch hp.kind {
	case KindIteration:
		n, err := strconv.Atoi(strings.TrimPrefix(event, "Iteration "))
		if !strings.HasPrefix(event, "Iteration ") || err != nil || n < 1 || event != "Iteration "+strconv.Itoa(n) {
			return 0, "", fmt.Sprintf("the event must be written \"Iteration N\" with N a whole number from 1, not %q", shorten(event, 40))
		}
		return n, "", ""
	case KindPhase:
		if len(hp.words) != 2 || event != "Phase "+hp.words[1] {
			return 0, "", fmt.Sprintf("the event must be written \"Phase NAME\" with a one-word phase name, not %q", shorten(event, 40))
		}
		return 0, hp.words[1], ""
	default:
		if word := hp.word(); event != word {
			return 0, "", fmt.Sprintf("the event must be written %q, not %q", word, shorten(event, 40))
		}
		return 0, "", ""
	}
}

// example is what a correct heading of the same event would look like,
// for the message: its subject, event and timestamp.
func (hp headingParts) example() (subject, event, stamp string) {
	subject, event, stamp = "Task", hp.word(), hp.stamp
	switch {
	case hp.kind.unitKind() && hp.looksUnit:
		subject = hp.subject
	case hp.kind.unitKind():
		subject = "T1"
	}
	switch hp.kind {
	case KindIteration:
		event = "Iteration N"
	case KindPhase:
		event = "Phase execute"
	}
	if strings.TrimSpace(stamp) == "" {
		stamp = "2026-01-14T10:30:00Z"
	}
	return subject, event, stamp
}

// invalid is the message for a heading that is not a valid entry of its
// event for reason: what is wrong and how to write it.
func (hp headingParts) invalid(reason string) string {
	subject, event, stamp := hp.example()
	return fmt.Sprintf("heading %q is not a valid %s entry: %s; write it as %q",
		"## "+shorten(hp.heading, 80), strings.ToLower(hp.word()), reason, "## "+subject+" - "+event+" - "+shorten(stamp, 40))
}

// renderEntryLines writes an entry as lines, without validating it.
func renderEntryLines(e Entry) []string {
	return append([]string{"## " + sanitizeHeading(e.Title())}, progressSyntax.renderFields(e.Fields)...)
}

// Render writes the log. For a log Parse returned, Parse(l.Render())
// equals l apart from line numbers. Side and Conflicted are written as git
// conflict blocks. Render does not validate: an entry RenderEntry would
// refuse is written as well as it can be.
func (l *Log) Render() []byte {
	d := document{
		preamble:       l.Preamble,
		theirsPreamble: l.TheirsPreamble,
		splitPreamble:  l.PreambleConflict,
		conflicted:     l.Conflicted,
		newline:        l.Newline,
	}
	for _, e := range l.Entries {
		d.blocks = append(d.blocks, block{side: e.Side, lines: renderEntryLines(e)})
	}
	return d.render()
}

// canonical validates an entry for writing and returns it as it will read
// back: Heading is Title(), values normalised, Line 0, Side Both.
func canonical(e Entry) (Entry, error) {
	switch {
	case !e.Kind.known() && e.Kind != KindOther:
		return Entry{}, fmt.Errorf("unknown entry kind %d: use one of the Kind constants", int(e.Kind))
	case e.Kind == KindOther:
		if err := checkOther(e); err != nil {
			return Entry{}, err
		}
	default:
		if err := checkEventSubject(e); err != nil {
			return Entry{}, err
		}
		if err := checkEventDetail(e); err != nil {
			return Entry{}, err
		}
		e.Heading = e.Title()
		if p, msg := parseHeading(e.Heading); msg != "" || p.Kind != e.Kind {
			return Entry{}, fmt.Errorf("heading %q would not read back as a %s entry: check Stamp", e.Heading, e.Kind)
		}
	}
	fields, err := canonicalFields(e.Fields)
	if err != nil {
		return Entry{}, fmt.Errorf("entry %q: %w", e.Title(), err)
	}
	e.Fields, e.Line, e.Side = fields, 0, Both
	return e, nil
}

// checkOther says why a KindOther entry cannot be written: it is written
// from its Heading alone, which must be one line that reads back as
// KindOther.
func checkOther(e Entry) error {
	if e.Unit != "" || e.Iteration != 0 || e.Phase != "" || e.Stamp != "" {
		return errors.New("a KindOther entry is written from its Heading alone: leave Unit, Iteration, Phase and Stamp empty")
	}
	if strings.TrimSpace(e.Heading) == "" || strings.ContainsAny(e.Heading, "\r\n") {
		return fmt.Errorf("heading %q must be one non-empty line", e.Heading)
	}
	if p, msg := parseHeading(e.Heading); p.Kind != KindOther {
		return fmt.Errorf("heading %q would read as an event of kind %s: set Kind, Unit and Stamp instead of writing the heading", e.Heading, p.Kind)
	} else if msg != "" {
		return fmt.Errorf("KindOther entry: %s", msg)
	}
	return nil
}

// checkEventSubject says why the timestamp or the unit of an event entry
// cannot be written.
func checkEventSubject(e Entry) error {
	if strings.TrimSpace(e.Stamp) == "" {
		return fmt.Errorf("%s entry has no timestamp: set Stamp, e.g. 2026-01-14T10:30:00Z", e.Kind)
	}
	if strings.ContainsAny(e.Stamp, "\r\n") {
		return fmt.Errorf("timestamp %q must be one line", e.Stamp)
	}
	if e.Kind.unitKind() && !ValidUnitID(e.Unit) {
		return fmt.Errorf("%s entry: %w", e.Kind, state.CheckID(e.Unit))
	}
	if !e.Kind.unitKind() && e.Unit != "" {
		return fmt.Errorf("%s entry is about the whole task: leave Unit empty, not %q", e.Kind, e.Unit)
	}
	return nil
}

// checkEventDetail says why the iteration or the phase of an event entry
// cannot be written: only iteration entries have an iteration, only
// phase entries a phase.
func checkEventDetail(e Entry) error {
	if e.Kind == KindIteration && e.Iteration < 1 {
		return fmt.Errorf("iteration entry of %s: iteration %d must be 1 or more", e.Unit, e.Iteration)
	}
	if e.Kind != KindIteration && e.Iteration != 0 {
		return fmt.Errorf("%s entry: leave Iteration 0, not %d (only iteration entries have one)", e.Kind, e.Iteration)
	}
	if e.Kind == KindPhase && (e.Phase == "" || len(strings.Fields(e.Phase)) != 1 || strings.Fields(e.Phase)[0] != e.Phase) {
		return fmt.Errorf("phase entry: phase %q must be one word such as execute", e.Phase)
	}
	if e.Kind != KindPhase && e.Phase != "" {
		return fmt.Errorf("%s entry: leave Phase empty, not %q (only phase entries have one)", e.Kind, e.Phase)
	}
	return nil
}

// RenderEntry writes one entry, each line ended by newline ("\n" when
// empty), with no blank line before or after. It returns an error when the
// entry cannot be written so that it reads back as the same entry.
func RenderEntry(e Entry, newline string) ([]byte, error) {
	c, err := canonical(e)
	if err != nil {
		return nil, err
	}
	if newline == "" {
		newline = "\n"
	}
	return []byte(strings.Join(renderEntryLines(c), newline) + newline), nil
}

// progressTitle starts a new progress.md.
const progressTitle = "# Progress Log\n\n"

// Append returns old with e appended: old itself (with a line end added if
// its last line had none), a blank line, and the rendered entry, in old's
// newline style. old is always a byte prefix of the result. An empty old
// gets the "# Progress Log" title first. The heading is built from Kind,
// Unit, Iteration, Phase and Stamp (for KindOther, from Heading), and
// values are normalised: LF line ends, trailing white space trimmed. A
// free-text line that would read as a git conflict marker is written with
// a leading backslash.
func Append(old []byte, e Entry) ([]byte, error) {
	c, err := canonical(e)
	if err != nil {
		return nil, err
	}
	return appendLines(old, progressTitle, renderEntryLines(c)), nil
}

// AppendOwned is Append for a caller that gives up old: when the entry
// fits in old's spare capacity it is written there and the result shares
// old's array (old's own bytes are not touched), so a long log is not
// copied; otherwise it is Append. The caller must not append to old again
// (clip it: old[:len(old):len(old)]), or the two results would share their
// tail.
func AppendOwned(old []byte, e Entry) ([]byte, error) {
	c, err := canonical(e)
	if err != nil {
		return nil, err
	}
	suffix := appendSuffix(old, progressTitle, renderEntryLines(c))
	if len(old) > 0 && cap(old)-len(old) >= len(suffix) {
		return append(old, suffix...), nil
	}
	out := make([]byte, len(old), len(old)+len(suffix))
	copy(out, old)
	return append(out, suffix...), nil
}

// appendLines appends rendered lines to old after a blank line, in a new
// buffer of the exact size.
func appendLines(old []byte, title string, lines []string) []byte {
	suffix := appendSuffix(old, title, lines)
	out := make([]byte, len(old), len(old)+len(suffix))
	copy(out, old)
	return append(out, suffix...)
}

// appendSuffix is what appendLines adds after old: a line end if old's last
// line has none, a blank line, and the lines in old's newline style (or,
// for an empty old, the title and the lines).
func appendSuffix(old []byte, title string, lines []string) []byte {
	// Only the first line (the newline style) and the last line (is it
	// blank?) of old matter, so a long log is not split again.
	newline := "\n"
	if i := bytes.IndexByte(old, '\n'); i > 0 && old[i-1] == '\r' {
		newline = "\r\n"
	}
	var out []byte
	if len(old) == 0 {
		out = append(out, title...)
	} else {
		if !bytes.HasSuffix(old, []byte("\n")) {
			out = append(out, newline...)
		}
		last := bytes.TrimSuffix(old, []byte("\n"))
		if i := bytes.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		if !isBlank(strings.TrimRight(string(last), "\r")) {
			out = append(out, newline...)
		}
	}
	for _, l := range lines {
		out = append(out, l...)
		out = append(out, newline...)
	}
	return out
}
