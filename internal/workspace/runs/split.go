package runs

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// needsShell is the advice every refusal of shell syntax ends with.
const needsShell = "it needs a shell: write the check as sh -c '...'"

// ErrNeedsShell is wrapped by the errors SplitCommand returns for shell
// syntax it cannot honour without a shell.
var ErrNeedsShell = errors.New(needsShell)

// SplitCommand splits a command line written in a plan (for example the
// "go test ./auth/..." of "Verify: go test ./auth/...") into argv the way a
// POSIX shell splits words, without running a shell.
//
// Blanks (space, tab) separate words. Text in single quotes is literal. Text
// in double quotes keeps its text, with a backslash escaping only $ ` " \ and
// newline (a backslash-newline is removed); a $ that would start an
// expansion and a ` are refused inside double quotes. Outside quotes a
// backslash escapes the next character (a backslash-newline is removed).
//
// SplitCommand refuses, with an error naming the character and its 1-based
// column and wrapping ErrNeedsShell, any unquoted shell syntax it cannot
// honour: | & ; < > ( ) $ ` * ? [ { }, a ~ or # at the start of a word, and a
// newline. An unclosed quote, an empty command and a trailing lone backslash
// are errors too.
func SplitCommand(s string) ([]string, error) {
	var (
		argv   []string
		word   strings.Builder
		inWord bool
	)
	endWord := func() {
		if inWord {
			argv = append(argv, word.String())
			word.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case ' ', '\t':
			endWord()
			i++
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed ' quote at column %d", column(s, i))
			}
			word.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 2
		case '"':
			next, err := splitDouble(s, i, &word)
			if err != nil {
				return nil, err
			}
			inWord = true
			i = next
		case '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("lone backslash at column %d ends the command", column(s, i))
			}
			if s[i+1] == '\n' {
				i += 2
				continue
			}
			word.WriteByte(s[i+1])
			inWord = true
			i += 2
		case '\n':
			return nil, fmt.Errorf("newline at column %d: %w", column(s, i), ErrNeedsShell)
		case '|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', '{', '}':
			return nil, refuse(s, i)
		case '~', '#':
			if !inWord {
				return nil, refuse(s, i)
			}
			word.WriteByte(c)
			i++
		default:
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	endWord()
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	return argv, nil
}

// splitDouble reads the double-quoted text that starts at s[open] into word
// and returns the index just past the closing quote.
func splitDouble(s string, open int, word *strings.Builder) (int, error) {
	for i := open + 1; i < len(s); {
		c := s[i]
		switch c {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 < len(s) {
				switch s[i+1] {
				case '$', '`', '"', '\\':
					word.WriteByte(s[i+1])
					i += 2
					continue
				case '\n':
					i += 2
					continue
				}
			}
			word.WriteByte(c)
			i++
		case '`':
			return 0, refuse(s, i)
		case '$':
			if i+1 < len(s) && startsExpansion(s[i+1]) {
				return 0, refuse(s, i)
			}
			word.WriteByte(c)
			i++
		default:
			word.WriteByte(c)
			i++
		}
	}
	return 0, fmt.Errorf("unclosed \" quote at column %d", column(s, open))
}

// startsExpansion reports whether c, following a $, makes a shell expand it.
func startsExpansion(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("_{(@*#?$!-", c) >= 0
}

// refuse returns the error for the shell syntax at s[i].
func refuse(s string, i int) error {
	return fmt.Errorf("%q at column %d: %w", s[i:i+1], column(s, i), ErrNeedsShell)
}

// column returns the 1-based column, in characters within its line, of s[i].
func column(s string, i int) int {
	lineStart := strings.LastIndexByte(s[:i], '\n') + 1
	return utf8.RuneCountInString(s[lineStart:i]) + 1
}

// QuoteCommand renders argv as one line that SplitCommand reads back
// exactly, quoting only the words that need it. A word that needs quoting is
// put in single quotes, a single quote inside it becoming the four characters
// quote, backslash, quote, quote; an empty word becomes two single quotes.
// For example:
//
//	{"go", "test", "./..."}  renders as  go test ./...
//	{"sh", "-c", "a && b"}   renders as  sh -c 'a && b'
//	{"echo", "it's", ""}     renders as  echo 'it'\''s' ''
func QuoteCommand(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !needsQuote(w) {
			b.WriteString(w)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// needsQuote reports whether w must be quoted to survive SplitCommand (or
// would be hard to read unquoted).
func needsQuote(w string) bool {
	if w == "" || !utf8.ValidString(w) {
		return true
	}
	for i, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("-_./:=@%+,^", r):
		case r == '~' || r == '#':
			if i == 0 {
				return true
			}
		case r >= utf8.RuneSelf && unicode.IsPrint(r) && !unicode.IsSpace(r):
		default:
			return true
		}
	}
	return false
}
