package gitstate

import (
	"os"
	"syscall"
	"time"
)

// statCtime is, on Windows, the last write time of fi. Windows has no
// inode change time in what os.Lstat gives; its creation time is not used
// because NTFS "tunnelling" gives a file created under the name of one
// deleted in the last 15 seconds the creation time of the deleted one,
// which is what a lock file re-created over and over gets. A lock file is
// written when it is created, so its last write time is when it was made.
func statCtime(fi os.FileInfo) (time.Time, bool) {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, d.LastWriteTime.Nanoseconds()), true
}
