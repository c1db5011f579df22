package progresslog

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/itr-dev/itr/internal/lazyre"
)

// ContextWordLimit is the seed's rule for context.md: "Keep brief (<200
// words)". A context.md with more words than this is worth a warning.
const ContextWordLimit = 200

// The kinds of section of context.md a session is oriented by. Other
// labels (Goal, Signals, anything a writer adds) have the kind "".
const (
	ContextApproach = "approach"
	ContextKeyFiles = "key_files"
	ContextPatterns = "patterns"
)

// ContextKinds are the orienting kinds in the order the seed's template
// writes them.
var ContextKinds = []string{ContextApproach, ContextKeyFiles, ContextPatterns}

// ContextSection is one labelled part of context.md: a bold label line
// ("**Approach:** one sentence", "**Key files/outputs:**" followed by
// bullets) or a heading ("## Patterns").
type ContextSection struct {
	Label string // the label as written, without the bold markers and colon
	Kind  string // ContextApproach, ContextKeyFiles, ContextPatterns, or "" for another label
	// Text is what the label line holds after the label, then the lines
	// that follow up to the next label, heading or the end, without
	// leading and trailing blank lines.
	Text string
	Line int // 1-based line of the label
	// Template reports text that is still the template's placeholders
	// ("{One sentence}", "- `{path}` — {description}") or empty.
	Template bool
}

// Context is a parsed context.md, the seed's short orientation for each
// iteration.
type Context struct {
	Sections []ContextSection // in file order
	// Words counts the words of the whole file: runs of non-space
	// characters holding a letter or a digit ("—" and "-" are not words).
	Words int
	// BadUTF8 is the first line holding bytes that are not UTF-8 (read as
	// U+FFFD), 0 when there is none.
	BadUTF8 int
}

// Section returns the first section of the kind that holds more than the
// template's placeholders, nil when there is none.
func (c *Context) Section(kind string) *ContextSection {
	for i := range c.Sections {
		if s := &c.Sections[i]; s.Kind == kind && !s.Template {
			return s
		}
	}
	return nil
}

// Labelled reports whether the file has any of the orienting sections,
// filled in or not.
func (c *Context) Labelled() bool {
	for _, s := range c.Sections {
		if s.Kind != "" {
			return true
		}
	}
	return false
}

// labelLine matches the seed's "**Label:** text" and "**Label**: text".
var labelLine = lazyre.New(`^\s{0,3}\*\*([^*\n]{1,60}?)(?::\*\*|\*\*:)[ \t]*(.*)$`)

// headingLine matches a Markdown heading of level 2 to 6.
var headingLine = lazyre.New(`^\s{0,3}#{2,6}[ \t]+(.+?)[ \t#]*$`)

// ParseContext reads context.md. Like the other parsers here it never
// fails: a file without labels has no sections, bad UTF-8 is read as
// U+FFFD (and BadUTF8 says where), and text inside a fenced code block
// never starts a section.
func ParseContext(data []byte) *Context {
	c := &Context{}
	text := string(data)
	if !utf8.ValidString(text) {
		for i, l := range strings.Split(text, "\n") {
			if !utf8.ValidString(l) {
				c.BadUTF8 = i + 1
				break
			}
		}
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	c.Words = countWords(text)
	var cur *ContextSection
	var body []string
	flush := func() {
		if cur != nil {
			cur.Text = strings.Join(trimBlankLines(body), "\n")
			cur.Template = IsTemplateText(cur.Text)
			c.Sections = append(c.Sections, *cur)
		}
		cur, body = nil, nil
	}
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(line), fence) {
				fence = ""
			}
			body = append(body, line)
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			body = append(body, line)
			continue
		}
		label, rest, ok := contextLabel(line)
		if !ok {
			if strings.HasPrefix(strings.TrimSpace(line), "# ") {
				flush() // the title ends a section
				continue
			}
			body = append(body, line)
			continue
		}
		flush()
		cur = &ContextSection{Label: label, Kind: contextKind(label), Line: i + 1}
		if rest != "" {
			body = append(body, rest)
		}
	}
	flush()
	return c
}

// contextLabel reads a label line or a heading: its label and the text
// after the label.
func contextLabel(line string) (label, rest string, ok bool) {
	if m := labelLine.FindStringSubmatch(line); m != nil {
		return strings.TrimSpace(m[1]), strings.TrimSpace(m[2]), true
	}
	if m := headingLine.FindStringSubmatch(line); m != nil {
		return strings.TrimSuffix(strings.TrimSpace(m[1]), ":"), "", true
	}
	return "", "", false
}

// contextKind is the kind a label names: "Approach", "Key files/outputs"
// (also "Key files", "Key outputs", "Files"), "Patterns to follow" (also
// "Patterns", "Conventions"), compared without regard to case.
func contextKind(label string) string {
	l := strings.ToLower(strings.TrimSpace(label))
	switch {
	case strings.HasPrefix(l, "approach"):
		return ContextApproach
	case strings.HasPrefix(l, "key file"), strings.HasPrefix(l, "key output"), l == "files", strings.HasPrefix(l, "files "):
		return ContextKeyFiles
	case strings.HasPrefix(l, "pattern"), strings.HasPrefix(l, "convention"):
		return ContextPatterns
	}
	return ""
}

// placeholder matches the template's "{...}" spans.
var placeholder = lazyre.New(`\{[^{}\n]*\}`)

// IsTemplateText reports text that holds nothing but the template's
// placeholders and punctuation ("- `{path}` — {description}"), or nothing.
func IsTemplateText(text string) bool {
	rest := placeholder.ReplaceAllString(text, "")
	return strings.IndexFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0
}

// countWords counts the runs of non-space characters that hold a letter or
// a digit.
func countWords(text string) int {
	n := 0
	for _, w := range strings.Fields(text) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// trimBlankLines drops the blank lines at both ends.
func trimBlankLines(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
