package gitstate

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// indexNames lists (name, stage) of every entry.
func indexNames(idx *rawIndex) []string {
	var out []string
	_, _ = idx.Walk("index", func(e indexEntry) error {
		out = append(out, string(e.Name)+"\x00"+string(rune('0'+e.Stage)))
		return nil
	})
	return out
}

func seedIndexes(f *testing.F) {
	dir := newRepo(f, map[string]string{"a.txt": "a", "d/b.txt": "b", "d/e/c.txt": "c", "z": "z"})
	for _, v := range []string{"2", "3", "4"} {
		gitRun(f, dir, "update-index", "--index-version", v)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		require.NoError(f, err)
		f.Add(data, "d/new.txt", false)
		f.Add(data, "d/b.txt", true)
	}
}

// FuzzIndexPatch checks that any bytes parse without panic and that a
// valid index, patched, parses again with exactly the expected entries.
func FuzzIndexPatch(f *testing.F) {
	seedIndexes(f)
	f.Fuzz(func(t *testing.T, data []byte, path string, del bool) {
		idx, err := parseIndex("index", data)
		if err != nil {
			return
		}
		if _, err := normaliseChanges([]FileChange{{Path: path}}); err != nil {
			return
		}
		var buf bytes.Buffer
		ch := []indexChange{{path: path, delete: del}}
		ch[0].fixed[61] = byte(len(path))
		if len(path) > 0xff {
			return
		}
		require.NoError(t, writePatchedIndex(&buf, idx, idx.Version, ch))
		again, err := parseIndex("index", buf.Bytes())
		require.NoError(t, err)
		var want []string
		inserted := false
		for _, n := range indexNames(idx) {
			name := n[:len(n)-2]
			conflict := name == path || (len(name) > len(path) && name[:len(path)] == path && name[len(path)] == '/') ||
				(!del && len(path) > len(name) && path[:len(name)] == name && path[len(name)] == '/')
			if !del && !inserted && name >= path {
				want = append(want, path+"\x000")
				inserted = true
			}
			if !conflict {
				want = append(want, n)
			}
		}
		if !del && !inserted {
			want = append(want, path+"\x000")
		}
		require.Equal(t, want, indexNames(again))
	})
}

// FuzzCacheTree checks parse → render → parse of the TREE extension.
func FuzzCacheTree(f *testing.F) {
	f.Add([]byte("\x00-1 1\nsub\x002 0\n01234567890123456789"))
	f.Add([]byte("\x003 0\n01234567890123456789"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ct, rest, ok := parseCacheTree(data)
		if !ok || len(rest) != 0 {
			return
		}
		out := ct.AppendTo(nil)
		again, rest, ok := parseCacheTree(out)
		require.True(t, ok)
		require.Empty(t, rest)
		require.Equal(t, out, again.AppendTo(nil))
	})
}
