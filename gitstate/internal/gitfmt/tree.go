package gitfmt

import "bytes"

// Modes of tree entries and index entries.
const (
	ModeTree    uint32 = 0o040000
	ModeGitlink uint32 = 0o160000
)

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Mode uint32
	Name []byte // points into the tree's bytes
	ID   ID
}

// NextTreeEntry parses the first entry of a tree object's body and returns
// the bytes after it; ok is false when the entry is malformed (a mode that
// is not octal, an empty name, a short object name).
func NextTreeEntry(data []byte) (e TreeEntry, rest []byte, ok bool) {
	sp := bytes.IndexByte(data, ' ')
	if sp <= 0 {
		return TreeEntry{}, nil, false
	}
	var mode uint64
	for _, c := range data[:sp] {
		if c < '0' || c > '7' || mode > 0xffffffff>>3 {
			return TreeEntry{}, nil, false
		}
		mode = mode<<3 | uint64(c-'0')
	}
	e.Mode = uint32(mode)
	data = data[sp+1:]
	nul := bytes.IndexByte(data, 0)
	if nul <= 0 || len(data) < nul+1+len(e.ID) {
		return TreeEntry{}, nil, false
	}
	e.Name = data[:nul]
	copy(e.ID[:], data[nul+1:])
	return e, data[nul+1+len(e.ID):], true
}
