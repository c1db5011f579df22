package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseItemsAndCounters(t *testing.T) {
	p, err := Parse("plan.md", doc("## Phases",
		"- [ ] **R1**: extract footnotes",
		"  - Items: 17",
		"  - Counter: footnotes in outputs/memo.md",
		"  - Counter: cites in `outputs/cites.md` matching `^\\[\\d+\\]`",
		"- [ ] **R2**: sections",
		"  - Items: intro, methods,",
		"    results appendix.b",
		"  - Counter: headings in outputs/sections.md",
	))
	require.NoError(t, err)
	r1, r2 := p.Unit("R1"), p.Unit("R2")
	assert.Equal(t, 17, r1.ItemCount)
	assert.Nil(t, r1.ItemNames)
	assert.Equal(t, 17, r1.ItemTotal())
	assert.True(t, r1.HasItem("17"))
	assert.False(t, r1.HasItem("18"))
	assert.False(t, r1.HasItem("intro"))
	assert.Equal(t, "1 to 17", r1.ItemsText())
	assert.Equal(t, []Counter{
		{Raw: "footnotes in outputs/memo.md", Name: "footnotes", Path: "outputs/memo.md"},
		{Raw: "cites in `outputs/cites.md` matching `^\\[\\d+\\]`", Name: "cites", Path: "outputs/cites.md", Match: `^\[\d+\]`},
	}, r1.Counters)
	assert.Equal(t, []string{"intro", "methods", "results", "appendix.b"}, r2.ItemNames)
	assert.Equal(t, 0, r2.ItemCount)
	assert.True(t, r2.HasItem("results"))
	assert.False(t, r2.HasItem("1"))
	assert.Equal(t, "intro, methods, results, appendix.b", r2.ItemsText())

	// Render writes them back; parsing the rendering gives the same plan.
	out := string(p.Render())
	assert.Contains(t, out, "  - Items: 17\n  - Counter: footnotes in outputs/memo.md\n  - Counter: cites in `outputs/cites.md` matching `^\\[\\d+\\]`\n")
	assert.Contains(t, out, "  - Items: intro, methods,\n    results appendix.b\n")
	q, err := Parse("plan.md", []byte(out))
	require.NoError(t, err)
	assert.Equal(t, shape(p), shape(q))

	// A unit without Items knows every valid item ID.
	u := &Unit{ID: "T1"}
	assert.False(t, u.HasItems())
	assert.True(t, u.HasItem("anything-1"))
	assert.False(t, u.HasItem("no way"))
}

func TestParseItemsAndCounterErrors(t *testing.T) {
	for _, tc := range []struct{ item, want string }{
		{"Items: 0", `tasks.md:4: T1: Items "0": "0" is not a number of items from 1 to 1000000; write the number of items ("Items: 17", items 1 to 17) or their IDs`},
		{"Items: 2000000", `"2000000" is not a number of items from 1 to 1000000`},
		{"Items: 017", `"017" is not a number of items`},
		{"Items: a, b, a", `tasks.md:4: T1: Items "a, b, a": item "a" is listed twice`},
		{"Items: a, b!", `"b!" is not an item ID`},
		{"Items: 1-5, x", `"1-5" is not an item ID`},
		{"Items:", `it gives no items`},
		{"Items: {N}", `"{N}" is not an item ID`},
		{"Counter: footnotes in ../memo.md", `tasks.md:4: T1: counter "footnotes in ../memo.md": path "../memo.md" leaves the task folder; write a path inside it without ".."`},
		{"Counter: footnotes in /etc/passwd", `path "/etc/passwd" is absolute; write it relative to the task folder`},
		{"Counter: footnotes in outputs/../../x", `leaves the task folder`},
		{"Counter: footnotes in outputs/", `path "outputs/" is a folder`},
		{"Counter: footnotes in C:/x.md", `is absolute`},
		{"Counter: footnotes", `the name must be followed by "in PATH"`},
		{"Counter: footnotes in", `the path is empty`},
		{"Counter: words in a.md", `"words" is not a built-in counter (footnotes, headings, entries, lines); add "matching REGEX"`},
		{"Counter: cites in a.md matching", `"matching" needs a regular expression`},
		{"Counter: cites in a.md matching (", `the regular expression does not compile`},
		{"Counter: cites in a.md counting x", `"counting" after the path is not understood`},
		{"Counter: in a.md", `the name must be followed by "in PATH"`},
		{"Counter: 9lives in a.md", `has no name such as footnotes`},
		{"Counter: footnotes in `a.md", `the backquote before the path is never closed`},
		{"Counter: footnotes in a\x1b[2J.md", `holds a control character`},
	} {
		_, err := Parse("tasks.md", doc("## Tasks", "", "- [ ] **T1**: a", "  - "+tc.item))
		require.Error(t, err, tc.item)
		assert.Contains(t, err.Error(), tc.want, tc.item)
	}
	_, err := Parse("tasks.md", doc("## Tasks", "- [ ] **T1**: a", "  - Items: 3", "  - Items: 4"))
	require.EqualError(t, err, `tasks.md:4: T1: "Items" is given twice (first on line 3); keep one`)
}

func TestCounterCount(t *testing.T) {
	memo := strings.Join([]string{
		"# Memo",
		"",
		"Text with a reference.[^1] And another.[^a]",
		"",
		"## Section",
		"#not a heading",
		"- one",
		"* two",
		"  - nested, not counted",
		"1. three",
		"12) four",
		"-not an entry",
		"```md",
		"# fenced, not a heading",
		"[^x]: fenced, not a footnote",
		"- fenced, not an entry",
		"```",
		"[^1]: First.",
		"   [^a]: Second, indented.\r",
		"    [^b]: code, not a footnote",
		"[^no space]: not a label",
		"",
	}, "\n")
	count := func(v string) int {
		c, err := ParseCounter(v)
		require.NoError(t, err)
		return c.Count([]byte(memo))
	}
	assert.Equal(t, 2, count("footnotes in m.md"))
	assert.Equal(t, 2, count("headings in m.md"))
	assert.Equal(t, 4, count("entries in m.md"))
	assert.Equal(t, 19, count("lines in m.md"))
	assert.Equal(t, 3, count("refs in m.md matching `^\\[\\^`"))
	assert.Equal(t, 0, Counter{Name: "footnotes"}.Count(nil))
}

// FuzzParseCounter checks that ParseCounter never panics, that what it
// accepts is a safe relative path with a known or matching counter, that
// its value reads back the same, and that counting never panics.
func FuzzParseCounter(f *testing.F) {
	for _, s := range []string{"footnotes in outputs/memo.md", "cites in `a b.md` matching `^\\[`", "lines in ../x", "x in /abs", "entries in a.md matching (", "headings in `x"} {
		f.Add(s, []byte("# a\n- b\n[^1]: c\n```\n# d\n```\n"))
	}
	f.Fuzz(func(t *testing.T, v string, data []byte) {
		c, err := ParseCounter(v)
		if err != nil {
			return
		}
		require.Empty(t, badCounterPath(c.Path))
		require.NotEmpty(t, c.Name)
		again, err := ParseCounter(c.Raw)
		require.NoError(t, err)
		require.Equal(t, c, again)
		n := c.Count(data)
		require.GreaterOrEqual(t, n, 0)
		require.LessOrEqual(t, n, strings.Count(string(data), "\n")+1)
	})
}
