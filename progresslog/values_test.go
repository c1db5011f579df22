package progresslog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

func TestParseValues(t *testing.T) {
	vs, err := ParseValues(`7:score="4", 7:finding="Entity consolidation required, \"soon\"",IV-A:note="" intro:x="é"`)
	require.NoError(t, err)
	assert.Equal(t, []state.ItemValue{
		{Item: "7", Name: "score", Text: "4"},
		{Item: "7", Name: "finding", Text: `Entity consolidation required, "soon"`},
		{Item: "IV-A", Name: "note", Text: ""},
		{Item: "intro", Name: "x", Text: "é"},
	}, vs)
	assert.Equal(t, `7:score="4", 7:finding="Entity consolidation required, \"soon\"", IV-A:note="", intro:x="é"`, FormatValues(vs))

	for in, want := range map[string]string{
		"":                 "no values given",
		"7:score":          `value "7:score" has no "="`,
		`score="4"`:        `value "score" names no item`,
		`7:score=4`:        `value 7:score: the text is not in double quotes`,
		`7:score="4`:       `the text is not in double quotes`,
		`7:score="4"x`:     `value 7:score: "x" follows the text; separate values with commas`,
		`1-3:score="4"`:    `a value belongs to one item, not the range 1-3`,
		`007:score="4"`:    `items are numbered from 1`,
		`7:3d="4"`:         `"3d" is not a value's name`,
		`7:score="a\nb"`:   `value 7:score runs over more than one line`,
		`7:score="a\x1bb"`: `holds the control character`,
		`a b:score="4"`:    `"a b" is not an item ID`,
	} {
		_, err := ParseValues(in)
		require.Error(t, err, "%q", in)
		assert.Contains(t, err.Error(), want, "%q", in)
	}
}

func TestParseValueArg(t *testing.T) {
	for in, want := range map[string]state.ItemValue{
		"score=4":                          {Name: "score", Text: "4"},
		"finding=Entity: consolidation=ok": {Name: "finding", Text: "Entity: consolidation=ok"},
		"7:score=4":                        {Item: "7", Name: "score", Text: "4"},
		"IV-A:finding=":                    {Item: "IV-A", Name: "finding"},
	} {
		got, err := ParseValueArg(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for in, want := range map[string]string{
		"score":         `"score" has no "=": write NAME=TEXT for the item this checkpoint moves, or ID:NAME=TEXT`,
		"1-3:score=4":   "a value belongs to one item",
		"key finding=x": `"key finding" is not a value's name`,
		"x=a\nb":        "runs over more than one line",
	} {
		_, err := ParseValueArg(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

func TestParseMetrics(t *testing.T) {
	ms, err := ParseMetrics("words=812, findings=8 ratio=012.50")
	require.NoError(t, err)
	assert.Equal(t, []state.Metric{{Name: "words", Value: "812"}, {Name: "findings", Value: "8"}, {Name: "ratio", Value: "12.5"}}, ms)
	assert.Equal(t, "words=812, findings=8, ratio=12.5", FormatMetrics(ms))
	for in, want := range map[string]string{
		"":           "no metrics given",
		"words":      `metric "words" has no "="; write NAME=NUMBER, such as words=812`,
		"3d=1":       `"3d" is not a metric's name`,
		"words=many": `metric words: "many" is not a number`,
		"words=1e3":  `"1e3" is not a number`,
	} {
		_, err := ParseMetrics(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

// FuzzParseValues checks that ParseValues never panics and that what it
// reads survives FormatValues.
func FuzzParseValues(f *testing.F) {
	for _, s := range []string{`7:score="4", 7:finding="Entity consolidation required"`, `a:b=""`, `7:x="\u00e9\t"`, `1-2:x="y"`, `7:x="a"b`, `,,`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		vs, err := ParseValues(v)
		if err != nil {
			require.Nil(t, vs)
			return
		}
		out := FormatValues(vs)
		again, err := ParseValues(out)
		require.NoError(t, err, "%q", out)
		require.Equal(t, vs, again)
		require.Equal(t, out, FormatValues(again))
		for _, x := range vs {
			require.True(t, state.ValidItemID(x.Item))
			require.True(t, state.ValidName(x.Name))
			require.Empty(t, state.CheckValue(x.Text))
		}
	})
}

// FuzzParseMetrics checks that ParseMetrics never panics and that what it
// reads survives FormatMetrics.
func FuzzParseMetrics(f *testing.F) {
	for _, s := range []string{"words=812, findings=8", "x=-0.50", "a=1e3", "=3", "b=99999999999999.9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		ms, err := ParseMetrics(v)
		if err != nil {
			require.Nil(t, ms)
			return
		}
		out := FormatMetrics(ms)
		again, err := ParseMetrics(out)
		require.NoError(t, err, "%q", out)
		require.Equal(t, ms, again)
		require.Equal(t, out, FormatMetrics(again))
	})
}
