package gitstate

import (
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteObjectsAsGitWrites: the objects the git engine lays out in a pack
// for `git unpack-objects` get the names git gives them (a commit built here
// is the one `git commit-tree` builds from the same tree, parent, identity,
// time and message), in SHA-1 and SHA-256 repositories, and fsck is clean.
func TestWriteObjectsAsGitWrites(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			isolate(t)
			dir := t.TempDir()
			gitRun(t, dir, "init", "-q", "--object-format="+format)
			gitRun(t, dir, "commit", "-q", "--allow-empty", "-m", "base")
			parent := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
			g, err := OpenGit(dir)
			require.NoError(t, err)
			defer g.Close()
			assert.Equal(t, format, g.ObjectFormat())

			big := strings.Repeat("line of a large file\n", 5000) // size needs several header bytes
			blob := g.newObject("blob", []byte(big))
			small := g.newObject("blob", []byte("x\n"))
			raw := func(id string) string {
				b, err := hex.DecodeString(id)
				require.NoError(t, err)
				return string(b)
			}
			tree := g.newObject("tree", []byte("100644 big.txt\x00"+raw(blob.id)+"100644 x.txt\x00"+raw(small.id)))
			when := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("", 2*3600))
			who := Signature{Name: "Test User", Email: "test@example.com", When: when}
			commit := g.newObject("commit", commitBody(tree.id, []string{parent}, who, who, "subject\n\nbody\n"))
			g.mu.Lock()
			err = g.writeObjects([]packObject{blob, small, tree, commit})
			g.mu.Unlock()
			require.NoError(t, err)

			assert.Equal(t, big, gitRun(t, dir, "cat-file", "blob", blob.id))
			assert.Equal(t, tree.id, strings.TrimSpace(gitRun(t, dir, "rev-parse", commit.id+"^{tree}")))
			out, err := gitEnv(dir, []string{"GIT_AUTHOR_DATE=@1772593567 +0200", "GIT_COMMITTER_DATE=@1772593567 +0200"}, "subject\n\nbody\n",
				"commit-tree", tree.id, "-p", parent)
			require.NoError(t, err, out)
			assert.Equal(t, commit.id, strings.TrimSpace(out), "git commit-tree names the same commit")
			gitRun(t, dir, "fsck", "--strict", "--no-progress", "--no-dangling")
		})
	}
}

// gitEnv runs git in dir with extra environment and stdin; it returns
// combined output.
func gitEnv(dir string, env []string, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
