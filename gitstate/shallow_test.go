package gitstate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseShallow(t *testing.T) {
	sha1 := strings.Repeat("a", 40)
	sha256 := strings.Repeat("b", 64)
	got := parseShallow([]byte(sha1 + "\n" + sha256 + "\r\nnot an id\n" + strings.Repeat("A", 40) + "\n\n"))
	assert.Equal(t, map[string]bool{sha1: true, sha256: true}, got)
	assert.Nil(t, parseShallow(nil))
}

// TestHistoryShallow: in a clone of depth 2 both engines walk HEAD and its
// parent, mark the parent as the shallow boundary and stop there; once
// the clone is deepened to the whole history they walk every commit and
// mark none.
func TestHistoryShallow(t *testing.T) {
	src := newRepo(t, map[string]string{"a.txt": "1\n"})
	for i := 2; i <= 4; i++ {
		writeFile(t, filepath.Join(src, "a.txt"), strings.Repeat("x\n", i))
		gitRun(t, src, "commit", "-q", "-am", "commit")
	}
	dir := t.TempDir()
	gitRun(t, dir, "clone", "-q", "--depth", "2", "file://"+src, "clone")
	clone := filepath.Join(dir, "clone")
	parent := strings.TrimSpace(gitRun(t, clone, "rev-parse", "HEAD~1"))

	walk := func(r Reader) (n int, shallow []string) {
		require.NoError(t, r.History("HEAD", func(c Commit) bool {
			n++
			if c.Shallow {
				shallow = append(shallow, c.Hash)
			}
			return true
		}))
		return n, shallow
	}
	engines := func() map[string]Reader {
		g, err := OpenGit(clone)
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		return map[string]Reader{"native": openRepo(t, clone), "git": g}
	}
	for name, r := range engines() {
		n, shallow := walk(r)
		assert.Equal(t, 2, n, name)
		assert.Equal(t, []string{parent}, shallow, name)
	}
	gitRun(t, clone, "fetch", "-q", "--unshallow")
	for name, r := range engines() {
		n, shallow := walk(r)
		assert.Equal(t, 4, n, name)
		assert.Empty(t, shallow, name)
	}
}
