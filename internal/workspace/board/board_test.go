package board

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/view"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/templates"
)

// boardRepo is a repository with the task demo committed as itr init
// writes it, judged clean by git.
func boardRepo(t *testing.T) string {
	t.Helper()
	testgit.Isolate(t)
	dir := t.TempDir()
	testgit.Git(t, dir, "init", "-q")
	testgit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	task := testrepo.NewTask(t, store.DefaultRoot+"/"+testrepo.Slug, templates.Data{Name: "Demo", Slug: testrepo.Slug, Created: testrepo.Stamp(testrepo.T0)})
	for _, c := range task.Changes {
		p := filepath.Join(dir, filepath.FromSlash(c.Path))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, c.Data, 0o644))
	}
	testgit.Git(t, dir, "add", "-A")
	testgit.Git(t, dir, "commit", "-q", "-m", "demo: created")
	testgit.Check(t, dir)
	return dir
}

func TestReadListsTasks(t *testing.T) {
	dir := boardRepo(t)
	st := testrepo.Open(t, dir, "tester", testrepo.NewClock(testrepo.T0).Now)
	before := testgit.Snap(t, dir)
	b, err := Read(st, "s1", testrepo.T0)
	require.NoError(t, err)
	assert.Equal(t, filepath.Base(dir), b.Repo)
	assert.Equal(t, store.DefaultRoot, b.Root)
	assert.Equal(t, "s1", b.Stamp)
	require.Len(t, b.Tasks, 1)
	task := b.Tasks[0]
	assert.Equal(t, testrepo.Slug, task.Slug)
	assert.Equal(t, "Demo", task.Name)
	assert.Empty(t, task.Error)
	assert.NotEmpty(t, task.Next, "the advisor's next action")
	assert.Empty(t, b.Archived)
	testgit.Unchanged(t, dir, before)
}

func TestReadKeepsAnUnreadableTask(t *testing.T) {
	dir := boardRepo(t)
	p := filepath.Join(dir, store.DefaultRoot, testrepo.Slug, store.StateFile)
	require.NoError(t, os.WriteFile(p, []byte("{not json"), 0o644))
	st := testrepo.Open(t, dir, "tester", testrepo.NewClock(testrepo.T0).Now)
	b, err := Read(st, "s", testrepo.T0)
	require.NoError(t, err)
	require.Len(t, b.Tasks, 1, "a task that cannot be read stays on the board")
}

func TestColumnsFollowTheLifecycle(t *testing.T) {
	units := []view.UnitStatus{
		{ID: "T1", Status: string(state.Done)},
		{ID: "T2", Status: string(state.Failed)},
		{ID: "T3", Status: string(state.Pending)},
		{ID: "T4", Status: "odd"},
		{ID: "T5", Status: string(state.Pending)},
		{ID: "T6", Status: string(state.InProgress)},
	}
	cols := columns(units, map[string]string{"T6": "ana"})
	var got []string
	for _, c := range cols {
		got = append(got, c.Status)
	}
	assert.Equal(t, []string{string(state.Pending), string(state.InProgress), string(state.Done), string(state.Failed), "odd"}, got)
	assert.Equal(t, []string{"T3", "T5"}, []string{cols[0].Units[0].ID, cols[0].Units[1].ID}, "plan order within a column")
	assert.Equal(t, "ana", cols[1].Units[0].Holder)
}

// TestStampSeesWhatTheBoardShows: the stamp changes with a commit (HEAD),
// a reference (a fetch, a claim), a file of a task folder edited or
// added, and not otherwise.
func TestStampSeesWhatTheBoardShows(t *testing.T) {
	dir := boardRepo(t)
	stamp := func() string {
		t.Helper()
		st := testrepo.Open(t, dir, "tester", testrepo.NewClock(testrepo.T0).Now)
		s, err := Stamp(st)
		require.NoError(t, err)
		return s
	}
	s0 := stamp()
	assert.Equal(t, s0, stamp(), "nothing changed, the same stamp")

	testgit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "work")
	s1 := stamp()
	assert.NotEqual(t, s0, s1, "a commit")

	head := testgit.Line(t, dir, "rev-parse", "HEAD")
	testgit.Git(t, dir, "update-ref", "refs/remotes/origin/main", head)
	s2 := stamp()
	assert.NotEqual(t, s1, s2, "a remote-tracking branch (a fetch)")

	testgit.Git(t, dir, "pack-refs", "--all")
	s3 := stamp()
	assert.Equal(t, s2, s3, "packing the references changes none of them")

	notes := filepath.Join(dir, store.DefaultRoot, testrepo.Slug, "context.md")
	require.NoError(t, os.WriteFile(notes, []byte("# Context\nedited by hand, much longer than before\n"), 0o644))
	s4 := stamp()
	assert.NotEqual(t, s3, s4, "a task file edited")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "unrelated.txt"), []byte("x"), 0o644))
	assert.Equal(t, s4, stamp(), "a file outside the task root")
}
