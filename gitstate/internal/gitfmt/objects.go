// Package gitfmt reads git's files with the standard library only: loose
// and packed objects (deltas, alternates) and the index. gitstate builds on
// it, and so does the pre-commit hook program, which must start in a
// fraction of a millisecond and so cannot link go-git.
package gitfmt

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"container/list"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// ID is an object name (SHA-1).
type ID [20]byte

// String returns the name in hexadecimal.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Type is an object's type, numbered as in a pack.
type Type int8

// The object types, and the two kinds of delta in a pack.
const (
	Commit   Type = 1
	Tree     Type = 2
	Blob     Type = 3
	Tag      Type = 4
	OFSDelta Type = 6
	REFDelta Type = 7
)

// parseType parses the type in a loose object's header.
func parseType(s string) (Type, error) {
	switch s {
	case "commit":
		return Commit, nil
	case "tree":
		return Tree, nil
	case "blob":
		return Blob, nil
	case "tag":
		return Tag, nil
	}
	return 0, ErrUnreadable
}

// ErrNotFound means no object store holds the object.
var ErrNotFound = errors.New("object not found")

// ErrUnreadable means an object's bytes could not be read: a corrupt
// loose object or pack entry, or an encoding gitstate does not read.
var ErrUnreadable = errors.New("object unreadable")

// maxDeltaDepth bounds delta chains (git's default depth is 50, its
// largest allowed --depth 4095).
const maxDeltaDepth = 5000

// MaxAlternateDepth bounds chains of objects/info/alternates, as git does.
const MaxAlternateDepth = 5

// ReadObject reads one object packed or loose, and then from the object
// stores objects/info/alternates names (git clone --shared or
// --reference). The packs of each folder are listed once per process and
// each index mapped once (store.go), not loaded into the heap (go-git's way
// costs tens of MiB on a large repository). An object in none of them is an
// error wrapping ErrNotFound; one that is there but unreadable, an error
// wrapping ErrUnreadable.
func ReadObject(objDir string, h ID) (Type, []byte, error) {
	if t, data, ok := recent.get(objDir, h); ok {
		return t, data, nil
	}
	t, data, err := readObjectIn(objDir, h, 0, false)
	if errors.Is(err, ErrNotFound) {
		// A git repack running meanwhile may have moved the object from a
		// loose file or an old pack into a new pack after the folders were
		// listed: list them again and look once more, as git does
		// (reprepare_packed_git).
		t, data, err = readObjectIn(objDir, h, 0, true)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("object %s: %w", h, err)
	}
	recent.put(objDir, h, t, data)
	return t, data, nil
}

func readObjectIn(objDir string, h ID, depth int, again bool) (Type, []byte, error) {
	s := storeOf(objDir)
	t, data, err := s.readLocal(h, again)
	if !errors.Is(err, ErrNotFound) || depth >= MaxAlternateDepth {
		return t, data, err
	}
	_, alts, _ := s.list(false)
	for _, alt := range alts {
		t, data, aerr := readObjectIn(alt, h, depth+1, again)
		if !errors.Is(aerr, ErrNotFound) {
			return t, data, aerr
		}
	}
	return 0, nil, err
}

// Alternates lists the object folders named in objDir/info/alternates
// (relative ones are relative to objDir).
func Alternates(objDir string) []string {
	b, err := os.ReadFile(filepath.Join(objDir, "info", "alternates"))
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '"' {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objDir, line)
		}
		out = append(out, filepath.Clean(line))
	}
	return out
}

// inflaters pools zlib readers for readLoose.
var inflaters sync.Pool

// inflater is a zlib reader of src from the pool (a new one allocates its
// tables, which dominated walks over many small objects); Put it back
// after Close.
func inflater(src io.Reader) (io.ReadCloser, error) {
	if pooled, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := pooled.(zlib.Resetter).Reset(src, nil); err == nil {
			return pooled, nil
		}
	}
	return zlib.NewReader(src)
}

// readLoose inflates a loose object.
func readLoose(r io.Reader) (Type, []byte, error) {
	// Reuse inflaters: a new one allocates its tables, which dominated
	// walks over many small trees (itr verify).
	zr, err := inflater(bufio.NewReader(r))
	if err != nil {
		return 0, nil, ErrUnreadable
	}
	defer func() { zr.Close(); inflaters.Put(zr) }()
	// The header names the size: read the body into one buffer of that
	// size (io.ReadAll would grow it by doubling, a large blob's peak
	// twice its size), then make sure nothing follows it.
	br := bufio.NewReaderSize(zr, 64)
	hdr, err := br.ReadSlice(0)
	if err != nil {
		return 0, nil, ErrUnreadable
	}
	typ, size, ok := strings.Cut(string(hdr[:len(hdr)-1]), " ")
	t, err := parseType(typ)
	n, nerr := strconv.Atoi(size)
	if !ok || err != nil || nerr != nil || n < 0 || n > 1<<30 || strconv.Itoa(n) != size {
		return 0, nil, ErrUnreadable
	}
	body := make([]byte, n, n+Room(n))
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, nil, ErrUnreadable
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return 0, nil, ErrUnreadable
	}
	return t, body, nil
}

// Room is the spare capacity an object of n bytes is read with: none for
// a small one; for one of a megabyte or more, 1/256 of it (at least 64
// KiB), so that a caller that owns it can append a little (an entry to a
// long log) without a copy of the whole.
func Room(n int) int {
	if n < 1<<20 {
		return 0
	}
	return max(64<<10, n>>8)
}

// IdxPosition finds h's position in a version-2 pack index with two small
// reads: the fan-out entries for its first byte and the names in that range.
func IdxPosition(f *os.File, h ID) (uint32, bool) {
	var fan [8]byte
	lo := uint32(0)
	if h[0] == 0 {
		if _, err := f.ReadAt(fan[4:], 8); err != nil {
			return 0, false
		}
	} else {
		if _, err := f.ReadAt(fan[:], 8+4*int64(h[0]-1)); err != nil {
			return 0, false
		}
		lo = binary.BigEndian.Uint32(fan[:4])
	}
	hi := binary.BigEndian.Uint32(fan[4:])
	if hi <= lo || hi-lo > 1<<24 {
		return 0, false
	}
	names := make([]byte, int(hi-lo)*20)
	if _, err := f.ReadAt(names, 8+256*4+int64(lo)*20); err != nil {
		return 0, false
	}
	i, j := 0, int(hi-lo)
	for i < j {
		m := int(uint(i+j) >> 1)
		switch c := bytes.Compare(names[m*20:m*20+20], h[:]); {
		case c == 0:
			return lo + uint32(m), true
		case c < 0:
			i = m + 1
		default:
			j = m
		}
	}
	return 0, false
}

// readPacked reads the object at off in a pack, resolving deltas.
func readPacked(pf *os.File, p *pack, off int64, depth int) (Type, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, ErrUnreadable
	}
	key := deltaKey{pack: p.packPath, off: off}
	if t, data, ok := deltaBases.get(key); ok {
		if depth == 0 {
			// The caller owns what it gets: a copy, never the cache's.
			return t, append([]byte(nil), data...), nil
		}
		return t, data, nil
	}
	t, data, err := readPackedAt(pf, p, off, depth)
	if err == nil && depth > 0 {
		deltaBases.put(key, t, data) // a base: read only by ApplyDelta
	}
	return t, data, err
}

// readPackedAt reads the object at off in a pack, its delta base through
// readPacked (and so the cache of bases).
func readPackedAt(pf *os.File, p *pack, off int64, depth int) (Type, []byte, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(pf, off, 1<<62), 4096)
	c, err := br.ReadByte()
	if err != nil {
		return 0, nil, ErrUnreadable
	}
	t := Type((c >> 4) & 7)
	size := uint64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = br.ReadByte(); err != nil || shift > 56 {
			return 0, nil, ErrUnreadable
		}
		size |= uint64(c&0x7f) << shift
	}
	var baseType Type
	var base []byte
	switch t {
	case Commit, Tree, Blob, Tag:
	case OFSDelta:
		c, err := br.ReadByte()
		if err != nil {
			return 0, nil, ErrUnreadable
		}
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = br.ReadByte(); err != nil || rel > 1<<48 {
				return 0, nil, ErrUnreadable
			}
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return 0, nil, ErrUnreadable
		}
		if baseType, base, err = readPacked(pf, p, off-rel, depth+1); err != nil {
			return 0, nil, err
		}
	case REFDelta:
		var bh ID
		if _, err := io.ReadFull(br, bh[:]); err != nil {
			return 0, nil, ErrUnreadable
		}
		boff, ok, err := p.find(bh)
		if err != nil || !ok {
			return 0, nil, ErrUnreadable
		}
		if baseType, base, err = readPacked(pf, p, boff, depth+1); err != nil {
			return 0, nil, err
		}
	default:
		return 0, nil, ErrUnreadable
	}
	if size > 1<<30 {
		return 0, nil, ErrUnreadable
	}
	zr, err := inflater(br)
	if err != nil {
		return 0, nil, ErrUnreadable
	}
	data := make([]byte, size, int(size)+Room(int(size)))
	_, err = io.ReadFull(zr, data)
	zr.Close()
	inflaters.Put(zr)
	if err != nil {
		return 0, nil, ErrUnreadable
	}
	if base == nil {
		return t, data, nil
	}
	out, ok := ApplyDelta(base, data)
	if !ok {
		return 0, nil, ErrUnreadable
	}
	return baseType, out, nil
}

// deltaSize reads one of the two sizes a git delta starts with (the
// base's, then the result's): seven bits a byte, low bits first, the high
// bit set on every byte but the last.
func deltaSize(r io.ByteReader) (uint64, bool) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := r.ReadByte()
		if err != nil {
			return 0, false
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}

// ApplyDelta applies a git delta to base.
func ApplyDelta(base, delta []byte) ([]byte, bool) {
	r := bytes.NewReader(delta)
	srcSize, ok1 := deltaSize(r)
	dstSize, ok2 := deltaSize(r)
	delta = delta[len(delta)-r.Len():]
	if !ok1 || !ok2 || srcSize != uint64(len(base)) || dstSize > 1<<30 {
		return nil, false
	}
	out := make([]byte, 0, int(dstSize)+Room(int(dstSize)))
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n uint64
			for i := 0; i < 4; i++ {
				if op&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, false
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := 0; i < 3; i++ {
				if op&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, false
					}
					n |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) {
				return nil, false
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			if int(op) > len(delta) {
				return nil, false
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, false
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, false
	}
	return out, true
}

// deltaBases remembers the objects that deltas in packs were applied to,
// by pack and offset, so that walking history through a packed object
// (each older progress.md a delta on a newer one, chains up to 50 deep)
// rebuilds each base once instead of once per object that needs it. The
// cache holds the most recently used bases up to deltaCacheBytes; a pack's
// content never changes under its name, so an entry never goes stale.
var deltaBases = newDeltaCache(64 << 20)

type deltaKey struct {
	pack string
	off  int64
}

type deltaEntry struct {
	key  deltaKey
	typ  Type
	data []byte
}

type deltaCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // front: most recently used
	items map[deltaKey]*list.Element
}

func newDeltaCache(max int) *deltaCache {
	return &deltaCache{max: max, order: list.New(), items: map[deltaKey]*list.Element{}}
}

// get returns a remembered base; its data must not be changed.
func (c *deltaCache) get(k deltaKey) (Type, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return 0, nil, false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*deltaEntry)
	return e.typ, e.data, true
}

// put remembers a base, dropping the least recently used ones past max.
func (c *deltaCache) put(k deltaKey, typ Type, data []byte) {
	if len(data) > c.max/4 {
		return // one huge object would push out everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.order.PushFront(&deltaEntry{key: k, typ: typ, data: data})
	c.size += len(data)
	for c.size > c.max {
		el := c.order.Back()
		e := el.Value.(*deltaEntry)
		c.order.Remove(el)
		delete(c.items, e.key)
		c.size -= len(e.data)
	}
}
