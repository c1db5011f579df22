// Package evidence checks the outputs a unit of a plan names ("Output:")
// before the unit may be called done: each file is there, is not empty,
// holds enough words, does not end in a truncation marker or inside a code
// fence and, when asked, ends with a whole sentence.
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
	Missing    Rule = "missing"    // the file is not there
	Empty      Rule = "empty"      // 0 bytes, or only whitespace
	TooShort   Rule = "min-words"  // fewer words than Min words
	Truncated  Rule = "truncated"  // ends in "...", "…", "[continued", "[TBD]" or "TODO"
	OpenFence  Rule = "open-fence" // a ``` code fence is never closed
	OpenEnding Rule = "unfinished" // Complete: sentences, and the last sentence has no end
)

// Spec is what a unit asks of its outputs.
type Spec struct {
	Files     []string // relative to the task folder
	MinWords  int      // 0: no minimum
	Sentences bool     // each file ends with a whole sentence
}

// Problem is one rule one output fails.
type Problem struct {
	File   string `json:"file"`
	Rule   Rule   `json:"rule"`
	Detail string `json:"detail,omitempty"` // what was found, such as "12 words, fewer than 300"
}

// String reads "outputs/review.md: truncated (ends in \"...\")".
func (p Problem) String() string {
	s := p.File + ": " + string(p.Rule)
	if p.Detail != "" {
		s += " (" + p.Detail + ")"
	}
	return s
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
	}
	return "fix the output"
}

// Check judges each file of spec. files holds the bytes of each file that
// exists; a name it lacks is missing. Problems come in the order of
// spec.Files, then of the rules; a missing or empty file has no other
// problem.
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

// CheckFile judges the bytes of one output that exists.
func CheckFile(name string, data []byte, spec Spec) []Problem {
	if len(bytes.TrimSpace(data)) == 0 {
		d := "0 bytes"
		if len(data) > 0 {
			d = "only whitespace"
		}
		return []Problem{{File: name, Rule: Empty, Detail: d}}
	}
	var out []Problem
	if spec.MinWords > 0 {
		if n := Words(data); n < spec.MinWords {
			out = append(out, Problem{File: name, Rule: TooShort, Detail: fmt.Sprintf("%d word%s, fewer than %d", n, plural(n), spec.MinWords)})
		}
	}
	m := truncation(data)
	if m != "" {
		out = append(out, Problem{File: name, Rule: Truncated, Detail: fmt.Sprintf("ends in %q", m)})
	}
	open, line := openFence(data)
	if open {
		out = append(out, Problem{File: name, Rule: OpenFence, Detail: fmt.Sprintf("the fence on line %d is not closed", line)})
	}
	if spec.Sentences && !open && m == "" && !endsSentence(data) {
		out = append(out, Problem{File: name, Rule: OpenEnding, Detail: fmt.Sprintf("ends with %q", tail(data, 24))})
	}
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

// markers are the endings that say the text breaks off, checked against
// the end of the last non-blank line, in lower case, once markdown
// emphasis and spaces are stripped.
var markers = []string{"...", "…", "[tbd]", "todo", "todo:"}

// truncation returns the truncation marker the text ends in, or "".
func truncation(data []byte) string {
	last := lastLine(data)
	if i := strings.Index(strings.ToLower(last), "[continued"); i >= 0 {
		return "[continued"
	}
	t := strings.TrimRight(last, " \t*_")
	for _, m := range markers {
		if len(t) < len(m) || !strings.EqualFold(t[len(t)-len(m):], m) {
			continue
		}
		if m == "todo" || m == "todo:" {
			// TODO as a word, not the end of a longer one.
			r, _ := utf8.DecodeLastRuneInString(t[:len(t)-len(m)])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				continue
			}
		}
		return t[len(t)-len(m):]
	}
	return ""
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
