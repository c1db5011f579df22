package gitstate

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListFiles(t *testing.T) {
	dir := newRepo(t, map[string]string{
		".claude/iterative/slug/state.json":          "{}\n",
		".claude/iterative/slug/outputs/a/report.md": "r\n",
		".claude/iterative/slugger/state.json":       "{}\n",
		"README.md":                                  "hi\n",
	})
	r := openRepo(t, dir)
	files, err := r.ListFiles("HEAD", ".claude/iterative/slug")
	require.NoError(t, err)
	assert.Equal(t, []string{".claude/iterative/slug/outputs/a/report.md", ".claude/iterative/slug/state.json"}, files)
	// Compare with git's own listing.
	want := strings.Fields(gitRun(t, dir, "ls-tree", "-r", "--name-only", "HEAD", ".claude/iterative/slug/"))
	assert.ElementsMatch(t, want, files)

	none, err := r.ListFiles("HEAD", ".claude/iterative/missing")
	require.NoError(t, err)
	assert.Empty(t, none)
	file, err := r.ListFiles("HEAD", "README.md")
	require.NoError(t, err)
	assert.Empty(t, file, "a file is not a folder")
}

func TestCommitFilesAuthorOverride(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{
		Changes: []FileChange{{Path: "b.txt", Data: []byte("b\n")}},
		Message: "override",
		When:    fixedTime,
		Author:  &Signature{Name: "Build Agent", Email: "agent@example.com"},
	})
	require.NoError(t, err)
	got := gitRun(t, dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%at")
	assert.Equal(t, "Build Agent <agent@example.com>|Build Agent <agent@example.com>|"+
		strconv.FormatInt(fixedTime.Unix(), 10)+"\n", got)
	checkRepo(t, dir)
}
