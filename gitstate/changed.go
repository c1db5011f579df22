package gitstate

import (
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// The paths a commit changed: its tree against its first parent's, walked
// together from the top and entering only the folders whose trees differ,
// so the cost grows with what the commit changed, not with the size of the
// repository.

// diffEntry is one entry of a tree as the diff compares it.
type diffEntry struct {
	name, mode, id string
	dir            bool
}

// diffTrees appends to out the path of every file (blob, symbolic link or
// submodule) that differs between the trees a and b ("" for none) below
// prefix: added, removed, or with another object or mode. read lists a
// tree's entries.
func diffTrees(read func(id string) ([]diffEntry, error), a, b, prefix string, out *[]string) error {
	if a == b {
		return nil
	}
	side := func(id string) (map[string]diffEntry, []diffEntry, error) {
		if id == "" {
			return nil, nil, nil
		}
		list, err := read(id)
		if err != nil {
			return nil, nil, err
		}
		m := make(map[string]diffEntry, len(list))
		for _, e := range list {
			m[e.name] = e
		}
		return m, list, nil
	}
	ma, la, err := side(a)
	if err != nil {
		return err
	}
	mb, lb, err := side(b)
	if err != nil {
		return err
	}
	// One pass over the names of both sides.
	visit := func(name string) error {
		ea, inA := ma[name]
		eb, inB := mb[name]
		if inA && inB && ea.id == eb.id && ea.mode == eb.mode {
			return nil
		}
		p := joinPath(prefix, name)
		var ta, tb string
		if inA && ea.dir {
			ta = ea.id
		}
		if inB && eb.dir {
			tb = eb.id
		}
		if (inA && !ea.dir) || (inB && !eb.dir) {
			*out = append(*out, p) // a file added, removed or changed (or one that became a folder)
		}
		if ta != "" || tb != "" {
			return diffTrees(read, ta, tb, p, out)
		}
		return nil
	}
	for _, e := range lb {
		if err := visit(e.name); err != nil {
			return err
		}
	}
	for _, e := range la {
		if _, both := mb[e.name]; !both {
			if err := visit(e.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// ChangedFiles returns the paths of the files commit rev changed against
// its first parent (every file of a commit without parents, or whose
// parent is beyond a shallow boundary), sorted. It wraps ErrNotFound when
// rev names no commit.
func (r *Repo) ChangedFiles(rev string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(rev)
	if err != nil {
		return nil, err
	}
	c, err := r.readCommit(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	parent := ""
	if len(c.Parents) > 0 {
		pt, err := r.commitTree(c.Parents[0])
		switch {
		case err == nil:
			parent = pt.String()
		case !errors.Is(err, ErrNotFound):
			return nil, fmt.Errorf("read commit %s: %w", c.Parents[0], err)
		}
	}
	read := func(id string) ([]diffEntry, error) {
		entries, err := r.treeEntries(plumbing.NewHash(id))
		if err != nil {
			return nil, fmt.Errorf("read tree %s: %w", id, err)
		}
		out := make([]diffEntry, len(entries))
		for i, e := range entries {
			out[i] = diffEntry{name: e.Name, mode: e.Mode.String(), id: e.Hash.String(), dir: e.Mode == filemode.Dir}
		}
		return out, nil
	}
	var out []string
	if err := diffTrees(read, parent, c.Tree.String(), "", &out); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// ChangedFiles returns the paths of the files commit rev changed against
// its first parent (every file of a commit without parents, or whose
// parent is missing), sorted.
func (g *GitRepo) ChangedFiles(rev string) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id, err := g.resolve(rev)
	if err != nil {
		return nil, err
	}
	o, ok, err := g.query("contents", id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("read commit %s: %w", id, ErrNotFound)
	}
	c, err := g.decodeCommit(id, o.data)
	if err != nil {
		return nil, err
	}
	tree, err := g.entry(id, "")
	if err != nil {
		return nil, err
	}
	parent := ""
	if len(c.Parents) > 0 {
		pt, err := g.entry(c.Parents[0], "")
		switch {
		case err == nil:
			parent = pt.id
		case !errors.Is(err, ErrNotFound):
			return nil, err
		}
	}
	read := func(id string) ([]diffEntry, error) {
		entries, err := g.tree(id)
		if err != nil {
			return nil, err
		}
		out := make([]diffEntry, len(entries))
		for i, e := range entries {
			out[i] = diffEntry{name: e.name, mode: e.mode, id: e.id, dir: e.isDir()}
		}
		return out, nil
	}
	var out []string
	if err := diffTrees(read, parent, tree.id, "", &out); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}
