package store_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// TestWho: the entries a command appends name its agent (the store's, else
// user@host:worktree) and its model and session when known.
func TestWho(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	assert.Contains(t, f.s.Who().Agent, "@", "the default is user@host:worktree")
	f.s.Agent, f.s.Model, f.s.Session = "synthesizer", " sonnet ", "s-1"
	e := progresslog.Entry{Fields: []progresslog.Field{{Name: "Did", Value: "x"}}}
	f.s.Attribute(&e)
	assert.Equal(t, progresslog.Who{Agent: "synthesizer", Model: "sonnet", Session: "s-1"}, progresslog.WhoOf(e))
}

// TestCheckWho: one line of printable text, at most 200 characters.
func TestCheckWho(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ v, problem string }{
		{"synthesizer", ""},
		{"claude-sonnet-4-5 (1M)", ""},
		{"", ""},
		{"a\nb", `"a\nb" holds a control character or a line break`},
		{"\x1b[31mred", "holds a control character"},
		{strings.Repeat("x", 201), "is 201 characters long"},
	} {
		problem, fix := store.CheckWho("agent", c.v)
		if c.problem == "" {
			assert.Empty(t, problem, "%q", c.v)
			continue
		}
		assert.Contains(t, problem, c.problem)
		assert.Contains(t, fix, "agent's name")
	}
}

// TestTouchedFiles: the files the work commits changed, once each, sorted.
func TestTouchedFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.initTask("user-auth")
	a := f.commit("one", put("src/b.go", "b\n"), put("docs/a.md", "a\n"))
	b := f.commit("two", put("src/b.go", "b2\n"), del("docs/a.md"), put("src/c.go", "c\n"))
	task := &store.Task{Slug: "user-auth", Dir: f.s.TaskDir("user-auth")}
	list, err := f.s.WorkCommitList(task, nil)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, a.Hash, list[0].Hash)
	assert.Equal(t, b.Hash[:7]+": two", list[1].Line)
	files, err := f.s.TouchedFiles(list)
	require.NoError(t, err)
	assert.Equal(t, []string{"docs/a.md", "src/b.go", "src/c.go"}, files)
	_, err = f.s.TouchedFiles([]store.WorkCommit{{Hash: strings.Repeat("0", 40)}})
	assert.ErrorContains(t, err, "the files of work commit 0000000")
}

// TestChangedOutputs: an output whose file differs from the last commit
// (changed, or new), looked up in the task folder, then from the top; a
// missing one is not changed.
func TestChangedOutputs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.initTask("user-auth")
	f.commit("outputs", put(rel("user-auth", "outputs/kept.md"), "kept\n"), put("docs/top.md", "top\n"))
	task, err := f.s.Load("user-auth")
	require.NoError(t, err)
	names := []string{"outputs/kept.md", "docs/top.md", "outputs/new.md", "outputs/missing.md"}
	got, err := f.s.ChangedOutputs(task, names)
	require.NoError(t, err)
	assert.Empty(t, got, "as committed")
	f.write(rel("user-auth", "outputs/kept.md"), "kept, and more\n")
	f.write("docs/top.md", "top, changed\n")
	f.write(rel("user-auth", "outputs/new.md"), "new\n")
	got, err = f.s.ChangedOutputs(task, names)
	require.NoError(t, err)
	assert.Equal(t, []string{"outputs/kept.md", "docs/top.md", "outputs/new.md"}, got)
}
