//go:build !windows

package gitstate

import (
	"os"
	"syscall"
)

// renameFile renames the file oldpath to newpath, replacing it, with the
// one rename(2) call: os.Rename first stats newpath to refuse renaming over
// a folder, a system call per object, lock and file a commit writes
// (issue #33); rename(2) refuses a file over a folder itself (EISDIR).
func renameFile(oldpath, newpath string) error {
	for {
		err := syscall.Rename(oldpath, newpath)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
		return nil
	}
}

// removeFile removes the file path with the one unlink(2) call (os.Remove
// tries rmdir(2) as well when unlink fails).
func removeFile(path string) error {
	for {
		err := syscall.Unlink(path)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "remove", Path: path, Err: err}
		}
		return nil
	}
}
