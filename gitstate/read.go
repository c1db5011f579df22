package gitstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/itr-dev/itr/gitstate/internal/gitfmt"
	"github.com/itr-dev/itr/gitstate/internal/gitsyntax"
)

// ResolveRev returns the full commit hash of rev: "HEAD" (or ""), a full or
// abbreviated hash, a full ref name, a branch, tag or remote name, or any
// revision with ~N and ^N suffixes (e.g. "HEAD~2"). Tags are peeled to commits.
// It returns an error wrapping ErrNotFound when rev names nothing.
func (r *Repo) ResolveRev(rev string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, err := r.resolve(rev)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

func (r *Repo) resolve(rev string) (plumbing.Hash, error) {
	var hash string
	switch {
	case rev == "" || rev == "HEAD":
		h, err := r.head()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h.Unborn {
			return plumbing.ZeroHash, fmt.Errorf("revision HEAD: %w: %s has no commit yet", ErrNotFound, h.Branch)
		}
		hash = h.Hash
	case isHex40(rev):
		hash = rev
	default:
		for _, cand := range []string{rev, "refs/" + rev, "refs/tags/" + rev, "refs/heads/" + rev, "refs/remotes/" + rev, "refs/remotes/" + rev + "/HEAD"} {
			if !strings.HasPrefix(cand, "refs/") {
				continue
			}
			v, err := r.resolveRef(cand)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if v != "" {
				hash = v
				break
			}
		}
	}
	if hash == "" {
		h, err := r.resolveExpr(rev)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("revision %q: %w; check the name with `git rev-parse %s`", rev, ErrNotFound, rev)
		}
		hash = h.String()
	}
	return r.peel(plumbing.NewHash(hash), rev)
}

// resolveExpr resolves what resolve's plain names do not: an abbreviated
// hash (at least 4 digits, unambiguous) and a name followed by the
// suffixes ~N, ^N and ^{commit}, as git rev-parse reads them.
func (r *Repo) resolveExpr(rev string) (plumbing.Hash, error) {
	i := strings.IndexAny(rev, "~^")
	base, ops := rev, ""
	if i >= 0 {
		base, ops = rev[:i], rev[i:]
	}
	var h plumbing.Hash
	switch {
	case base == "":
		return plumbing.ZeroHash, ErrNotFound
	case base != rev:
		b, err := r.resolve(base)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		h = b
	case len(base) >= 4 && len(base) < 40 && isHex(base):
		found, err := hashesWithPrefix(r.objDir(), strings.ToLower(base), 0, false)
		if err == nil && len(found) == 0 {
			// Perhaps in a pack made since the packs were listed.
			found, err = hashesWithPrefix(r.objDir(), strings.ToLower(base), 0, true)
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if len(found) != 1 {
			return plumbing.ZeroHash, ErrNotFound // none, or ambiguous
		}
		for h := range found {
			return h, nil
		}
	default:
		return plumbing.ZeroHash, ErrNotFound
	}
	steps, ok := gitsyntax.Suffixes(ops)
	if !ok {
		return plumbing.ZeroHash, ErrNotFound
	}
	for _, st := range steps {
		c, err := r.peel(h, rev)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		h = c
		switch {
		case st.Peel:
		case st.Op == '~':
			for k := 0; k < st.N; k++ {
				if h, err = r.parent(h, 1); err != nil {
					return plumbing.ZeroHash, err
				}
			}
		case st.N > 0:
			if h, err = r.parent(h, st.N); err != nil {
				return plumbing.ZeroHash, err
			}
		}
	}
	return h, nil
}

// parent is the nth parent (1-based) of commit h.
func (r *Repo) parent(h plumbing.Hash, n int) (plumbing.Hash, error) {
	c, err := r.readCommit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n < 1 || n > len(c.Parents) {
		return plumbing.ZeroHash, ErrNotFound
	}
	return c.Parents[n-1], nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// hashesWithPrefix returns the names of the objects (loose, packed, or in
// an alternate object store) that start with the lower-case hex prefix of at
// least two digits; again lists the packs once more first.
func hashesWithPrefix(objDir, prefix string, depth int, again bool) (map[plumbing.Hash]bool, error) {
	out := map[plumbing.Hash]bool{}
	ents, err := os.ReadDir(filepath.Join(objDir, prefix[:2]))
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("list loose objects: %w", err)
	}
	for _, e := range ents {
		if name := prefix[:2] + e.Name(); isHex40(name) && strings.HasPrefix(name, prefix) {
			out[plumbing.NewHash(name)] = true
		}
	}
	first, err := strconv.ParseUint(prefix[:2], 16, 8)
	if err != nil {
		return nil, ErrNotFound
	}
	names, err := packedWithFirstByte(objDir, byte(first), again)
	if err != nil {
		return nil, err
	}
	for _, h := range names {
		if strings.HasPrefix(h.String(), prefix) {
			out[h] = true
		}
	}
	if depth < gitfmt.MaxAlternateDepth {
		for _, alt := range alternates(objDir) {
			more, err := hashesWithPrefix(alt, prefix, depth+1, again)
			if err != nil {
				return nil, err
			}
			for h := range more {
				out[h] = true
			}
		}
	}
	return out, nil
}

// peel follows annotated tags to a commit.
func (r *Repo) peel(h plumbing.Hash, rev string) (plumbing.Hash, error) {
	for i := 0; i < 10; i++ {
		typ, data, err := r.readRaw(h)
		if err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				return plumbing.ZeroHash, fmt.Errorf("revision %q: object %s: %w", rev, h, ErrNotFound)
			}
			return plumbing.ZeroHash, fmt.Errorf("revision %q: read %s: %w", rev, h, err)
		}
		switch typ {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			t, err := decodeTag(h, data)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("revision %q: read tag %s: %w", rev, h, err)
			}
			h = t.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("revision %q: %s is a %s, not a commit: %w", rev, h, typ, ErrNotFound)
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("revision %q: tags nest too deep", rev)
}

// treeAt returns the tree of the folder dir (slash path, "" for the root)
// at rev.
func (r *Repo) entryAt(rev, p string) (treeEntry, error) {
	h, err := r.resolve(rev)
	if err != nil {
		return treeEntry{}, err
	}
	tree, err := r.commitTree(h)
	if err != nil {
		return treeEntry{}, fmt.Errorf("read commit %s: %w", h, err)
	}
	entry := treeEntry{Mode: filemode.Dir, Hash: tree}
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return entry, nil
	}
	for _, comp := range strings.Split(p, "/") {
		if entry.Mode != filemode.Dir {
			return treeEntry{}, fmt.Errorf("%s at %s: %w (a parent is a file)", p, rev, ErrNotFound)
		}
		entries, err := r.treeEntries(entry.Hash)
		if err != nil {
			return treeEntry{}, fmt.Errorf("read tree %s: %w", entry.Hash, err)
		}
		found := false
		for _, e := range entries {
			if e.Name == comp {
				entry, found = e, true
				break
			}
		}
		if !found {
			return treeEntry{}, fmt.Errorf("%s at %s: %w", p, revName(rev), ErrNotFound)
		}
	}
	return entry, nil
}

// readBlob reads a blob by hash.
func (r *Repo) readBlob(h plumbing.Hash) ([]byte, error) {
	t, data, err := r.readRaw(h)
	if err != nil {
		return nil, err
	}
	if t != plumbing.BlobObject {
		return nil, fmt.Errorf("object %s is a %s, not a blob: %w", h, t, ErrNotFound)
	}
	return data, nil
}

// TreeFiles returns every file below the folder dir at rev, recursively,
// as repository-relative slash path → blob name; a missing folder has none.
func (r *Repo) TreeFiles(rev, dir string) (map[string]string, error) {
	return r.blobNames(rev, dir, true)
}

// FolderHashes returns the blob names of the files directly in the folder
// dir at rev (name → hash); a missing folder has none. One walk of the
// trees serves every file of the folder.
func (r *Repo) FolderHashes(rev, dir string) (map[string]string, error) {
	return r.blobNames(rev, dir, false)
}

// blobNames maps the files of the folder dir at rev to their blob names:
// those directly in it by name, or, recursive, every file below it by
// repository-relative path. A missing folder has none.
func (r *Repo) blobNames(rev, dir string, recursive bool) (map[string]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	tree, ok, err := r.folderAt(rev, dir)
	if !ok || err != nil {
		return okOr(out, err)
	}
	if recursive {
		return out, r.walkTree(tree, strings.TrimSuffix(dir, "/"), func(p string, te treeEntry) {
			if te.Mode.IsFile() {
				out[p] = te.Hash.String()
			}
		})
	}
	entries, err := r.treeEntries(tree)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", tree, err)
	}
	for _, te := range entries {
		if te.Mode.IsFile() {
			out[te.Name] = te.Hash.String()
		}
	}
	return out, nil
}

// folderAt is the tree of the folder dir at rev; ok is false when there is
// no such folder (missing, or a file).
func (r *Repo) folderAt(rev, dir string) (tree plumbing.Hash, ok bool, err error) {
	e, err := r.entryAt(rev, dir)
	if errors.Is(err, ErrNotFound) {
		return plumbing.ZeroHash, false, nil
	}
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	return e.Hash, e.Mode == filemode.Dir, nil
}

// okOr is (empty, nil) when err is nil and (zero, err) otherwise: the
// answer of a read whose folder is missing or could not be read.
func okOr[T any](empty T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return empty, nil
}

// walkTree calls fn with the repository-relative path of every entry below
// the tree h that is not a folder, recursing into folders in git order.
func (r *Repo) walkTree(h plumbing.Hash, prefix string, fn func(p string, te treeEntry)) error {
	entries, err := r.treeEntries(h)
	if err != nil {
		return fmt.Errorf("read tree %s: %w", h, err)
	}
	for _, te := range entries {
		p := joinPath(prefix, te.Name)
		if te.Mode == filemode.Dir {
			if err := r.walkTree(te.Hash, p, fn); err != nil {
				return err
			}
			continue
		}
		fn(p, te)
	}
	return nil
}

func revName(rev string) string {
	if rev == "" {
		return "HEAD"
	}
	return rev
}

// ReadFile returns the contents of the file at path (slash-separated,
// repository-relative) in revision rev. It returns an error wrapping
// ErrNotFound when the revision or the file does not exist or path is a
// folder.
func (r *Repo) ReadFile(rev, path string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, err := r.entryAt(rev, path)
	if err != nil {
		return nil, err
	}
	if e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
		return nil, fmt.Errorf("%s at %s: %w (it is a folder)", path, revName(rev), ErrNotFound)
	}
	data, err := r.readBlob(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, revName(rev), err)
	}
	return data, nil
}

// ListDir returns the names directly inside the folder dir at rev, in git
// order ("" is the root). It returns an error wrapping ErrNotFound when the
// folder does not exist.
func (r *Repo) ListDir(rev, dir string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, err := r.entryAt(rev, dir)
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, fmt.Errorf("%s at %s: %w (it is a file)", dir, revName(rev), ErrNotFound)
	}
	entries, err := r.treeEntries(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", e.Hash, err)
	}
	names := make([]string, 0, len(entries))
	for _, te := range entries {
		names = append(names, te.Name)
	}
	return names, nil
}

// ListFiles returns the paths of every file below the folder dir at rev,
// recursively, repository-relative with slashes, in git order. A folder
// that does not exist has no files.
func (r *Repo) ListFiles(rev, dir string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tree, ok, err := r.folderAt(rev, dir)
	if !ok || err != nil {
		return okOr[[]string](nil, err)
	}
	var out []string
	err = r.walkTree(tree, strings.TrimSuffix(dir, "/"), func(p string, te treeEntry) {
		if te.Mode != filemode.Submodule {
			out = append(out, p)
		}
	})
	return out, err
}

// History walks first parents from rev ("" means HEAD), newest first,
// calling fn for each commit until fn returns false. A shallow boundary (a
// commit .git/shallow lists, given with Shallow set) or a missing parent
// ends the walk cleanly; an unborn HEAD has no history.
func (r *Repo) History(rev string, fn func(Commit) bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rev == "" || rev == "HEAD" {
		h, err := r.head()
		if err != nil {
			return err
		}
		if h.Unborn {
			return nil
		}
	}
	start, err := r.resolve(rev)
	if err != nil {
		return err
	}
	shallow, err := r.shallowSet()
	if err != nil {
		return err
	}
	h := start
	for {
		c, err := r.readCommit(h)
		if err != nil {
			if h != start && errors.Is(err, plumbing.ErrObjectNotFound) {
				return nil
			}
			return fmt.Errorf("read commit %s: %w", h, err)
		}
		cc := toCommit(c)
		cc.Shallow = shallow[h]
		if !fn(cc) {
			return nil
		}
		if len(c.Parents) == 0 || shallow[h] {
			return nil
		}
		h = c.Parents[0]
	}
}

// shallowSet reads the shallow boundary commits.
func (r *Repo) shallowSet() (map[plumbing.Hash]bool, error) {
	data, err := r.cache.readFile(filepath.Join(r.commonDir, "shallow"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read shallow: %w", err)
	}
	var set map[plumbing.Hash]bool
	for id := range parseShallow(data) {
		if len(id) == 40 { // this engine reads SHA-1 repositories only
			if set == nil {
				set = map[plumbing.Hash]bool{}
			}
			set[plumbing.NewHash(id)] = true
		}
	}
	return set, nil
}

func toCommit(c commitObject) Commit {
	out := Commit{
		Hash:      c.Hash.String(),
		Author:    c.Author,
		Committer: c.Committer,
		Message:   c.Message,
		Subject:   subject(c.Message),
		Trailers:  ParseTrailers(c.Message),
	}
	for _, p := range c.Parents {
		out.Parents = append(out.Parents, p.String())
	}
	return out
}

// joinPath joins a tree path and an entry name; the top's path is "".
func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}
