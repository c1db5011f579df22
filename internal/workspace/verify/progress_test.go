package verify_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/internal/workspace/verify"
)

// TestVerifyProgress: the progress callback is told each commit the walk
// checks, in order, up to the total; a walk resumed from a remembered one
// counts only the commits since. One process writes and then reads (the
// checkpoints' objects, written after the packs were listed, are found).
func TestVerifyProgress(t *testing.T) {
	r := newRealRepo(t)
	run := func() (calls [][2]int, rep *workspace.VerifyReport) {
		r.ws(func(w *workspace.Workspace) error {
			var err error
			rep, err = w.VerifyWith(workspace.VerifyRequest{Slug: "demo", Progress: func(done, total int) {
				calls = append(calls, [2]int{done, total})
			}})
			return err
		})
		return calls, rep
	}
	t.Setenv(verify.NoCacheEnv, "1")
	for i := 1; i <= 4; i++ {
		r.checkpoint("T1", fmt.Sprintf("step %d", i))
	}
	r.git("gc", "-q")
	r.checkpoint("T1", "after gc")
	calls, rep := run()
	require.Empty(t, rep.Findings)
	require.NotEmpty(t, calls)
	total := calls[0][1]
	for i, c := range calls {
		require.Equal(t, [2]int{i + 1, total}, c, "call %d", i)
	}
	require.GreaterOrEqual(t, total, rep.Commits)

	t.Setenv(verify.NoCacheEnv, "0")
	run() // remembers the walk
	r.checkpoint("T1", "one more")
	calls, rep = run()
	require.Empty(t, rep.Findings)
	require.Equal(t, [][2]int{{1, 1}}, calls, "only the commit since the remembered walk")
}
