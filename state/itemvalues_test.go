package state

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestItemsMarkDeclaredStates(t *testing.T) {
	it := &Items{}
	it.Mark([]ItemMark{{ItemRange{Lo: 1, Hi: 6}, "candidate"}})
	assert.Equal(t, map[string][]string{"candidate": {"1-6"}}, it.States)
	assert.Nil(t, it.Done)
	it.Mark([]ItemMark{{ItemRange{Lo: 1, Hi: 4}, "included"}, {ItemRange{Lo: 5, Hi: 5}, ItemSkipped}, {ItemRange{Lo: 2, Hi: 2}, "level-3"}})
	assert.Equal(t, map[string][]string{"candidate": {"6"}, "included": {"1", "3-4"}, "level-3": {"2"}}, it.States)
	assert.Equal(t, []string{"5"}, it.Skipped)
	assert.Equal(t, []string{ItemSkipped, "candidate", "included", "level-3"}, it.StateNames())
	assert.Equal(t, "included", it.StateOf("3"))
	assert.Equal(t, ItemSkipped, it.StateOf("5"))
	assert.Equal(t, "", it.StateOf("7"))
	// Every item out of a state takes the state out.
	it.Mark([]ItemMark{{ItemRange{Lo: 6, Hi: 6}, "included"}, {ItemRange{Lo: 2, Hi: 2}, ItemDone}})
	assert.Equal(t, map[string][]string{"included": {"1", "3-4", "6"}}, it.States)
	assert.Equal(t, []string{"2"}, it.Done)
	it.Mark([]ItemMark{{ItemRange{Lo: 1, Hi: 6}, ItemDone}})
	assert.Nil(t, it.States)
	assert.False(t, it.Empty())
	assert.True(t, (&Items{Values: map[string]map[string]string{"1": {"a": "b"}}}).Empty(), "values alone record no item")
}

func TestItemValues(t *testing.T) {
	it := &Items{}
	it.SetValue(ItemValue{Item: "7", Name: "score", Text: "4"})
	it.SetValue(ItemValue{Item: "7", Name: "finding", Text: "Entity consolidation required"})
	it.SetValue(ItemValue{Item: "intro", Name: "score", Text: "2"})
	assert.Equal(t, "4", it.Value("7", "score"))
	assert.Equal(t, []string{"7", "intro"}, it.ValueItems())
	c := it.Clone()
	c.Values["7"]["score"] = "5"
	assert.Equal(t, "4", it.Value("7", "score"), "Clone copies the values")
	it.SetValue(ItemValue{Item: "7", Name: "score"})
	it.SetValue(ItemValue{Item: "7", Name: "finding"})
	assert.Equal(t, []string{"intro"}, it.ValueItems(), "an item without values leaves")
	it.SetValue(ItemValue{Item: "intro", Name: "score"})
	assert.Nil(t, it.Values)
	assert.Equal(t, "", (*Items)(nil).Value("7", "score"))
}

func TestCheckValueAndNames(t *testing.T) {
	assert.Equal(t, "", CheckValue("Entity consolidation required — $12M"))
	assert.Contains(t, CheckValue("a\nb"), "one line")
	assert.Contains(t, CheckValue("a\x1b[31m"), "control character")
	assert.Contains(t, CheckValue(strings.Repeat("x", MaxValue+1)), "at most 500")
	for name, ok := range map[string]bool{"score": true, "key_finding": true, "level-3": true, "Words": true,
		"3d": false, "": false, "a b": false, "a.b": false, strings.Repeat("a", MaxName+1): false} {
		assert.Equal(t, ok, ValidName(name), name)
	}
	for name, ok := range map[string]bool{"candidate": true, "Level-4-Complete": true, "x_1": true,
		"-x": false, "1x": false, "a b": false, strings.Repeat("a", MaxItemState+1): false} {
		assert.Equal(t, ok, ValidItemStateName(name), name)
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]string{"812": "812", "012.50": "12.5", "-3": "-3", "-0": "0", "87.5": "87.5", " 7 ": "7", "0.000": "0"} {
		got, err := ParseNumber(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "1e3", "NaN", "Inf", "1,000", "12.", ".5", "+3", "1e15", "1000000000000000", "x"} {
		_, err := ParseNumber(bad)
		assert.Error(t, err, bad)
	}
}

func TestItemStatesValuesMetricsEncode(t *testing.T) {
	s := New(Knowledge, "Review", "review", "2026-01-14T10:00:00Z")
	u := &Unit{ID: "R1", Status: InProgress, IterationsUsed: Ptr(2)}
	u.Items = &Items{Total: Ptr(6)}
	u.Items.Mark([]ItemMark{{ItemRange{Lo: 1, Hi: 4}, "level-3"}, {ItemRange{Lo: 5, Hi: 6}, "included"}})
	u.Items.SetValue(ItemValue{Item: "2", Name: "score", Text: "4"})
	u.Items.SetValue(ItemValue{Item: "10", Name: "finding", Text: `says "no"`})
	u.Items.SetValue(ItemValue{Item: "2", Name: "finding", Text: "Entity consolidation required"})
	u.SetMetric(Metric{Name: "words", Value: "2847"})
	u.SetMetric(Metric{Name: "findings", Value: "8.5"})
	s.Units["R1"] = u
	s.Units["R2"] = &Unit{ID: "R2", Status: Pending}
	out := string(s.Encode())
	assert.Contains(t, out, `      "items": {
        "states": {
          "included": ["5-6"],
          "level-3": ["1-4"]
        },
        "total": 6,
        "values": {
          "2": { "finding": "Entity consolidation required", "score": "4" },
          "10": { "finding": "says \"no\"" }
        }
      },
      "metrics": {
        "findings": 8.5,
        "words": 2847
      }
    },
    "R2": { "status": "pending" }`)
	back, err := Decode([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, out, string(back.Encode()), "decode and encode change no byte")
	assert.Equal(t, u.Items.States, back.Units["R1"].Items.States)
	assert.Equal(t, u.Items.Values, back.Units["R1"].Items.Values)
	assert.Equal(t, u.Metrics, back.Units["R1"].Metrics)
	c := back.Clone()
	c.Units["R1"].Metrics["words"] = "1"
	c.Units["R1"].Items.States["included"][0] = "9"
	assert.Equal(t, "2847", back.Units["R1"].Metrics["words"], "Clone copies the metrics")
	assert.Equal(t, "5-6", back.Units["R1"].Items.States["included"][0], "Clone copies the states")
	// A metric alone makes a unit multi-line.
	s.Units["R2"].SetMetric(Metric{Name: "words", Value: "0"})
	assert.Contains(t, string(s.Encode()), "\"R2\": {\n      \"status\": \"pending\",\n      \"metrics\": {\n        \"words\": 0\n      }\n    }")
}

func TestItemStatesValuesMetricsDecodeErrors(t *testing.T) {
	for unit, want := range map[string]string{
		`"items": {"states": []}`:                   `phases.R1.items.states: [] is not an object`,
		`"items": {"states": {"done": ["1"]}}`:      `phases.R1.items.states.done: "done" is not a declared item state`,
		`"items": {"states": {"lvl 3": ["1"]}}`:     `phases.R1.items.states.lvl 3: "lvl 3" is not a declared item state`,
		`"items": {"states": {"level-3": "1"}}`:     `phases.R1.items.states.level-3: "1" is not a list of items`,
		`"items": {"states": {"level-3": ["3-1"]}}`: `runs backwards`,
		`"items": {"values": {"1-3": {"a": "b"}}}`:  `phases.R1.items.values.1-3: "1-3" is not an item ID`,
		`"items": {"values": {"1": {"a b": "c"}}}`:  `phases.R1.items.values.1.a b: "a b" is not a value's name`,
		`"items": {"values": {"1": {"score": 4}}}`:  `phases.R1.items.values.1.score: 4 is not a string`,
		`"items": {"values": {"1": []}}`:            `phases.R1.items.values.1: [] is not an object`,
		`"metrics": {"words": "812"}`:               `phases.R1.metrics.words: "812" is not a number`,
		`"metrics": {"words": 1e3}`:                 `phases.R1.metrics.words: 1e3 is not a number`,
		`"metrics": {"3d": 1}`:                      `phases.R1.metrics.3d: "3d" is not a metric's name`,
		`"metrics": [1]`:                            `phases.R1.metrics: [1] is not an object`,
		`"metrics": {"words": 1, "words": 2}`:       `phases.R1.metrics.words: the key appears twice`,
	} {
		data := fmt.Sprintf(`{"task":"x","slug":"x","mode":"knowledge","phase":"plan","phases":{"R1":{"status":"pending",%s}}}`, unit)
		_, err := Decode([]byte(data))
		require.Error(t, err, unit)
		assert.Contains(t, err.Error(), want, unit)
	}
}
