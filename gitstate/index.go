package gitstate

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
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

// indexExt is one extension block, kept as raw bytes.
type indexExt struct {
	sig  string
	data []byte
}

// rawIndex is a parsed index file: header, the raw entry bytes and the
// extensions.
type rawIndex struct {
	data       []byte
	version    uint32
	count      uint32
	entriesEnd int
	exts       []indexExt
}

// indexEntry is the position and name of one entry during a walk.
type indexEntry struct {
	start, nameOff, end int
	name                []byte // valid until the next entry (v4 reuses the buffer)
	stage               int
}

// unsupportedIndex builds the error for an index feature gitstate will not
// patch.
func unsupportedIndex(setting, value, fix string) error {
	return &UnsupportedError{Setting: setting, Value: value, Fix: fix}
}

// parseIndex validates an index and locates its extensions. path is only
// used in messages.
func parseIndex(path string, data []byte) (*rawIndex, error) {
	if len(data) < 12+indexHashLen || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%s: not a git index (no DIRC header); rebuild it with `git reset`", path)
	}
	idx := &rawIndex{data: data, version: binary.BigEndian.Uint32(data[4:8]), count: binary.BigEndian.Uint32(data[8:12])}
	if idx.version < 2 || idx.version > 4 {
		return nil, unsupportedIndex("index.version", strconv.Itoa(int(idx.version)), "run `git update-index --index-version 2`")
	}
	body := data[:len(data)-indexHashLen]
	if bytes.Equal(data[len(data)-indexHashLen:], make([]byte, indexHashLen)) {
		return nil, unsupportedIndex("index.skipHash", "true", "run `git config index.skipHash false` and then `git update-index --force-write-index`")
	}
	sum := sha1.Sum(body)
	if !bytes.Equal(sum[:], data[len(data)-indexHashLen:]) {
		return nil, fmt.Errorf("%s: index checksum mismatch; rebuild it with `git reset` (keeps your files)", path)
	}
	end, err := idx.walk(path, func(indexEntry) error { return nil })
	if err != nil {
		return nil, err
	}
	idx.entriesEnd = end
	for off := end; off < len(body); {
		if off+8 > len(body) {
			return nil, fmt.Errorf("%s: truncated extension header at byte %d; rebuild the index with `git reset`", path, off)
		}
		sig := string(body[off : off+4])
		n := int(binary.BigEndian.Uint32(body[off+4 : off+8]))
		if n < 0 || off+8+n > len(body) {
			return nil, fmt.Errorf("%s: extension %q overruns the file; rebuild the index with `git reset`", path, sig)
		}
		switch sig {
		case "link":
			return nil, unsupportedIndex("core.splitIndex", "true", "run `git update-index --no-split-index`")
		case "sdir":
			return nil, unsupportedIndex("index.sparse", "true", "run `git sparse-checkout init --no-sparse-index`")
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, unsupportedIndex("index extension", sig, "this index extension is required but unknown to gitstate; rewrite the index with a plain `git update-index --index-version 2`")
		}
		idx.exts = append(idx.exts, indexExt{sig: sig, data: body[off+8 : off+8+n]})
		off += 8 + n
	}
	return idx, nil
}

// walk calls fn for each entry in order and returns the offset after the
// last entry.
func (idx *rawIndex) walk(path string, fn func(indexEntry) error) (int, error) {
	data := idx.data[:len(idx.data)-indexHashLen]
	off := 12
	var prev, cur []byte
	for i := uint32(0); i < idx.count; i++ {
		if off+entryFixed > len(data) {
			return 0, fmt.Errorf("%s: entry %d is truncated; rebuild the index with `git reset`", path, i)
		}
		flags := binary.BigEndian.Uint16(data[off+60:])
		mode := binary.BigEndian.Uint32(data[off+24:])
		if mode&0o170000 == 0o040000 {
			return 0, unsupportedIndex("index.sparse", "true", "run `git sparse-checkout init --no-sparse-index`")
		}
		nameOff := off + entryFixed
		if flags&flagExtended != 0 {
			if idx.version < 3 {
				return 0, fmt.Errorf("%s: entry %d has extended flags in a version 2 index; rebuild it with `git reset`", path, i)
			}
			nameOff += 2
		}
		e := indexEntry{start: off, nameOff: nameOff, stage: int(flags&flagStage) >> 12}
		if idx.version == 4 {
			strip, n := decodeVarint(data[nameOff:])
			if n <= 0 || int(strip) > len(prev) {
				return 0, fmt.Errorf("%s: entry %d has a bad path prefix; rebuild the index with `git reset`", path, i)
			}
			nul := bytes.IndexByte(data[nameOff+n:], 0)
			if nul < 0 {
				return 0, fmt.Errorf("%s: entry %d path is not terminated; rebuild the index with `git reset`", path, i)
			}
			cur = append(cur[:0], prev[:len(prev)-int(strip)]...)
			cur = append(cur, data[nameOff+n:nameOff+n+nul]...)
			e.name = cur
			e.end = nameOff + n + nul + 1
			prev, cur = cur, prev
		} else {
			nul := bytes.IndexByte(data[nameOff:], 0)
			if nul < 0 {
				return 0, fmt.Errorf("%s: entry %d path is not terminated; rebuild the index with `git reset`", path, i)
			}
			e.name = data[nameOff : nameOff+nul]
			e.end = off + ((nameOff - off + nul + 8) &^ 7)
			if e.end > len(data) {
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

// patchResult tells what changed, for choosing which extensions survive.
type patchResult struct {
	count   uint32
	shifted bool // an entry was inserted or removed
}

// indexPatcher applies sorted changes to the entries of a raw index while
// streaming them to w (nil: count only).
type indexPatcher struct {
	idx      *rawIndex
	changes  []indexChange // sorted by path
	w        *bufio.Writer
	lastName []byte // last emitted name (v4 prefix compression)
	inSync   bool   // the last emitted entry is the original previous entry
	res      patchResult
	scratch  []byte
	matched  []int // original entries each change replaced
}

func (p *indexPatcher) write(b []byte) {
	if p.w != nil {
		_, _ = p.w.Write(b)
	}
}

// emitNew writes a new stage-0 entry for c.
func (p *indexPatcher) emitNew(c *indexChange) {
	p.res.count++
	p.scratch = append(p.scratch[:0], c.fixed[:]...)
	p.scratch = p.appendName(p.scratch, entryFixed, []byte(c.path))
	p.write(p.scratch)
	p.lastName = append(p.lastName[:0], c.path...)
	p.inSync = false
}

// appendName appends a path in the index's encoding; fixedLen is the
// length of the fixed part already in dst (for v2/v3 padding).
func (p *indexPatcher) appendName(dst []byte, fixedLen int, name []byte) []byte {
	if p.idx.version == 4 {
		common := 0
		for common < len(name) && common < len(p.lastName) && name[common] == p.lastName[common] {
			common++
		}
		dst = encodeVarint(dst, uint64(len(p.lastName)-common))
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

// emitOld copies an unchanged entry, re-encoding its v4 prefix when the
// entry before it changed.
func (p *indexPatcher) emitOld(e indexEntry) {
	p.res.count++
	data := p.idx.data
	if p.idx.version != 4 || p.inSync {
		p.write(data[e.start:e.end])
	} else {
		p.scratch = append(p.scratch[:0], data[e.start:e.nameOff]...)
		p.scratch = p.appendName(p.scratch, e.nameOff-e.start, e.name)
		p.write(p.scratch)
	}
	if p.idx.version == 4 {
		p.lastName = append(p.lastName[:0], e.name...)
	}
	p.inSync = true
}

// run streams the patched entries.
func (p *indexPatcher) run() error {
	p.inSync = true
	p.matched = make([]int, len(p.changes))
	ci := 0
	_, err := p.idx.walk("index", func(e indexEntry) error {
		for ci < len(p.changes) && bytes.Compare([]byte(p.changes[ci].path), e.name) < 0 {
			if !p.changes[ci].delete {
				p.emitNew(&p.changes[ci])
			}
			ci++
		}
		if ci < len(p.changes) && string(e.name) == p.changes[ci].path {
			p.matched[ci]++
			p.inSync = false
			return nil
		}
		if p.conflicts(e.name) {
			p.res.shifted = true
			p.inSync = false
			return nil
		}
		p.emitOld(e)
		return nil
	})
	if err != nil {
		return err
	}
	for ; ci < len(p.changes); ci++ {
		if !p.changes[ci].delete {
			p.emitNew(&p.changes[ci])
		}
	}
	for i, c := range p.changes {
		if (c.delete && p.matched[i] > 0) || (!c.delete && p.matched[i] != 1) {
			p.res.shifted = true
		}
	}
	return nil
}

// conflicts reports whether an entry must go because a change makes it
// impossible: an entry under a changed path ("p/x" when p becomes a file or
// is deleted) or a file where a changed path needs a folder ("a" for "a/b").
func (p *indexPatcher) conflicts(name []byte) bool {
	for i := range p.changes {
		c := p.changes[i].path
		if len(name) > len(c) && name[len(c)] == '/' && string(name[:len(c)]) == c {
			return true
		}
		if !p.changes[i].delete && len(c) > len(name) && c[len(name)] == '/' && c[:len(name)] == string(name) {
			return true
		}
	}
	return false
}

// writePatchedIndex writes the patched index (header, entries, kept
// extensions, checksum) to w. idx may be nil (no index yet), in which case
// version is used for a new index.
func writePatchedIndex(w io.Writer, idx *rawIndex, version uint32, changes []indexChange) error {
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	if idx == nil {
		empty := make([]byte, 12, 12+indexHashLen)
		copy(empty, "DIRC")
		binary.BigEndian.PutUint32(empty[4:], version)
		sum := sha1.Sum(empty)
		idx = &rawIndex{data: append(empty, sum[:]...), version: version, entriesEnd: 12}
	}
	// Dry run for the entry count the header needs.
	dry := &indexPatcher{idx: idx, changes: changes}
	if err := dry.run(); err != nil {
		return err
	}
	h := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 256*1024)
	var hdr [12]byte
	copy(hdr[:], "DIRC")
	binary.BigEndian.PutUint32(hdr[4:], idx.version)
	binary.BigEndian.PutUint32(hdr[8:], dry.res.count)
	_, _ = bw.Write(hdr[:])
	p := &indexPatcher{idx: idx, changes: changes, w: bw}
	if err := p.run(); err != nil {
		return err
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
		case "EOIE", "IEOT":
			continue // offsets go stale
		case "UNTR":
			if p.res.shifted {
				continue // tracked paths changed; git rebuilds the untracked cache
			}
		case "FSMN":
			if p.res.shifted || !allStat {
				continue // positions or validity stale; git does a full refresh
			}
		case "REUC":
		default:
			continue // git drops optional extensions it does not know
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
	var cnt, sub int
	if _, err := fmt.Sscanf(string(rest[:nl]), "%d %d", &cnt, &sub); err != nil || sub < 0 {
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
