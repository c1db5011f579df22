package gitstate

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// treeWithout is the id of the tree root with the entry at the slash path
// dir left out, as git would name that tree (no object is written): list
// reads a tree's entries in their order, hash names a tree's data. A
// folder that holds nothing else once dir is out is left out too; a root
// that holds nothing is the empty tree. A dir that is not there leaves
// root as it is.
func treeWithout(root string, dir []string, list func(id string) ([]rawTreeEntry, error), hash func(data []byte) string) (string, error) {
	id, err := treeWithoutIn(root, dir, list, hash)
	if err != nil || id != "" {
		return id, err
	}
	return hash(nil), nil
}

func treeWithoutIn(root string, dir []string, list func(id string) ([]rawTreeEntry, error), hash func(data []byte) string) (string, error) {
	entries, err := list(root)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	changed, kept := false, 0
	for _, e := range entries {
		if e.name == dir[0] {
			switch {
			case len(dir) == 1:
				changed = true
				continue
			case e.isDir():
				sub, err := treeWithoutIn(e.id, dir[1:], list, hash)
				if err != nil {
					return "", err
				}
				changed = changed || sub != e.id
				if sub == "" {
					continue
				}
				e.id = sub
			}
		}
		raw, err := hex.DecodeString(e.id)
		if err != nil {
			return "", fmt.Errorf("tree %s: entry %q: %w", root, e.name, errMalformed)
		}
		b.WriteString(e.mode + " " + e.name + "\x00")
		b.Write(raw)
		kept++
	}
	switch {
	case !changed:
		return root, nil
	case kept == 0:
		return "", nil
	}
	return hash(b.Bytes()), nil
}

// splitDir splits a slash path into its parts; nil for the top.
func splitDir(dir string) []string {
	dir = strings.Trim(dir, "/")
	if dir == "" || dir == "." {
		return nil
	}
	return strings.Split(dir, "/")
}

// TreeWithout is the id of rev's tree with the folder dir left out: the
// tree git would write for that commit without it (no object is
// written). A dir that is not there gives rev's tree; dir "" is refused.
func (r *Repo) TreeWithout(rev, dir string) (string, error) {
	parts := splitDir(dir)
	if parts == nil {
		return "", fmt.Errorf("tree without %q: name a folder below the top", dir)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(rev)
	if err != nil {
		return "", err
	}
	tree, err := r.commitTree(h)
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", h, err)
	}
	list := func(id string) ([]rawTreeEntry, error) {
		es, err := r.treeEntries(plumbing.NewHash(id))
		if err != nil {
			return nil, fmt.Errorf("read tree %s: %w", id, err)
		}
		out := make([]rawTreeEntry, len(es))
		for i, e := range es {
			out[i] = rawTreeEntry{mode: strconv.FormatUint(uint64(e.Mode), 8), name: e.Name, id: e.Hash.String()}
		}
		return out, nil
	}
	return treeWithout(tree.String(), parts, list, func(data []byte) string { return hashObject(plumbing.TreeObject, data).String() })
}

// TreeWithout is the id of rev's tree with the folder dir left out (see
// Repo.TreeWithout).
func (g *GitRepo) TreeWithout(rev, dir string) (string, error) {
	parts := splitDir(dir)
	if parts == nil {
		return "", fmt.Errorf("tree without %q: name a folder below the top", dir)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := g.resolve(rev); err != nil {
		return "", err
	}
	root, err := g.entry(rev, "")
	if err != nil {
		return "", err
	}
	return treeWithout(root.id, parts, g.tree, func(data []byte) string { return objectID(g.format, "tree", data) })
}
