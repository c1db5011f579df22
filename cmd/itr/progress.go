package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// progressLine shows how far a long command got on one line of a
// terminal's stderr ("verify: 3,200 of 10,000 commits"), rewritten in place
// with \r: only once the command has run longer than a second, at most ten
// times a second, and cleared at the end. It is made only when stderr is a
// terminal and --json is not given (newProgressLine); a nil one does
// nothing.
type progressLine struct {
	w     io.Writer
	what  string // "verify"
	now   func() time.Time
	start time.Time
	last  time.Time // when the line was last written; zero before
	width int       // the length of the line on screen
}

// progressDelay is how long a command runs before it shows progress, and
// progressEvery how often the line is rewritten at most.
const (
	progressDelay = time.Second
	progressEvery = 100 * time.Millisecond
)

// newProgressLine is the progress line of the command what, or nil when
// stderr is not a terminal or the output is --json.
func newProgressLine(g *globals, what string) *progressLine {
	if g.json || !isTerminal(g.raw.Err) {
		return nil
	}
	return &progressLine{w: g.raw.Err, what: what, now: time.Now, start: time.Now()}
}

// commits tells done of total commits checked.
func (p *progressLine) commits(done, total int) {
	if p == nil {
		return
	}
	t := p.now()
	if t.Sub(p.start) < progressDelay || (!p.last.IsZero() && t.Sub(p.last) < progressEvery && done < total) {
		return
	}
	p.last = t
	line := fmt.Sprintf("%s: %s of %s commits", p.what, grouped(done), grouped(total))
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.width = len(line)
}

// clear takes the line off the screen, if it was written.
func (p *progressLine) clear() {
	if p == nil || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	p.width = 0
}

// grouped writes n (not negative) with thousands separated by commas:
// 10,000.
func grouped(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
