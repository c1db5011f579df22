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

// Replace puts a file in place of a link, never writing through it, and
// leaves no temporary file behind.
func TestReplaceReplacesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "merged")
	if err := os.Symlink(target, p); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := Replace(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("the link's target was written through: %q", got)
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s is not a plain file of mode 0600: %v, %v", p, fi.Mode(), err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new" {
		t.Errorf("content %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("a temporary file is left: %v", entries)
	}
	if err := Replace(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil {
		t.Error("Replace made a folder: it must not")
	}
}

func TestOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "itr-run")
	if err := Overwrite(path, []byte("x\n"), 0); err == nil {
		t.Fatal("Overwrite without O_CREATE made a missing file")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a missing file after a refused Overwrite: %v", err)
	}
	for _, data := range []string{"a longer first content\n", "short\n", "\n"} {
		if err := Overwrite(path, []byte(data), os.O_CREATE); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != data {
			t.Fatalf("after Overwrite(%q): %q, %v (no stale bytes may stay)", data, got, err)
		}
	}
}
