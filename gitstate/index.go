package gitstate

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"
	"sort"

	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
)

// The index as gitfmt reads it; this file lays out and writes patches.
type (
	rawIndex   = gitfmt.Index
	indexEntry = gitfmt.Entry
	cacheTree  = gitfmt.CacheTree
)

// Index entry layout (git's Documentation/gitformat-index.txt).
const (
	entryFixed   = gitfmt.EntryFixed
	flagExtended = gitfmt.FlagExtended
	flagStage    = gitfmt.FlagStage
	flagNameMask = gitfmt.FlagNameMask
	indexHashLen = gitfmt.HashLen
)

// unsupportedIndex builds the error for an index feature gitstate will not
// patch.
func unsupportedIndex(setting, value, fix string) error {
	return &UnsupportedError{Setting: setting, Value: value, Fix: fix}
}

// parseIndex validates an index held in memory, its checksum included.
func parseIndex(path string, data []byte) (*rawIndex, error) {
	return gitfmt.ParseIndex(path, data, sha1.New())
}

// readIndexPlan reads and validates the index (gitfmt.ReadIndex) and lays
// out the patch of changes (sorted by path) in the same pass; the plan is
// nil if changes is.
func readIndexPlan(path string, src io.ReaderAt, size int64, changes []indexChange) (*rawIndex, *indexPlan, error) {
	var pl *planner
	var start func(uint32) func(indexEntry) error
	if changes != nil {
		start = func(version uint32) func(indexEntry) error {
			pl = newPlanner(version, changes)
			return pl.visit
		}
	}
	idx, err := gitfmt.ReadIndex(path, src, size, sha1.New(), start)
	if err != nil || pl == nil {
		return idx, nil, err
	}
	return idx, pl.finish(), nil
}

var (
	decodeVarint   = gitfmt.DecodeVarint
	encodeVarint   = gitfmt.EncodeVarint
	parseCacheTree = gitfmt.ParseCacheTree
)

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
	for pl.ci < len(changes) && changes[pl.ci].path < string(e.Name) {
		if !changes[pl.ci].delete {
			pl.emitNew(pl.ci)
		}
		pl.ci++
	}
	if pl.ci < len(changes) && string(e.Name) == changes[pl.ci].path {
		pl.matched[pl.ci]++
		pl.inSync = false
		return nil
	}
	if conflicts(changes, e.Name) {
		p.shifted = true
		pl.inSync = false
		return nil
	}
	p.count++
	switch {
	case pl.version != 4 || pl.inSync:
		if n := len(p.segs); n > 0 && p.segs[n-1].to == e.Start && p.segs[n-1].to > p.segs[n-1].from {
			p.segs[n-1].to = e.End
		} else {
			p.segs = append(p.segs, patchSeg{from: e.Start, to: e.End, change: -1})
		}
	default:
		p.segs = append(p.segs, patchSeg{change: -1, fixed: bytes.Clone(e.Fixed), name: string(e.Name), prev: string(pl.lastName)})
	}
	if pl.version == 4 {
		pl.lastName = append(pl.lastName[:0], e.Name...)
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

// planIndex walks the index once and lays out the patched entries. changes must
// be sorted by path.
func planIndex(idx *rawIndex, changes []indexChange) (*indexPlan, error) {
	pl := newPlanner(idx.Version, changes)
	if _, err := idx.Walk("index", pl.visit); err != nil {
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
	return &rawIndex{Src: bytes.NewReader(data), Size: int64(len(data)), Version: version, EntriesEnd: 12}
}

// writePatchedIndex writes the patched index (header, entries, kept
// extensions, checksum) to w. idx may be nil (no index yet), in which case
// version is used for a new index.
func writePatchedIndex(w io.Writer, idx *rawIndex, version uint32, changes []indexChange) error {
	sortChanges(changes)
	if idx == nil {
		idx = emptyIndex(version)
	}
	p, err := planIndex(idx, changes)
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
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), gitfmt.IndexChunk)
	var hdr [12]byte
	copy(hdr[:], "DIRC")
	binary.BigEndian.PutUint32(hdr[4:], idx.Version)
	binary.BigEndian.PutUint32(hdr[8:], p.count)
	_, _ = bw.Write(hdr[:])
	var scratch []byte
	for _, s := range p.segs {
		switch {
		case s.to > s.from:
			n, err := bw.ReadFrom(io.NewSectionReader(idx.Src, s.from, s.to-s.from))
			if err != nil {
				return err
			}
			if n != s.to-s.from {
				return fmt.Errorf("the index shrank while it was copied (%d of %d bytes at %d)", n, s.to-s.from, s.from)
			}
		case s.change >= 0:
			scratch = append(scratch[:0], changes[s.change].fixed[:]...)
			scratch = appendIndexName(scratch, idx.Version, entryFixed, s.name, s.prev)
			_, _ = bw.Write(scratch)
		default:
			scratch = append(scratch[:0], s.fixed...)
			scratch = appendIndexName(scratch, idx.Version, len(s.fixed), s.name, s.prev)
			_, _ = bw.Write(scratch)
		}
	}
	allStat := true
	for _, c := range changes {
		if !c.delete && !c.stat {
			allStat = false
		}
	}
	for _, ext := range idx.Exts {
		data := ext.Data
		switch ext.Sig {
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
		copy(eh[:], ext.Sig)
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
		node.Invalidate()
		path := c.path
		for path != "" {
			comp := path
			if slash := indexByteString(path, '/'); slash >= 0 {
				comp, path = path[:slash], path[slash+1:]
			} else {
				path = ""
			}
			var next *cacheTree
			for _, ch := range node.Children {
				if string(ch.Name) == comp {
					next = ch
					break
				}
			}
			if next == nil {
				break
			}
			next.Invalidate()
			node = next
		}
	}
	return root.AppendTo(make([]byte, 0, len(data)))
}

func indexByteString(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
