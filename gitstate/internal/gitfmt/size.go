package gitfmt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ObjectSize is the type and size of object h, read from its header alone
// (a delta's type is its base's, its size the one the delta says it
// makes): a large object is not inflated, nor its delta applied.
func ObjectSize(objDir string, h ID) (Type, int64, error) {
	t, n, err := objectSizeIn(objDir, h, 0, false)
	if errors.Is(err, ErrNotFound) {
		// A repack may have moved it since the folders were listed: list
		// them again, as ReadObject does.
		t, n, err = objectSizeIn(objDir, h, 0, true)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("object %s: %w", h, err)
	}
	return t, n, nil
}

func objectSizeIn(objDir string, h ID, depth int, again bool) (Type, int64, error) {
	s := storeOf(objDir)
	packs, alts, err := s.list(again)
	if err != nil {
		return 0, 0, err
	}
	for _, p := range packs {
		t, n, err := p.size(h)
		if !errors.Is(err, ErrNotFound) {
			return t, n, err
		}
	}
	name := h.String()
	f, err := os.Open(filepath.Join(s.dir, name[:2], name[2:]))
	if err == nil {
		defer f.Close()
		return looseSize(f)
	}
	if depth < MaxAlternateDepth {
		for _, alt := range alts {
			t, n, err := objectSizeIn(alt, h, depth+1, again)
			if !errors.Is(err, ErrNotFound) {
				return t, n, err
			}
		}
	}
	return 0, 0, ErrNotFound
}

// looseSize reads a loose object's header.
func looseSize(r io.Reader) (Type, int64, error) {
	zr, err := inflater(bufio.NewReader(r))
	if err != nil {
		return 0, 0, ErrUnreadable
	}
	defer func() { zr.Close(); inflaters.Put(zr) }()
	hdr, err := bufio.NewReaderSize(zr, 64).ReadSlice(0)
	if err != nil {
		return 0, 0, ErrUnreadable
	}
	typ, size, ok := strings.Cut(string(hdr[:len(hdr)-1]), " ")
	t, err := parseType(typ)
	n, nerr := strconv.ParseInt(size, 10, 64)
	if !ok || err != nil || nerr != nil || n < 0 {
		return 0, 0, ErrUnreadable
	}
	return t, n, nil
}

// size reads h's entry header in the pack (ErrNotFound when the pack does
// not hold it).
func (p *pack) size(h ID) (Type, int64, error) {
	off, ok, err := p.find(h)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !ok) {
		return 0, 0, ErrNotFound
	}
	if err != nil {
		return 0, 0, err
	}
	f, done, err := p.open()
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, ErrNotFound
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read the pack of %s: %w", p.idxPath, err)
	}
	defer done()
	return packedSize(f, p, off, 0)
}

// packedSize reads the header of the entry at off: its type and size, or
// for a delta its base's type (followed through the bases' headers) and
// the size the delta makes.
func packedSize(pf *os.File, p *pack, off int64, depth int) (Type, int64, error) {
	if depth > maxDeltaDepth {
		return 0, 0, ErrUnreadable
	}
	br := bufio.NewReaderSize(io.NewSectionReader(pf, off, 1<<62), 512)
	c, err := br.ReadByte()
	if err != nil {
		return 0, 0, ErrUnreadable
	}
	t := Type((c >> 4) & 7)
	size := uint64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = br.ReadByte(); err != nil || shift > 56 {
			return 0, 0, ErrUnreadable
		}
		size |= uint64(c&0x7f) << shift
	}
	var baseOff int64
	switch t {
	case Commit, Tree, Blob, Tag:
		return t, int64(size), nil
	case OFSDelta:
		c, err := br.ReadByte()
		if err != nil {
			return 0, 0, ErrUnreadable
		}
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = br.ReadByte(); err != nil || rel > 1<<48 {
				return 0, 0, ErrUnreadable
			}
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return 0, 0, ErrUnreadable
		}
		baseOff = off - rel
	case REFDelta:
		var bh ID
		if _, err := io.ReadFull(br, bh[:]); err != nil {
			return 0, 0, ErrUnreadable
		}
		boff, ok, err := p.find(bh)
		if err != nil || !ok {
			return 0, 0, ErrUnreadable
		}
		baseOff = boff
	default:
		return 0, 0, ErrUnreadable
	}
	// The delta's data starts with the base's size and the result's.
	zr, err := inflater(br)
	if err != nil {
		return 0, 0, ErrUnreadable
	}
	dr := bufio.NewReaderSize(zr, 32)
	_, ok1 := deltaSize(dr)
	dst, ok2 := deltaSize(dr)
	zr.Close()
	inflaters.Put(zr)
	if !ok1 || !ok2 || dst > 1<<40 {
		return 0, 0, ErrUnreadable
	}
	bt, _, err := packedSize(pf, p, baseOff, depth+1)
	if err != nil {
		return 0, 0, err
	}
	return bt, int64(dst), nil
}
