package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
)

// errUnreadable means an object's bytes could not be read: a corrupt
// loose object or pack entry, or an encoding gitstate does not read.
var errUnreadable = gitfmt.ErrUnreadable

// readObject reads one object, loose, packed or in an alternate object
// store (gitfmt.ReadObject). An object in none of them is an error wrapping
// plumbing.ErrObjectNotFound; one that is there but unreadable, an error
// wrapping errUnreadable.
func readObject(objDir string, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	t, data, err := gitfmt.ReadObject(objDir, gitfmt.ID(h))
	if errors.Is(err, gitfmt.ErrNotFound) {
		return 0, nil, fmt.Errorf("object %s: %w", h, plumbing.ErrObjectNotFound)
	}
	return plumbing.ObjectType(t), data, err
}

// alternates lists the object folders named in objDir/info/alternates.
func alternates(objDir string) []string { return gitfmt.Alternates(objDir) }

// idxPosition finds h's position in a version-2 pack index.
func idxPosition(f *os.File, h plumbing.Hash) (uint32, bool) {
	return gitfmt.IdxPosition(f, gitfmt.ID(h))
}

// packedWithFirstByte lists the object names in objDir's packs that start
// with the byte b (the packs as listed once per process, gitfmt's store;
// again lists them once more).
func packedWithFirstByte(objDir string, b byte, again bool) ([]plumbing.Hash, error) {
	ids, err := gitfmt.PackedWithFirstByte(objDir, b, again)
	out := make([]plumbing.Hash, len(ids))
	for i, id := range ids {
		out[i] = plumbing.Hash(id)
	}
	return out, err
}

// applyDelta applies a git delta to base.
func applyDelta(base, delta []byte) ([]byte, bool) { return gitfmt.ApplyDelta(base, delta) }

// objDir is the repository's object folder.
func (r *Repo) objDir() string { return filepath.Join(r.commonDir, "objects") }

// commitTree returns the tree of commit h.
func (r *Repo) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	t, data, err := r.readRaw(h)
	if err == nil && t == plumbing.CommitObject {
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
