//go:build darwin || freebsd || netbsd || openbsd

package gitstate

import (
	"os"
	"syscall"
	"time"
)

// statCtime is the inode change time of fi (Ctimespec on the BSDs and
// macOS, where Linux has Ctim; the fields are int32 on some BSD ports).
func statCtime(fi os.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec)), true
}
