package gitstate

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"sort"
	"strconv"
)

// Index entry layout (git's Documentation/gitformat-index.txt).
const (
	entryFixed   = 62 // stat (40) + sha1 (20) + flags (2)
	flagExtended = 0x4000
	flagStage    = 0x3000
	flagNameMask = 0x0fff
	indexHashLen = 20
)

// indexChunk is how much of the index is read or written at a time: the
// index is streamed, never held whole in memory.
const indexChunk = 128 * 1024

// indexExt is one extension block, kept as raw bytes.
type indexExt struct {
	sig  string
	data []byte
}

// rawIndex is a validated index file read from src: its header, where the
// entries end and its extensions. The entries stay in src and are streamed.
type rawIndex struct {
	src        io.ReaderAt
	size       int64 // of the whole file, checksum included
	version    uint32
	count      uint32
	entriesEnd int64
	exts       []indexExt
}

// indexEntry is the position and name of one entry during a walk.
type indexEntry struct {
	start, nameOff, end int64
	fixed               []byte // the bytes from start to nameOff; valid until the next entry
	name                []byte // valid until the next entry
	stage               int
}

// unsupportedIndex builds the error for an index feature gitstate will not
// patch.
func unsupportedIndex(setting, value, fix string) error {
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
	return &seqReader{src: src, end: end, buf: make([]byte, indexChunk), base: start, h: h}
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
		nb := make([]byte, n+indexChunk)
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

// parseIndex validates an index held in memory. path is only used in
// messages.
func parseIndex(path string, data []byte) (*rawIndex, error) {
	return readIndex(path, bytes.NewReader(data), int64(len(data)))
}

// readIndex validates the index in src (size bytes long) in one streaming
// pass: header, every entry, the extensions and the checksum. It keeps only
// the extensions in memory.
func readIndex(path string, src io.ReaderAt, size int64) (*rawIndex, error) {
	idx, _, err := readIndexPlan(path, src, size, nil)
	return idx, err
}

// readIndexPlan is readIndex that also lays out the patch of changes
// (sorted by path) in the same pass; the plan is nil if changes is.
func readIndexPlan(path string, src io.ReaderAt, size int64, changes []indexChange) (*rawIndex, *indexPlan, error) {
	idx, pl, err := readIndexWith(path, src, size, changes)
	if err != nil || pl == nil {
		return idx, nil, err
	}
	return idx, pl.finish(), nil
}

func readIndexWith(path string, src io.ReaderAt, size int64, changes []indexChange) (*rawIndex, *planner, error) {
	var hdr [12]byte
	if size < 12+indexHashLen {
		return nil, nil, fmt.Errorf("%s: not a git index (no DIRC header); rebuild it with `git reset`", path)
	}
	if _, err := src.ReadAt(hdr[:], 0); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if string(hdr[:4]) != "DIRC" {
		return nil, nil, fmt.Errorf("%s: not a git index (no DIRC header); rebuild it with `git reset`", path)
	}
	idx := &rawIndex{src: src, size: size, version: binary.BigEndian.Uint32(hdr[4:8]), count: binary.BigEndian.Uint32(hdr[8:12])}
	if idx.version < 2 || idx.version > 4 {
		return nil, nil, unsupportedIndex("index.version", strconv.Itoa(int(idx.version)), "run `git update-index --index-version 2`")
	}
	var trailer [indexHashLen]byte
	if _, err := src.ReadAt(trailer[:], size-indexHashLen); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if trailer == [indexHashLen]byte{} {
		return nil, nil, unsupportedIndex("index.skipHash", "true", "run `git config index.skipHash false` and then `git update-index --force-write-index`")
	}
	h := sha1.New()
	body := size - indexHashLen
	r := newSeqReader(src, 0, body, h)
	var pl *planner
	visit := func(indexEntry) error { return nil }
	if changes != nil {
		pl = newPlanner(idx.version, changes)
		visit = pl.visit
	}
	err := idx.parseBody(path, r, visit)
	// A checksum mismatch explains a malformed body best, so it is checked
	// first even when the walk failed.
	if derr := r.drain(); derr != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, derr)
	}
	if !bytes.Equal(h.Sum(nil), trailer[:]) {
		return nil, nil, fmt.Errorf("%s: index checksum mismatch; rebuild it with `git reset` (keeps your files)", path)
	}
	if err != nil {
		return nil, nil, err
	}
	return idx, pl, nil
}

// parseBody walks the entries (calling visit) and reads the extensions
// through r.
func (idx *rawIndex) parseBody(path string, r *seqReader, visit func(indexEntry) error) error {
	end, err := idx.walkWith(path, r, visit)
	if err != nil {
		return err
	}
	idx.entriesEnd = end
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
			return unsupportedIndex("core.splitIndex", "true", "run `git update-index --no-split-index`")
		case "sdir":
			return unsupportedIndex("index.sparse", "true", "run `git sparse-checkout init --no-sparse-index`")
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			return unsupportedIndex("index extension", sig, "this index extension is required but unknown to gitstate; rewrite the index with a plain `git update-index --index-version 2`")
		}
		var data []byte
		if keptExtension(sig) {
			b, err := r.at(off+8, int(n))
			if err != nil {
				return fmt.Errorf("read %s: %w", path, err)
			}
			data = bytes.Clone(b)
		}
		idx.exts = append(idx.exts, indexExt{sig: sig, data: data})
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

// walk calls fn for each entry in order and returns the offset after the
// last entry.
func (idx *rawIndex) walk(path string, fn func(indexEntry) error) (int64, error) {
	return idx.walkWith(path, newSeqReader(idx.src, 0, idx.size-indexHashLen, nil), fn)
}

// walkWith is walk reading through r.
func (idx *rawIndex) walkWith(path string, r *seqReader, fn func(indexEntry) error) (int64, error) {
	off := int64(12)
	var prev, cur []byte
	for i := uint32(0); i < idx.count; i++ {
		// Most entries fit in one look; longer names ask again.
		want := entryFixed + 2 + 128
		var b []byte
		var nameAt, nul, strip, vn int
		var flags uint16
		for {
			var err error
			if b, err = r.at(off, want); err != nil {
				return 0, fmt.Errorf("read %s: %w", path, err)
			}
			if len(b) < entryFixed {
				return 0, fmt.Errorf("%s: entry %d is truncated; rebuild the index with `git reset`", path, i)
			}
			flags = binary.BigEndian.Uint16(b[60:])
			if mode := binary.BigEndian.Uint32(b[24:]); mode&0o170000 == 0o040000 {
				return 0, unsupportedIndex("index.sparse", "true", "run `git sparse-checkout init --no-sparse-index`")
			}
			nameAt = entryFixed
			if flags&flagExtended != 0 {
				if idx.version < 3 {
					return 0, fmt.Errorf("%s: entry %d has extended flags in a version 2 index; rebuild it with `git reset`", path, i)
				}
				nameAt += 2
			}
			if nameAt > len(b) {
				return 0, fmt.Errorf("%s: entry %d is truncated; rebuild the index with `git reset`", path, i)
			}
			vn = 0
			if idx.version == 4 {
				var s uint64
				s, vn = decodeVarint(b[nameAt:])
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
		e := indexEntry{start: off, nameOff: off + int64(nameAt), fixed: b[:nameAt], stage: int(flags&flagStage) >> 12}
		if idx.version == 4 {
			cur = append(cur[:0], prev[:len(prev)-strip]...)
			cur = append(cur, b[nameAt+vn:nameAt+vn+nul]...)
			e.name = cur
			e.end = e.nameOff + int64(vn+nul+1)
			prev, cur = cur, prev
		} else {
			e.name = b[nameAt : nameAt+nul]
			e.end = off + int64((nameAt+nul+8)&^7)
			if e.end > r.end {
				return 0, fmt.Errorf("%s: entry %d is truncated; rebuild the index with `git reset`", path, i)
			}
		}
		if err := fn(e); err != nil {
			return 0, err
		}
		off = e.end
	}
	return off, nil
}

// decodeVarint decodes git's offset varint (varint.c); n is the number of
// bytes read, 0 if malformed.
func decodeVarint(b []byte) (uint64, int) {
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

// encodeVarint appends git's offset varint encoding of v.
func encodeVarint(dst []byte, v uint64) []byte {
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

// indexChange is one path to replace, add or remove in the index.
type indexChange struct {
	path   string
	delete bool
	fixed  [entryFixed]byte // stat, mode, hash, flags of the new entry
	stat   bool             // stat data came from the file on disk
}

// patchSeg is one piece of a patched index: a byte range copied from the
// old index, or one entry written anew (a changed path, or an old entry
// whose v4 path prefix must be re-encoded).
type patchSeg struct {
	from, to int64  // copy old[from:to) when to > from
	change   int    // index into the sorted changes, or -1
	fixed    []byte // old entry's bytes before its name (re-encoded entry)
	name     string // path of a written entry
	prev     string // v4: the path written before it
}

// indexPlan is what a patch does to an index, found in one walk: the pieces
// in order, the new entry count and whether entries shifted.
type indexPlan struct {
	segs    []patchSeg
	count   uint32
	shifted bool // an entry was inserted or removed
}

// planner lays out a patch while the entries are walked.
type planner struct {
	version  uint32
	changes  []indexChange // sorted by path
	p        *indexPlan
	matched  []int
	ci       int
	inSync   bool   // the last written entry is the original previous entry
	lastName []byte // v4: last written path
}

func newPlanner(version uint32, changes []indexChange) *planner {
	return &planner{version: version, changes: changes, p: &indexPlan{}, matched: make([]int, len(changes)), inSync: true}
}

func (pl *planner) emitNew(ci int) {
	pl.p.count++
	pl.p.segs = append(pl.p.segs, patchSeg{change: ci, name: pl.changes[ci].path, prev: string(pl.lastName)})
	if pl.version == 4 {
		pl.lastName = append(pl.lastName[:0], pl.changes[ci].path...)
	}
	pl.inSync = false
}

// visit handles the next entry of the old index.
func (pl *planner) visit(e indexEntry) error {
	changes, p := pl.changes, pl.p
	for pl.ci < len(changes) && changes[pl.ci].path < string(e.name) {
		if !changes[pl.ci].delete {
			pl.emitNew(pl.ci)
		}
		pl.ci++
	}
	if pl.ci < len(changes) && string(e.name) == changes[pl.ci].path {
		pl.matched[pl.ci]++
		pl.inSync = false
		return nil
	}
	if conflicts(changes, e.name) {
		p.shifted = true
		pl.inSync = false
		return nil
	}
	p.count++
	switch {
	case pl.version != 4 || pl.inSync:
		if n := len(p.segs); n > 0 && p.segs[n-1].to == e.start && p.segs[n-1].to > p.segs[n-1].from {
			p.segs[n-1].to = e.end
		} else {
			p.segs = append(p.segs, patchSeg{from: e.start, to: e.end, change: -1})
		}
	default:
		p.segs = append(p.segs, patchSeg{change: -1, fixed: bytes.Clone(e.fixed), name: string(e.name), prev: string(pl.lastName)})
	}
	if pl.version == 4 {
		pl.lastName = append(pl.lastName[:0], e.name...)
	}
	pl.inSync = true
	return nil
}

// finish adds the changes after the last entry and returns the plan.
func (pl *planner) finish() *indexPlan {
	for ; pl.ci < len(pl.changes); pl.ci++ {
		if !pl.changes[pl.ci].delete {
			pl.emitNew(pl.ci)
		}
	}
	for i, c := range pl.changes {
		if (c.delete && pl.matched[i] > 0) || (!c.delete && pl.matched[i] != 1) {
			pl.p.shifted = true
		}
	}
	return pl.p
}

// plan walks the index once and lays out the patched entries. changes must
// be sorted by path.
func (idx *rawIndex) plan(changes []indexChange) (*indexPlan, error) {
	pl := newPlanner(idx.version, changes)
	if _, err := idx.walk("index", pl.visit); err != nil {
		return nil, err
	}
	return pl.finish(), nil
}

// conflicts reports whether an entry must go because a change makes it
// impossible: an entry under a changed path ("p/x" when p becomes a file or
// is deleted) or a file where a changed path needs a folder ("a" for "a/b").
func conflicts(changes []indexChange, name []byte) bool {
	for i := range changes {
		c := changes[i].path
		if len(name) > len(c) && name[len(c)] == '/' && string(name[:len(c)]) == c {
			return true
		}
		if !changes[i].delete && len(c) > len(name) && c[len(name)] == '/' && c[:len(name)] == string(name) {
			return true
		}
	}
	return false
}

// appendIndexName appends a path in the index's encoding: v4 prefix
// compression against prev, or NUL padding for v2/v3 where fixedLen is the
// length of the entry's part before the name.
func appendIndexName(dst []byte, version uint32, fixedLen int, name, prev string) []byte {
	if version == 4 {
		common := 0
		for common < len(name) && common < len(prev) && name[common] == prev[common] {
			common++
		}
		dst = encodeVarint(dst, uint64(len(prev)-common))
		dst = append(dst, name[common:]...)
		return append(dst, 0)
	}
	total := (fixedLen + len(name) + 8) &^ 7
	dst = append(dst, name...)
	for i := fixedLen + len(name); i < total; i++ {
		dst = append(dst, 0)
	}
	return dst
}

// sortChanges sorts index changes by path, the index order.
func sortChanges(changes []indexChange) {
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
}

// emptyIndex is a valid index with no entries.
func emptyIndex(version uint32) *rawIndex {
	empty := make([]byte, 12, 12+indexHashLen)
	copy(empty, "DIRC")
	binary.BigEndian.PutUint32(empty[4:], version)
	sum := sha1.Sum(empty)
	data := append(empty, sum[:]...)
	return &rawIndex{src: bytes.NewReader(data), size: int64(len(data)), version: version, entriesEnd: 12}
}

// writePatchedIndex writes the patched index (header, entries, kept
// extensions, checksum) to w. idx may be nil (no index yet), in which case
// version is used for a new index.
func writePatchedIndex(w io.Writer, idx *rawIndex, version uint32, changes []indexChange) error {
	sortChanges(changes)
	if idx == nil {
		idx = emptyIndex(version)
	}
	p, err := idx.plan(changes)
	if err != nil {
		return err
	}
	return writeIndexPlan(w, idx, p, changes)
}

// writeIndexPlan streams the patched index laid out by p to w, copying the
// unchanged ranges from the old index and hashing as it goes. changes are
// those p was planned with (sorted), now with their stat data.
func writeIndexPlan(w io.Writer, idx *rawIndex, p *indexPlan, changes []indexChange) error {
	h := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), indexChunk)
	var hdr [12]byte
	copy(hdr[:], "DIRC")
	binary.BigEndian.PutUint32(hdr[4:], idx.version)
	binary.BigEndian.PutUint32(hdr[8:], p.count)
	_, _ = bw.Write(hdr[:])
	var scratch []byte
	for _, s := range p.segs {
		switch {
		case s.to > s.from:
			n, err := bw.ReadFrom(io.NewSectionReader(idx.src, s.from, s.to-s.from))
			if err != nil {
				return err
			}
			if n != s.to-s.from {
				return fmt.Errorf("the index shrank while it was copied (%d of %d bytes at %d)", n, s.to-s.from, s.from)
			}
		case s.change >= 0:
			scratch = append(scratch[:0], changes[s.change].fixed[:]...)
			scratch = appendIndexName(scratch, idx.version, entryFixed, s.name, s.prev)
			_, _ = bw.Write(scratch)
		default:
			scratch = append(scratch[:0], s.fixed...)
			scratch = appendIndexName(scratch, idx.version, len(s.fixed), s.name, s.prev)
			_, _ = bw.Write(scratch)
		}
	}
	allStat := true
	for _, c := range changes {
		if !c.delete && !c.stat {
			allStat = false
		}
	}
	for _, ext := range idx.exts {
		data := ext.data
		switch ext.sig {
		case "TREE":
			data = invalidateCacheTree(data, changes)
		case "UNTR":
			if p.shifted {
				continue // tracked paths changed; git rebuilds the untracked cache
			}
		case "FSMN":
			if p.shifted || !allStat {
				continue // positions or validity stale; git does a full refresh
			}
		case "REUC":
		default:
			continue // EOIE and IEOT offsets go stale; git drops optional extensions it does not know
		}
		var eh [8]byte
		copy(eh[:], ext.sig)
		binary.BigEndian.PutUint32(eh[4:], uint32(len(data)))
		_, _ = bw.Write(eh[:])
		_, _ = bw.Write(data)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(h.Sum(nil))
	return err
}

// cacheTree is one node of the TREE extension.
type cacheTree struct {
	name     []byte
	count    int // -1: invalid
	subtrees int
	hash     []byte
	children []*cacheTree
}

// parseCacheTree parses the TREE extension; ok is false if malformed.
func parseCacheTree(data []byte) (*cacheTree, []byte, bool) {
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		return nil, nil, false
	}
	n := &cacheTree{name: data[:nul]}
	rest := data[nul+1:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, nil, false
	}
	cnt, sub, ok := parseTreeCounts(rest[:nl])
	if !ok {
		return nil, nil, false
	}
	n.count, n.subtrees = cnt, sub
	rest = rest[nl+1:]
	if cnt >= 0 {
		if len(rest) < 20 {
			return nil, nil, false
		}
		n.hash, rest = rest[:20], rest[20:]
	}
	for i := 0; i < sub; i++ {
		c, r, ok := parseCacheTree(rest)
		if !ok {
			return nil, nil, false
		}
		n.children = append(n.children, c)
		rest = r
	}
	return n, rest, true
}

func (n *cacheTree) appendTo(dst []byte) []byte {
	dst = append(dst, n.name...)
	dst = append(dst, 0)
	dst = strconv.AppendInt(dst, int64(n.count), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(n.children)), 10)
	dst = append(dst, '\n')
	if n.count >= 0 {
		dst = append(dst, n.hash...)
	}
	for _, c := range n.children {
		dst = c.appendTo(dst)
	}
	return dst
}

// invalidateCacheTree marks the root and every folder on the path to each
// change invalid, keeping all other nodes (and children of invalid nodes).
// A malformed TREE extension is dropped (empty result is still valid).
func invalidateCacheTree(data []byte, changes []indexChange) []byte {
	root, rest, ok := parseCacheTree(data)
	if !ok || len(rest) != 0 {
		return nil
	}
	for _, c := range changes {
		node := root
		node.invalidate()
		path := c.path
		for path != "" {
			comp := path
			if slash := indexByteString(path, '/'); slash >= 0 {
				comp, path = path[:slash], path[slash+1:]
			} else {
				path = ""
			}
			var next *cacheTree
			for _, ch := range node.children {
				if string(ch.name) == comp {
					next = ch
					break
				}
			}
			if next == nil {
				break
			}
			next.invalidate()
			node = next
		}
	}
	return root.appendTo(make([]byte, 0, len(data)))
}

func (n *cacheTree) invalidate() {
	n.count = -1
	n.hash = nil
}

func indexByteString(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
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
