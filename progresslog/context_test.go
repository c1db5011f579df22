package progresslog

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedContext is seed 002's context.md template, filled in.
const seedContext = `# Login page Context

**Goal:** Users sign in with an email and a password.

**Approach:** Server-rendered forms, one handler per route, tests first.

**Key files/outputs:**
- ` + "`internal/auth/login.go`" + ` — the handler
- ` + "`internal/auth/store.go`" + ` — the user store

**Patterns to follow:**
- Errors wrap with %w
- No global state

**Signals:**
- T1: the model migrates
`

func TestParseContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  string
		want  map[string]string // kind → text of the first filled-in section
		words int
		bad   int
	}{
		{"seed template, filled", seedContext, map[string]string{
			ContextApproach: "Server-rendered forms, one handler per route, tests first.",
			ContextKeyFiles: "- `internal/auth/login.go` — the handler\n- `internal/auth/store.go` — the user store",
			ContextPatterns: "- Errors wrap with %w\n- No global state",
		}, 46, 0},
		{"seed template, untouched", "# X Context\n\n**Goal:** {One sentence}\n\n**Approach:** {One sentence}\n\n**Key files/outputs:**\n- `{path}` — {description}\n\n**Patterns to follow:**\n- {Convention or style note}\n", map[string]string{}, 19, 0},
		{"headings", "# C\n\n## Approach\nTests first.\n\n## Key files\n- a.go\n\n### Patterns\n- short names\n", map[string]string{
			ContextApproach: "Tests first.", ContextKeyFiles: "- a.go", ContextPatterns: "- short names",
		}, 10, 0},
		{"label with the colon outside", "**Approach**: small steps\r\n**Conventions**: gofmt\r\n", map[string]string{
			ContextApproach: "small steps", ContextPatterns: "gofmt",
		}, 5, 0},
		{"a fence hides labels", "**Approach:** see below\n```\n**Patterns:** not a label\n```\n", map[string]string{
			ContextApproach: "see below\n```\n**Patterns:** not a label\n```",
		}, 7, 0},
		{"the title ends a section", "**Approach:** one\n# Title\ntext\n", map[string]string{ContextApproach: "one"}, 4, 0},
		{"prose only", "We are building a login page.\n", map[string]string{}, 6, 0},
		{"bad UTF-8", "**Approach:** ok\nbad \xff byte\n", map[string]string{ContextApproach: "ok\nbad \uFFFD byte"}, 4, 2},
		{"empty", "", map[string]string{}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := ParseContext([]byte(tc.data))
			got := map[string]string{}
			for _, k := range ContextKinds {
				if s := c.Section(k); s != nil {
					got[k] = s.Text
				}
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.words, c.Words)
			assert.Equal(t, tc.bad, c.BadUTF8)
		})
	}
}

func TestParseContextLabelled(t *testing.T) {
	t.Parallel()
	c := ParseContext([]byte(seedContext))
	require.True(t, c.Labelled())
	assert.Equal(t, []string{"Goal", "Approach", "Key files/outputs", "Patterns to follow", "Signals"}, labels(c))
	s := c.Section(ContextKeyFiles)
	require.NotNil(t, s)
	assert.Equal(t, 7, s.Line)
	assert.False(t, ParseContext([]byte("just prose\n")).Labelled())
	assert.True(t, ParseContext([]byte("**Approach:** {One sentence}\n")).Labelled(), "the template's labels count, filled or not")
}

func labels(c *Context) []string {
	var out []string
	for _, s := range c.Sections {
		out = append(out, s.Label)
	}
	return out
}

// FuzzParseContext: any bytes parse; sections are in file order with
// lines inside the file, their text is valid UTF-8 and holds no line of a
// later label.
func FuzzParseContext(f *testing.F) {
	f.Add([]byte(seedContext))
	f.Add([]byte("## Approach\n```\n**Key files:** x\n```\n**Patterns**: y\r\n"))
	f.Add([]byte("**Approach:** a\x00b\x1b[31m\n\xff\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := ParseContext(data)
		lines := strings.Count(string(data), "\n") + 1
		last := 0
		for _, s := range c.Sections {
			require.Greater(t, s.Line, last, "sections in file order")
			require.LessOrEqual(t, s.Line, lines)
			last = s.Line
			require.True(t, utf8.ValidString(s.Text))
			require.True(t, utf8.ValidString(s.Label))
		}
		require.GreaterOrEqual(t, c.Words, 0)
		require.LessOrEqual(t, c.Words, len(data))
		if utf8.Valid(data) {
			require.Zero(t, c.BadUTF8)
		} else {
			require.Positive(t, c.BadUTF8)
		}
	})
}
