package progresslog

import (
	"bytes"
	"unicode/utf8"
)

// CharsPerToken is how many characters count as one token when the size
// of a log is measured against a reader's limit (a common rule of thumb
// for English text and Markdown).
const CharsPerToken = 4

// Tokens is the size of text in tokens at CharsPerToken characters each,
// rounded up.
func Tokens(text []byte) int {
	n := utf8.RuneCount(text)
	return (n + CharsPerToken - 1) / CharsPerToken
}

// LastSummary returns the index in entries of the newest Summary entry,
// -1 when there is none.
func LastSummary(entries []Entry) int {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Kind == KindSummary {
			return i
		}
	}
	return -1
}

// FromLine returns data from the start of its 1-based line n on; all of
// data for n ≤ 1, nothing when data has fewer lines.
func FromLine(data []byte, n int) []byte {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil
		}
		data = data[j+1:]
	}
	return data
}
