package runs

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var regexpMarker = regexp.MustCompile(`\[itr: (\d+) bytes of output left out\]\n`)

// captured writes chunks to a capture and returns the Result it fills.
func captured(chunks ...[]byte) Result {
	c := &capture{}
	for _, ch := range chunks {
		_, _ = c.Write(ch)
	}
	var r Result
	c.fill(&r)
	return r
}

func TestCaptureSmall(t *testing.T) {
	r := captured([]byte("a\n"), []byte("b"))
	assert.Equal(t, "a\nb", string(r.Output))
	assert.False(t, r.Truncated)
	assert.EqualValues(t, 3, r.Bytes)
	assert.Equal(t, 2, r.Lines)
	assert.Equal(t, "a\nb", r.Tail)

	r = captured([]byte("x\n\n\n"))
	assert.Equal(t, 3, r.Lines)
	assert.Equal(t, "x", r.Tail)
}

func TestCaptureExactlyMax(t *testing.T) {
	line := []byte(strings.Repeat("z", 1023) + "\n")
	all := bytes.Repeat(line, MaxOutput/len(line))
	r := captured(all)
	assert.False(t, r.Truncated)
	assert.Equal(t, all, r.Output)
	r = captured(all, []byte("!\n"))
	assert.True(t, r.Truncated)
	assert.True(t, bytes.HasSuffix(r.Output, []byte("z\n!\n")))
}

func TestCaptureRingInPieces(t *testing.T) {
	// Many small writes wrap the ring many times.
	var chunks [][]byte
	var want bytes.Buffer
	for i := range 60000 {
		ch := []byte(strings.Repeat("ab", i%7) + "\n")
		chunks = append(chunks, ch)
		want.Write(ch)
	}
	r := captured(chunks...)
	require.True(t, r.Truncated)
	m := regexpMarker.FindIndex(r.Output)
	require.NotNil(t, m)
	assert.True(t, bytes.HasPrefix(want.Bytes(), r.Output[:m[0]]), "head %d bytes: %q", m[0], r.Output[max(0, m[0]-40):m[0]])
	assert.True(t, bytes.HasSuffix(want.Bytes(), r.Output[m[1]:]))
	assert.LessOrEqual(t, len(r.Output), MaxOutput+100)
	assert.Equal(t, 60000, r.Lines)
}

func TestCaptureOneHugeLine(t *testing.T) {
	r := captured(bytes.Repeat([]byte("é"), MaxOutput))
	assert.True(t, r.Truncated)
	assert.True(t, utf8.Valid(r.Output))
	assert.LessOrEqual(t, len(r.Output), MaxOutput+100)
	assert.Equal(t, 1, r.Lines)
	assert.LessOrEqual(t, len(r.Tail), TailBytes)
	assert.True(t, utf8.ValidString(r.Tail))
}

func TestCaptureInvalidUTF8Grows(t *testing.T) {
	// Each invalid byte becomes three; the cap still holds.
	r := captured(bytes.Repeat([]byte("\xff\xfe\n"), 60000))
	assert.True(t, r.Truncated)
	assert.LessOrEqual(t, len(r.Output), MaxOutput+100)
	assert.True(t, utf8.Valid(r.Output))
	assert.Equal(t, 60000, r.Lines)
	r = captured(bytes.Repeat([]byte("\xff\xfe\n"), 200000))
	assert.True(t, r.Truncated)
	assert.LessOrEqual(t, len(r.Output), MaxOutput+100)
}

func TestTailOf(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		b.WriteString(strings.Repeat("x", i) + "\n")
	}
	tail := tailOf([]byte(b.String()))
	lines := strings.Split(tail, "\n")
	assert.Len(t, lines, TailLines)
	assert.Equal(t, strings.Repeat("x", 99), lines[len(lines)-1])

	long := strings.Repeat("y", 3000)
	tail = tailOf([]byte(long + "\n" + long + "\n" + long + "\n"))
	assert.Equal(t, long, tail)

	assert.Equal(t, "", tailOf(nil))
	assert.Equal(t, "a", tailOf([]byte("a\n\n")))
}
