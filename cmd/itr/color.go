package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/itr-dev/itr/internal/termtext"
	"github.com/itr-dev/itr/state"
)

// Colour and layout. What itr prints for a person is coloured and wrapped
// when stdout is a terminal. Colour is structural: a renderer marks the
// fields it writes (a status, a label, a header row, a commit name) with
// styled, status and label; user text is never scanned for words, so
// "load test done by SRE team" stays plain while the unit's status beside
// it is coloured. The marks are unforgeable: each carries markKey, a random
// key of this process, and the safeWriter that escapes every control
// character of the text turns only a mark with the key into the painter's
// own two bytes (markByte and the style's code). The painter then writes
// the style's SGR codes (colour on) or nothing (colour off), and wraps
// each line to the terminal's width with a hanging indent (package
// termtext) when stdout is a terminal. NO_COLOR (any value), TERM=dumb, a
// pipe or a file, and --color never give plain text; --color always forces
// colour. A pipe or a file is never wrapped: it gets the text of old.

// Color modes of --color.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// SGR sequences the painter writes.
const (
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrBlue   = "\x1b[34m"
	sgrPurple = "\x1b[35m"
	sgrCyan   = "\x1b[36m"
)

// Style codes: the byte after markByte names the style a mark starts;
// markEnd ends it and markHang marks the column continuation lines start at.
const (
	markByte   = 0x1e
	markEnd    = '.'
	markHang   = '>'
	styleBold  = 'B'
	styleAlarm = 'R' // bold red: Flag, Warning
	styleGo    = 'G' // bold green: Next
	styleHeed  = 'Y' // bold yellow: Check, Paused
	styleHash  = 'y'
)

// styles are the SGR sequences of the style codes.
var styles = map[byte]string{
	styleBold: sgrBold, styleAlarm: sgrBold + sgrRed, styleGo: sgrBold + sgrGreen, styleHeed: sgrBold + sgrYellow,
	'g': sgrGreen, 'b': sgrBlue, 'c': sgrCyan, 'p': sgrPurple, 'r': sgrRed, 'd': sgrDim, styleHash: sgrYellow,
}

// statusColors are the style codes of status values, the task's last
// phase and run outcomes, by package state's names.
var statusColors = map[string]byte{
	string(state.Done): 'g', string(state.Complete): 'g', state.RunPassed: 'g',
	string(state.InProgress): 'b', string(state.Confirming): 'c', string(state.Verifying): 'p',
	string(state.Blocked): 'r', string(state.Timeout): 'r', state.RunFailed: 'r', state.RunInterrupted: 'r',
	string(state.Pending): 'd',
	string(state.Skipped): 'd', // failed is red as state.RunFailed
}

// markKey is the key every mark carries: random, so no text written into
// itr (a title, a --did) can hold a mark.
var markKey = func() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("itr: no randomness for the colour marks: %v", err))
	}
	return hex.EncodeToString(b)
}()

// mark is the mark of code for the safeWriter.
func mark(code byte) string { return string(rune(markByte)) + markKey + string(code) }

// styled is text marked with the style code; text is made one
// terminal-safe line.
func styled(code byte, text string) string {
	return mark(code) + terminalSafe(text) + mark(markEnd)
}

// hangHere marks the column continuation lines of a wrapped line start at.
func hangHere() string { return mark(markHang) }

// status is a status field: its value coloured by what it says (the field
// is the renderer's, so its value is a status, never user text).
func status(s string) string {
	if c, ok := statusColors[s]; ok {
		return styled(c, s)
	}
	return s
}

// labelWidth is the column the value of a status line starts at.
const labelWidth = 10

// label is a line's label ("Task:", "Phase?") in bold (red, green or
// yellow for the labels that call for it), padded to labelWidth, with the
// hanging indent after it.
func label(name string) string {
	code := byte(styleBold)
	switch {
	case strings.HasPrefix(name, "Flag"), strings.HasPrefix(name, "Warning"):
		code = styleAlarm
	case strings.HasPrefix(name, "Next"):
		code = styleGo
	case strings.HasPrefix(name, "Check"), strings.HasPrefix(name, "Paused"):
		code = styleHeed
	}
	pad := labelWidth - utf8.RuneCountInString(name)
	if pad < 1 {
		pad = 1
	}
	return styled(code, name) + strings.Repeat(" ", pad) + hangHere()
}

// painter writes what a safeWriter passed it: marks become SGR codes
// (colour on) or nothing, and, with a width, each line is wrapped. It
// buffers a line until its newline only while it wraps.
type painter struct {
	w     io.Writer
	on    func() bool // colour
	width func() int  // wrap lines to this many columns; 0 does not wrap
	// wrap is whether the text now written is a person's text that may be
	// wrapped (emit's text, not JSON, a drawing or a page).
	wrap bool
	buf  []byte
}

// Write paints b. Unwrapped text is written at once (a mark never spans
// two writes); text to wrap is kept until its line is complete.
func (p *painter) Write(b []byte) (int, error) {
	width := p.cols()
	if width == 0 {
		if len(p.buf) > 0 {
			if err := p.Flush(); err != nil {
				return 0, err
			}
		}
		if bytes.IndexByte(b, markByte) < 0 {
			return p.w.Write(b)
		}
		if !p.on() {
			// Without colour or wrapping a mark means nothing: it goes.
			if _, err := p.w.Write(stripMarks(b)); err != nil {
				return 0, err
			}
			return len(b), nil
		}
		if _, err := io.WriteString(p.w, termtext.Render(parseMarks(string(b)), p.on())); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	color := p.on()
	p.buf = append(p.buf, b...)
	// The painted lines of one write go out in one write.
	var out strings.Builder
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		line := string(p.buf[:i])
		p.buf = p.buf[i+1:]
		out.WriteString(p.paint(line, color, width))
	}
	if out.Len() > 0 {
		if _, err := io.WriteString(p.w, out.String()); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// cols is the width to wrap to now: 0 while the text is not a person's.
func (p *painter) cols() int {
	if !p.wrap || p.width == nil {
		return 0
	}
	return p.width()
}

// Flush writes what is left of a line without its newline.
func (p *painter) Flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	rest := string(p.buf)
	p.buf = nil
	out := p.paint(rest, p.on(), p.cols())
	_, err := io.WriteString(p.w, strings.TrimSuffix(out, "\n"))
	return err
}

// paint lays out one line (without its newline) and returns it with
// the newline of each line it became.
func (p *painter) paint(line string, color bool, width int) string {
	var b strings.Builder
	for _, l := range termtext.Wrap(parseMarks(line), width) {
		b.WriteString(termtext.Render(l, color))
		b.WriteByte('\n')
	}
	return b.String()
}

// parseMarks splits text a safeWriter passed into styled segments and
// finds its hanging indent.
func parseMarks(s string) termtext.Line {
	l := termtext.Line{Hang: -1}
	style, col := "", 0
	for {
		i := strings.IndexByte(s, markByte)
		if i < 0 || i+1 >= len(s) {
			add(&l, s, style)
			return l
		}
		add(&l, s[:i], style)
		col += termtext.Width(s[:i])
		switch code := s[i+1]; code {
		case markEnd:
			style = ""
		case markHang:
			l.Hang = col
		default:
			style = styles[code]
		}
		s = s[i+2:]
	}
}

// stripMarks is b without its marks (a markByte and the code after it),
// what termtext.Render of parseMarks(b) writes without colour.
func stripMarks(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for {
		i := bytes.IndexByte(b, markByte)
		if i < 0 || i+1 >= len(b) {
			return append(out, b...)
		}
		out = append(out, b[:i]...)
		b = b[i+2:]
	}
}

// colorOn decides whether output is coloured: --color, then NO_COLOR and
// TERM=dumb, then whether stdout is a terminal.
func colorOn(mode string, getenv func(string) string, out io.Writer) bool {
	switch mode {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(out)
}

// isTerminal reports whether w is a terminal: a file the terminal
// ioctls answer for (a character device such as /dev/null is not one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// checkColorMode refuses a --color value other than auto, always, never.
func checkColorMode(mode string) error {
	switch mode {
	case colorAuto, colorAlways, colorNever:
		return nil
	}
	return usageError{fmt.Errorf("--color %q: use auto (colour on a terminal), always or never", mode)}
}

// add appends text in style to l, joining it to a last segment of the
// same style.
func add(l *termtext.Line, text, style string) {
	if text == "" {
		return
	}
	if n := len(l.Segs); n > 0 && l.Segs[n-1].Style == style {
		l.Segs[n-1].Text += text
		return
	}
	l.Segs = append(l.Segs, termtext.Seg{Text: text, Style: style})
}

// terminalWidth is the width to wrap stdout's lines to: 0 (no wrapping)
// when stdout is not a terminal, else COLUMNS when it is a number above
// zero, else the terminal's own width. It asks once.
func terminalWidth(raw IO) func() int {
	return sync.OnceValue(func() int {
		f, ok := raw.Out.(*os.File)
		if !ok || !isTerminal(f) {
			return 0
		}
		if n, err := strconv.Atoi(strings.TrimSpace(raw.Getenv("COLUMNS"))); err == nil && n > 0 {
			return n
		}
		w, _, err := term.GetSize(int(f.Fd()))
		if err != nil || w <= 0 {
			return 0
		}
		return w
	})
}
