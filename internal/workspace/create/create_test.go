package create_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/workspace/create"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// Init makes a task as one commit holding its files, on the fake and on a
// real repository; a taken slug, a dotted slug and a blank name are
// refused and change nothing.
func TestInit(t *testing.T) {
	for _, kind := range []string{"fake", "native"} {
		t.Run(kind, func(t *testing.T) {
			var repo gitstate.Repository
			dir := ""
			if kind == "fake" {
				f := gitfake.New(filepath.Join(t.TempDir(), "repo"))
				repo, dir = f, f.Root()
			} else {
				testgit.Isolate(t)
				dir = t.TempDir()
				testgit.Git(t, dir, "init", "-q")
				testgit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
				r, err := gitstate.Open(dir)
				require.NoError(t, err)
				t.Cleanup(func() { _ = r.Close() })
				repo = r
			}
			now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
			st, err := store.New(repo, store.DefaultRoot, store.Config{}, "", func() time.Time { return now })
			require.NoError(t, err)

			out, err := create.Init(st, create.Request{Name: "Memo IV-A", Mode: "knowledge"})
			require.NoError(t, err)
			assert.Equal(t, "memo-iv-a", out.Slug)
			head, err := repo.Head()
			require.NoError(t, err)
			assert.Equal(t, out.Commit, head.Hash)
			files, err := repo.ListFiles(head.Hash, store.DefaultRoot+"/memo-iv-a")
			require.NoError(t, err)
			assert.Contains(t, files, store.DefaultRoot+"/memo-iv-a/state.json")
			assert.Contains(t, files, store.DefaultRoot+"/memo-iv-a/progress.md")
			data, err := repo.ReadFile(head.Hash, store.DefaultRoot+"/memo-iv-a/state.json")
			require.NoError(t, err)
			s, err := state.Decode(data)
			require.NoError(t, err)
			assert.Equal(t, state.Knowledge, s.Mode)
			assert.Equal(t, string(out.After.Encode()), string(data), "state.json is the fold of the Created entry")

			for _, c := range []struct {
				req  create.Request
				want string
			}{
				{create.Request{Name: "Memo IV-A"}, `task "memo-iv-a" already exists`},
				{create.Request{Name: "x", Slug: "iv.a"}, "--slug iv-a"},
				{create.Request{Name: "  "}, "the task needs a name"},
				{create.Request{Name: "x", Mode: "poetry"}, "--mode"},
			} {
				_, err := create.Init(st, c.req)
				require.Error(t, err, c.req)
				assert.Contains(t, err.Error(), c.want)
				after, err := repo.Head()
				require.NoError(t, err)
				assert.Equal(t, head.Hash, after.Hash, "refused: nothing committed")
			}
			if kind != "fake" {
				testgit.Check(t, dir)
			}
		})
	}
}
