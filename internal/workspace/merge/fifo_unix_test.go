//go:build !windows

package merge

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// mkfifo makes a named pipe at p.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(p, 0o644))
}
