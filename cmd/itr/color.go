package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/itr-dev/itr/state"
)

// Colour. status, next, log and list colour what they print when stdout is
// a terminal: labels, status words, commit names, warnings. The painter
// sits after the safeWriter, so it colours text whose control characters
// are already escaped: nothing a collaborator wrote can reach the terminal
// as a sequence, and the painter adds only its own SGR codes. Alignment is
// computed on the plain text (tabwriter runs before both), and colour
// never pages or wraps. NO_COLOR (any value), TERM=dumb, a pipe or a file,
// and --color never give plain text; --color always forces colour.

// Color modes of --color.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// SGR sequences the painter writes.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrBlue   = "\x1b[34m"
	sgrPurple = "\x1b[35m"
	sgrCyan   = "\x1b[36m"
)

// statusColors are the colours of status words, the task's last phase and
// run outcomes, by package state's names.
var statusColors = map[string]string{
	string(state.Done): sgrGreen, string(state.Complete): sgrGreen, state.RunPassed: sgrGreen,
	string(state.InProgress): sgrBlue, string(state.Confirming): sgrCyan, string(state.Verifying): sgrPurple,
	string(state.Blocked): sgrRed, string(state.Timeout): sgrRed, state.RunFailed: sgrRed, state.RunInterrupted: sgrRed,
	string(state.Pending): sgrDim,
	string(state.Skipped): sgrDim, // failed is red as state.RunFailed
}

// statusWord matches the words of statusColors, whole.
var statusWord = func() *regexp.Regexp {
	words := make([]string, 0, len(statusColors))
	for w := range statusColors {
		words = append(words, regexp.QuoteMeta(w))
	}
	sort.Strings(words)
	return regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b`)
}()

// painter colours whole lines for one kind of output, or passes them
// through when colour is off. It buffers a line until its newline.
type painter struct {
	w    io.Writer
	kind string // "status", "next", "log", "list"; "" passes everything through
	on   func() bool
	buf  []byte
	row  int // lines painted so far in this command
}

// Write paints each complete line of p and keeps the rest for later.
func (p *painter) Write(b []byte) (int, error) {
	if p.kind == "" || !p.on() {
		if len(p.buf) > 0 {
			if err := p.Flush(); err != nil {
				return 0, err
			}
		}
		return p.w.Write(b)
	}
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
		out.WriteString(p.paint(line))
		out.WriteByte('\n')
	}
	if out.Len() > 0 {
		if _, err := io.WriteString(p.w, out.String()); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// Flush writes what is left of a line without its newline.
func (p *painter) Flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	rest := string(p.buf)
	p.buf = nil
	if p.kind != "" && p.on() {
		rest = p.paint(rest)
	}
	_, err := io.WriteString(p.w, rest)
	return err
}

// labelRe is a status label at the start of a line ("Task:", "Phase?").
var labelRe = regexp.MustCompile(`^([A-Z][A-Za-z0-9 ()]{0,28}[:?])( )`)

// hashRe is an abbreviated commit name leading a log row.
var hashRe = regexp.MustCompile(`^([0-9a-f]{7,12})(\s)`)

// paint colours one line of output already made terminal-safe.
func (p *painter) paint(line string) string {
	p.row++
	words := func(s string) string {
		return statusWord.ReplaceAllStringFunc(s, func(w string) string { return statusColors[w] + w + sgrReset })
	}
	switch p.kind {
	case "status":
		m := labelRe.FindStringSubmatchIndex(line)
		if m == nil {
			return words(line)
		}
		label, rest := line[:m[3]], line[m[3]:]
		style := sgrBold
		switch {
		case strings.HasPrefix(label, "Flag"), strings.HasPrefix(label, "Warning"):
			style = sgrBold + sgrRed
		case strings.HasPrefix(label, "Next"):
			style = sgrBold + sgrGreen
		case strings.HasPrefix(label, "Check"), strings.HasPrefix(label, "Paused"):
			style = sgrBold + sgrYellow
		}
		return style + label + sgrReset + words(rest)
	case "next":
		if p.row == 1 {
			if id, rest, ok := strings.Cut(line, " "); ok && !strings.HasSuffix(id, ":") {
				return sgrBold + id + sgrReset + " " + words(rest)
			}
		}
		return words(line)
	case "log", "list":
		if p.row == 1 && strings.ToUpper(line) == line {
			return sgrBold + line + sgrReset // the header row
		}
		if m := hashRe.FindStringSubmatchIndex(line); m != nil {
			return sgrYellow + line[:m[3]] + sgrReset + words(line[m[3]:])
		}
		return words(line)
	}
	return line
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

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// checkColorMode refuses a --color value other than auto, always, never.
func checkColorMode(mode string) error {
	switch mode {
	case colorAuto, colorAlways, colorNever:
		return nil
	}
	return usageError{fmt.Errorf("--color %q: use auto (colour on a terminal), always or never", mode)}
}
