package gitstate

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadObjectMatchesGoGit reads every object of a repository, loose and
// then packed with deltas, and compares with go-git.
func TestReadObjectMatchesGoGit(t *testing.T) {
	dir := newRepo(t, map[string]string{"a/x.txt": strings.Repeat("line\n", 200), "b.txt": "b\n"})
	for i := 0; i < 12; i++ {
		writeFile(t, filepath.Join(dir, "a", "x.txt"), strings.Repeat("line\n", 200)+fmt.Sprintf("edit %d\n", i))
		writeFile(t, filepath.Join(dir, "a", fmt.Sprintf("n%d.txt", i)), "n\n")
		gitRun(t, dir, "add", "-A")
		gitRun(t, dir, "commit", "-q", "-m", fmt.Sprintf("c%d", i))
	}
	for _, phase := range []string{"loose", "packed"} {
		t.Run(phase, func(t *testing.T) {
			if phase == "packed" {
				gitRun(t, dir, "gc", "-q", "--aggressive", "--prune=now")
				assert.Contains(t, gitRun(t, dir, "count-objects", "-v"), "count: 0")
			}
			r := openRepo(t, dir)
			storage := filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault())
			defer storage.Close()
			objDir := filepath.Join(dir, ".git", "objects")
			list := strings.Fields(gitRun(t, dir, "rev-list", "--objects", "--all"))
			n := 0
			for _, s := range list {
				if !isHex40(s) {
					continue
				}
				n++
				h := plumbing.NewHash(s)
				typ, data, err := readObject(objDir, h)
				require.NoError(t, err, s)
				obj, err := storage.EncodedObject(plumbing.AnyObject, h)
				require.NoError(t, err)
				rd, err := obj.Reader()
				require.NoError(t, err)
				want, err := io.ReadAll(rd)
				require.NoError(t, err)
				assert.Equal(t, obj.Type(), typ, s)
				assert.Equal(t, want, data, s)
			}
			assert.Greater(t, n, 30)
			_, _, err := readObject(objDir, plumbing.NewHash(strings.Repeat("ab", 20)))
			assert.ErrorIs(t, err, plumbing.ErrObjectNotFound)
			head := plumbing.NewHash(strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD")))
			tree, err := r.commitTree(head)
			require.NoError(t, err)
			assert.Equal(t, strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD^{tree}")), tree.String())
			entries, err := r.treeEntries(tree)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name)
			}
			assert.Equal(t, []string{"a", "b.txt"}, names)
		})
	}
}

func TestApplyDeltaRejectsMalformed(t *testing.T) {
	base := []byte("hello world")
	for _, tc := range []struct {
		name  string
		delta []byte
		want  string
		ok    bool
	}{
		{"copy and insert", []byte{11, 7, 0x90, 5, 2, '!', '!'}, "hello!!", true},
		{"wrong source size", []byte{10, 5, 0x90, 5}, "", false},
		{"copy past the end", []byte{11, 5, 0x91, 9, 5}, "", false},
		{"short insert", []byte{11, 5, 5, 'a'}, "", false},
		{"wrong result size", []byte{11, 9, 0x90, 5}, "", false},
		{"zero opcode", []byte{11, 1, 0}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := applyDelta(base, tc.delta)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, tc.want, string(got))
			}
		})
	}
}
