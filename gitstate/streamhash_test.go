package gitstate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bigText is n bytes of log-like lines with line ends eol.
func bigText(n int, eol string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString("## T1 - Iteration ")
		b.WriteString(strings.Repeat("x", i%97))
		b.WriteString(eol)
	}
	return b.String()
}

// TestWorktreeFileIDMatchesGit: the streamed id of a working-tree file is
// what `git hash-object --path` names it, on both engines, in a plain
// repository and (git's engine) in a core.autocrlf=true one, where a file
// with CRs is left to the caller (ok false) and one without is named.
func TestWorktreeFileIDMatchesGit(t *testing.T) {
	big := bigText(3*streamChunk+17, "\n") // more than one chunk, not a multiple
	for _, tc := range []struct {
		name, autocrlf, content string
		wantOK                  bool
	}{
		{"empty", "", "", true},
		{"small", "", "one line\n", true},
		{"several chunks", "", big, true},
		{"crlf, no conversion", "", bigText(1000, "\r\n"), true},
		{"autocrlf, LF only", "true", big, true},
		{"autocrlf, CRLF", "true", bigText(1000, "\r\n"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t, map[string]string{"README": "x\n"})
			if tc.autocrlf != "" {
				gitRun(t, dir, "config", "core.autocrlf", tc.autocrlf)
			}
			writeFile(t, filepath.Join(dir, "log.md"), tc.content)
			want := strings.TrimSpace(gitRun(t, dir, "hash-object", "--path", "log.md", "log.md"))
			g, err := OpenGit(dir)
			require.NoError(t, err)
			t.Cleanup(func() { _ = g.Close() })
			engines := map[string]Reader{"git": g}
			if tc.autocrlf == "" {
				engines["native"] = openRepo(t, dir)
			}
			for name, r := range engines {
				id, ok, err := WorktreeFileID(r, "log.md")
				require.NoError(t, err, name)
				require.Equal(t, tc.wantOK, ok, name)
				if ok {
					require.Equal(t, want, id, name)
					data, err := r.WorktreeFile("log.md")
					require.NoError(t, err)
					require.Equal(t, r.BlobID(data), id, name+": the id of what WorktreeFile reads")
				}
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		dir := newRepo(t, map[string]string{"README": "x\n"})
		_, _, err := WorktreeFileID(openRepo(t, dir), "nope.md")
		require.ErrorIs(t, err, os.ErrNotExist)
	})
}

// TestFileHolds compares a file with bytes in chunks.
func TestFileHolds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	data := []byte(bigText(2*streamChunk+5, "\n"))
	require.NoError(t, os.WriteFile(p, data, 0o644))
	require.True(t, fileHolds(p, data))
	require.False(t, fileHolds(p, data[:len(data)-1]), "a prefix")
	require.False(t, fileHolds(p, append(bytes.Clone(data), 'x')), "longer")
	other := bytes.Clone(data)
	other[streamChunk+3] ^= 1
	require.False(t, fileHolds(p, other), "one byte differs in the second chunk")
	require.False(t, fileHolds(filepath.Join(t.TempDir(), "none"), nil))
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	require.True(t, fileHolds(empty, nil))
	require.False(t, fileHolds(empty, []byte("x")))
}

// TestLargeObjectsStreamed: a commit of a file of more than largeObject
// bytes writes its loose object compressed as it goes, on both engines;
// git reads it back byte for byte, fsck is clean, and BlobSize names its
// size from the header, loose and packed (whole and as a delta).
func TestLargeObjectsStreamed(t *testing.T) {
	for _, engine := range []string{"native", "git"} {
		t.Run(engine, func(t *testing.T) {
			dir := newRepo(t, map[string]string{"README": "x\n"})
			var r Repository
			if engine == "git" {
				g, err := OpenGit(dir)
				require.NoError(t, err)
				t.Cleanup(func() { _ = g.Close() })
				r = g
			} else {
				r = openRepo(t, dir)
			}
			big := bigText(largeObject+12345, "\n")
			c, err := r.CommitFiles(CommitRequest{Message: "big\n", Worktree: true,
				Changes: []FileChange{{Path: "log.md", Data: []byte(big)}}})
			require.NoError(t, err)
			require.Equal(t, "", checkRepo(t, dir))
			require.Equal(t, big, gitRun(t, dir, "show", c.Hash+":log.md"))
			id := strings.TrimSpace(gitRun(t, dir, "rev-parse", c.Hash+":log.md"))
			n, ok, err := BlobSize(r, id)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, int64(len(big)), n, "loose")

			// A second version, then a pack where one is a delta of the
			// other.
			bigger := big + "## T1 - Iteration more\n"
			writeFile(t, filepath.Join(dir, "log.md"), bigger)
			gitRun(t, dir, "commit", "-q", "-am", "bigger")
			gitRun(t, dir, "gc", "-q", "--aggressive")
			id2 := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD:log.md"))
			for want, h := range map[int]string{len(big): id, len(bigger): id2} {
				n, ok, err := BlobSize(openedAgain(t, engine, dir), h)
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, int64(want), n, "packed")
			}
			n, ok, _ = BlobSize(r, strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD^{tree}")))
			require.False(t, ok, "a tree is not a blob")
			require.Zero(t, n)
			_, ok, _ = BlobSize(r, strings.Repeat("ab", 20))
			require.False(t, ok, "a missing object")
		})
	}
}

// openedAgain opens dir anew on the named engine (after a repack).
func openedAgain(t *testing.T, engine, dir string) Reader {
	t.Helper()
	if engine == "git" {
		g, err := OpenGit(dir)
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		return g
	}
	return openRepo(t, dir)
}

// TestWritePackToIsEncodePack: the streamed pack is the buffered one.
func TestWritePackToIsEncodePack(t *testing.T) {
	objs := []packObject{
		{typ: "blob", data: []byte(bigText(3*streamChunk, "\n"))},
		{typ: "blob", data: nil},
		{typ: "tree", data: []byte("100644 a\x00" + strings.Repeat("\x01", 20))},
	}
	for _, format := range []string{"sha1", "sha256"} {
		want, err := encodePack(format, objs)
		require.NoError(t, err)
		var got bytes.Buffer
		require.NoError(t, writePackTo(&got, format, objs))
		require.Equal(t, want, got.Bytes(), format)
	}
	require.Error(t, writePackTo(&bytes.Buffer{}, "sha1", []packObject{{typ: "bogus"}}))
}
