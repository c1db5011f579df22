package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// safeWriter neutralises what a terminal would obey in text that passes
// through it: control characters other than newline and tab (so escape
// sequences, carriage returns and backspaces), C1 controls and the
// bidirectional overrides that reorder what a reader sees become visible
// escapes such as \x1b or \u202e. Every byte itr prints goes through one,
// so text from collaborators (an entry's Did, a title, a reason) can never
// drive the terminal; the files and --json keep the raw bytes (JSON
// escapes them itself, so it passes unchanged).
//
// A mark of colour.go (a control character, markKey and a style code)
// is the one exception: with marks set it is passed on as markByte and the
// code, for the painter; without, it is dropped. Text cannot forge one, as
// it cannot know markKey.
type safeWriter struct {
	w     io.Writer
	marks bool   // pass marks on (stdout's, before the painter)
	carry []byte // the start of a character split across writes
}

// Write escapes p and writes it; it reports len(p) on success.
func (s *safeWriter) Write(p []byte) (int, error) {
	buf := append(s.carry, p...)
	s.carry = nil
	out := make([]byte, 0, len(buf))
	for i := 0; i < len(buf); {
		// A run of printable ASCII, most of any text, goes out as it is.
		if j := printableRun(buf, i); j > i {
			out = append(out, buf[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size <= 1 && !utf8.FullRune(buf[i:]) {
			s.carry = append([]byte(nil), buf[i:]...)
			break
		}
		if r == markByte && isMark(buf[i+1:]) {
			if s.marks {
				out = append(out, markByte, buf[i+1+len(markKey)])
			}
			i += 2 + len(markKey)
			continue
		}
		switch {
		case r == '\n' || r == '\t':
			out = append(out, byte(r))
		case r < 0x20 || r == 0x7f:
			out = fmt.Appendf(out, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			out = fmt.Appendf(out, `\u%04x`, r)
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, `\x%02x`, buf[i])
		default:
			out = append(out, buf[i:i+size]...)
		}
		i += size
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// printableRun is the end of the run of printable ASCII bytes (space to
// tilde) in b that starts at i; i when b[i] is not one.
func printableRun(b []byte, i int) int {
	for i < len(b) && b[i] >= 0x20 && b[i] < 0x7f {
		i++
	}
	return i
}

// isMark reports whether b, after a markByte, goes on as a mark: the key
// and a known code.
func isMark(b []byte) bool {
	if len(b) <= len(markKey) || string(b[:len(markKey)]) != markKey {
		return false
	}
	c := b[len(markKey)]
	_, ok := styles[c]
	return ok || c == markEnd || c == markHang
}

// lineControls escapes the newlines and tabs of a value shown inside a
// line (one replacer: terminalSafe runs for every cell of a table).
var lineControls = strings.NewReplacer("\n", `\x0a`, "\t", `\x09`)

// terminalSafe is s made one visible line: what safeWriter escapes, and
// newlines and tabs too, for a value printed inside a line of itr's own.
func terminalSafe(s string) string {
	var b strings.Builder
	sw := &safeWriter{w: &b}
	_, _ = sw.Write([]byte(lineControls.Replace(s)))
	for _, c := range sw.carry {
		fmt.Fprintf(&b, `\x%02x`, c)
	}
	return b.String()
}
