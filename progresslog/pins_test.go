package progresslog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/state"
)

func TestPinsRoundTrip(t *testing.T) {
	pins := []state.OutputPin{
		{Path: "outputs/survey.md", Bytes: 3047, Blob: "23995d357b9956133c308eea9e95d927e4b4e922"},
		{Path: " odd: name.md", Bytes: 0, Blob: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
	}
	v := FormatPins(pins)
	assert.Contains(t, v, "outputs/survey.md: 3047 bytes, blob 23995d357b9956133c308eea9e95d927e4b4e922")
	got, err := ParsePins(v)
	require.NoError(t, err)
	assert.Equal(t, pins, got)

	e := Entry{Kind: KindPinned, Unit: "R1", Stamp: "2026-02-03T14:46:00Z", Fields: []Field{{Name: "Reason", Value: "cut"}, {Name: FieldOutputs, Value: v}}}
	data, err := RenderEntry(e, "")
	require.NoError(t, err)
	out := Parse(data)
	require.Len(t, out.Entries, 1)
	assert.Equal(t, KindPinned, out.Entries[0].Kind)
	assert.Equal(t, "R1", out.Entries[0].Unit)
	back, _ := out.Entries[0].Field(FieldOutputs)
	got, err = ParsePins(back)
	require.NoError(t, err)
	assert.Equal(t, pins, got)
}

func TestParsePinsBad(t *testing.T) {
	for _, v := range []string{
		"outputs/survey.md",
		"outputs/survey.md: many bytes, blob 23995d357b9956133c308eea9e95d927e4b4e922",
		"outputs/survey.md: 12 bytes, blob 23995d",
		`"unterminated: 12 bytes, blob 23995d357b9956133c308eea9e95d927e4b4e922`,
	} {
		_, err := ParsePins(v)
		assert.Error(t, err, v)
	}
}
