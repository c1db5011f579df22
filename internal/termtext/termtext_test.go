package termtext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func plain(ls []Line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Plain())
	}
	return out
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		line  Line
		width int
		want  []string
	}{
		{"fits", Line{Segs: []Seg{{Text: "Task:     short"}}, Hang: 10}, 80, []string{"Task:     short"}},
		{"no width", Line{Segs: []Seg{{Text: strings.Repeat("word ", 40)}}, Hang: -1}, 0, []string{strings.Repeat("word ", 40)}},
		{"hanging indent at the mark", Line{Segs: []Seg{{Text: "Next:     continue T1 when its work is done"}}, Hang: 10}, 24,
			[]string{"Next:     continue T1", "          when its work", "          is done"}},
		{"default hang: own indent plus two", Line{Segs: []Seg{{Text: "  one two three four five"}}, Hang: -1}, 12,
			[]string{"  one two", "    three", "    four", "    five"}},
		{"a long token stays whole on its own line", Line{Segs: []Seg{{Text: "see /a/very/long/path/that/does/not/fit here"}}, Hang: -1}, 16,
			[]string{"see", "  /a/very/long/path/that/does/not/fit", "  here"}},
		{"a hang past half the width falls back", Line{Segs: []Seg{{Text: "a b c d e f"}}, Hang: 9}, 6,
			[]string{"a b c", "  d e", "  f"}},
		{"tabs are left alone", Line{Segs: []Seg{{Text: "a\tb c d e f g h"}}, Hang: -1}, 4, []string{"a\tb c d e f g h"}},
		{"alignment spaces kept inside a line", Line{Segs: []Seg{{Text: "T1    done  1  a title of words"}}, Hang: 15}, 30,
			[]string{"T1    done  1  a title of", "               words"}},
		{"wide characters count two", Line{Segs: []Seg{{Text: "漢字 漢字 漢字"}}, Hang: -1}, 10, []string{"漢字 漢字", "  漢字"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plain(Wrap(tt.line, tt.width))
			assert.Equal(t, tt.want, got)
			// No word is broken: every word of the line is whole on some line.
			for _, w := range strings.Fields(tt.line.Plain()) {
				found := false
				for _, l := range got {
					for _, f := range strings.Fields(l) {
						found = found || f == w
					}
				}
				assert.True(t, found || strings.Contains(tt.line.Plain(), "\t"), "word %q broken", w)
			}
		})
	}
}

func TestWrapKeepsStyles(t *testing.T) {
	l := Line{Segs: []Seg{{Text: "Current:", Style: "B"}, {Text: "  T1 "}, {Text: "in_progress", Style: "b"}, {Text: ", iteration 2 of many more"}}, Hang: 10}
	got := Wrap(l, 36)
	assert.Equal(t, []string{"BCurrent:R  T1 bin_progressR, iteration", "          2 of many more"}, []string{
		strings.ReplaceAll(Render(got[0], true), Reset, "R"), strings.ReplaceAll(Render(got[1], true), Reset, "R"),
	})
	assert.Equal(t, "Current:  T1 in_progress, iteration", Render(got[0], false))
}
