//go:build darwin || freebsd || netbsd || openbsd

package gitstate

import (
	"syscall"
	"time"
)

// statCtime is the inode change time of st (Ctimespec on the BSDs and
// macOS, where Linux has Ctim; the fields are int32 on some BSD ports).
func statCtime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}
