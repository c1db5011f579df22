package progresslog

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhoFields: who made an entry is written after its other fields and
// read back; an entry without them says nothing (absent is unknown); a
// field the entry has already is kept.
func TestWhoFields(t *testing.T) {
	e := Entry{Kind: KindIteration, Unit: "T2", Iteration: 1, Stamp: "2026-02-03T14:46:00Z",
		Fields: []Field{{Name: "Did", Value: "sections 1-3"}, {Name: "Commit", Value: "None"}}}
	Attribute(&e, Who{Agent: "synthesizer", Model: "sonnet", Session: " 7f3a "})
	out, err := Append(nil, e)
	require.NoError(t, err)
	assert.Equal(t, "# Progress Log\n\n## T2 - Iteration 1 - 2026-02-03T14:46:00Z\n**Did:** sections 1-3\n**Commit:** None\n**Agent:** synthesizer\n**Model:** sonnet\n**Session:** 7f3a\n", string(out))
	l := Parse(out)
	require.Len(t, l.Entries, 1)
	assert.Equal(t, Who{Agent: "synthesizer", Model: "sonnet", Session: "7f3a"}, WhoOf(l.Entries[0]))

	old := Parse([]byte("## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** x\n"))
	assert.Equal(t, Who{}, WhoOf(old.Entries[0]), "an older entry names no one")

	own := Entry{Fields: []Field{{Name: "agent", Value: "by-hand"}}}
	Attribute(&own, Who{Agent: "me", Model: "opus"})
	assert.Equal(t, []Field{{Name: "agent", Value: "by-hand"}, {Name: "Model", Value: "opus"}}, own.Fields)
	Attribute(&own, Who{})
	assert.Len(t, own.Fields, 2, "nothing known, nothing added")
}

// TestFilesField: at most MaxFiles paths and a count of the rest; paths
// that would not read back as themselves are quoted; the value round-trips
// through an entry.
func TestFilesField(t *testing.T) {
	assert.Equal(t, "", FormatFiles(nil, MaxFiles))
	var many []string
	for i := 1; i <= 13; i++ {
		many = append(many, fmt.Sprintf("src/f%02d.go", i))
	}
	v := FormatFiles(many, MaxFiles)
	assert.Equal(t, "src/f01.go\nsrc/f02.go\nsrc/f03.go\nsrc/f04.go\nsrc/f05.go\nsrc/f06.go\nsrc/f07.go\nsrc/f08.go\nsrc/f09.go\nsrc/f10.go\n(+3 more)", v)
	paths, more := ParseFiles(v)
	assert.Equal(t, many[:10], paths)
	assert.Equal(t, 3, more)

	odd := []string{"tab\there.md", " lead.md", `"quoted".md`, "(+1 more)", "new\nline.md", "plain name.md"}
	v = FormatFiles(odd, 0)
	e := Entry{Kind: KindIteration, Unit: "T1", Iteration: 1, Stamp: "2026-02-03T14:46:00Z", Fields: []Field{{Name: FieldFiles, Value: v}}}
	out, err := Append(nil, e)
	require.NoError(t, err)
	got, _ := Parse(out).Entries[0].Field(FieldFiles)
	paths, more = ParseFiles(got)
	assert.Equal(t, odd, paths, "every path reads back as itself:\n%s", out)
	assert.Zero(t, more)
}
