package gitstate

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// errNoFastPath means the small object reader cannot read an object (not
// loose, not in a version-2 pack index of this repository, or an unusual
// encoding); the caller falls back to go-git.
var errNoFastPath = errors.New("object not readable without go-git")

// maxDeltaDepth bounds delta chains (git's default depth is 50).
const maxDeltaDepth = 100

// maxAlternateDepth bounds chains of objects/info/alternates, as git does.
const maxAlternateDepth = 5

// readObject reads one object loose or from a pack without loading whole
// pack indexes, which on a large repository costs go-git tens of MiB, and
// then from the object stores objects/info/alternates names (git clone
// --shared or --reference).
func readObject(objDir string, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	return readObjectIn(objDir, h, 0)
}

func readObjectIn(objDir string, h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	t, data, err := readLocalObject(objDir, h)
	if !errors.Is(err, errNoFastPath) || depth >= maxAlternateDepth {
		return t, data, err
	}
	for _, alt := range alternates(objDir) {
		if t, data, err := readObjectIn(alt, h, depth+1); err == nil {
			return t, data, nil
		}
	}
	return 0, nil, err
}

// alternates lists the object folders named in objDir/info/alternates
// (relative ones are relative to objDir).
func alternates(objDir string) []string {
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

// readLocalObject reads one object of objDir itself, loose or packed.
func readLocalObject(objDir string, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(objDir, hex[:2], hex[2:]))
	if err == nil {
		defer f.Close()
		return readLoose(f)
	}
	packDir := filepath.Join(objDir, "pack")
	ents, err := os.ReadDir(packDir)
	if err != nil {
		return 0, nil, errNoFastPath
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".idx") {
			continue
		}
		off, ok := idxOffset(filepath.Join(packDir, name), h)
		if !ok {
			continue
		}
		pf, err := os.Open(filepath.Join(packDir, strings.TrimSuffix(name, ".idx")+".pack"))
		if err != nil {
			return 0, nil, errNoFastPath
		}
		defer pf.Close()
		return readPacked(pf, filepath.Join(packDir, name), off, 0)
	}
	return 0, nil, errNoFastPath
}

// inflaters pools zlib readers for readLoose.
var inflaters sync.Pool

// readLoose inflates a loose object.
func readLoose(r io.Reader) (plumbing.ObjectType, []byte, error) {
	// Reuse inflaters: a new one allocates its tables, which dominated
	// walks over many small trees (itr verify).
	src := bufio.NewReader(r)
	var zr io.ReadCloser
	if pooled, ok := inflaters.Get().(io.ReadCloser); ok {
		if err := pooled.(zlib.Resetter).Reset(src, nil); err == nil {
			zr = pooled
		}
	}
	if zr == nil {
		var err error
		if zr, err = zlib.NewReader(src); err != nil {
			return 0, nil, errNoFastPath
		}
	}
	defer func() { zr.Close(); inflaters.Put(zr) }()
	data, err := io.ReadAll(zr)
	if err != nil {
		return 0, nil, errNoFastPath
	}
	hdr, body, ok := bytes.Cut(data, []byte{0})
	if !ok {
		return 0, nil, errNoFastPath
	}
	typ, size, ok := strings.Cut(string(hdr), " ")
	t, err := plumbing.ParseObjectType(typ)
	if !ok || err != nil || size != strconv.Itoa(len(body)) {
		return 0, nil, errNoFastPath
	}
	return t, body, nil
}

// idxOffset returns the pack offset of h from a version-2 pack index.
func idxOffset(path string, h plumbing.Hash) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var buf [8]byte
	if _, err := f.ReadAt(buf[:], 0); err != nil || string(buf[:4]) != "\xfftOc" || binary.BigEndian.Uint32(buf[4:]) != 2 {
		return 0, false
	}
	if _, err := f.ReadAt(buf[4:], 8+255*4); err != nil {
		return 0, false
	}
	total := int64(binary.BigEndian.Uint32(buf[4:]))
	i, ok := idxPosition(f, h)
	if !ok {
		return 0, false
	}
	base := int64(8 + 256*4)
	offAt := base + total*20 + total*4 + int64(i)*4
	if _, err := f.ReadAt(buf[:4], offAt); err != nil {
		return 0, false
	}
	off := binary.BigEndian.Uint32(buf[:4])
	if off&0x80000000 == 0 {
		return int64(off), true
	}
	if _, err := f.ReadAt(buf[:], base+total*28+int64(off&0x7fffffff)*8); err != nil {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(buf[:])), true
}

// idxPosition finds h's position in a version-2 pack index with two small
// reads: the fan-out entries for its first byte and the names in that range.
func idxPosition(f *os.File, h plumbing.Hash) (uint32, bool) {
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
func readPacked(pf *os.File, idxPath string, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, errNoFastPath
	}
	br := bufio.NewReaderSize(io.NewSectionReader(pf, off, 1<<62), 4096)
	c, err := br.ReadByte()
	if err != nil {
		return 0, nil, errNoFastPath
	}
	t := plumbing.ObjectType((c >> 4) & 7)
	size := uint64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = br.ReadByte(); err != nil || shift > 56 {
			return 0, nil, errNoFastPath
		}
		size |= uint64(c&0x7f) << shift
	}
	var baseType plumbing.ObjectType
	var base []byte
	switch t {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		c, err := br.ReadByte()
		if err != nil {
			return 0, nil, errNoFastPath
		}
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = br.ReadByte(); err != nil || rel > 1<<48 {
				return 0, nil, errNoFastPath
			}
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return 0, nil, errNoFastPath
		}
		if baseType, base, err = readPacked(pf, idxPath, off-rel, depth+1); err != nil {
			return 0, nil, err
		}
	case plumbing.REFDeltaObject:
		var bh plumbing.Hash
		if _, err := io.ReadFull(br, bh[:]); err != nil {
			return 0, nil, errNoFastPath
		}
		boff, ok := idxOffset(idxPath, bh)
		if !ok {
			return 0, nil, errNoFastPath
		}
		if baseType, base, err = readPacked(pf, idxPath, boff, depth+1); err != nil {
			return 0, nil, err
		}
	default:
		return 0, nil, errNoFastPath
	}
	if size > 1<<30 {
		return 0, nil, errNoFastPath
	}
	zr, err := zlib.NewReader(br)
	if err != nil {
		return 0, nil, errNoFastPath
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return 0, nil, errNoFastPath
	}
	if base == nil {
		return t, data, nil
	}
	out, ok := applyDelta(base, data)
	if !ok {
		return 0, nil, errNoFastPath
	}
	return baseType, out, nil
}

// applyDelta applies a git delta to base.
func applyDelta(base, delta []byte) ([]byte, bool) {
	varint := func() (uint64, bool) {
		var v uint64
		for shift := 0; shift < 64; shift += 7 {
			if len(delta) == 0 {
				return 0, false
			}
			c := delta[0]
			delta = delta[1:]
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 || srcSize != uint64(len(base)) || dstSize > 1<<30 {
		return nil, false
	}
	out := make([]byte, 0, dstSize)
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

// objDir is the repository's object folder.
func (r *Repo) objDir() string { return filepath.Join(r.commonDir, "objects") }

// commitTree returns the tree of commit h.
func (r *Repo) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	t, data, err := readObject(r.objDir(), h)
	if err == nil && t == plumbing.CommitObject && hashObject(t, data) == h {
		if rest, ok := bytes.CutPrefix(data, []byte("tree ")); ok && len(rest) > 40 && rest[40] == '\n' && isHex40(string(rest[:40])) {
			return plumbing.NewHash(string(rest[:40])), nil
		}
	}
	c, err := r.readCommit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.Tree, nil
}

// treeEntries returns the entries of tree h (a fresh slice the caller may
// edit).
func (r *Repo) treeEntries(h plumbing.Hash) ([]treeEntry, error) {
	t, data, err := r.readRaw(h)
	if err != nil {
		return nil, err
	}
	if t != plumbing.TreeObject {
		return nil, fmt.Errorf("object %s is a %s, not a tree: %w", h, t, ErrNotFound)
	}
	entries, ok := parseTreeEntries(data)
	if !ok {
		return nil, fmt.Errorf("tree %s: %w", h, errMalformed)
	}
	return entries, nil
}
