package gitstate

import (
	"os"

	"golang.org/x/sys/windows"
)

// On Windows a file's identity within its volume (what an inode number is
// on Unix) is its file index, which os.Stat does not report:
// GetFileInformationByHandle does, on an open handle.

// openFileID is the file index of the open file f.
func openFileID(f *os.File, _ os.FileInfo) (uint64, bool) {
	return handleFileID(windows.Handle(f.Fd()))
}

// pathFileID is the file index of the file at path (not of what a
// symbolic link there points to, as with os.Lstat). The file is opened
// for no access, shared with everyone, so that it is neither read nor
// kept from others.
func pathFileID(path string, _ os.FileInfo) (uint64, bool) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, false
	}
	h, err := windows.CreateFile(p, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	return handleFileID(h)
}

// handleFileID is the file index of the file h is open on.
func handleFileID(h windows.Handle) (uint64, bool) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return 0, false
	}
	return uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow), true
}
