package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// progressLine shows how far a long command got on one line of a
// terminal's stderr, rewritten in place with \r: only once the command has
// run longer than a second, at most ten times a second, and cleared at the
// end. A command that can count its work says how far it got ("verify:
// 3,200 of 10,000 commits", commits); one that cannot starts the clock
// (startProgress) and the line tells the seconds ("sync: working, 3 s")
// until stop. It is made only when stderr is a terminal and --json is not
// given; a nil one does nothing. It is the one progress helper of every
// command: verify, sync, report, plan, archive and restore.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	what  string // "verify"
	now   func() time.Time
	start time.Time
	last  time.Time // when the line was last written; zero before
	width int       // the length of the line on screen
	count bool      // commits has been told: the clock no longer writes
	quit  chan struct{}
	ended chan struct{}
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

// startProgress is newProgressLine with its clock running: until stop,
// the line tells how long the command has been working, from its second
// second on.
func startProgress(g *globals, what string) *progressLine {
	p := newProgressLine(g, what)
	if p == nil {
		return nil
	}
	p.quit, p.ended = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.ended)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-tick.C:
				p.elapsed()
			}
		}
	}()
	return p
}

// elapsed tells the seconds the command has been working.
func (p *progressLine) elapsed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.now().Sub(p.start)
	if d < progressDelay || p.count {
		return
	}
	p.show(fmt.Sprintf("%s: working, %d s", p.what, int(d/time.Second)))
}

// commits tells done of total commits checked.
func (p *progressLine) commits(done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	if t.Sub(p.start) < progressDelay || (!p.last.IsZero() && t.Sub(p.last) < progressEvery && done < total) {
		return
	}
	p.last, p.count = t, true
	p.show(fmt.Sprintf("%s: %s of %s commits", p.what, grouped(done), grouped(total)))
}

// show writes line over the one on screen.
func (p *progressLine) show(line string) {
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.width = len(line)
}

// stop stops the clock of startProgress and takes the line off the
// screen, before the command prints its result.
func (p *progressLine) stop() {
	if p == nil {
		return
	}
	if p.quit != nil {
		close(p.quit)
		<-p.ended
		p.quit = nil
	}
	p.clear()
}

// clear takes the line off the screen, if it was written.
func (p *progressLine) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width == 0 {
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
