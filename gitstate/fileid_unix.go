//go:build !windows

package gitstate

import (
	"os"
	"syscall"
)

// openFileID is the inode of the open file f, which fi describes.
func openFileID(f *os.File, fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Ino), true
}

// pathFileID is the inode of the file at path, which fi (from os.Lstat)
// describes.
func pathFileID(path string, fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Ino), true
}
