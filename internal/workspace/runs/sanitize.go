package runs

import "unicode/utf8"

// Sanitize makes command output safe to show on a terminal and to store as
// text.
//
// ANSI/VT escape sequences are removed: CSI ("ESC [" parameters,
// intermediates, final byte), OSC and the other string sequences
// ("ESC ]", "ESC P", "ESC X", "ESC ^", "ESC _", ended by BEL or "ESC \"),
// and the other ESC sequences (an optional run of intermediate bytes and a
// final byte). A malformed sequence is dropped up to the byte that broke it,
// and that byte is then treated as ordinary input; a sequence never swallows
// a newline. "\r\n" becomes "\n"; a lone "\r" inside a line keeps only what
// follows the last "\r" (progress bars). The other C0 controls except "\n"
// and "\t" are removed, as are NUL, DEL and the C1 controls U+0080–U+009F.
// Invalid UTF-8 becomes U+FFFD.
//
// Sanitize never adds or removes a "\n", so a line of the input is a line of
// the output. It is idempotent: Sanitize(Sanitize(x)) equals Sanitize(x).
func Sanitize(b []byte) []byte {
	out := make([]byte, 0, len(b))
	lineStart := 0
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\n':
			out = append(out, '\n')
			lineStart = len(out)
			i++
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++ // the "\n" ends the line
				continue
			}
			out = out[:lineStart]
			i++
		case c == 0x1b:
			i = skipEscape(b, i)
		case c == '\t':
			out = append(out, c)
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			switch {
			case r == utf8.RuneError && size <= 1:
				out = utf8.AppendRune(out, utf8.RuneError)
				i++
			case r >= 0x80 && r <= 0x9f:
				i += size
			default:
				out = append(out, b[i:i+size]...)
				i += size
			}
		}
	}
	return out
}

// skipEscape returns the index of the first byte after the escape sequence
// that starts with the ESC at b[i].
func skipEscape(b []byte, i int) int {
	j := i + 1
	if j >= len(b) {
		return j
	}
	switch c := b[j]; {
	case c == '[': // CSI
		return skipCSI(b, j+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_': // OSC, DCS, SOS, PM, APC
		return skipString(b, j+1)
	case inRange(c, 0x20, 0x2f): // nF: intermediates, then a final byte
		return skipFinal(b, skipRun(b, j+1, 0x20, 0x2f), 0x30, 0x7e)
	case inRange(c, 0x30, 0x7e): // two-byte sequence
		return j + 1
	default:
		return j
	}
}

// skipCSI returns the index of the first byte after the CSI sequence
// whose parameters start at b[k]: parameter bytes, intermediate bytes,
// then a final byte.
func skipCSI(b []byte, k int) int {
	k = skipRun(b, k, 0x30, 0x3f)
	k = skipRun(b, k, 0x20, 0x2f)
	return skipFinal(b, k, 0x40, 0x7e)
}

// skipString returns the index of the first byte after the string
// sequence (OSC, DCS, SOS, PM, APC) whose text starts at b[k]: past its
// BEL or "ESC \" terminator, or at the ESC or newline that breaks it.
func skipString(b []byte, k int) int {
	for ; k < len(b); k++ {
		switch b[k] {
		case 0x07:
			return k + 1
		case 0x1b:
			if k+1 < len(b) && b[k+1] == '\\' {
				return k + 2
			}
			return k
		case '\n':
			return k
		}
	}
	return k
}

// skipRun returns the index of the first byte from b[k] on that is not in
// lo..hi.
func skipRun(b []byte, k int, lo, hi byte) int {
	for k < len(b) && inRange(b[k], lo, hi) {
		k++
	}
	return k
}

// skipFinal returns the index after b[k] when it is a final byte, in
// lo..hi, else k.
func skipFinal(b []byte, k int, lo, hi byte) int {
	if k < len(b) && inRange(b[k], lo, hi) {
		return k + 1
	}
	return k
}

// inRange reports whether lo <= c <= hi.
func inRange(c, lo, hi byte) bool { return c >= lo && c <= hi }
