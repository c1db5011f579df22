package gitstate

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// Refs returns the full names and commit hashes of the references whose
// names start with one of the prefixes (such as "refs/heads/"), sorted by
// name. Annotated tags are peeled to their commit.
func (r *Repo) Refs(prefixes ...string) (map[string]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for _, p := range prefixes {
		raw, err := r.rawRefs(p)
		if err != nil {
			return nil, fmt.Errorf("list references: %w", err)
		}
		for name, v := range raw {
			h, err := r.peel(plumbing.NewHash(v), name)
			if err != nil {
				continue // a ref to a non-commit is not listed
			}
			out[name] = h.String()
		}
	}
	return out, nil
}

// RefNames returns the keys of a Refs result in order.
func RefNames(refs map[string]string) []string {
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BlobHash is the git object name of data as a blob, as `git hash-object`
// computes it.
func BlobHash(data []byte) string {
	return hashObject(plumbing.BlobObject, data).String()
}

// FileHashAt is the blob hash of path at rev, or ErrNotFound.
func (r *Repo) FileHashAt(rev, path string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, err := r.entryAt(rev, path)
	if err != nil {
		return "", err
	}
	return e.Hash.String(), nil
}

// BlobID is BlobHash: the native engine serves SHA-1 repositories only.
func (r *Repo) BlobID(data []byte) string { return BlobHash(data) }

// WorktreeFile reads a file of the working tree as it is: the native engine
// serves only repositories where git stores a file's bytes unconverted.
func (r *Repo) WorktreeFile(rel string) ([]byte, error) {
	data, _, err := readRaw(filepath.Join(r.root, filepath.FromSlash(rel)))
	return data, err
}
