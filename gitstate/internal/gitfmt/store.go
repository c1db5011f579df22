package gitfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// store is what this process knows of one object folder: its packs,
// listed once (again only when an object is not found, as git does:
// reprepare_packed_git), each index mapped or read once and each pack
// opened once, and the alternates it names. A pack's content never changes
// under its name, so nothing read from one goes stale; a pack removed by
// a repack since the listing stays readable through what is open (on
// Unix), and a new one is found by the listing again.
type store struct {
	dir    string
	mu     sync.Mutex
	listed bool
	packs  []*pack
	alts   []string
}

// pack is one pack of a store: its index, mapped (or read) on first use,
// and its file, opened on the first read of an object.
type pack struct {
	idxPath, packPath string

	idxOnce sync.Once
	idx     []byte // the whole version-2 index
	total   int64  // objects in it
	idxErr  error

	mu   sync.Mutex
	file *os.File // kept open when keepPacksOpen
}

// listings and indexOpens count the pack folder listings and the index
// mappings of this process (the tests' measure of "once per process").
var listings, indexOpens atomic.Int64

// maxStores bounds the object folders remembered at once (a process that
// opens many repositories, like a test binary, forgets the least recent).
const maxStores = 16

var stores struct {
	sync.Mutex
	m     map[string]*store
	order []string // least recently used first
}

// storeOf is the store of the object folder dir.
func storeOf(dir string) *store {
	stores.Lock()
	defer stores.Unlock()
	if stores.m == nil {
		stores.m = map[string]*store{}
	}
	if s, ok := stores.m[dir]; ok {
		if i := slices.Index(stores.order, dir); i >= 0 && i != len(stores.order)-1 {
			stores.order = append(slices.Delete(stores.order, i, i+1), dir)
		}
		return s
	}
	if len(stores.order) >= maxStores {
		// Dropped, not closed: a reader may still hold its packs; what it
		// opened is released when nothing does (cleanups, os.File's own).
		delete(stores.m, stores.order[0])
		stores.order = stores.order[1:]
	}
	s := &store{dir: dir}
	stores.m[dir] = s
	stores.order = append(stores.order, dir)
	return s
}

// Forget drops what this process remembers of the object folder dir (its
// pack list and alternates); the next read lists them again. Nothing needs
// it for correctness: an object not found is looked for again after a new
// listing.
func Forget(dir string) {
	stores.Lock()
	defer stores.Unlock()
	delete(stores.m, dir)
	if i := slices.Index(stores.order, dir); i >= 0 {
		stores.order = slices.Delete(stores.order, i, i+1)
	}
}

// list returns the packs and alternates, listing them the first time and,
// with again, once more (keeping the packs still there as they are open).
func (s *store) list(again bool) ([]*pack, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listed && !again {
		return s.packs, s.alts, nil
	}
	packDir := filepath.Join(s.dir, "pack")
	listings.Add(1)
	ents, err := os.ReadDir(packDir)
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, fmt.Errorf("list %s: %w", packDir, err)
	}
	had := map[string]*pack{}
	for _, p := range s.packs {
		had[p.idxPath] = p
	}
	var packs []*pack
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".idx") {
			continue
		}
		idxPath := filepath.Join(packDir, name)
		p := had[idxPath]
		if p == nil {
			p = &pack{idxPath: idxPath, packPath: strings.TrimSuffix(idxPath, ".idx") + ".pack"}
		}
		packs = append(packs, p)
	}
	s.packs, s.alts, s.listed = packs, Alternates(s.dir), true
	return s.packs, s.alts, nil
}

// index returns the pack's index, mapping or reading it the first time; an
// index that is gone gives an error wrapping fs.ErrNotExist.
func (p *pack) index() ([]byte, int64, error) {
	p.idxOnce.Do(func() {
		indexOpens.Add(1)
		data, err := mapIndex(p)
		if err != nil {
			p.idxErr = fmt.Errorf("read pack index: %w", err)
			return
		}
		bad := func(why string) {
			p.idxErr = fmt.Errorf("pack index %s: %s: %w", p.idxPath, why, ErrUnreadable)
		}
		if len(data) < 8 || string(data[:4]) != "\xfftOc" || binary.BigEndian.Uint32(data[4:]) != 2 {
			bad("not a version-2 index (git before 1.5.2 wrote version 1); rewrite it with `git repack -a -d`")
			return
		}
		if len(data) < 8+256*4 {
			bad("too short")
			return
		}
		total := int64(binary.BigEndian.Uint32(data[8+255*4:]))
		if int64(len(data)) < 8+256*4+total*28 {
			bad("too short")
			return
		}
		p.idx, p.total = data, total
	})
	return p.idx, p.total, p.idxErr
}

// find returns the pack offset of h, and whether the index holds it.
func (p *pack) find(h ID) (int64, bool, error) {
	idx, total, err := p.index()
	if err != nil {
		return 0, false, err
	}
	i, ok := idxSearch(idx, total, h)
	if !ok {
		return 0, false, nil
	}
	defer runtime.KeepAlive(p) // idx is mapped while p is reachable
	base := int64(8 + 256*4)
	off := binary.BigEndian.Uint32(idx[base+total*24+i*4:])
	if off&0x80000000 == 0 {
		return int64(off), true, nil
	}
	at := base + total*28 + int64(off&0x7fffffff)*8
	if at+8 > int64(len(idx)) {
		return 0, false, fmt.Errorf("pack index %s: too short: %w", p.idxPath, ErrUnreadable)
	}
	return int64(binary.BigEndian.Uint64(idx[at:])), true, nil
}

// idxSearch finds h's position in a version-2 index of total objects.
func idxSearch(idx []byte, total int64, h ID) (int64, bool) {
	lo := int64(0)
	if h[0] > 0 {
		lo = int64(binary.BigEndian.Uint32(idx[8+4*int(h[0]-1):]))
	}
	hi := int64(binary.BigEndian.Uint32(idx[8+4*int(h[0]):]))
	if hi <= lo || hi > total {
		return 0, false
	}
	names := idx[8+256*4:]
	i, j := lo, hi
	for i < j {
		m := int64(uint64(i+j) >> 1)
		switch c := bytes.Compare(names[m*20:m*20+20], h[:]); {
		case c == 0:
			return m, true
		case c < 0:
			i = m + 1
		default:
			j = m
		}
	}
	return 0, false
}

// withFirstByte lists the names in the pack's index that start with b.
func (p *pack) withFirstByte(b byte) ([]ID, error) {
	idx, total, err := p.index()
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(p) // idx is mapped while p is reachable
	lo := int64(0)
	if b > 0 {
		lo = int64(binary.BigEndian.Uint32(idx[8+4*int(b-1):]))
	}
	hi := int64(binary.BigEndian.Uint32(idx[8+4*int(b):]))
	if hi <= lo {
		return nil, nil
	}
	if hi > total {
		return nil, fmt.Errorf("pack index %s: %w", p.idxPath, ErrUnreadable)
	}
	out := make([]ID, hi-lo)
	for k := range out {
		copy(out[k][:], idx[8+256*4+(lo+int64(k))*20:])
	}
	return out, nil
}

// open returns the pack's file and what to call when done with it: kept
// open for the process where an open file does not stop a repack from
// removing it (Unix), opened for each read elsewhere.
func (p *pack) open() (*os.File, func(), error) {
	if !keepPacksOpen {
		f, err := os.Open(p.packPath)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.file == nil {
		f, err := os.Open(p.packPath)
		if err != nil {
			return nil, nil, err
		}
		p.file = f
	}
	return p.file, func() {}, nil
}

// readLocal reads one object of the store's folder itself, packed or
// loose; again lists the packs once more first.
func (s *store) readLocal(h ID, again bool) (Type, []byte, error) {
	packs, _, err := s.list(again)
	if err != nil {
		return 0, nil, err
	}
	var packErr error
	for _, p := range packs {
		t, data, err := p.read(h)
		if err == nil {
			return t, data, nil
		}
		if !errors.Is(err, ErrNotFound) && packErr == nil {
			packErr = err
		}
	}
	// Loose last, as git looks: most objects of a long history are packed,
	// and an object written since the listing is loose.
	name := h.String()
	path := filepath.Join(s.dir, name[:2], name[2:])
	f, err := os.Open(path)
	if err == nil {
		t, data, err := readLoose(f)
		f.Close()
		if err == nil {
			return t, data, nil
		}
		if packErr == nil {
			// A damaged loose copy and no packed one.
			packErr = fmt.Errorf("loose object %s: %w", path, err)
		}
	} else if !os.IsNotExist(err) && packErr == nil {
		packErr = fmt.Errorf("read %s: %w", path, err)
	}
	if packErr != nil {
		return 0, nil, packErr
	}
	return 0, nil, ErrNotFound
}

// read reads h from the pack: ErrNotFound when the pack does not hold it
// (or is gone since the listing), another error when its index or entry
// cannot be read.
func (p *pack) read(h ID) (Type, []byte, error) {
	off, ok, err := p.find(h)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !ok) {
		return 0, nil, ErrNotFound // gone by a repack since the listing
	}
	if err != nil {
		return 0, nil, err
	}
	f, done, err := p.open()
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, ErrNotFound
	}
	if err != nil {
		return 0, nil, fmt.Errorf("read the pack of %s: %w", p.idxPath, err)
	}
	defer done()
	t, data, err := readPacked(f, p, off, 0)
	if err != nil {
		return 0, nil, fmt.Errorf("%s at offset %d: %w", p.packPath, off, err)
	}
	return t, data, nil
}

// PackedWithFirstByte lists the names of the objects in objDir's packs
// (not its alternates) that start with the byte b; again lists the packs
// once more first (for a name not found in the listing this process has).
func PackedWithFirstByte(objDir string, b byte, again bool) ([]ID, error) {
	packs, _, err := storeOf(objDir).list(again)
	if err != nil {
		return nil, err
	}
	var out []ID
	for _, p := range packs {
		ids, err := p.withFirstByte(b)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
	}
	return out, nil
}

// recent remembers the small objects read last (a walk of history reads
// each commit three times in a row: its history, its name resolved, its
// tree), by object folder and name; an object's content never changes
// under its name. It hands out copies: the caller owns what it gets.
var recent = &recentObjects{}

// recentSlots and recentMax bound what recent holds: that many objects,
// each at most recentMax bytes.
const (
	recentSlots = 64
	recentMax   = 16 << 10
)

type recentObjects struct {
	mu    sync.Mutex
	next  int
	slots [recentSlots]recentObject
}

type recentObject struct {
	dir  string
	id   ID
	typ  Type
	data []byte
}

func (c *recentObjects) get(dir string, id ID) (Type, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.slots {
		o := &c.slots[i]
		if o.data != nil && o.id == id && o.dir == dir {
			return o.typ, append(make([]byte, 0, len(o.data)), o.data...), true // never nil: an empty blob is there
		}
	}
	return 0, nil, false
}

func (c *recentObjects) put(dir string, id ID, typ Type, data []byte) {
	if len(data) > recentMax {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots[c.next] = recentObject{dir: dir, id: id, typ: typ, data: append(make([]byte, 0, len(data)), data...)}
	c.next = (c.next + 1) % recentSlots
}
