// Package atomicfile replaces a file so that a reader sees the old content
// or the new, never a part: the data goes to a temporary file beside it,
// is synced, and renamed over it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data and mode, creating its folder if needed,
// synced to disk before the rename. The temporary file is named
// ".<name>.itr-*" and never left behind.
func Write(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return replace(path, data, mode, true)
}

// Replace writes data to a temporary file beside path and renames it over
// path, without syncing: for a file read back at once and then deleted
// (git's own temporary files of a merge driver). A rename replaces path
// itself, so a link put in its place meanwhile is replaced, never written
// through.
func Replace(path string, data []byte, mode os.FileMode) error {
	return replace(path, data, mode, false)
}

// replace is Write and Replace once the folder exists.
func replace(path string, data []byte, mode os.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".itr-*")
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
	if sync {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(name, path)
}

// Overwrite writes data over the start of the file path (made when missing
// if flag has os.O_CREATE) and cuts it to len(data): not atomic, for a
// small file whose reader takes a torn or stale content as unreadable and
// starts over (itr-run, itr-objects). A file emptied and written again is
// forced to the disk at its close on ext4 (auto_da_alloc), and a rename
// frees the old file's blocks; writing in place does neither (issue #33).
// data must not be empty, so the file never reads as nothing.
func Overwrite(path string, data []byte, flag int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|flag, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
