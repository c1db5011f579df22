package plan

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/internal/lazyre"
	"github.com/itr-dev/itr/state"
)

// The item ledger of a unit. "Items: 17" says the unit works through items
// 1 to 17; "Items: intro, methods, results" names its items, in the order
// they are worked on. Item IDs are those of state.ValidItemID: letters,
// digits, '.', '_' and '-', starting with a letter or digit; a single
// number is always a count, never a list of one item. itr checkpoint
// --item records items as done, skipped or failed; the plan's items decide
// which IDs are known, the total, and the next item (the first in plan
// order not yet recorded).
//
// "Counter: NAME in PATH" declares a count in a file that must match the
// items recorded done: on resume, status and prime count it in the file
// and report when the two disagree. PATH is relative to the task folder
// (else to the repository root, as Output is). The built-in counters
// count lines outside fenced code blocks:
//
//	footnotes  Markdown footnote definitions: lines starting "[^label]:"
//	headings   Markdown ATX headings: lines starting "#" to "######" and a space
//	entries    top-level list items: lines starting "- ", "* ", "+ ", "1. " or "1) "
//	lines      non-blank lines (fenced code included)
//
// "Counter: NAME in PATH matching REGEX" counts the lines on which the
// regular expression (Go's RE2 syntax, optionally in backquotes) finds a
// match, fences included, as grep -c does.

// Counter is one "Counter:" sub-item of a unit.
type Counter struct {
	// Raw is the value as written, trimmed; Render writes it back.
	Raw string
	// Name is the counter's name: a built-in one (footnotes, headings,
	// entries, lines) or any word with Match.
	Name string
	// Path is the file counted, relative to the task folder (else to the
	// repository root), without backquotes.
	Path string
	// Match is the regular expression of "matching REGEX", "" for a
	// built-in counter.
	Match string
}

// The built-in counters.
const (
	CounterFootnotes = "footnotes"
	CounterHeadings  = "headings"
	CounterEntries   = "entries"
	CounterLines     = "lines"
)

// BuiltinCounters lists the counters that need no "matching REGEX".
var BuiltinCounters = []string{CounterFootnotes, CounterHeadings, CounterEntries, CounterLines}

const counterForm = "write it as \"Counter: footnotes in outputs/memo.md\" (built in: footnotes, headings, entries, lines) or \"Counter: NAME in PATH matching REGEX\""

// ParseCounter reads a Counter value: "NAME in PATH" or "NAME in PATH
// matching REGEX". PATH may be in backquotes; it must be a relative path
// to a file that stays inside the task folder or repository (no "..", not
// absolute). The error says what is wrong and how to write it.
func ParseCounter(v string) (Counter, error) {
	raw := strings.TrimSpace(v)
	if strings.ContainsAny(raw, "\r\n") {
		return Counter{}, fmt.Errorf("a counter is one line; %s", counterForm)
	}
	if i := strings.IndexFunc(raw, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }); i >= 0 {
		return Counter{}, fmt.Errorf("counter %q holds a control character; %s", raw, counterForm)
	}
	c := Counter{Raw: raw}
	name, rest, _ := cutSpace(raw)
	if !counterName(name) {
		return Counter{}, fmt.Errorf("counter %q has no name such as footnotes; %s", raw, counterForm)
	}
	c.Name = name
	in, rest, _ := cutSpace(rest)
	if !strings.EqualFold(in, "in") {
		return Counter{}, fmt.Errorf("counter %q: the name must be followed by \"in PATH\"; %s", raw, counterForm)
	}
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	if strings.HasPrefix(rest, "`") {
		end := strings.IndexByte(rest[1:], '`')
		if end < 0 {
			return Counter{}, fmt.Errorf("counter %q: the backquote before the path is never closed; %s", raw, counterForm)
		}
		c.Path, rest = rest[1:1+end], rest[2+end:]
	} else {
		c.Path, rest, _ = cutSpace(rest)
	}
	if bad := badCounterPath(c.Path); bad != "" {
		return Counter{}, fmt.Errorf("counter %q: %s", raw, bad)
	}
	word, re, _ := cutSpace(strings.TrimLeftFunc(rest, unicode.IsSpace))
	switch {
	case word == "":
		known := false
		for _, b := range BuiltinCounters {
			known = known || b == c.Name
		}
		if !known {
			return Counter{}, fmt.Errorf("counter %q: %q is not a built-in counter (footnotes, headings, entries, lines); add \"matching REGEX\" to count the lines a regular expression matches", raw, c.Name)
		}
	case strings.EqualFold(word, "matching"):
		re = strings.TrimSpace(re)
		if n := len(re) - len(strings.TrimLeft(re, "`")); n > 0 && len(re) > 2*n && strings.HasSuffix(re, strings.Repeat("`", n)) {
			re = re[n : len(re)-n]
		}
		if re == "" {
			return Counter{}, fmt.Errorf("counter %q: \"matching\" needs a regular expression, such as matching `^\\[\\d+\\]`", raw)
		}
		if _, err := regexp.Compile(re); err != nil {
			return Counter{}, fmt.Errorf("counter %q: the regular expression does not compile: %w", raw, err)
		}
		c.Match = re
	default:
		return Counter{}, fmt.Errorf("counter %q: %q after the path is not understood; %s", raw, word, counterForm)
	}
	return c, nil
}

// cutSpace splits s at its first run of white space.
func cutSpace(s string) (before, after string, found bool) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, "", false
	}
	return s[:i], strings.TrimLeftFunc(s[i:], unicode.IsSpace), true
}

// counterName reports whether s can name a counter: ASCII letters, digits,
// '_' and '-', starting with a letter.
func counterName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, r := range s {
		switch {
		case r < 128 && unicode.IsLetter(r):
		case i > 0 && (r >= '0' && r <= '9' || r == '_' || r == '-'):
		default:
			return false
		}
	}
	return true
}

// badCounterPath says why p cannot be a counter's file, "" when it can.
func badCounterPath(p string) string {
	c := path.Clean(p)
	switch {
	case strings.TrimSpace(p) == "":
		return "the path is empty; " + counterForm
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "\\") || len(p) > 1 && p[1] == ':':
		return fmt.Sprintf("path %q is absolute; write it relative to the task folder, such as outputs/memo.md", p)
	case c == ".." || strings.HasPrefix(c, "../") || strings.Contains(p, "\\"):
		return fmt.Sprintf("path %q leaves the task folder; write a path inside it without \"..\", such as outputs/memo.md", p)
	case c == "." || strings.HasSuffix(p, "/"):
		return fmt.Sprintf("path %q is a folder; name the file whose lines are counted", p)
	}
	return ""
}

var (
	footnoteRe = lazyre.New(`^ {0,3}\[\^[^\]\s]+\]:`)
	headingRe  = lazyre.New(`^ {0,3}#{1,6}(\s|$)`)
	entryRe    = lazyre.New(`^([-*+]|[0-9]{1,9}[.)])(\s|$)`)
)

// Count counts the counter in a file's content, as the package comment
// defines each counter. CRLF line endings count as LF.
func (c Counter) Count(data []byte) int {
	var re *regexp.Regexp
	fences := true
	switch {
	case c.Match != "":
		var err error
		if re, err = regexp.Compile(c.Match); err != nil {
			return 0 // ParseCounter compiled it
		}
		fences = false
	case c.Name == CounterFootnotes:
		re = footnoteRe.Get()
	case c.Name == CounterHeadings:
		re = headingRe.Get()
	case c.Name == CounterEntries:
		re = entryRe.Get()
	case c.Name == CounterLines:
		fences = false
	default:
		return 0
	}
	n := 0
	fence := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), len(data)+1)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if fences {
			t := strings.TrimLeft(line, " ")
			if len(line)-len(t) <= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
				switch {
				case fence == "":
					fence = t[:3]
				case strings.HasPrefix(t, fence):
					fence = ""
				}
				continue
			}
			if fence != "" {
				continue
			}
		}
		if re == nil {
			if strings.TrimSpace(line) != "" {
				n++
			}
			continue
		}
		if re.MatchString(line) {
			n++
		}
	}
	return n
}

// String reads "footnotes in outputs/memo.md".
func (c Counter) String() string {
	return c.Name + " in " + c.Path
}

// parseItems reads an "Items" value: a count ("17") or a list of item IDs
// separated by commas and/or white space, without duplicates. bad says
// what is wrong, "" when it reads.
func parseItems(v string) (count int, names []string, bad string) {
	s := strings.TrimSpace(v)
	if t := strings.Trim(s, "`"); t != "" && strings.TrimLeft(t, "0123456789") == "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 1 || n > state.MaxItemNumber || t[0] == '0' {
			return 0, nil, fmt.Sprintf("%q is not a number of items from 1 to %d", t, state.MaxItemNumber)
		}
		return n, nil, ""
	}
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		id := strings.Trim(tok, "`")
		if !state.ValidItemID(id) {
			return 0, nil, fmt.Sprintf("%q is not an item ID (letters, digits, '.', '_' or '-', starting with a letter or digit, at most %d; numbers without leading zeros)", tok, state.MaxItemID)
		}
		if seen[id] {
			return 0, nil, fmt.Sprintf("item %q is listed twice", id)
		}
		seen[id] = true
		names = append(names, id)
	}
	if len(names) == 0 {
		return 0, nil, "it gives no items"
	}
	return 0, names, ""
}

// HasItems reports whether the plan gives the unit's items ("Items:").
func (u *Unit) HasItems() bool { return u.ItemCount > 0 || len(u.ItemNames) > 0 }

// ItemTotal is the number of items the plan gives the unit, 0 without
// "Items:".
func (u *Unit) ItemTotal() int {
	if u.ItemCount > 0 {
		return u.ItemCount
	}
	return len(u.ItemNames)
}

// HasItem reports whether id is one of the unit's items: 1 to N for
// "Items: N", one of the names for a list. Without "Items:" every valid
// item ID is.
func (u *Unit) HasItem(id string) bool {
	switch {
	case u.ItemCount > 0:
		n, ok := state.ItemNumber(id)
		return ok && n <= u.ItemCount
	case len(u.ItemNames) > 0:
		for _, n := range u.ItemNames {
			if n == id {
				return true
			}
		}
		return false
	}
	return state.ValidItemID(id)
}

// Recorded returns the unit's items recorded in state st (one of
// state.ItemStates) in ledger it, cut to the items the plan gives when it
// gives them (a plan that now gives fewer items than were recorded counts
// those it gives).
func (u *Unit) Recorded(it *state.Items, st string) state.ItemSet {
	s := it.Set(st)
	switch {
	case u == nil:
		return s
	case u.ItemCount > 0:
		return s.Within(u.ItemCount, nil)
	case len(u.ItemNames) > 0:
		return s.Within(0, u.HasItem)
	}
	return s
}

// ItemsText words the unit's items for a message: "1 to 17", or the list
// (the first ten, then how many more).
func (u *Unit) ItemsText() string {
	switch {
	case u.ItemCount > 0:
		return fmt.Sprintf("1 to %d", u.ItemCount)
	case len(u.ItemNames) > 10:
		return strings.Join(u.ItemNames[:10], ", ") + fmt.Sprintf(" and %d more", len(u.ItemNames)-10)
	}
	return strings.Join(u.ItemNames, ", ")
}
