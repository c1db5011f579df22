package gitstate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOperation(t *testing.T) {
	dir := newRepo(t, map[string]string{"f.txt": "base\n"})
	gitRun(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir+"/f.txt", "side\n")
	gitRun(t, dir, "commit", "-q", "-am", "side")
	gitRun(t, dir, "checkout", "-q", "main")
	writeFile(t, dir+"/f.txt", "main\n")
	gitRun(t, dir, "commit", "-q", "-am", "main")
	r := openRepo(t, dir)
	assert.Equal(t, "", r.Operation())

	_, err := gitTry(dir, "merge", "side")
	assert.Error(t, err, "the merge conflicts")
	assert.Equal(t, "merge", r.Operation())
	gitRun(t, dir, "merge", "--abort")

	_, err = gitTry(dir, "cherry-pick", "side")
	assert.Error(t, err)
	assert.Equal(t, "cherry-pick", r.Operation())
	gitRun(t, dir, "cherry-pick", "--abort")

	_, err = gitTry(dir, "rebase", "side")
	assert.Error(t, err)
	assert.Equal(t, "rebase", r.Operation())
	gitRun(t, dir, "rebase", "--abort")
	assert.Equal(t, "", r.Operation())
}
