package gitstate

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/gitstate/internal/gitsyntax"
)

// configSyntaxError is a line of a git config file that git would refuse.
type configSyntaxError struct {
	Line int
	Msg  string
}

func (e *configSyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// parseConfig reads git's config file syntax and calls emit for each
// variable in file order: the section and key lower-cased, the subsection
// as written ("[section.sub]", the old form, lower-cased as git does), the
// value with quotes, escapes and continuation lines resolved. A key with no
// "=" is a boolean true, as in git.
func parseConfig(data []byte, emit func(section, subsection, key, value string) error) error {
	// git reads "\r\n" as "\n" everywhere; a lone "\r" stays a character.
	p := configParser{src: strings.ReplaceAll(string(data), "\r\n", "\n"), line: 1}
	if strings.HasPrefix(p.src, "\uFEFF") {
		p.pos = len("\uFEFF")
	}
	var section, subsection string
	inSection := false
	for {
		p.skipSpace()
		c, ok := p.peek()
		if !ok {
			return nil
		}
		switch {
		case c == '\n':
			p.next()
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			p.next()
			var err error
			if section, subsection, err = p.sectionHeader(); err != nil {
				return err
			}
			inSection = true
		case isConfigKeyStart(c):
			if !inSection {
				return p.errorf("variable outside of any [section]")
			}
			key := p.key()
			// Between a name and "=" git skips only spaces and tabs.
			for c, ok := p.peek(); ok && (c == ' ' || c == '\t'); c, ok = p.peek() {
				p.next()
			}
			value := "true"
			if c, ok := p.peek(); ok && c == '=' {
				p.next()
				v, err := p.value()
				if err != nil {
					return err
				}
				value = v
			} else if ok && c != '\n' {
				// git allows nothing after a bare name, not even a comment.
				return p.errorf("bad character after the variable name %q", key)
			}
			if err := emit(section, subsection, key, value); err != nil {
				return err
			}
		default:
			return p.errorf("unexpected character %q", c)
		}
	}
}

type configParser struct {
	src  string
	pos  int
	line int
}

func (p *configParser) errorf(format string, args ...any) error {
	return &configSyntaxError{Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

func (p *configParser) peek() (byte, bool) {
	if p.pos >= len(p.src) {
		return 0, false
	}
	return p.src[p.pos], true
}

func (p *configParser) next() byte {
	c := p.src[p.pos]
	p.pos++
	if c == '\n' {
		p.line++
	}
	return c
}

// skipSpace skips blanks, not newlines.
func (p *configParser) skipSpace() {
	for p.pos < len(p.src) && isConfigSpace(p.src[p.pos]) {
		p.pos++
	}
}

// skipLine skips to the end of the line, newline included.
func (p *configParser) skipLine() {
	for p.pos < len(p.src) {
		if p.next() == '\n' {
			return
		}
	}
}

// isConfigSpace is git's isspace without the newline: its own ctype has no \f or \v.
func isConfigSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func isConfigKeyStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isConfigKeyChar(c byte) bool { return isConfigKeyStart(c) || c >= '0' && c <= '9' || c == '-' }

// sectionHeader reads what follows "[": `name]`, `name "sub"]` or the old
// `name.sub]`.
func (p *configParser) sectionHeader() (section, subsection string, err error) {
	var name strings.Builder
	for {
		c, ok := p.peek()
		if !ok || c == '\n' {
			return "", "", p.errorf("unterminated section header")
		}
		p.next()
		switch {
		case c == ']':
			sec := strings.ToLower(name.String())
			if sec == "" {
				return "", "", p.errorf("empty section name")
			}
			if i := strings.IndexByte(sec, '.'); i >= 0 {
				if i == len(sec)-1 {
					return sec, "", nil // [section.]: an empty subsection, as [section ""]
				}
				return sec[:i], sec[i+1:], nil // [section.sub], lower-cased
			}
			return sec, "", nil
		case isConfigSpace(c):
			p.skipSpace()
			if c, ok := p.peek(); !ok || c != '"' {
				return "", "", p.errorf("bad section header: a subsection must be quoted")
			}
			p.next()
			var sub strings.Builder
			for {
				c, ok := p.peek()
				if !ok || c == '\n' {
					return "", "", p.errorf("unterminated subsection name")
				}
				p.next()
				if c == '"' {
					break
				}
				if c == '\\' {
					c, ok = p.peek()
					if !ok || c == '\n' {
						return "", "", p.errorf("unterminated subsection name")
					}
					p.next()
				}
				sub.WriteByte(c)
			}
			if c, ok := p.peek(); !ok || c != ']' {
				return "", "", p.errorf("bad section header: expected ] after the subsection")
			}
			p.next()
			sec := strings.ToLower(name.String())
			if sec == "" {
				return "", "", p.errorf("empty section name")
			}
			if sub.Len() == 0 {
				// [user ""] is not [user]: git names its variables
				// "user..name". Reported as section "user." it never
				// reads as the section itself.
				return sec + ".", "", nil
			}
			return sec, sub.String(), nil
		case isConfigKeyChar(c) || c == '.':
			name.WriteByte(c)
		default:
			return "", "", p.errorf("bad character %q in a section name", c)
		}
	}
}

// key reads a variable name (letters, digits, "-"), lower-cased.
func (p *configParser) key() string {
	start := p.pos
	for p.pos < len(p.src) && isConfigKeyChar(p.src[p.pos]) {
		p.pos++
	}
	return strings.ToLower(p.src[start:p.pos])
}

// value reads a value after "=": blanks around it dropped (not inside
// quotes), comments ended, escapes and continuation lines resolved.
func (p *configParser) value() (string, error) {
	var b strings.Builder
	quoted := false
	keep := 0 // length of b up to its last character that is not a trailing blank
	p.skipSpace()
	for {
		c, ok := p.peek()
		if !ok || c == '\n' {
			if quoted {
				return "", p.errorf("unterminated quoted value")
			}
			if ok {
				p.next()
			}
			return b.String()[:keep], nil
		}
		p.next()
		switch {
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String()[:keep], nil
		case !quoted && isConfigSpace(c):
			if b.Len() > 0 {
				b.WriteByte(' ') // git turns each unquoted blank into a space
			}
			continue
		case c == '"':
			quoted = !quoted
			keep = b.Len() // like any character, a quote keeps the blanks before it
			continue
		case c == '\\':
			e, ok := p.peek()
			if !ok {
				return "", p.errorf("a value ends with a lone backslash")
			}
			p.next()
			switch e {
			case '\n':
				keep = b.Len() // a continuation line; the blanks before it stay
				continue
			default:
				u, ok := gitsyntax.Unescape(e)
				if !ok {
					return "", p.errorf("bad escape \\%c in a value", e)
				}
				b.WriteByte(u)
			}
		default:
			b.WriteByte(c)
		}
		keep = b.Len()
	}
}
