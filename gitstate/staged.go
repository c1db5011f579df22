package gitstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// IndexEntry is one entry of the index as itr needs it: the blob staged
// for a path at a stage (0 when resolved; 1 base, 2 ours, 3 theirs in a
// conflict).
type IndexEntry struct {
	Path  string
	Stage int
	Hash  string
}

// Staged returns the index entries at or below dir ("" for all), in index
// order. A repository without an index has none. Like git, it reads the
// index named by GIT_INDEX_FILE when that is set (git sets it for hooks of
// `git commit -a` and `git commit <paths>`).
func (r *Repo) Staged(dir string) ([]IndexEntry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.root == "" {
		return nil, nil
	}
	path := r.indexFile()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	idx, err := parseIndex(path, data)
	if err != nil {
		return nil, err
	}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var out []IndexEntry
	_, err = idx.Walk(path, func(e indexEntry) error {
		name := string(e.Name)
		if dir == "" || strings.HasPrefix(name, prefix) || name == dir {
			var h plumbing.Hash
			copy(h[:], e.Fixed[40:60])
			out = append(out, IndexEntry{Path: name, Stage: e.Stage, Hash: h.String()})
		}
		return nil
	})
	return out, err
}

// indexFile is the index git uses: GIT_INDEX_FILE when set (relative to
// the working tree top, where git runs), else <git dir>/index.
func (r *Repo) indexFile() string {
	if f := os.Getenv("GIT_INDEX_FILE"); f != "" {
		if !filepath.IsAbs(f) {
			return filepath.Join(r.root, f)
		}
		return f
	}
	return filepath.Join(r.gitDir, "index")
}

// ReadBlob returns the content of the blob with the given hash.
func (r *Repo) ReadBlob(hash string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, err := r.readBlob(plumbing.NewHash(hash))
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", hash, ErrNotFound)
	}
	return data, nil
}

// Stage writes the files to the working tree and records them in the
// index at stage 0, replacing any conflict stages of those paths, as
// `git add` does; nothing is committed. Used to resolve itr's files in the
// middle of a merge, leaving `git commit` to conclude it.
func (r *Repo) Stage(changes []FileChange) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.root == "" {
		return fmt.Errorf("stage: the repository %s is bare", r.gitDir)
	}
	changes, err := normaliseChanges(changes)
	if err != nil {
		return err
	}
	indexPath := r.indexFile()
	lock, err := r.acquireLock(indexPath)
	if err != nil {
		return err
	}
	defer lock.rollback()
	var idx *rawIndex
	data, err := os.ReadFile(indexPath)
	switch {
	case err == nil:
		if idx, err = parseIndex(indexPath, data); err != nil {
			return err
		}
	case !os.IsNotExist(err):
		return fmt.Errorf("read %s: %w", indexPath, err)
	}
	cfg, err := r.loadConfig("")
	if err != nil {
		return err
	}
	r.dur = durabilityOf(cfg)
	lock.nosync = !r.dur.index
	lw := r.newLooseWriter()
	defer lw.closeIndexes()
	for _, c := range changes {
		if !c.Delete {
			if _, err := lw.put(plumbing.BlobObject, c.Data); err != nil {
				return err
			}
		}
	}
	lw.sync()
	if err := r.writeWorktree(changes); err != nil {
		return err
	}
	version := uint32(2)
	if idx != nil {
		version = idx.Version
	}
	switch cfg.value("index", "", "version") {
	case "3":
		version = 3
	case "4":
		version = 4
	}
	ichanges, err := r.indexChanges(changes)
	if err != nil {
		return err
	}
	if err := writePatchedIndex(lock, idx, version, ichanges); err != nil {
		return fmt.Errorf("write %s: %w", lock.lock, err)
	}
	return lock.commit()
}

// HooksDir is where git looks for this repository's hooks: core.hooksPath
// (relative paths are relative to the working tree top) or <git dir>/hooks.
func (r *Repo) HooksDir() (string, error) {
	cfg, err := r.loadConfig("")
	if err != nil {
		return "", err
	}
	if p := cfg.value("core", "", "hookspath"); p != "" {
		p = expandHome(p)
		if !filepath.IsAbs(p) {
			base := r.root
			if base == "" {
				base = r.gitDir
			}
			p = filepath.Join(base, p)
		}
		return p, nil
	}
	return filepath.Join(r.commonDir, "hooks"), nil
}
