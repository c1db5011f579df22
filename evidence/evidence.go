// Package evidence checks the outputs a unit of a plan names ("Output:")
// before the unit may be called done: each file is there, is not empty,
// holds enough words, does not end in a truncation marker or inside a code
// fence and, when asked, ends with a whole sentence, ends with a required
// footer, holds required sections and stays under a size. An output that
// is only large (over what an agent reads whole) gets a warning, not an
// error.
//
// The package is pure: it judges bytes it is given and reads no files, so
// the same check runs on the working tree (before a checkpoint) and on a
// commit (itr verify).
package evidence

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rule names what an output fails.
type Rule string

// The rules, in the order Check applies them.
const (
	Missing    Rule = "missing"       // the file is not there
	Empty      Rule = "empty"         // 0 bytes, or only whitespace
	TooShort   Rule = "min-words"     // fewer words than Min words
	Truncated  Rule = "truncated"     // ends in a truncation marker ("...", "[continue", "[TBD]", "TODO", ...)
	OpenFence  Rule = "open-fence"    // a ``` code fence is never closed
	OpenEnding Rule = "unfinished"    // Complete: sentences, and the last sentence has no end
	NoFooter   Rule = "must-end-with" // Must end with: the file does not end with the footer
	NoSections Rule = "sections"      // Sections: a required heading is missing
	TooBig     Rule = "max-size"      // Max size: the file is over it
	Large      Rule = "large"         // no Max size, and the file is over what an agent reads whole (a warning)
)

// Severity says whether a problem holds the unit back.
type Severity string

// The severities. An error (the zero value) refuses the move toward done
// and is a finding of itr verify; a warning is said and lets it pass.
const (
	SeverityError Severity = ""
	Warning       Severity = "warning"
)

// Spec is what a unit asks of its outputs.
type Spec struct {
	Files     []string // relative to the task folder
	MinWords  int      // 0: no minimum
	Sentences bool     // each file ends with a whole sentence
	// Markers are the endings that say the text breaks off (see
	// DefaultMarkers for how one is matched); nil means DefaultMarkers,
	// an empty list that is not nil means none.
	Markers []string
	// Footers are the texts a file must end with, one of them when there
	// are several (each may hold several lines); nil: no footer.
	Footers []string
	// Sections are the headings a file must hold (see Headings), matched
	// on their text in any case, without emphasis and a leading number
	// such as "1." or "IV."; nil: none.
	Sections []string
	// MaxBytes is the most bytes a file may hold (0: no limit), and
	// MaxText that limit as the plan gives it ("40 KB", "25000 tokens").
	MaxBytes int64
	MaxText  string
	// WarnBytes is the size over which a file gets a Large warning (0:
	// none); DefaultWarnBytes when the plan declares no Max size.
	WarnBytes int64
}

// Problem is one rule one output fails.
type Problem struct {
	File   string `json:"file"`
	Rule   Rule   `json:"rule"`
	Detail string `json:"detail,omitempty"` // what was found, such as "12 words, fewer than 300"
	// Severity is "warning" for a problem that lets the unit pass (an
	// output over the size an agent reads whole), "" for an error.
	Severity Severity `json:"severity,omitempty"`
}

// String reads "outputs/review.md: truncated (ends in \"...\")".
func (p Problem) String() string {
	s := p.File + ": " + string(p.Rule)
	if p.Detail != "" {
		s += " (" + p.Detail + ")"
	}
	return s
}

// IsWarning reports whether the problem is a warning: said, but it holds
// nothing back.
func (p Problem) IsWarning() bool { return p.Severity == Warning }

// Failures returns the problems of ps that are errors (not warnings), in
// order; nil when there are none.
func Failures(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if !p.IsWarning() {
			out = append(out, p)
		}
	}
	return out
}

// Warnings returns the problems of ps that are warnings, in order.
func Warnings(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if p.IsWarning() {
			out = append(out, p)
		}
	}
	return out
}

// Fix says what makes the output pass.
func (p Problem) Fix() string {
	switch p.Rule {
	case Missing:
		return "write the file (the plan's Output names it, relative to the task folder)"
	case Empty:
		return "write the output into the file"
	case TooShort:
		return "finish the output, or lower the unit's Min words in the plan"
	case Truncated:
		return "finish the output where it breaks off"
	case OpenFence:
		return "close the code block with ``` (or finish what it holds)"
	case OpenEnding:
		return "end the output with a whole sentence (. ! or ?)"
	case NoFooter:
		return "end the output with the footer the unit's Must end with gives (after the last of the text), or change it in the plan"
	case NoSections:
		return "add each missing section as a markdown heading (\"## Name\"), or change the unit's Sections in the plan"
	case TooBig:
		return "shorten the output or split it into several files (each named in the unit's Output), or raise the unit's Max size in the plan"
	case Large:
		return "an agent cannot read it whole: split it into several files (each named in the unit's Output), or declare the unit's Max size in the plan (\"Max size: none\" accepts any size)"
	}
	return "fix the output"
}

// Check judges each file of spec. files holds the bytes of each file that
// exists; a name it lacks is missing. Problems come in the order of
// spec.Files, then of the rules; a missing or empty file has no other
// problem. Warnings come with the errors (see Failures and Warnings).
func Check(spec Spec, files map[string][]byte) []Problem {
	var out []Problem
	for _, name := range spec.Files {
		data, ok := files[name]
		if !ok {
			out = append(out, Problem{File: name, Rule: Missing})
			continue
		}
		out = append(out, CheckFile(name, data, spec)...)
	}
	return out
}

// CheckFile judges the bytes of one output that exists. The rules that
// read the end of the text (truncation markers, a whole sentence) read it
// before the footer when the file ends with one. The problems include the
// warnings (a Large output): Failures keeps the ones that hold a unit
// back.
func CheckFile(name string, data []byte, spec Spec) []Problem {
	if len(bytes.TrimSpace(data)) == 0 {
		d := "0 bytes"
		if len(data) > 0 {
			d = "only whitespace"
		}
		return []Problem{{File: name, Rule: Empty, Detail: d}}
	}
	var out []Problem
	add := func(r Rule, format string, args ...any) {
		out = append(out, Problem{File: name, Rule: r, Detail: fmt.Sprintf(format, args...)})
	}
	if spec.MinWords > 0 {
		if n := Words(data); n < spec.MinWords {
			add(TooShort, "%d word%s, fewer than %d", n, plural(n), spec.MinWords)
		}
	}
	body, footed := data, true
	if len(spec.Footers) > 0 {
		var at int
		if at, footed = footerAt(data, spec.Footers); footed {
			body = data[:at]
		}
	}
	markers := spec.Markers
	if markers == nil {
		markers = DefaultMarkers
	}
	m := truncation(body, markers)
	if m != "" {
		add(Truncated, "ends in %q", m)
	}
	open, line := openFence(data)
	if open {
		add(OpenFence, "the fence on line %d is not closed", line)
	}
	if spec.Sentences && !open && m == "" && !endsSentence(body) {
		add(OpenEnding, "ends with %q", tail(body, 24))
	}
	if !footed {
		add(NoFooter, "ends with %q, not %s", tail([]byte(lastLine(data)), 32), quoteList(spec.Footers, " or "))
	}
	if missing := missingSections(data, spec.Sections); len(missing) > 0 {
		add(NoSections, "no heading %s", quoteList(missing, ", "))
	}
	out = append(out, sizeProblems(name, int64(len(data)), spec)...)
	return out
}

// Words counts the words of data: runs of characters that are not spaces
// and hold at least one letter or digit (a lone "-" or "#" is no word).
func Words(data []byte) int {
	n := 0
	for _, f := range bytes.Fields(data) {
		if bytes.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// DefaultMarkers are the endings that say the text breaks off when the plan
// declares none: the seeds' "[continue" (so "[continued in part 2]" too),
// "[TBD]", "...", "…" and a closing TODO. A marker is matched without
// regard to case against the last line of the text that is not blank. A
// marker that opens a bracket it does not close ("[continue") is a note
// that starts there and is found anywhere in that line; any other must end
// it, once spaces and markdown emphasis are stripped, and one that starts
// with a letter or a digit must not be the end of a longer word ("TODO",
// not "Pitodo").
var DefaultMarkers = []string{"[continue", "[TBD]", "...", "…", "TODO", "TODO:"}

// truncation returns the marker the text ends in, as written there (a note
// such as "[continued in part 2]" from its start to the end of the line),
// or "".
func truncation(data []byte, markers []string) string {
	last := lastLine(data)
	trimmed := strings.TrimRight(last, " \t*_")
	for _, m := range markers {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if opensNote(m) {
			if i := indexFold(last, m); i >= 0 {
				return clip(last[i:], 40)
			}
			continue
		}
		for _, t := range []string{trimmed, last} {
			if endsWithMarker(t, m) {
				return t[len(t)-len(m):]
			}
		}
	}
	return ""
}

// opensNote reports whether marker m opens a bracket it does not close,
// such as "[continue".
func opensNote(m string) bool {
	i := strings.LastIndexAny(m, "[(")
	return i >= 0 && !strings.ContainsAny(m[i:], "])")
}

// endsWithMarker reports whether t ends with marker m, in any case, and m
// is not the end of a longer word.
func endsWithMarker(t, m string) bool {
	if len(t) < len(m) || !strings.EqualFold(t[len(t)-len(m):], m) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(m)
	if !isWordRune(first) {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(t[:len(t)-len(m)])
	return !isWordRune(r)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// indexFold is the byte offset of the first place s holds sub, in any
// case, or -1.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// lastLine is the last line of data that is not blank, trimmed.
func lastLine(data []byte) string {
	s := strings.TrimRightFunc(string(data), unicode.IsSpace)
	if i := strings.LastIndexAny(s, "\r\n"); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// openFence reports whether a ``` (or ~~~) code fence is left open, and
// the line that opened it. A fence closes with a line of at least as many
// of the same character, indented at most three spaces, as CommonMark says.
func openFence(data []byte) (bool, int) {
	var char byte
	var size, at int
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimRight(line, "\r")
		indent := len(t) - len(strings.TrimLeft(t, " "))
		if indent > 3 {
			continue
		}
		t = t[indent:]
		c, n := fenceRun(t)
		if n < 3 {
			continue
		}
		switch {
		case char == 0:
			if c == '`' && strings.ContainsRune(t[n:], '`') {
				continue // "```a`b" is inline code, not a fence
			}
			char, size, at = c, n, i+1
		case c == char && n >= size && strings.TrimSpace(t[n:]) == "":
			char = 0
		}
	}
	return char != 0, at
}

// fenceRun returns the fence character a line starts with and how many of
// it there are.
func fenceRun(t string) (byte, int) {
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	return t[0], n
}

// closers may follow the end of a sentence: quotes, brackets and markdown
// emphasis or code marks.
const closers = "\"'”’»)]}*_`"

// endsSentence reports whether the text ends with . ! or ?, possibly
// followed by closing quotes or brackets.
func endsSentence(data []byte) bool {
	s := strings.TrimRight(strings.TrimRightFunc(string(data), unicode.IsSpace), closers)
	r, _ := utf8.DecodeLastRuneInString(s)
	return r == '.' || r == '!' || r == '?' || r == '。' || r == '！' || r == '？'
}

// clip is the first n characters of s, then "…" when it is longer.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// tail is the last n characters of the text, trimmed.
func tail(data []byte, n int) string {
	s := strings.TrimSpace(string(data))
	r := []rune(s)
	if len(r) > n {
		return "…" + string(r[len(r)-n:])
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
