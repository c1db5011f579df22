//go:build linux

package gitstate

import (
	"os"
	"syscall"
	"time"
)

// statCtime is the inode change time of fi.
func statCtime(fi os.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec), true
}
