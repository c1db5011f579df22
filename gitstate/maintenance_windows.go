package gitstate

import (
	"os"
	"syscall"

	"github.com/itr-dev/itr/internal/winproc"
	"golang.org/x/sys/windows"
)

// processRunning reports whether the process exists and has not exited
// (OpenProcess and GetExitCodeProcess; Unix asks kill(pid, 0)).
func processRunning(pid int) bool { return winproc.Alive(pid) }

// detachedAttr starts a process in a process group of its own (a Ctrl-C
// or Ctrl-Break in itr's console does not reach it) and without a console
// (closing itr's console window does not stop it): Windows has no
// sessions, these two flags do what Setsid does on Unix.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
}

// cluster is the allocation unit of an NTFS volume by default (4 KiB for
// volumes up to 16 TiB).
const cluster = 4096

// diskSize is what a file takes on disk. Windows reports no block count
// with a file's attributes (asking for its allocation size means opening
// every loose object); its size rounded up to a whole default cluster
// stands for it, as blocks do on Unix, so that itr's rule for packing its
// loose objects (maintenanceDue) weighs them alike on every system.
func diskSize(fi os.FileInfo) int64 {
	return (fi.Size() + cluster - 1) / cluster * cluster
}
