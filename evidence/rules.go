package evidence

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// BytesPerToken is how itr estimates the tokens of a text from its size:
// one token for every 4 bytes, about what models' tokenizers give for
// English prose and code.
const BytesPerToken = 4

// DefaultWarnTokens is the size, in estimated tokens, over which an output
// whose plan declares no Max size gets a Large warning: about what an
// agent's file reader takes in one read.
const DefaultWarnTokens = 25_000

// DefaultWarnBytes is DefaultWarnTokens in bytes.
const DefaultWarnBytes = DefaultWarnTokens * BytesPerToken

// Tokens estimates the tokens of a text of n bytes (n / BytesPerToken,
// rounded up).
func Tokens(n int64) int64 { return (n + BytesPerToken - 1) / BytesPerToken }

// sizeProblems judges the size of a file of n bytes: over spec.MaxBytes an
// error, else over spec.WarnBytes a warning.
func sizeProblems(name string, n int64, spec Spec) []Problem {
	switch {
	case spec.MaxBytes > 0 && n > spec.MaxBytes:
		limit := spec.MaxText
		if limit == "" {
			limit = Count(spec.MaxBytes) + " bytes"
		}
		return []Problem{{File: name, Rule: TooBig,
			Detail: fmt.Sprintf("%s bytes, about %s tokens, over the Max size of %s", Count(n), Count(Tokens(n)), limit)}}
	case spec.MaxBytes <= 0 && spec.WarnBytes > 0 && n > spec.WarnBytes:
		return []Problem{{File: name, Rule: Large, Severity: Warning,
			Detail: fmt.Sprintf("%s bytes, about %s tokens (bytes/%d), over the %s an agent reads whole", Count(n), Count(Tokens(n)), BytesPerToken, Count(Tokens(spec.WarnBytes)))}}
	}
	return nil
}

// Count writes n with commas between thousands: 25,000.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// footerAt reports whether data ends with one of footers and the byte
// offset where that footer starts. Lines are compared without their
// leading and trailing spaces and without the markdown emphasis around
// them ("*END OF MEMORANDUM*" ends with "END OF MEMORANDUM"), and blank
// lines are skipped on both sides; the first line of a footer may be the
// end of a longer line. The first footer that matches wins.
func footerAt(data []byte, footers []string) (int, bool) {
	lines := textLines(string(data))
	for _, f := range footers {
		want := textLines(f)
		if len(want) == 0 || len(want) > len(lines) {
			continue
		}
		got := lines[len(lines)-len(want):]
		ok := true
		for i := range want {
			g, w := bare(got[i].text), bare(want[i].text)
			if i == 0 {
				ok = strings.HasSuffix(g, w)
			} else {
				ok = g == w
			}
			if !ok {
				break
			}
		}
		if ok {
			at := got[0].at
			if w := bare(want[0].text); bare(got[0].text) != w {
				if i := strings.LastIndex(got[0].raw, w); i >= 0 {
					at += i
				}
			}
			return at, true
		}
	}
	return 0, false
}

// textLine is a line of text that is not blank: as written, trimmed, and
// its byte offset.
type textLine struct {
	raw, text string
	at        int
}

// textLines are the lines of s that are not blank.
func textLines(s string) []textLine {
	var out []textLine
	at := 0
	for _, l := range strings.SplitAfter(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			out = append(out, textLine{raw: l, text: t, at: at})
		}
		at += len(l)
	}
	return out
}

// bare strips markdown emphasis around a trimmed line, unless nothing
// would be left ("***" stays a rule).
func bare(t string) string {
	if b := strings.TrimSpace(strings.Trim(t, "*_")); b != "" {
		return b
	}
	return t
}

// missingSections returns the names of sections that no heading of data
// matches, in the order given.
func missingSections(data []byte, names []string) []string {
	if len(names) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, h := range Headings(data) {
		have[headingKey(h)] = true
	}
	var out []string
	for _, n := range names {
		if !have[headingKey(n)] {
			out = append(out, strings.TrimSpace(n))
		}
	}
	return out
}

// Headings returns the text of the markdown headings of data outside code
// fences, in order: ATX headings ("## Findings", closing #s dropped) and
// setext headings (a line underlined with === or ---).
func Headings(data []byte) []string {
	var out []string
	var fence byte
	var fenceLen int
	prev := ""
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimRight(raw, "\r")
		indent := len(line) - len(strings.TrimLeft(line, " "))
		t := strings.TrimSpace(line)
		if c, n := fenceRun(t); n >= 3 && indent <= 3 {
			switch {
			case fence == 0 && !(c == '`' && strings.ContainsRune(t[n:], '`')):
				fence, fenceLen = c, n
			case c == fence && n >= fenceLen && strings.TrimSpace(t[n:]) == "":
				fence = 0
			}
			prev = ""
			continue
		}
		if fence != 0 || indent > 3 {
			prev = ""
			continue
		}
		if h, ok := atxHeading(t); ok {
			out = append(out, h)
			prev = ""
			continue
		}
		if prev != "" && t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "") {
			out = append(out, prev)
			prev = ""
			continue
		}
		prev = t
		if b, _, _ := strings.Cut(t, " "); b == "-" || b == "*" || b == "+" || b == ">" {
			prev = "" // a list item or a quote is no paragraph to underline
		}
	}
	return out
}

// atxHeading reads "## Text ##" as "Text".
func atxHeading(t string) (string, bool) {
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n == 0 || n > 6 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
		return "", false
	}
	h := strings.TrimSpace(t[n:])
	if c := strings.TrimRight(h, "#"); c != h && (c == "" || strings.HasSuffix(c, " ") || strings.HasSuffix(c, "\t")) {
		h = strings.TrimSpace(c)
	}
	return h, true
}

// headingKey is what a heading and a required section are matched on:
// the text in lower case, spaces collapsed, markdown emphasis and code
// marks and a leading "#"s dropped, and a leading number such as "1.",
// "2.3", "IV." or "B)" left out.
func headingKey(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "#"))
	s = strings.Map(func(r rune) rune {
		if r == '*' || r == '_' || r == '`' {
			return -1
		}
		return r
	}, s)
	f := strings.Fields(strings.ToLower(s))
	if len(f) > 1 && isNumbering(f[0]) {
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// isNumbering reports whether a heading's first word numbers it: "1",
// "1.", "2.3", "iv.", "b)".
func isNumbering(w string) bool {
	digits := strings.TrimRight(w, ".)")
	if digits != "" && strings.Trim(digits, "0123456789.") == "" {
		return true
	}
	if len(digits) == len(w) || digits == "" {
		return false // a word, or only punctuation
	}
	if strings.Trim(digits, "ivxlc") == "" {
		return true
	}
	return len(digits) == 1 && unicode.IsLetter(rune(digits[0]))
}

// quoteList writes names quoted and joined by sep: "\"A\", \"B\"".
func quoteList(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(strings.TrimSpace(n))
	}
	return strings.Join(q, sep)
}
