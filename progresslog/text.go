package progresslog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Field is one field of an entry's body, in file order. A Field with an
// empty Name is a line of free text (with its continuation lines).
type Field struct {
	Name  string
	Value string
}

// Side tells which side of a git merge conflict an entry comes from.
type Side int

// The sides of a merge conflict.
const (
	// Both marks an entry outside any conflict, or equal on both sides.
	Both Side = iota
	// Ours marks an entry found only on the "ours" side (before =======).
	Ours
	// Theirs marks an entry found only on the "theirs" side (after =======).
	Theirs
)

// String returns "both", "ours" or "theirs".
func (s Side) String() string {
	switch s {
	case Both:
		return "both"
	case Ours:
		return "ours"
	case Theirs:
		return "theirs"
	}
	return "Side(" + strconv.Itoa(int(s)) + ")"
}

// Problem is something in a file that is probably a mistake. It never
// stops parsing.
type Problem struct {
	Line int // 1-based line in the parsed file
	Msg  string
}

// String returns "line N: message".
func (p Problem) String() string {
	return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
}

// rawLine is one line of a file.
type rawLine struct {
	text string // without "\n" and without trailing "\r"s
	no   int32  // 1-based line number in the file (a blob is at most 1 GiB)
	term bool   // the line ended with "\n"
}

// splitLines cuts data into lines and reports the file's newline style:
// "\r\n" when its first line ends so, "\n" otherwise.
func splitLines(data []byte) ([]rawLine, string) {
	return splitText(string(data))
}

// splitText is splitLines of a string: the lines are substrings of s.
func splitText(s string) ([]rawLine, string) {
	newline := "\n"
	// One slice of the right size: a long log's lines are most of what
	// a parse holds besides the text.
	lines := make([]rawLine, 0, strings.Count(s, "\n")+1)
	for no := 1; len(s) > 0; no++ {
		i := strings.IndexByte(s, '\n')
		t := s
		if i >= 0 {
			t, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if no == 1 && i >= 0 && strings.HasSuffix(t, "\r") {
			newline = "\r\n"
		}
		lines = append(lines, rawLine{text: strings.TrimRight(t, "\r"), no: int32(no), term: i >= 0})
	}
	return lines, newline
}

// Conflict marker kinds, in the order they appear in a block.
type marker int

const (
	notMarker marker = iota
	markStart        // <<<<<<< ours
	markBase         // ||||||| base (diff3)
	markSep          // =======
	markEnd          // >>>>>>> theirs
)

func isMarkerLine(s, m string) bool {
	return s == m || strings.HasPrefix(s, m+" ")
}

// markerText is how each marker starts.
var markerText = [...]string{notMarker: "", markStart: "<<<<<<<", markBase: "|||||||", markSep: "=======", markEnd: ">>>>>>>"}

// markerOf tells whether a line is a git conflict marker. Trailing white
// space is ignored, so that trimming a value never makes or unmakes one.
func markerOf(s string) marker {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	switch {
	case s == "=======":
		return markSep
	case isMarkerLine(s, "<<<<<<<"):
		return markStart
	case isMarkerLine(s, "|||||||"):
		return markBase
	case isMarkerLine(s, ">>>>>>>"):
		return markEnd
	}
	return notMarker
}

// sides is a file read as the two sides of a merge conflict.
type sides struct {
	ours, theirs []rawLine
	conflicted   bool
	problem      *Problem // markers that do not form complete blocks
}

// splitConflicts reads the conflict blocks of a file. The markers must form
// complete blocks (<<<<<<<, optional |||||||, =======, >>>>>>>); otherwise
// the whole file is read as plain text (both sides the same) and the first
// out-of-place marker is reported.
func splitConflicts(lines []rawLine) sides {
	state, seen := markEnd, false
	var bad *rawLine
	open := 0
scan:
	for i := range lines {
		m := markerOf(lines[i].text)
		ok := false
		switch m {
		case notMarker:
			continue
		case markStart:
			ok, open = state == markEnd, i
		case markBase:
			ok = state == markStart
		case markSep:
			ok = state == markStart || state == markBase
		case markEnd:
			ok = state == markSep
		}
		if !ok {
			bad = &lines[i]
			break scan
		}
		state, seen = m, true
	}
	switch {
	case bad != nil:
		return sides{ours: lines, theirs: lines, problem: &Problem{Line: int(bad.no), Msg: fmt.Sprintf(
			"git conflict marker %s is out of place (a conflict block is <<<<<<<, optionally |||||||, then =======, then >>>>>>>), so the file was read as plain text: finish resolving the merge",
			markerText[markerOf(bad.text)])}}
	case state != markEnd:
		return sides{ours: lines, theirs: lines, problem: &Problem{Line: int(lines[open].no), Msg: "git conflict block opened by <<<<<<< is never closed by a >>>>>>> line, so the file was read as plain text: finish resolving the merge"}}
	case !seen:
		return sides{ours: lines, theirs: lines}
	}
	s := sides{conflicted: true}
	region := markEnd
	for _, l := range lines {
		if m := markerOf(l.text); m != notMarker {
			region = m
			continue
		}
		switch region {
		case markEnd:
			s.ours = append(s.ours, l)
			s.theirs = append(s.theirs, l)
		case markStart:
			s.ours = append(s.ours, l)
		case markSep:
			s.theirs = append(s.theirs, l)
		}
	}
	return s
}

// shorten cuts s to at most n runes, marking a cut with "…".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// syntax is what differs between progress.md and guardrails.md bodies.
type syntax struct {
	// parseField reads a field line, returning its name and the first line
	// of its value.
	parseField func(s string) (name, value string, ok bool)
	// fieldPrefix renders the start of a field line, before the value.
	fieldPrefix func(name string) string
}

// progressSyntax reads "**Name:** value" (also "**Name**: value").
var progressSyntax = syntax{
	parseField: func(s string) (string, string, bool) {
		rest, ok := strings.CutPrefix(s, "**")
		if !ok {
			return "", "", false
		}
		return boldField(rest)
	},
	fieldPrefix: func(name string) string { return "**" + name + ":**" },
}

// guardrailSyntax reads "- **Name**: value" (also "- **Name:** value").
var guardrailSyntax = syntax{
	parseField: func(s string) (string, string, bool) {
		rest, ok := strings.CutPrefix(s, "- **")
		if !ok {
			return "", "", false
		}
		return boldField(rest)
	},
	fieldPrefix: func(name string) string { return "- **" + name + "**:" },
}

// boldField reads what follows an opening "**": "Name:** value" or
// "Name**: value". One space after the colon is part of the syntax.
func boldField(rest string) (string, string, bool) {
	i := strings.Index(rest, "**")
	if i < 0 {
		return "", "", false
	}
	inner, after := rest[:i], rest[i+2:]
	var name, value string
	switch {
	case strings.HasSuffix(inner, ":"):
		name, value = inner[:len(inner)-1], after
	case strings.HasPrefix(after, ":"):
		name, value = inner, after[1:]
	default:
		return "", "", false
	}
	if !validFieldName(name) {
		return "", "", false
	}
	return name, strings.TrimPrefix(value, " "), true
}

// validFieldName reports whether name can be written as a field name.
func validFieldName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "*:\r\n")
}

func isHeading(s string) bool { return strings.HasPrefix(s, "## ") }

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// structural reports whether a line at the start of a free-text field
// would be read as something else: a heading, a field, a continuation
// line or a blank line. Leading backslashes escape such a line.
func (sy syntax) structural(s string) bool {
	s = strings.TrimLeft(s, `\`)
	if isHeading(s) || strings.HasPrefix(s, "  ") || isBlank(s) {
		return true
	}
	_, _, ok := sy.parseField(s)
	return ok
}

// unescape removes the backslash that Render put before a free-text line
// that would otherwise read as structure.
func (sy syntax) unescape(s string) string {
	if strings.HasPrefix(s, `\`) && sy.structural(s) {
		return s[1:]
	}
	return s
}

// normalizeValue is the form every value is kept in: LF line ends, no
// carriage returns at line ends, no trailing white space.
func normalizeValue(v string) string {
	if strings.Contains(v, "\r") {
		ls := strings.Split(v, "\n")
		for i, l := range ls {
			ls[i] = strings.TrimRight(l, "\r")
		}
		v = strings.Join(ls, "\n")
	}
	return strings.TrimRightFunc(v, unicode.IsSpace)
}

// section is an entry before its heading and fields are interpreted.
type section struct {
	heading string
	line    int
	fields  []Field
}

// sectionize cuts one side of a file into its preamble (the lines before
// the first heading, verbatim, each ended by "\n") and its sections.
func (sy syntax) sectionize(lines []rawLine) (string, []section) {
	var pre strings.Builder
	i := 0
	for ; i < len(lines) && !isHeading(lines[i].text); i++ {
		pre.WriteString(lines[i].text)
		pre.WriteByte('\n')
	}
	// Every section's fields in one array (ends[k] is where section k's
	// end), and one buffer for a value's lines: a long log's fields are
	// not allocated one by one, nor grown (a first pass counts them).
	nsec, nfield := 0, 0
	for _, l := range lines[i:] {
		switch {
		case isHeading(l.text):
			nsec++
		case !isBlank(l.text) && !strings.HasPrefix(l.text, "  "):
			nfield++
		}
	}
	var secs []section
	var all []Field
	var ends []int
	if nsec > 0 {
		secs, ends = make([]section, 0, nsec), make([]int, 0, nsec)
		all = make([]Field, 0, nfield)
	}
	var value []string
	for i < len(lines) {
		sec := section{heading: lines[i].text[3:], line: int(lines[i].no)}
		i++
		var (
			name    string
			open    bool // a field is being read
			pending int  // blank lines seen since its last line
		)
		flush := func() {
			if open {
				all = append(all, Field{Name: name, Value: normalizeValue(strings.Join(value, "\n"))})
			}
			open, pending, value = false, 0, value[:0]
		}
		for ; i < len(lines) && !isHeading(lines[i].text); i++ {
			t := lines[i].text
			switch {
			case open && strings.HasPrefix(t, "  "):
				for ; pending > 0; pending-- {
					value = append(value, "")
				}
				value = append(value, t[2:])
			case isBlank(t):
				pending++
			default:
				flush()
				if n, v, ok := sy.parseField(t); ok {
					name, value = n, append(value, v)
				} else {
					name, value = "", append(value, sy.unescape(t))
				}
				open = true
			}
		}
		flush()
		secs = append(secs, sec)
		ends = append(ends, len(all))
	}
	start := 0
	for k := range secs {
		if ends[k] > start {
			secs[k].fields = all[start:ends[k]:ends[k]]
		}
		start = ends[k]
	}
	return pre.String(), secs
}

// renderFields writes fields as body lines. Values are normalised; names
// that cannot be written are made writable (callers that must not change
// anything validate first).
func (sy syntax) renderFields(fields []Field) []string {
	var out []string
	for _, f := range fields {
		ls := strings.Split(normalizeValue(f.Value), "\n")
		first := ls[0]
		if f.Name == "" {
			if sy.structural(first) {
				first = `\` + first
			}
			out = append(out, first)
		} else {
			p := sy.fieldPrefix(sanitizeName(f.Name))
			if first != "" {
				p += " " + first
			}
			out = append(out, p)
		}
		for _, l := range ls[1:] {
			if l != "" {
				l = "  " + l
			}
			out = append(out, l)
		}
	}
	return out
}

func sanitizeName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c == '*' || c == ':' || c == '\r' || c == '\n' {
			b[i] = '_'
		}
	}
	return string(b)
}

// sanitizeHeading makes s fit on one heading line.
func sanitizeHeading(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.TrimRight(s, "\r")
}

// canonicalFields validates fields for writing and puts them in the form
// they will be read back in: values normalised, empty free text dropped, a
// free-text line that would read as a conflict marker escaped.
func canonicalFields(fields []Field) ([]Field, error) {
	var out []Field
	for i, f := range fields {
		if f.Name != "" && !validFieldName(f.Name) {
			return nil, fmt.Errorf("field %d: name %q cannot be written: a field name must not contain '*', ':' or a line break", i+1, f.Name)
		}
		f.Value = normalizeValue(f.Value)
		if f.Name == "" {
			if f.Value == "" {
				continue
			}
			first, _, _ := strings.Cut(f.Value, "\n")
			if markerOf(first) != notMarker {
				f.Value = `\` + f.Value
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// block is one rendered entry and the side it belongs to.
type block struct {
	side  Side
	lines []string
}

// document is what renderDoc writes.
type document struct {
	preamble, theirsPreamble string
	splitPreamble            bool
	conflicted               bool
	blocks                   []block
	newline                  string
}

// render writes a file: the preamble (both sides in conflict markers when
// they differ), then the entries separated by blank lines, each run of
// one-sided entries inside a conflict block. A conflicted document in
// which nothing differs starts with an empty conflict block, so that it
// still reads as conflicted.
func (d document) render() []byte {
	var b strings.Builder
	line := func(s string) { b.WriteString(s); b.WriteByte('\n') }
	oneSided := false
	for _, bl := range d.blocks {
		oneSided = oneSided || bl.side != Both
	}
	if d.conflicted && !d.splitPreamble && !oneSided {
		line("<<<<<<< ours")
		line("=======")
		line(">>>>>>> theirs")
	}
	if d.splitPreamble {
		writeSplit(&b, d.preamble, d.theirsPreamble)
	} else {
		b.WriteString(d.preamble)
	}
	if len(d.blocks) > 0 && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	// A blank line goes between entries, but only where both sides already
	// have an entry: elsewhere it would join a side's preamble.
	oursHas, theirsHas := false, false
	entries := func(bs []block) {
		for i, bl := range bs {
			if i > 0 {
				line("")
			}
			for _, l := range bl.lines {
				line(l)
			}
		}
	}
	for i := 0; i < len(d.blocks); {
		if oursHas && theirsHas {
			line("")
		}
		if d.blocks[i].side == Both {
			entries(d.blocks[i : i+1])
			oursHas, theirsHas = true, true
			i++
			continue
		}
		var ours, theirs []block
		for ; i < len(d.blocks) && d.blocks[i].side != Both; i++ {
			if d.blocks[i].side == Theirs {
				theirs = append(theirs, d.blocks[i])
			} else {
				ours = append(ours, d.blocks[i])
			}
		}
		line("<<<<<<< ours")
		entries(ours)
		line("=======")
		entries(theirs)
		line(">>>>>>> theirs")
		oursHas, theirsHas = oursHas || len(ours) > 0, theirsHas || len(theirs) > 0
	}
	out := b.String()
	if d.newline == "\r\n" {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return []byte(out)
}

// writeSplit writes two preambles that differ: their common first and last
// lines once, the differing middle inside a conflict block.
func writeSplit(b *strings.Builder, ours, theirs string) {
	a, t := strings.SplitAfter(ours, "\n"), strings.SplitAfter(theirs, "\n")
	trim := func(ls []string) []string {
		if len(ls) > 0 && ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		return ls
	}
	a, t = trim(a), trim(t)
	p := 0
	for p < len(a) && p < len(t) && a[p] == t[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(t)-p && a[len(a)-1-s] == t[len(t)-1-s] {
		s++
	}
	terminated := func(ls []string) {
		for _, l := range ls {
			b.WriteString(l)
			if !strings.HasSuffix(l, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	b.WriteString(strings.Join(a[:p], ""))
	b.WriteString("<<<<<<< ours\n")
	terminated(a[p : len(a)-s])
	b.WriteString("=======\n")
	terminated(t[p : len(t)-s])
	b.WriteString(">>>>>>> theirs\n")
	b.WriteString(strings.Join(a[len(a)-s:], ""))
}

// pick is one entry of a merge: its side and its index in ours (for Both
// and Ours) or in theirs (for Theirs).
type pick struct {
	side Side
	i    int
}

// alignSides merges the entries of the two sides of a conflict, given as
// keys that are equal exactly when the entries are. It aligns them by a
// line diff (go-diff, no time limit, so the result is deterministic):
// entries the diff keeps are Both; between two kept runs come first the
// ours-only entries, then the theirs-only ones, each in file order.
func alignSides(ours, theirs []string) []pick {
	ids := map[string]int{}
	encode := func(keys []string) string {
		var b strings.Builder
		for _, k := range keys {
			id, ok := ids[k]
			if !ok {
				id = len(ids)
				ids[k] = id
			}
			b.WriteString(strconv.Itoa(id))
			b.WriteByte('\n')
		}
		return b.String()
	}
	a, b := encode(ours), encode(theirs)
	var out, pendOurs, pendTheirs []pick
	flush := func() {
		out = append(append(out, pendOurs...), pendTheirs...)
		pendOurs, pendTheirs = nil, nil
	}
	oi, ti := 0, 0
	for _, d := range lineDiffs(a, b) {
		n := strings.Count(d.Text, "\n")
		for range n {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				flush()
				out = append(out, pick{Both, oi})
				oi++
				ti++
			case diffmatchpatch.DiffDelete:
				pendOurs = append(pendOurs, pick{Ours, oi})
				oi++
			case diffmatchpatch.DiffInsert:
				pendTheirs = append(pendTheirs, pick{Theirs, ti})
				ti++
			}
		}
	}
	flush()
	return out
}

// lineDiffs diffs two texts line by line.
func lineDiffs(a, b string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // no deadline: the same input always gives the same diff
	ra, rb, lines := dmp.DiffLinesToRunes(a, b)
	return dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines)
}
