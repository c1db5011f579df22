package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.json")
	require.NoError(t, Write(p, []byte("one"), 0o600))
	require.NoError(t, Write(p, []byte("two"), 0o640))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "two", string(got))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm())
	entries, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")

	// A folder in the way: an error, and the folder is untouched.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	assert.Error(t, Write(filepath.Join(dir, "d"), []byte("x"), 0o644))
	st, err = os.Stat(filepath.Join(dir, "d"))
	require.NoError(t, err)
	assert.True(t, st.IsDir())
}
