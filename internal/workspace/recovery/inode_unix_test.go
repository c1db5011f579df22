//go:build !windows

package recovery_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no inode numbers here")
	}
	return uint64(st.Ino)
}
