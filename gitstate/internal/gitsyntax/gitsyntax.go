// Package gitsyntax is the spelling of git's text that gitstate's native
// engine and gitfake both speak: the suffixes of a revision (~N, ^N,
// ^{commit}), the time zone of a signature, and the quoting, escapes and
// sections of a config file. It is syntax only: how an engine resolves a
// revision, reads a commit or stores its config stays its own, so that
// gitfake remains an independent implementation of the behaviour the
// contract suite checks, while the native engine's tests check this
// syntax against git itself.
package gitsyntax

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Step is one suffix of a revision: Peel for ^{commit} or ^{}, else Op
// ('~' for N first parents, '^' for the Nth parent, ^0 the commit itself)
// with its count N (1 when no digits follow).
type Step struct {
	Peel bool
	Op   byte
	N    int
}

// Suffixes splits the suffixes of a revision (what follows its name,
// from the first '~' or '^') into steps; ok is false when a count is not
// a number git would read.
func Suffixes(ops string) (steps []Step, ok bool) {
	for ops != "" {
		if strings.HasPrefix(ops, "^{commit}") || strings.HasPrefix(ops, "^{}") {
			steps = append(steps, Step{Peel: true})
			ops = ops[strings.IndexByte(ops, '}')+1:]
			continue
		}
		op := ops[0]
		j := 1
		for j < len(ops) && ops[j] >= '0' && ops[j] <= '9' {
			j++
		}
		n := 1
		if j > 1 {
			v, err := strconv.Atoi(ops[1:j])
			if err != nil {
				return nil, false
			}
			n = v
		}
		steps = append(steps, Step{Op: op, N: n})
		ops = ops[j:]
	}
	return steps, true
}

// Zone is the time zone of a signature's "+hhmm" or "-hhmm"; ok is false
// for anything else.
func Zone(tz string) (loc *time.Location, ok bool) {
	if len(tz) != 5 || (tz[0] != '+' && tz[0] != '-') {
		return nil, false
	}
	hh, err1 := strconv.Atoi(tz[1:3])
	mm, err2 := strconv.Atoi(tz[3:5])
	if err1 != nil || err2 != nil {
		return nil, false
	}
	off := hh*3600 + mm*60
	if tz[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off), true
}

// Unescape is the byte a backslash escape in a config value stands for
// (\n, \t, \b, \\ and \"); ok is false for any other.
func Unescape(c byte) (b byte, ok bool) {
	switch c {
	case 'n':
		return '\n', true
	case 't':
		return '\t', true
	case 'b':
		return '\b', true
	case '\\', '"':
		return c, true
	}
	return 0, false
}

// QuoteConfig quotes a config value that git would otherwise read
// differently.
func QuoteConfig(v string) string {
	if v == "" || strings.ContainsAny(v, "#;\"\\") || strings.TrimSpace(v) != v {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
	}
	return v
}

// SetSection returns the config data with section [name "sub"] holding
// exactly keys (key, value pairs; nil keys remove the section) and every
// other line as it was: the section replaced where it stands, or added at
// the end. A key or value with a line break is refused.
func SetSection(data []byte, name, sub string, keys [][2]string) ([]byte, error) {
	for _, kv := range keys {
		if strings.ContainsAny(kv[0]+kv[1], "\n\r") {
			return nil, fmt.Errorf("config %s.%s.%s: a value cannot hold a newline", name, sub, kv[0])
		}
	}
	var section bytes.Buffer
	if keys != nil {
		fmt.Fprintf(&section, "[%s %q]\n", name, sub)
		for _, kv := range keys {
			fmt.Fprintf(&section, "\t%s = %s\n", kv[0], QuoteConfig(kv[1]))
		}
	}
	if start, end := FindSection(data, name, sub); start >= 0 {
		return append(append(append([]byte{}, data[:start]...), section.Bytes()...), data[end:]...), nil
	}
	out := append([]byte{}, data...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return append(out, section.Bytes()...), nil
}

// FindSection returns the byte range of section [name "sub"] in config
// data: from its header line to the next section header or the end; -1,
// -1 when there is none. The name matches in any case, sub exactly.
func FindSection(data []byte, name, sub string) (start, end int) {
	start, off := -1, 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if t := strings.TrimSpace(string(line)); strings.HasPrefix(t, "[") {
			if start >= 0 {
				return start, off
			}
			h := strings.TrimSuffix(strings.TrimPrefix(t, "["), "]")
			n, s, ok := strings.Cut(h, " ")
			if ok && strings.EqualFold(n, name) && strings.Trim(strings.TrimSpace(s), `"`) == sub {
				start = off
			}
		}
		off += len(line)
	}
	if start >= 0 {
		return start, len(data)
	}
	return -1, -1
}
