package recovery_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/windows"
)

// inode is the file index of the file at p, Windows's inode number (what
// gitstate journals for a lock file there).
func inode(t *testing.T, p string) uint64 {
	t.Helper()
	name, err := windows.UTF16PtrFromString(p)
	require.NoError(t, err)
	h, err := windows.CreateFile(name, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	require.NoError(t, err)
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	require.NoError(t, windows.GetFileInformationByHandle(h, &info))
	return uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)
}
