package state

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseItemRange(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ItemRange
		err  string
	}{
		{in: "12", want: ItemRange{Lo: 12, Hi: 12}},
		{in: "1-12", want: ItemRange{Lo: 1, Hi: 12}},
		{in: "intro", want: ItemRange{Name: "intro"}},
		{in: "report-3.md", want: ItemRange{Name: "report-3.md"}},
		{in: "007", err: `item "007": items are numbered from 1 to 1000000, without leading zeros`},
		{in: "a7", want: ItemRange{Name: "a7"}},
		{in: "12-1", err: `item range "12-1" runs backwards; write it as 1-12`},
		{in: "0-3", err: "items are numbered from 1"},
		{in: "0", err: `item "0": items are numbered`},
		{in: "2000000", err: `item "2000000": items are numbered from 1 to 1000000`},
		{in: "-x", err: "is not an item ID"},
		{in: "a b", err: "is not an item ID"},
		{in: "a\x1b[31m", err: `"a\x1b[31m" is not an item ID`},
		{in: "", err: "is not an item ID"},
		{in: string(make([]byte, 65)), err: "is not an item ID"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseItemRange(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.in, got.String())
		})
	}
}

func TestItemSetRangesStaySmall(t *testing.T) {
	var s ItemSet
	for i := 1000; i >= 1; i-- { // out of order on purpose
		s.Add(ItemRange{Lo: i, Hi: i})
	}
	s.Add(ItemRange{Name: "intro"})
	s.Add(ItemRange{Name: "appendix"})
	assert.Equal(t, []string{"1-1000", "appendix", "intro"}, s.List())
	assert.Equal(t, 1002, s.Len())
	s.Remove(ItemRange{Lo: 10, Hi: 20})
	s.Remove(ItemRange{Name: "intro"})
	assert.Equal(t, []string{"1-9", "21-1000", "appendix"}, s.List())
	assert.True(t, s.Has("9"))
	assert.False(t, s.Has("10"))
	assert.True(t, s.Has("1000"))
	assert.False(t, s.Has("1001"))
	assert.True(t, s.Has("appendix"))
	assert.False(t, s.Has("intro"))
	s.Add(ItemRange{Lo: 10, Hi: 20})
	assert.Equal(t, []string{"1-1000", "appendix"}, s.List())
	assert.Equal(t, []string{"1-17"}, s.Within(17, nil).List())
	assert.Equal(t, []string{"1-1000", "appendix"}, s.Within(5000, func(n string) bool { return n == "appendix" }).List())
}

func TestItemSetFirstMissing(t *testing.T) {
	var s ItemSet
	assert.Equal(t, 1, s.FirstMissing(17))
	s.Add(ItemRange{Lo: 2, Hi: 5})
	assert.Equal(t, 1, s.FirstMissing(17))
	s.Add(ItemRange{Lo: 1, Hi: 1})
	assert.Equal(t, 6, s.FirstMissing(17))
	assert.Equal(t, 0, s.FirstMissing(5))
	var o ItemSet
	o.Add(ItemRange{Lo: 6, Hi: 17})
	o.Add(ItemRange{Name: "x"})
	u := s.Union(o)
	assert.Equal(t, []string{"1-17", "x"}, u.List())
	assert.Equal(t, 0, u.FirstMissing(17))
	assert.Equal(t, 18, u.FirstMissing(20))
}

func TestItemsMarkLaterWins(t *testing.T) {
	it := &Items{}
	it.Mark([]ItemMark{{ItemRange{Lo: 1, Hi: 12}, ItemDone}, {ItemRange{Lo: 13, Hi: 13}, ItemSkipped}})
	it.Mark([]ItemMark{{ItemRange{Lo: 5, Hi: 5}, ItemFailed}, {ItemRange{Name: "x"}, ItemDone}})
	assert.Equal(t, []string{"1-4", "6-12", "x"}, it.Done)
	assert.Equal(t, []string{"13"}, it.Skipped)
	assert.Equal(t, []string{"5"}, it.Failed)
	it.Mark([]ItemMark{{ItemRange{Lo: 5, Hi: 5}, ItemDone}, {ItemRange{Lo: 13, Hi: 13}, ItemDone}})
	assert.Equal(t, []string{"1-13", "x"}, it.Done)
	assert.Nil(t, it.Skipped)
	assert.Nil(t, it.Failed)
}

func TestItemsEncodeDecodeLossless(t *testing.T) {
	in := `{
  "task": "x",
  "slug": "x",
  "mode": "knowledge",
  "phase": "execute",
  "phases": {
    "R1": {
      "status": "in_progress",
      "iterations_used": 2,
      "items": {
        "done": ["1-12", "intro"],
        "failed": [],
        "mine": {
          "a": 1
        },
        "total": 17
      }
    },
    "R2": { "status": "pending" }
  }
}
`
	s, err := Decode([]byte(in))
	require.NoError(t, err)
	it := s.Units["R1"].Items
	require.NotNil(t, it)
	assert.Equal(t, []string{"1-12", "intro"}, it.Done)
	assert.Equal(t, []string{}, it.Failed)
	assert.Equal(t, 17, Val(it.Total))
	assert.Equal(t, in, string(s.Encode()))
	c := s.Clone()
	c.Units["R1"].Items.Done[0] = "1-2"
	assert.Equal(t, "1-12", s.Units["R1"].Items.Done[0], "Clone copies the lists")

	// A new ledger takes its canonical place at the end of the unit.
	s.Units["R2"].Items = &Items{Done: []string{"3"}, Total: Ptr(4)}
	out := string(s.Encode())
	assert.Contains(t, out, "\"R2\": {\n      \"status\": \"pending\",\n      \"items\": {\n        \"done\": [\"3\"],\n        \"total\": 4\n      }\n    }")
	again, err := Decode([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, out, string(again.Encode()))
}

func TestItemsDecodeErrors(t *testing.T) {
	for items, want := range map[string]string{
		`[]`:                      `phases.R1.items: [] is not an object`,
		`{"done": "1-12"}`:        `phases.R1.items.done: "1-12" is not a list of items`,
		`{"done": ["12-1"]}`:      `phases.R1.items.done: item range "12-1" runs backwards`,
		`{"skipped": ["a b"]}`:    `phases.R1.items.skipped: "a b" is not an item ID`,
		`{"total": -1}`:           `phases.R1.items.total: -1 is not a whole number`,
		`{"done": [], "done":[]}`: `phases.R1.items.done: the key appears twice`,
	} {
		data := fmt.Sprintf(`{"task":"x","slug":"x","mode":"knowledge","phase":"plan","phases":{"R1":{"status":"pending","items":%s}}}`, items)
		_, err := Decode([]byte(data))
		require.Error(t, err, items)
		assert.Contains(t, err.Error(), want, items)
	}
}

// TestItemSetAgainstAModel changes a set at random and compares it with
// a plain map of numbers after every step.
func TestItemSetAgainstAModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for round := 0; round < 200; round++ {
		var s ItemSet
		model := map[int]bool{}
		for step := 0; step < 60; step++ {
			lo := 1 + r.IntN(50)
			hi := lo + r.IntN(8)
			add := r.IntN(3) > 0
			if add {
				s.Add(ItemRange{Lo: lo, Hi: hi})
			} else {
				s.Remove(ItemRange{Lo: lo, Hi: hi})
			}
			for n := lo; n <= hi; n++ {
				if add {
					model[n] = true
				} else {
					delete(model, n)
				}
			}
			require.Equal(t, len(model), s.Len())
			for n := 0; n <= 60; n++ {
				require.Equal(t, model[n], s.Has(fmt.Sprint(n)), "round %d step %d item %d: %v", round, step, n, s.List())
			}
			for i := 1; i < len(s.spans); i++ {
				require.Greater(t, s.spans[i].lo, s.spans[i-1].hi+1, "spans stay merged: %v", s.List())
			}
		}
	}
}

func TestItemSetMinusIntersect(t *testing.T) {
	var a, b ItemSet
	a.Add(ItemRange{Lo: 1, Hi: 10})
	a.Add(ItemRange{Name: "intro"})
	a.Add(ItemRange{Name: "x"})
	b.Add(ItemRange{Lo: 3, Hi: 4})
	b.Add(ItemRange{Lo: 9, Hi: 20})
	b.Add(ItemRange{Name: "x"})
	assert.Equal(t, []string{"1-2", "5-8", "intro"}, a.Minus(b).List())
	assert.Equal(t, []string{"3-4", "9-10", "x"}, a.Intersect(b).List())
	assert.Equal(t, []string{"1-10", "intro", "x"}, a.List(), "a is unchanged")
}
