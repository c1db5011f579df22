package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
)

// maxLine is the longest line (with its newline) the server takes: the
// SDK's own limit on one message, which drain enforces before the SDK sees
// the line (the SDK would end the session on it).
const maxLine = 16 << 20

// lineReader reads newline-delimited messages with a bound on each: a
// line up to max bytes comes back whole; a longer one is read to its end
// without being kept, and only its length and the id it carries come back.
type lineReader struct {
	r   *bufio.Reader
	max int
}

// longLine is what is kept of a line over the bound.
type longLine struct {
	size int64           // its length in bytes, newline included
	id   json.RawMessage // its top-level "id" when one could be read, else nil
}

// next returns the next line (with its newline, when it has one), or the
// long line it skipped; err is the reader's error (io.EOF at the end), set
// with the last line when the input ends without a newline.
func (lr *lineReader) next() (line []byte, long *longLine, err error) {
	var buf []byte
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(buf)+len(chunk) > lr.max {
			long, err := lr.skip(buf, chunk, err)
			return nil, long, err
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, nil, err
		}
	}
}

// skip reads a long line to its end, given what was read of it (head, then
// chunk and the error that came with chunk), scanning for its id; err is
// the error of its last read (nil when it ended with a newline).
func (lr *lineReader) skip(head, chunk []byte, err error) (*longLine, error) {
	var s idScanner
	s.feed(head)
	s.feed(chunk)
	size := int64(len(head) + len(chunk))
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = lr.r.ReadSlice('\n')
		s.feed(chunk)
		size += int64(len(chunk))
	}
	return &longLine{size: size, id: s.result()}, err
}

// idScanner finds the top-level "id" of a JSON object fed to it in pieces,
// keeping nothing but the id's bytes (up to maxID): a state machine over
// strings, escapes and nesting, so that an "id" inside params or inside a
// string is not taken for the message's.
type idScanner struct {
	started bool // the first non-space byte was seen
	object  bool // ... and it opened an object
	depth   int
	inStr   bool
	escape  bool
	isKey   bool   // the string being read (or just read) at depth 1 is a key
	key     []byte // that key, up to a few bytes
	keyLong bool
	want    bool   // the value being read at depth 1 is the id's
	val     []byte // the id's bytes so far
	valLong bool
	id      []byte // the last complete id
}

// maxID is the most bytes of an id the scanner keeps; a longer id is not
// read.
const maxID = 256

func (s *idScanner) feed(p []byte) {
	for _, c := range p {
		s.step(c)
	}
}

func (s *idScanner) step(c byte) {
	if !s.started {
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			return
		}
		s.started, s.object = true, c == '{'
	}
	if !s.object {
		return
	}
	if s.want && (s.depth > 1 || s.inStr || (c != ',' && c != '}')) {
		s.keep(c)
	}
	if s.inStr {
		s.stepString(c)
		return
	}
	switch c {
	case '"':
		s.inStr = true
		if s.depth == 1 && s.isKey {
			s.key, s.keyLong = s.key[:0], false
		}
	case '{', '[':
		s.depth++
		if s.depth == 1 {
			s.isKey = true
		}
	case '}', ']':
		if s.depth == 1 {
			s.endValue()
		}
		s.depth--
	case ':':
		if s.depth == 1 {
			s.isKey = false
			s.want = !s.keyLong && string(s.key) == "id"
			s.val, s.valLong = s.val[:0], false
		}
	case ',':
		if s.depth == 1 {
			s.endValue()
			s.isKey = true
		}
	}
}

// stepString reads byte c inside a string.
func (s *idScanner) stepString(c byte) {
	switch {
	case s.escape:
		s.escape = false
	case c == '\\':
		s.escape = true
	case c == '"':
		s.inStr = false
		return
	}
	if s.depth == 1 && s.isKey {
		if len(s.key) < 8 {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
	}
}

// keep adds c to the id being read.
func (s *idScanner) keep(c byte) {
	if len(s.val) < maxID {
		s.val = append(s.val, c)
	} else {
		s.valLong = true
	}
}

// endValue closes the value read at depth 1.
func (s *idScanner) endValue() {
	if s.want && !s.valLong {
		s.id = append(s.id[:0], bytes.TrimSpace(s.val)...)
	}
	s.want = false
}

// result is the id found: a string or a number as JSON, else nil.
func (s *idScanner) result() json.RawMessage {
	if len(s.id) == 0 || !json.Valid(s.id) {
		return nil
	}
	switch s.id[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return json.RawMessage(bytes.Clone(s.id))
	}
	return nil
}
