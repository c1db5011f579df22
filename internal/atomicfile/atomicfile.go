// Package atomicfile replaces a file so that a reader sees the old content
// or the new, never a part: the data goes to a temporary file beside it,
// is synced, and renamed over it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data and mode, creating its folder if needed.
// The temporary file is named ".<name>.itr-*" and never left behind.
func Write(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".itr-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(name, path)
}
