package gitstate

import (
	"strings"
)

// Trailer is one "Key: value" line of a commit message's trailer block.
type Trailer struct {
	Key   string
	Value string
}

// gitGeneratedPrefixes are the trailer-like lines git itself writes; one of
// them lets a block with up to 75% other lines still count as trailers.
var gitGeneratedPrefixes = []string{"Signed-off-by: ", "(cherry picked from commit "}

// ParseTrailers returns the trailers of a commit message by git's rules (as
// `git interpret-trailers --parse`): the last paragraph, after the title,
// whose lines are all "Key: value" trailers (continuation lines start with
// whitespace and are unfolded), or which holds a git-generated trailer and at
// least 25% trailers. A "---" line starts a patch and ends the message;
// trailing comment lines ("#") and blank lines are ignored.
func ParseTrailers(message string) []Trailer {
	buf := message[:findPatchStart(message)]
	end := len(buf) - ignoreNonTrailer(buf)
	buf = buf[:end]
	start := findTrailerStart(buf)
	block := buf[start:]
	lines := splitLinesKeep(block)

	var items []string
	last := -1
	for _, l := range lines {
		if last >= 0 && len(l) > 0 && isSpace(l[0]) {
			items[last] += l
			continue
		}
		items = append(items, l)
		if findSeparator(l) >= 1 {
			last = len(items) - 1
		} else {
			last = -1
		}
	}
	var out []Trailer
	for _, it := range items {
		if strings.HasPrefix(it, "#") {
			continue
		}
		sep := findSeparator(it)
		if sep < 1 {
			continue
		}
		key := strings.TrimSpace(it[:sep])
		val := unfold(strings.TrimSpace(it[sep+1:]))
		out = append(out, Trailer{Key: key, Value: val})
	}
	return out
}

// FormatTrailers renders trailers as "Key: value" lines, each ending in a
// newline.
func FormatTrailers(tr []Trailer) string {
	var b strings.Builder
	for _, t := range tr {
		b.WriteString(t.Key)
		b.WriteString(": ")
		b.WriteString(t.Value)
		b.WriteByte('\n')
	}
	return b.String()
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// findSeparator returns the position of ':' in a trailer line, or -1 (git's
// find_separator: a token of alphanumerics and '-', optionally followed by
// whitespace).
func findSeparator(line string) int {
	ws := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == ':' {
			return i
		}
		if !ws && (isAlnum(c) || c == '-') {
			continue
		}
		if i != 0 && (c == ' ' || c == '\t') {
			ws = true
			continue
		}
		break
	}
	return -1
}

// unfold replaces each newline and the whitespace around it by one space.
func unfold(v string) string {
	if !strings.Contains(v, "\n") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\n' {
			s := strings.TrimRight(b.String(), " \t")
			b.Reset()
			b.WriteString(s)
			b.WriteByte(' ')
			for i+1 < len(v) && isSpace(v[i+1]) {
				i++
			}
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// splitLinesKeep splits into lines keeping each "\n".
func splitLinesKeep(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// findPatchStart returns where a "---" divider line starts, or len(s).
func findPatchStart(s string) int {
	for pos := 0; pos < len(s); {
		if strings.HasPrefix(s[pos:], "---") && (pos+3 >= len(s) || isSpace(s[pos+3])) {
			if pos+3 < len(s) {
				return pos
			}
		}
		i := strings.IndexByte(s[pos:], '\n')
		if i < 0 {
			break
		}
		pos += i + 1
	}
	return len(s)
}

// ignoreNonTrailer returns how many bytes at the end are comments, blank
// lines or an old "Conflicts:" block (git's ignore_non_trailer).
func ignoreNonTrailer(buf string) int {
	cutoff := len(buf)
	if i := strings.Index(buf, "# ------------------------ >8 ------------------------\n"); i >= 0 && (i == 0 || buf[i-1] == '\n') {
		cutoff = i
	}
	boc, bol := 0, 0
	inConflicts := false
	for bol < cutoff {
		next := strings.IndexByte(buf[bol:cutoff], '\n')
		if next < 0 {
			next = cutoff
		} else {
			next = bol + next + 1
		}
		switch {
		case buf[bol] == '#' || buf[bol] == '\n':
			if boc == 0 {
				boc = bol
			}
		case strings.HasPrefix(buf[bol:], "Conflicts:\n"):
			inConflicts = true
			if boc == 0 {
				boc = bol
			}
		case inConflicts && buf[bol] == '\t':
		case boc != 0:
			boc = 0
			inConflicts = false
		}
		bol = next
	}
	if boc != 0 {
		return len(buf) - boc
	}
	return len(buf) - cutoff
}

// isBlankLine reports whether the line at s is whitespace only.
func isBlankLine(s string) bool {
	for i := 0; i < len(s) && s[i] != '\n'; i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

// lastLine returns the start of the line before position l (git's
// last_line), or -1.
func lastLine(buf string, l int) int {
	if l == 0 {
		return -1
	}
	i := l - 2
	for ; i >= 0; i-- {
		if buf[i] == '\n' {
			return i + 1
		}
	}
	return 0
}

func nextLine(buf string, pos int) int {
	i := strings.IndexByte(buf[pos:], '\n')
	if i < 0 {
		return len(buf)
	}
	return pos + i + 1
}

// findTrailerStart is git's find_trailer_start.
func findTrailerStart(buf string) int {
	// The first paragraph is the title and cannot hold trailers.
	s := 0
	for s < len(buf) {
		if buf[s] == '#' {
			s = nextLine(buf, s)
			continue
		}
		if isBlankLine(buf[s:]) {
			break
		}
		s = nextLine(buf, s)
	}
	endOfTitle := s
	onlySpaces := true
	recognized := false
	trailerLines, nonTrailerLines, possibleCont := 0, 0, 0
	for l := lastLine(buf, len(buf)); l >= endOfTitle; l = lastLine(buf, l) {
		bol := buf[l:]
		if strings.HasPrefix(bol, "#") {
			nonTrailerLines += possibleCont
			possibleCont = 0
			continue
		}
		if isBlankLine(bol) {
			if onlySpaces {
				continue
			}
			nonTrailerLines += possibleCont
			if recognized && trailerLines*3 >= nonTrailerLines {
				return nextLine(buf, l)
			} else if trailerLines > 0 && nonTrailerLines == 0 {
				return nextLine(buf, l)
			}
			return len(buf)
		}
		onlySpaces = false
		generated := false
		for _, p := range gitGeneratedPrefixes {
			if strings.HasPrefix(bol, p) {
				generated = true
				break
			}
		}
		if generated {
			trailerLines++
			possibleCont = 0
			recognized = true
			continue
		}
		sep := findSeparator(bol)
		switch {
		case sep >= 1 && !isSpace(bol[0]):
			trailerLines++
			possibleCont = 0
		case isSpace(bol[0]):
			possibleCont++
		default:
			nonTrailerLines++
			nonTrailerLines += possibleCont
			possibleCont = 0
		}
		if l == 0 {
			break
		}
	}
	return len(buf)
}
