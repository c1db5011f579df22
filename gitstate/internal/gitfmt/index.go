package gitfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
)

// UnsupportedError is a repository setting or file feature that gitstate
// does not handle, and what the user can do about it.
type UnsupportedError struct {
	Setting string // e.g. "extensions.objectFormat"
	Value   string // e.g. "sha256"
	Fix     string // what the user can do
}

// Error implements error.
func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("unsupported git setting %s=%s", e.Setting, e.Value)
	if e.Fix != "" {
		msg += ": " + e.Fix
	}
	return msg
}

// Index entry layout (git's Documentation/gitformat-index.txt).
const (
	EntryFixed   = 62 // stat (40) + sha1 (20) + flags (2)
	FlagExtended = 0x4000
	FlagStage    = 0x3000
	FlagNameMask = 0x0fff
	HashLen      = 20
)

// IndexChunk is how much of the index is read or written at a time: the
// index is streamed, never held whole in memory.
const IndexChunk = 128 * 1024

// Ext is one extension block, kept as raw bytes.
type Ext struct {
	Sig  string
	Data []byte // nil for the extensions whose bytes are not kept
}

// Index is a validated index file read from src: its header, where the
// entries end and its extensions. The entries stay in src and are streamed.
type Index struct {
	Src        io.ReaderAt
	Size       int64 // of the whole file, checksum included
	Version    uint32
	Count      uint32
	EntriesEnd int64
	Exts       []Ext
}

// Entry is the position and name of one entry during a walk.
type Entry struct {
	Start, NameOff, End int64
	Fixed               []byte // the bytes from Start to NameOff; valid until the next entry
	Name                []byte // valid until the next entry
	Stage               int
}

// unsupported builds the error for an index feature gitstate will not
// patch.
func unsupported(setting, value, fix string) error {
	return &UnsupportedError{Setting: setting, Value: value, Fix: fix}
}

// seqReader reads src forward through a window, feeding every byte it reads
// (once, in order) to an optional hash.
type seqReader struct {
	src  io.ReaderAt
	end  int64 // nothing at or after end is read
	buf  []byte
	base int64 // offset of buf[0]
	n    int   // valid bytes in buf
	h    hash.Hash
}

func newSeqReader(src io.ReaderAt, start, end int64, h hash.Hash) *seqReader {
	// A small index gets a window of its own size: a fresh process pays
	// for every page it touches (the pre-commit hook reads a few KiB).
	n := int64(IndexChunk)
	if end-start < n {
		n = max(end-start, 256)
	}
	return &seqReader{src: src, end: end, buf: make([]byte, n), base: start, h: h}
}

// at returns up to n bytes at offset off (fewer only at the end). off never
// goes back before an offset passed earlier. The slice is valid until the
// next call.
func (s *seqReader) at(off int64, n int) ([]byte, error) {
	if off < s.base {
		return nil, errors.New("index reader moved backwards")
	}
	if off+int64(n) > s.end {
		n = int(s.end - off)
		if n < 0 {
			n = 0
		}
	}
	if rel := off - s.base; rel+int64(n) <= int64(s.n) {
		return s.buf[rel : rel+int64(n)], nil
	}
	// Slide the window to off and read what is missing.
	rel := off - s.base
	if rel < int64(s.n) {
		s.n = copy(s.buf, s.buf[rel:s.n])
	} else {
		// Bytes between the window and off are read (and hashed) too.
		if err := s.skip(off - (s.base + int64(s.n))); err != nil {
			return nil, err
		}
		s.n = 0
	}
	s.base = off
	if n > len(s.buf) {
		nb := make([]byte, n+IndexChunk)
		copy(nb, s.buf[:s.n])
		s.buf = nb
	}
	want := len(s.buf)
	if rem := s.end - s.base; int64(want) > rem {
		want = int(rem)
	}
	for s.n < want {
		m, err := s.src.ReadAt(s.buf[s.n:want], s.base+int64(s.n))
		if m > 0 && s.h != nil {
			s.h.Write(s.buf[s.n : s.n+m])
		}
		s.n += m
		if err != nil && s.n < want {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return s.buf[:n], nil
}

// skip reads and hashes n bytes after the window.
func (s *seqReader) skip(n int64) error {
	pos := s.base + int64(s.n)
	for n > 0 {
		m := int64(len(s.buf))
		if m > n {
			m = n
		}
		got, err := s.src.ReadAt(s.buf[:m], pos)
		if got > 0 && s.h != nil {
			s.h.Write(s.buf[:got])
		}
		pos += int64(got)
		n -= int64(got)
		if err != nil && n > 0 {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	s.base, s.n = pos, 0
	return nil
}

// drain reads and hashes everything up to end.
func (s *seqReader) drain() error {
	return s.skip(s.end - (s.base + int64(s.n)))
}

// ParseIndex validates an index held in memory (see ReadIndex). path is
// only used in messages.
func ParseIndex(path string, data []byte, sum hash.Hash) (*Index, error) {
	return ReadIndex(path, bytes.NewReader(data), int64(len(data)), sum, nil)
}

// ReadIndex validates the index in src (size bytes long) in one streaming
// pass: header, every entry, the extensions and, with sum (a new SHA-1),
// the checksum; a nil sum skips it (the pre-commit hook reads an index git
// has just read, and links no crypto to start faster). It keeps only the
// extensions in memory. start, when not nil, is called with the index's
// version before the walk and returns the function each entry is given.
// path is only used in messages.
func ReadIndex(path string, src io.ReaderAt, size int64, sum hash.Hash, start func(version uint32) func(Entry) error) (*Index, error) {
	var hdr [12]byte
	if size < 12+HashLen {
		return nil, fmt.Errorf("%s: not a git index (no DIRC header); rebuild it with `git reset`", path)
	}
	if _, err := src.ReadAt(hdr[:], 0); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if string(hdr[:4]) != "DIRC" {
		return nil, fmt.Errorf("%s: not a git index (no DIRC header); rebuild it with `git reset`", path)
	}
	idx := &Index{Src: src, Size: size, Version: binary.BigEndian.Uint32(hdr[4:8]), Count: binary.BigEndian.Uint32(hdr[8:12])}
	if idx.Version < 2 || idx.Version > 4 {
		return nil, unsupported("index.version", strconv.Itoa(int(idx.Version)), "run `git update-index --index-version 2`")
	}
	var trailer [HashLen]byte
	if _, err := src.ReadAt(trailer[:], size-HashLen); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if trailer == [HashLen]byte{} {
		return nil, unsupported("index.skipHash", "true", "run `git config index.skipHash false` and then `git update-index --force-write-index`")
	}
	body := size - HashLen
	r := newSeqReader(src, 0, body, sum)
	visit := func(Entry) error { return nil }
	if start != nil {
		visit = start(idx.Version)
	}
	err := idx.parseBody(path, r, visit)
	if sum != nil {
		// A checksum mismatch explains a malformed body best, so it is
		// checked first even when the walk failed.
		if derr := r.drain(); derr != nil {
			return nil, fmt.Errorf("read %s: %w", path, derr)
		}
		if !bytes.Equal(sum.Sum(nil), trailer[:]) {
			return nil, fmt.Errorf("%s: index checksum mismatch; rebuild it with `git reset` (keeps your files)", path)
		}
	}
	if err != nil {
		return nil, err
	}
	return idx, nil
}

// parseBody walks the entries (calling visit) and reads the extensions
// through r.
func (idx *Index) parseBody(path string, r *seqReader, visit func(Entry) error) error {
	end, err := idx.walkWith(path, r, visit)
	if err != nil {
		return err
	}
	idx.EntriesEnd = end
	body := r.end
	for off := end; off < body; {
		if off+8 > body {
			return fmt.Errorf("%s: truncated extension header at byte %d; rebuild the index with `git reset`", path, off)
		}
		eh, err := r.at(off, 8)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		sig := string(eh[:4])
		n := int64(binary.BigEndian.Uint32(eh[4:8]))
		if off+8+n > body {
			return fmt.Errorf("%s: extension %q overruns the file; rebuild the index with `git reset`", path, sig)
		}
		switch sig {
		case "link":
			return unsupported("core.splitIndex", "true", "run `git update-index --no-split-index`")
		case "sdir":
			return unsupported("index.sparse", "true", "run `git sparse-checkout init --no-sparse-index`")
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			return unsupported("index extension", sig, "this index extension is required but unknown to gitstate; rewrite the index with a plain `git update-index --index-version 2`")
		}
		var data []byte
		if keptExtension(sig) {
			b, err := r.at(off+8, int(n))
			if err != nil {
				return fmt.Errorf("read %s: %w", path, err)
			}
			data = bytes.Clone(b)
		}
		idx.Exts = append(idx.Exts, Ext{Sig: sig, Data: data})
		off += 8 + n
	}
	return nil
}

// keptExtension reports whether a patched index may carry the extension
// (possibly changed); the others are dropped and not kept in memory.
func keptExtension(sig string) bool {
	switch sig {
	case "TREE", "UNTR", "FSMN", "REUC":
		return true
	}
	return false
}

// Walk calls fn for each entry in order and returns the offset after the
// last entry.
func (idx *Index) Walk(path string, fn func(Entry) error) (int64, error) {
	return idx.walkWith(path, newSeqReader(idx.Src, 0, idx.Size-HashLen, nil), fn)
}

// walkWith is walk reading through r.
func (idx *Index) walkWith(path string, r *seqReader, fn func(Entry) error) (int64, error) {
	off := int64(12)
	var prev, cur []byte
	for i := uint32(0); i < idx.Count; i++ {
		// Most entries fit in one look; longer names ask again.
		want := EntryFixed + 2 + 128
		var b []byte
		var nameAt, nul, strip, vn int
		var flags uint16
		for {
			var err error
			if b, err = r.at(off, want); err != nil {
				return 0, fmt.Errorf("read %s: %w", path, err)
			}
			if len(b) < EntryFixed {
				return 0, fmt.Errorf("%s: entry %d is truncated; rebuild the index with `git reset`", path, i)
			}
			flags = binary.BigEndian.Uint16(b[60:])
			if mode := binary.BigEndian.Uint32(b[24:]); mode&0o170000 == 0o040000 {
				return 0, unsupported("index.sparse", "true", "run `git sparse-checkout init --no-sparse-index`")
			}
			nameAt = EntryFixed
			if flags&FlagExtended != 0 {
				if idx.Version < 3 {
					return 0, fmt.Errorf("%s: entry %d has extended flags in a version 2 index; rebuild it with `git reset`", path, i)
				}
				nameAt += 2
			}
			if nameAt > len(b) {
				return 0, fmt.Errorf("%s: entry %d is truncated; rebuild the index with `git reset`", path, i)
			}
			vn = 0
			if idx.Version == 4 {
				var s uint64
				s, vn = DecodeVarint(b[nameAt:])
				if vn <= 0 {
					if len(b) == want {
						want *= 2
						continue
					}
					return 0, fmt.Errorf("%s: entry %d has a bad path prefix; rebuild the index with `git reset`", path, i)
				}
				if s > uint64(len(prev)) {
					return 0, fmt.Errorf("%s: entry %d has a bad path prefix; rebuild the index with `git reset`", path, i)
				}
				strip = int(s)
			}
			nul = bytes.IndexByte(b[nameAt+vn:], 0)
			if nul >= 0 {
				break
			}
			if len(b) < want {
				return 0, fmt.Errorf("%s: entry %d path is not terminated; rebuild the index with `git reset`", path, i)
			}
			want *= 2
		}
		e := Entry{Start: off, NameOff: off + int64(nameAt), Fixed: b[:nameAt], Stage: int(flags&FlagStage) >> 12}
		if idx.Version == 4 {
			cur = append(cur[:0], prev[:len(prev)-strip]...)
			cur = append(cur, b[nameAt+vn:nameAt+vn+nul]...)
			e.Name = cur
			e.End = e.NameOff + int64(vn+nul+1)
			prev, cur = cur, prev
		} else {
			e.Name = b[nameAt : nameAt+nul]
			e.End = off + int64((nameAt+nul+8)&^7)
			if e.End > r.end {
				return 0, fmt.Errorf("%s: entry %d is truncated; rebuild the index with `git reset`", path, i)
			}
		}
		if err := fn(e); err != nil {
			return 0, err
		}
		off = e.End
	}
	return off, nil
}

// DecodeVarint decodes git's offset varint (varint.c); n is the number of
// bytes read, 0 if malformed.
func DecodeVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	n := 1
	for c&128 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		val++
		c = b[n]
		n++
		val = val<<7 | uint64(c&127)
	}
	return val, n
}

// EncodeVarint appends git's offset varint encoding of v.
func EncodeVarint(dst []byte, v uint64) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 128 | byte(v&127)
	}
	return append(dst, buf[pos:]...)
}

// CacheTree is one node of the TREE extension.
type CacheTree struct {
	Name     []byte
	Count    int // -1: invalid
	Subtrees int
	Hash     []byte
	Children []*CacheTree
}

// ParseCacheTree parses the TREE extension; ok is false if malformed.
func ParseCacheTree(data []byte) (*CacheTree, []byte, bool) {
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		return nil, nil, false
	}
	n := &CacheTree{Name: data[:nul]}
	rest := data[nul+1:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, nil, false
	}
	cnt, sub, ok := parseTreeCounts(rest[:nl])
	if !ok {
		return nil, nil, false
	}
	n.Count, n.Subtrees = cnt, sub
	rest = rest[nl+1:]
	if cnt >= 0 {
		if len(rest) < 20 {
			return nil, nil, false
		}
		n.Hash, rest = rest[:20], rest[20:]
	}
	for i := 0; i < sub; i++ {
		c, r, ok := ParseCacheTree(rest)
		if !ok {
			return nil, nil, false
		}
		n.Children = append(n.Children, c)
		rest = r
	}
	return n, rest, true
}

func (n *CacheTree) AppendTo(dst []byte) []byte {
	dst = append(dst, n.Name...)
	dst = append(dst, 0)
	dst = strconv.AppendInt(dst, int64(n.Count), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(n.Children)), 10)
	dst = append(dst, '\n')
	if n.Count >= 0 {
		dst = append(dst, n.Hash...)
	}
	for _, c := range n.Children {
		dst = c.AppendTo(dst)
	}
	return dst
}

func (n *CacheTree) Invalidate() {
	n.Count = -1
	n.Hash = nil
}

// parseTreeCounts parses "<entries> <subtrees>" of a TREE node: entries may
// be -1 (invalid), subtrees is not negative.
func parseTreeCounts(b []byte) (cnt, sub int, ok bool) {
	a, c, found := bytes.Cut(b, []byte{' '})
	if !found {
		return 0, 0, false
	}
	cnt, ok1 := atoiTree(a, true)
	sub, ok2 := atoiTree(c, false)
	return cnt, sub, ok1 && ok2
}

// atoiTree parses a decimal of at most 9 digits, with a leading minus if
// neg is allowed.
func atoiTree(b []byte, neg bool) (int, bool) {
	sign := 1
	if neg && len(b) > 1 && b[0] == '-' {
		sign, b = -1, b[1:]
	}
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return sign * v, true
}

// Child returns the node of the folder name directly under n, or nil.
func (n *CacheTree) Child(name string) *CacheTree {
	for _, c := range n.Children {
		if string(c.Name) == name {
			return c
		}
	}
	return nil
}
