package progresslog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

func TestParseItems(t *testing.T) {
	marks, err := ParseItems("1-12=done, 13=skipped,intro=failed\n  14 appendix.b")
	require.NoError(t, err)
	assert.Equal(t, []state.ItemMark{
		{Range: state.ItemRange{Lo: 1, Hi: 12}, State: state.ItemDone},
		{Range: state.ItemRange{Lo: 13, Hi: 13}, State: state.ItemSkipped},
		{Range: state.ItemRange{Name: "intro"}, State: state.ItemFailed},
		{Range: state.ItemRange{Lo: 14, Hi: 14}, State: state.ItemDone},
		{Range: state.ItemRange{Name: "appendix.b"}, State: state.ItemDone},
	}, marks)
	assert.Equal(t, "1-12=done, 13=skipped, intro=failed, 14=done, appendix.b=done", FormatItems(marks))

	// A state the plan declares reads too; the rule book checks it.
	marks, err = ParseItems("1-4=level-3, 5=Included")
	require.NoError(t, err)
	assert.Equal(t, []state.ItemMark{{Range: state.ItemRange{Lo: 1, Hi: 4}, State: "level-3"}, {Range: state.ItemRange{Lo: 5, Hi: 5}, State: "Included"}}, marks)

	for in, want := range map[string]string{
		"":              "no items given",
		" , ":           "no items given",
		"3=fin.ished":   `"fin.ished" is not an item state`,
		"3=2nd":         `item "3=2nd": "2nd" is not an item state; write ID=done, ID=skipped, ID=failed or ID=STATE for a state the plan declares`,
		"3=":            `"" is not an item state`,
		"=done":         `"" is not an item ID`,
		"12-3":          `item range "12-3" runs backwards`,
		"a\x00b":        `"a\x00b" is not an item ID`,
		"x\x1b[2J=done": `"x\x1b[2J" is not an item ID`,
	} {
		_, err := ParseItems(in)
		require.Error(t, err, "%q", in)
		assert.Contains(t, err.Error(), want, "%q", in)
	}
}

// FuzzParseItems checks that ParseItems never panics and that what it
// reads survives FormatItems: the same marks read back, and formatting is
// stable.
func FuzzParseItems(f *testing.F) {
	for _, s := range []string{"1-12=done, 13=skipped", "intro=failed\n14", "3=finished", "0-3", "a-b-c=skipped", "1000000", "x=done=done", ",, ,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		marks, err := ParseItems(v)
		if err != nil {
			require.Nil(t, marks)
			return
		}
		out := FormatItems(marks)
		again, err := ParseItems(out)
		require.NoError(t, err, "%q", out)
		require.Equal(t, marks, again)
		require.Equal(t, out, FormatItems(again))
		for _, m := range marks {
			require.True(t, state.ValidItemStateName(m.State))
			if m.Range.Name != "" {
				require.True(t, state.ValidItemID(m.Range.Name))
			} else {
				require.LessOrEqual(t, m.Range.Lo, m.Range.Hi)
			}
		}
	})
}
