package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestProgressLine drives the progress line with a clock of its own: silent
// for the first second, then rewritten in place at most ten times a
// second (and always for the last commit), cleared at the end.
func TestProgressLine(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := &progressLine{w: &out, what: "verify", now: func() time.Time { return clock }, start: clock}
	at := func(d time.Duration, done, total int) {
		clock = time.Unix(0, 0).Add(d)
		p.commits(done, total)
	}
	at(500*time.Millisecond, 100, 10000) // under a second: nothing
	assert.Empty(t, out.String())
	at(1100*time.Millisecond, 3200, 10000)
	at(1150*time.Millisecond, 3300, 10000) // too soon after the last
	at(1250*time.Millisecond, 9999, 10000)
	at(1260*time.Millisecond, 10000, 10000) // the last is always shown
	p.clear()
	assert.Equal(t, "\rverify: 3,200 of 10,000 commits\rverify: 9,999 of 10,000 commits\rverify: 10,000 of 10,000 commits\r"+strings.Repeat(" ", len("verify: 10,000 of 10,000 commits"))+"\r", out.String())
	out.Reset()
	p.clear() // cleared once
	assert.Empty(t, out.String())

	var nothing *progressLine // not a terminal, or --json
	nothing.commits(1, 2)
	nothing.clear()
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 10000: "10,000", 1234567: "1,234,567"} {
		assert.Equal(t, want, grouped(n))
	}
}

// TestProgressLineOnlyOnATerminal: no progress line when stderr is not a
// terminal (a test's buffer), nor with --json.
func TestProgressLineOnlyOnATerminal(t *testing.T) {
	g := &globals{raw: IO{Err: &bytes.Buffer{}}}
	assert.Nil(t, newProgressLine(g, "verify"))
	g.json = true
	assert.Nil(t, newProgressLine(g, "verify"))
}

// TestProgressClock: startProgress's line tells the seconds worked from
// the second second on, gives way to counts once commits is told, and
// stop clears it.
func TestProgressClock(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := &progressLine{w: &out, what: "sync", now: func() time.Time { return clock }, start: clock}
	p.elapsed()
	assert.Empty(t, out.String(), "under a second: nothing")
	clock = clock.Add(2500 * time.Millisecond)
	p.elapsed()
	assert.Equal(t, "\rsync: working, 2 s", out.String())
	p.commits(5, 10)
	p.elapsed() // counts given: the clock no longer writes
	assert.Equal(t, "\rsync: working, 2 s\rsync: 5 of 10 commits", out.String())
	out.Reset()
	p.stop()
	assert.Equal(t, "\r"+strings.Repeat(" ", len("sync: 5 of 10 commits"))+"\r", out.String())

	g := &globals{raw: IO{Err: &bytes.Buffer{}}}
	q := startProgress(g, "sync") // not a terminal: nil, and stop does nothing
	assert.Nil(t, q)
	q.stop()
}
