package runs

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// Output limits of a Result.
const (
	// MaxOutput is the most output a Result keeps (plus one marker line).
	MaxOutput = 256 << 10
	// HeadKeep is how much of the start of the output a capped Result keeps.
	HeadKeep = 64 << 10
	// TailLines is the most lines Result.Tail holds.
	TailLines = 40
	// TailBytes is the most bytes Result.Tail holds.
	TailBytes = 4 << 10
)

// tailKeep is how much of the end of the output a capped Result keeps.
const tailKeep = MaxOutput - HeadKeep

// capture collects raw output: the first HeadKeep bytes and a ring of the
// last tailKeep bytes after those. It copies what it is given to tee.
// It is used by one goroutine at a time.
type capture struct {
	tee      io.Writer
	head     []byte
	ring     []byte // len(ring) == tailKeep once it is full
	ringNext int    // where the next byte goes once the ring is full
	total    int64
	newlines int
}

// Write collects p; it never fails.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	if c.tee != nil && !c.teeTo(p) {
		c.tee = nil // a broken tee must not stop the capture
	}
	c.total += int64(n)
	c.newlines += bytes.Count(p, []byte{'\n'})
	if room := HeadKeep - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= tailKeep {
		c.ring = append(c.ring[:0], p[len(p)-tailKeep:]...)
		c.ringNext = 0
		return n, nil
	}
	if room := tailKeep - len(c.ring); room > 0 {
		k := min(room, len(p))
		c.ring = append(c.ring, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(c.ring[c.ringNext:], p)
		p = p[k:]
		c.ringNext = (c.ringNext + k) % tailKeep
	}
	return n, nil
}

// teeTo copies p to c.tee and reports whether that worked; it survives a
// tee that panics.
func (c *capture) teeTo(p []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, err := c.tee.Write(p)
	return err == nil
}

// tail returns the kept end of the output in order.
func (c *capture) tail() []byte {
	if len(c.ring) < tailKeep || c.ringNext == 0 {
		return c.ring
	}
	t := make([]byte, 0, tailKeep)
	t = append(t, c.ring[c.ringNext:]...)
	return append(t, c.ring[:c.ringNext]...)
}

// fill sets r.Output, r.Truncated, r.Bytes, r.Lines and r.Tail from what c
// collected.
func (c *capture) fill(r *Result) {
	r.Bytes = c.total
	if c.total <= MaxOutput {
		all := append(append([]byte(nil), c.head...), c.tail()...)
		r.Output = Sanitize(all)
		if len(r.Output) > MaxOutput { // invalid UTF-8 grew it
			r.Output = capText(r.Output, r.Output, 0)
			r.Truncated = true
		}
	} else {
		head, tail := c.head, c.tail()
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		}
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
			tail = tail[i+1:]
		}
		left := c.total - int64(len(head)) - int64(len(tail))
		r.Output = capText(Sanitize(head), Sanitize(tail), left)
		r.Truncated = true
	}
	r.Lines = c.newlines
	if n := len(r.Output); n > 0 && r.Output[n-1] != '\n' {
		r.Lines++
	}
	r.Tail = tailOf(r.Output)
}

// capText joins the sanitized head and tail of an output, each cut at a line
// boundary to fit HeadKeep and tailKeep bytes, with a marker line saying
// how many bytes were left out: left, plus what the cuts remove.
func capText(head, tail []byte, left int64) []byte {
	if len(head) > HeadKeep {
		cut := cutHead(head, HeadKeep)
		left += int64(len(head) - len(cut))
		head = cut
	}
	if len(tail) > tailKeep {
		cut := cutTail(tail, tailKeep)
		left += int64(len(tail) - len(cut))
		tail = cut
	}
	out := make([]byte, 0, len(head)+len(tail)+64)
	out = append(out, head...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = fmt.Appendf(out, "[itr: %d bytes of output left out]\n", left)
	return append(out, tail...)
}

// cutHead returns the longest prefix of b of at most n bytes that ends at a
// line boundary, or, when b's first line is longer than n, at a character
// boundary.
func cutHead(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 {
		return b[:i+1]
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// cutTail returns the longest suffix of b of at most n bytes that starts at
// a line boundary, or, when b's last line is longer than n, at a character
// boundary.
func cutTail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	start := len(b) - n
	if i := bytes.IndexByte(b[start:len(b)-1], '\n'); i >= 0 {
		return b[start+i+1:]
	}
	for start < len(b) && !utf8.RuneStart(b[start]) {
		start++
	}
	return b[start:]
}

// tailOf returns the last TailLines lines, at most TailBytes bytes, of the
// sanitized output, without a trailing newline.
func tailOf(out []byte) string {
	out = bytes.TrimRight(out, "\n")
	start, end := 0, len(out)
	for n := 0; n < TailLines; n++ {
		i := bytes.LastIndexByte(out[:end], '\n')
		if i < 0 {
			break
		}
		end = i
		if n == TailLines-1 {
			start = i + 1
		}
	}
	return string(cutTail(out[start:], TailBytes))
}
