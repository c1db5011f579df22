package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/itr-dev/itr/internal/termtext"
)

// paintChain is stdout's chain as Main builds it (safeWriter, then the
// painter), with colour and width given.
func paintChain(color bool, width int) (*safeWriter, *painter, *bytes.Buffer) {
	var out bytes.Buffer
	pt := &painter{w: &out, on: func() bool { return color }, width: func() int { return width }, wrap: true}
	return &safeWriter{w: pt, marks: true}, pt, &out
}

// TestColourIsStructural: only what the renderer marks is coloured; a
// status word in user text is not, and text cannot forge a mark.
func TestColourIsStructural(t *testing.T) {
	sw, pt, out := paintChain(true, 0)
	fmt.Fprintf(sw, "%sT1 %s: load test done by SRE team, failed, blocked\n", label("Current:"), status("done"))
	fmt.Fprintf(sw, "forged: \x1e%sr red?\x1e0000000000000000r and \x1b[31m\n", strings.Repeat("0", len(markKey)))
	fmt.Fprint(sw, "no newline "+status("blocked"))
	assert.NoError(t, pt.Flush())
	assert.Equal(t, "\x1b[1mCurrent:\x1b[0m  T1 \x1b[32mdone\x1b[0m: load test done by SRE team, failed, blocked\n"+
		`forged: \x1e0000000000000000r red?\x1e0000000000000000r and \x1b[31m`+"\n"+
		"no newline \x1b[31mblocked\x1b[0m", out.String())

	// Colour off: the marks leave no trace, and the text is as it was.
	sw, pt, out = paintChain(false, 0)
	fmt.Fprintf(sw, "%sT1 %s\n", label("Current:"), status("in_progress"))
	assert.NoError(t, pt.Flush())
	assert.Equal(t, "Current:  T1 in_progress\n", out.String())

	// stderr's safeWriter drops marks; terminalSafe too.
	var errOut bytes.Buffer
	fmt.Fprintf(&safeWriter{w: &errOut}, "warning: %s\n", status("failed"))
	assert.Equal(t, "warning: failed\n", errOut.String())
	assert.Equal(t, "failed", terminalSafe(status("failed")))
}

// TestPainterWraps: with a width the painter wraps at spaces with the
// renderer's hanging indent, colour and all; without one it never does.
func TestPainterWraps(t *testing.T) {
	sw, pt, out := paintChain(true, 30)
	fmt.Fprintf(sw, "%scontinue T1 when its work is done, then checkpoint\n", label("Next:"))
	assert.NoError(t, pt.Flush())
	assert.Equal(t, "\x1b[1m\x1b[32mNext:\x1b[0m     continue T1 when its\n          work is done, then\n          checkpoint\n", out.String())

	sw, pt, out = paintChain(false, 0)
	long := strings.Repeat("word ", 30) + "\n"
	fmt.Fprint(sw, long)
	assert.NoError(t, pt.Flush())
	assert.Equal(t, long, out.String(), "no terminal: never wrapped")

	sw, pt, out = paintChain(false, 30)
	pt.wrap = false // a drawing, JSON, a page
	fmt.Fprint(sw, long)
	assert.Equal(t, long, out.String())
}

// TestTableAlignsMarkedCells: a coloured cell aligns like a plain one.
func TestTableAlignsMarkedCells(t *testing.T) {
	sw, pt, out := paintChain(false, 0)
	var tb table
	tb.row("UNIT", "STATUS", "TITLE")
	tb.row("T1", status("in_progress"), "the model")
	tb.row("T22", status("done"), "done by the SRE team")
	tb.write(sw)
	assert.NoError(t, pt.Flush())
	assert.Equal(t, "UNIT  STATUS       TITLE\nT1    in_progress  the model\nT22   done         done by the SRE team\n", out.String())
}

// TestStripMarksIsRenderWithoutColour checks stripMarks against what it
// stands for, termtext.Render of parseMarks without colour.
func TestStripMarksIsRenderWithoutColour(t *testing.T) {
	m := string(rune(markByte))
	for _, s := range []string{"", "plain", m + "b" + "T1" + m + "e", "a" + m + "h" + "hung", "trailing" + m, m, m + m + "x", "é" + m + "bé" + m + "e"} {
		if got, want := string(stripMarks([]byte(s))), termtext.Render(parseMarks(s), false); got != want {
			t.Errorf("stripMarks(%q) = %q, Render says %q", s, got, want)
		}
	}
}
