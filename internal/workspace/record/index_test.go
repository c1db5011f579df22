package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/record"
)

// INDEX.md is written only where .itr.yaml keeps it, then once, and kept
// in step by every record after.
func TestWriteIndex(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.commits()
		_, err := record.WriteIndex(w.st)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "add `index: true` to .itr.yaml")
		assert.Equal(t, n, w.commits(), "refused: nothing written")

		w.st.Config.Index = true
		rep, err := record.WriteIndex(w.st)
		require.NoError(t, err)
		assert.Equal(t, 1, rep.Rows)
		assert.Equal(t, w.head(), rep.Commit)
		assert.Contains(t, w.committed(rep.Path), "demo")
		again, err := record.WriteIndex(w.st)
		require.NoError(t, err)
		assert.Empty(t, again.Commit, "in step already: no commit")

		before := w.committed(rep.Path)
		w.record(w.iteration("T1", 1, "wrote the model", false))
		assert.NotEqual(t, before, w.committed(rep.Path), "the record keeps the index in step")
		w.checkGit()
	})
}
