package gitstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetConfigSectionKeepsEverythingElse(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a\n"})
	cfg := filepath.Join(dir, ".git", "config")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("# a comment the user wrote\n[alias]\n\tst = status\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	before, _ := os.ReadFile(cfg)
	r := openRepo(t, dir)

	changed, err := r.SetConfigSection("merge", "itr", [][2]string{{"name", "itr log merge"}, {"driver", "itr merge-driver %O %A %B %P"}})
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, "itr merge-driver %O %A %B %P\n", gitRun(t, dir, "config", "merge.itr.driver"))
	assert.Equal(t, "itr log merge\n", gitRun(t, dir, "config", "merge.itr.name"))
	after, _ := os.ReadFile(cfg)
	assert.True(t, strings.HasPrefix(string(after), string(before)), "the rest of the file is untouched")

	changed, err = r.SetConfigSection("merge", "itr", [][2]string{{"name", "itr log merge"}, {"driver", "itr merge-driver %O %A %B %P"}})
	require.NoError(t, err)
	assert.False(t, changed, "twice changes nothing")
	keys, err := r.ConfigSection("merge", "itr")
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"name", "itr log merge"}, {"driver", "itr merge-driver %O %A %B %P"}}, keys)

	removed, err := r.RemoveConfigSection("merge", "itr")
	require.NoError(t, err)
	assert.True(t, removed)
	final, _ := os.ReadFile(cfg)
	assert.Equal(t, string(before), string(final))
	_, err = gitTry(dir, "config", "merge.itr.driver")
	assert.Error(t, err)
	gitRun(t, dir, "fsck", "--strict")
}
