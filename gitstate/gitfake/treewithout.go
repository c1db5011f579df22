package gitfake

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"
)

// TreeWithout is the id of rev's tree with the folder dir left out, as git
// would name that tree; nothing is stored.
func (f *Repo) TreeWithout(rev, dir string) (string, error) {
	if err := f.begin("TreeWithout"); err != nil {
		return "", err
	}
	defer f.unlock()
	dir = strings.Trim(dir, "/")
	if dir == "" || dir == "." {
		return "", fmt.Errorf("tree without %q: name a folder below the top", dir)
	}
	root, err := f.entryAt(rev, "")
	if err != nil {
		return "", err
	}
	id, err := f.without(root.hash, strings.Split(dir, "/"))
	if err != nil || id != "" {
		return id, err
	}
	return treeID(nil), nil
}

// without is tree h with the path parts left out, "" when nothing is left.
func (f *Repo) without(h string, parts []string) (string, error) {
	entries, err := f.treeEntries(h)
	if err != nil {
		return "", err
	}
	var kept []entry
	changed := false
	for _, e := range entries {
		if e.name == parts[0] {
			if len(parts) == 1 {
				changed = true
				continue
			}
			if e.isDir() {
				sub, err := f.without(e.hash, parts[1:])
				if err != nil {
					return "", err
				}
				changed = changed || sub != e.hash
				if sub == "" {
					continue
				}
				e.hash = sub
			}
		}
		kept = append(kept, e)
	}
	switch {
	case !changed:
		return h, nil
	case len(kept) == 0:
		return "", nil
	}
	return treeID(encodeTree(kept)), nil
}

// treeID names tree data as git does.
func treeID(data []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "tree %d\x00", len(data))
	s.Write(data)
	return hex.EncodeToString(s.Sum(nil))
}
