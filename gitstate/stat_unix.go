//go:build linux

package gitstate

import (
	"os"
	"syscall"
)

// statOf returns git's index stat data for a file.
func statOf(fi os.FileInfo) statData {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statData{}
	}
	return statData{
		ctimeSec: uint32(st.Ctim.Sec), ctimeNsec: uint32(st.Ctim.Nsec),
		mtimeSec: uint32(st.Mtim.Sec), mtimeNsec: uint32(st.Mtim.Nsec),
		dev: uint32(st.Dev), ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid,
		size: uint32(st.Size),
	}
}
