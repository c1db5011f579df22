package verify_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/internal/workspace/verify"
)

// TestShallowClone: at every depth a clone can be cut, on both engines,
// verify finds nothing (the cut is no finding), names the boundary and the
// commits after it, and once unshallowed walks it all again.
func TestShallowClone(t *testing.T) {
	src := newRealRepo(t)
	for _, did := range []string{"one", "two", "three", "four"} {
		src.checkpoint("T1", did)
	}
	line := 7 // init, Created, Planned, four iterations
	for depth := 1; depth <= line; depth++ {
		for _, engine := range []string{"", "git"} {
			t.Setenv("ITR_ENGINE", engine)
			clone := &realRepo{t: t, dir: filepath.Join(t.TempDir(), "clone")}
			clone.git("clone", "-q", "--depth", itoa(depth), "file://"+src.dir, clone.dir)
			rep := verifyIn(t, clone.dir)
			require.Empty(t, rep.Findings, "depth %d %s", depth, engine)
			if depth >= line-1 { // the Created commit is within the clone
				assert.Nil(t, rep.Shallow, "depth %d", depth)
				continue
			}
			require.NotNil(t, rep.Shallow, "depth %d", depth)
			assert.Equal(t, clone.git("rev-parse", "HEAD~"+itoa(depth-1)), rep.Shallow.Boundary)
			assert.Equal(t, depth-1, rep.Shallow.Commits)
			clone.git("fetch", "-q", "--unshallow")
			rep = verifyIn(t, clone.dir)
			assert.Empty(t, rep.Findings)
			assert.Nil(t, rep.Shallow)
			assert.Equal(t, 6, rep.Commits)
		}
	}
}

func verifyIn(t *testing.T, dir string) *verify.Report {
	t.Helper()
	w, err := workspace.Open(workspace.Options{Dir: dir})
	require.NoError(t, err)
	defer w.Close()
	rep, err := w.Verify("demo")
	require.NoError(t, err)
	return rep
}

func itoa(n int) string { return string(rune('0' + n)) }
