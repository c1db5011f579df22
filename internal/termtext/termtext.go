// Package termtext lays out one line of itr's human output for a
// terminal: it wraps the line to the terminal's width with a hanging
// indent, never breaking a word, and writes the styles (SGR colour codes)
// the renderer gave its segments. It knows nothing of what the text
// means: the renderer says which segments are styled and where
// continuation lines start; the text itself is never scanned for words.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reset ends a styled segment.
const Reset = "\x1b[0m"

// Seg is a run of text with one style: an SGR sequence such as
// "\x1b[32m", or "" for plain text.
type Seg struct {
	Text  string
	Style string
}

// Line is one line of output, without its newline: its segments and Hang,
// the column continuation lines start at (-1: the line's own indent plus
// two).
type Line struct {
	Segs []Seg
	Hang int
}

// Plain is the line's text without styles.
func (l Line) Plain() string {
	var b strings.Builder
	for _, s := range l.Segs {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Width is how many columns s takes on a terminal: one a character, two
// for the wide characters of East Asian scripts, none for combining marks.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r), r == 0x200b:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// cell is one character of a line with its style.
type cell struct {
	r     rune
	style string
}

// word is a run of non-space cells, with the spaces before it.
type word struct {
	gap   []cell
	cells []cell
	width int
}

// Wrap breaks l into lines of at most width columns at its spaces, the
// first keeping its own indent and the others starting at the hanging
// indent. A word is never broken: one wider than the room it has (a path,
// a URL) stands whole on a line of its own, longer than width. A width
// of 0 or less, or a line that fits, gives l unchanged.
func Wrap(l Line, width int) []Line {
	plain := l.Plain()
	if width <= 0 || Width(plain) <= width || strings.ContainsRune(plain, '\t') {
		return []Line{l}
	}
	cells := make([]cell, 0, len(plain))
	for _, s := range l.Segs {
		for _, r := range s.Text {
			cells = append(cells, cell{r, s.Style})
		}
	}
	lead := 0
	for lead < len(cells) && cells[lead].r == ' ' {
		lead++
	}
	hang := l.Hang
	if hang < 0 || hang > width/2 {
		hang = lead + 2
		if hang > width/2 {
			hang = 0
		}
	}
	words := split(cells[lead:])
	var out []Line
	cur := append([]cell(nil), cells[:lead]...)
	curW, empty := lead, true
	for _, w := range words {
		gw := cellsWidth(w.gap)
		if !empty && curW+gw+w.width > width {
			out = append(out, Line{Segs: segs(cur), Hang: -1})
			cur = []cell{}
			for range hang {
				cur = append(cur, cell{' ', ""})
			}
			curW, empty = hang, true
		}
		if !empty {
			cur = append(cur, w.gap...)
			curW += gw
		}
		cur = append(cur, w.cells...)
		curW += w.width
		empty = false
	}
	return append(out, Line{Segs: segs(cur), Hang: -1})
}

// split cuts cells (no leading space) into words with the spaces before
// each; trailing spaces are dropped.
func split(cells []cell) []word {
	var words []word
	i := 0
	for i < len(cells) {
		g := i
		for i < len(cells) && cells[i].r == ' ' {
			i++
		}
		if i == len(cells) {
			break
		}
		s := i
		for i < len(cells) && cells[i].r != ' ' {
			i++
		}
		words = append(words, word{gap: cells[g:s], cells: cells[s:i], width: cellsWidth(cells[s:i])})
	}
	return words
}

func cellsWidth(cs []cell) int {
	n := 0
	for _, c := range cs {
		n += runeWidth(c.r)
	}
	return n
}

// segs joins cells of one style back into segments.
func segs(cs []cell) []Seg {
	var out []Seg
	var b []byte
	style := ""
	for i, c := range cs {
		if i > 0 && c.style != style {
			out = append(out, Seg{string(b), style})
			b = b[:0]
		}
		style = c.style
		b = utf8.AppendRune(b, c.r)
	}
	if len(b) > 0 {
		out = append(out, Seg{string(b), style})
	}
	return out
}

// Render writes l as text: each styled segment between its style and
// Reset when color is on, the plain text when it is off. A styled
// segment that is only spaces is written plain.
func Render(l Line, color bool) string {
	var b strings.Builder
	for _, s := range l.Segs {
		if color && s.Style != "" && strings.TrimSpace(s.Text) != "" {
			b.WriteString(s.Style + s.Text + Reset)
			continue
		}
		b.WriteString(s.Text)
	}
	return b.String()
}
