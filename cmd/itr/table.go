package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// table lays out rows of cells in columns two spaces apart, as
// text/tabwriter did, measuring each cell without its colour marks (so
// a coloured cell aligns like a plain one). The first row is the header,
// written bold; the last cell of a row is not padded, and continuation
// lines of a wrapped row start where the last column starts.
type table struct {
	rows [][]string
}

// row adds a row of cells.
func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

// write writes the table to w.
func (t *table) write(w io.Writer) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r[:max(len(r)-1, 0)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(unmarked(c)))
		}
	}
	// Rows go out in writes of about 64 KiB: a plan of 10,000 units is
	// neither 10,000 writes to the terminal or pipe nor one copy of the
	// whole table.
	var b strings.Builder
	for n, r := range t.rows {
		if b.Len() >= 64<<10 {
			_, _ = io.WriteString(w, b.String())
			b.Reset()
			b.Grow(72 << 10) // the next chunk, at once
		}
		if n == 0 {
			b.WriteString(mark(styleBold))
		}
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(hangHere())
				b.WriteString(c)
				break
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(unmarked(c))+2))
		}
		if n == 0 {
			b.WriteString(mark(markEnd))
		}
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(w, b.String())
}

// unmarked is s without colour marks.
func unmarked(s string) string {
	if !strings.ContainsRune(s, markByte) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, markByte)
		if i < 0 || !isMark([]byte(s[i+1:])) {
			if i < 0 {
				b.WriteString(s)
				return b.String()
			}
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		s = s[i+2+len(markKey):]
	}
}
