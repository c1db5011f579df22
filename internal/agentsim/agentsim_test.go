package agentsim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAgentsThroughOneRemote is the short simulation: 4 agents over 2
// clones for a few seconds through a real smart-HTTP server. Nothing may
// be claimed twice, lost or doubled, and every clone verifies clean after
// the final sync. Times are reported, never asserted.
func TestAgentsThroughOneRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("builds itr and runs agents for seconds")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	bin := t.TempDir()
	itr := filepath.Join(bin, "itr")
	build := exec.Command("go", "build", "-o", itr, "../../cmd/itr")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "ITR_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=Sim", "GIT_AUTHOR_EMAIL=sim@example.com", "GIT_COMMITTER_NAME=Sim", "GIT_COMMITTER_EMAIL=sim@example.com")
	res, err := Run(Config{Itr: itr, Dir: t.TempDir(), Agents: 4, Clones: 2, For: 6 * time.Second, Env: env})
	for _, l := range res.ErrorLines() {
		t.Log(l)
	}
	require.NoError(t, err)
	t.Logf("%d agents over %d clones for %s: %d units finished, %d entries, %d claims lost to a faster agent; claim p50 %s p95 %s, plain push p50 %s; sync p50 %s",
		res.Agents, res.Clones, res.Duration.Round(time.Millisecond), res.Finished, res.Committed, res.LostClaims,
		Quantile(res.Claims, .5), Quantile(res.Claims, .95), Quantile(res.Pushes, .5), Quantile(res.Syncs, .5))
	require.Empty(t, res.Problems())
	require.Positive(t, res.Finished, "the agents finished units")
	require.Positive(t, len(res.Pushes), "plain pushes were measured")
}
