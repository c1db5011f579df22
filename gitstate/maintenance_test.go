package gitstate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// objectsDir is an objects folder with loose objects in 17/, loose bytes in
// 00/ and packs (with .keep files for the first keep of them).
type objectsDir struct {
	in17, packs, keep int
	looseBytes        int   // bytes of loose objects in 00/
	packBytes         int64 // the size of the first pack (sparse)
}

func (o objectsDir) make(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "objects")
	for i := 0; i < o.in17; i++ {
		writeFile(t, filepath.Join(dir, "17", fmt.Sprintf("%038x", i)), "x")
	}
	writeFile(t, filepath.Join(dir, "17", "not-an-object"), "x")
	writeFile(t, filepath.Join(dir, "17", "tmp_obj_123"), "x")
	for i := 0; i*65536 < o.looseBytes; i++ {
		writeFile(t, filepath.Join(dir, "00", fmt.Sprintf("%038x", i)), strings.Repeat("z", 65536))
	}
	for i := 0; i < o.packs; i++ {
		base := filepath.Join(dir, "pack", fmt.Sprintf("pack-%040x", i))
		writeFile(t, base+".idx", "i")
		writeFile(t, base+".pack", "p")
		if i == 0 && o.packBytes > 0 {
			require.NoError(t, os.Truncate(base+".pack", o.packBytes))
		}
		if i < o.keep {
			writeFile(t, base+".keep", "")
		}
	}
	// A pack without its index is not one.
	writeFile(t, filepath.Join(dir, "pack", "pack-orphan.pack"), "p")
	return dir
}

func configOf(t *testing.T, text string) *configSet {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	writeFile(t, p, text)
	cs := &configSet{}
	require.NoError(t, cs.readFile(p, configContext{}, 0, true))
	return cs
}

func TestMaintenanceDue(t *testing.T) {
	const git, pack, none = "git", "pack", ""
	for _, c := range []struct {
		name    string
		config  string
		objects objectsDir
		want    string
	}{
		{"a new repository", "", objectsDir{}, none},
		{"27 loose objects in 17 (gc.auto 6700: at most 27)", "", objectsDir{in17: 27}, none},
		{"28 loose objects in 17", "", objectsDir{in17: 28}, git},
		{"gc.auto=0 disables gc", "[gc]\n\tauto = 0\n", objectsDir{in17: 100, packs: 100}, none},
		{"gc.auto=-1 disables gc", "[gc]\n\tauto = -1\n", objectsDir{in17: 100}, none},
		{"gc.auto=256: at most 1", "[gc]\n\tauto = 256\n", objectsDir{in17: 2}, git},
		{"gc.auto=1k: at most 4", "[gc]\n\tauto = 1k\n", objectsDir{in17: 4}, none},
		{"gc.auto=1k: 5", "[gc]\n\tauto = 1k\n", objectsDir{in17: 5}, git},
		{"gc.auto unreadable: git decides", "[gc]\n\tauto = many\n", objectsDir{}, git},
		{"maintenance.auto=false", "[maintenance]\n\tauto = false\n", objectsDir{in17: 100, packs: 100}, none},
		{"maintenance.auto=0", "[maintenance]\n\tauto = 0\n", objectsDir{in17: 100}, none},
		{"maintenance.auto=true", "[maintenance]\n\tauto\n", objectsDir{in17: 28}, git},
		{"maintenance.auto unreadable: git decides", "[maintenance]\n\tauto = maybe\n", objectsDir{}, git},
		{"51 packs", "", objectsDir{packs: 51}, git},
		{"50 packs", "", objectsDir{packs: 50}, none},
		{"51 packs, 2 kept", "", objectsDir{packs: 51, keep: 2}, none},
		{"gc.autoPackLimit=0", "[gc]\n\tautoPackLimit = 0\n", objectsDir{packs: 100}, none},
		{"gc.autoPackLimit=1", "[gc]\n\tautoPackLimit = 1\n", objectsDir{packs: 2}, git},
		{"another task enabled: git decides", "[maintenance \"commit-graph\"]\n\tenabled = true\n", objectsDir{}, git},
		{"another task disabled", "[maintenance \"commit-graph\"]\n\tenabled = false\n", objectsDir{}, none},
		{"the gc task disabled", "[maintenance \"gc\"]\n\tenabled = false\n", objectsDir{in17: 100, packs: 100}, none},
		{"loose objects over 2 MiB", "", objectsDir{looseBytes: 3 << 16}, pack},
		{"loose objects under 2 MiB", "", objectsDir{looseBytes: 1 << 16}, none},
		{"loose objects under a quarter of the packs", "", objectsDir{looseBytes: 3 << 16, packs: 1, packBytes: 16 << 20}, none},
		{"loose objects over a quarter of the packs", "", objectsDir{looseBytes: 5 << 16, packs: 1, packBytes: 16 << 20}, pack},
		{"loose objects over 2 MiB, gc.auto=0", "[gc]\n\tauto = 0\n", objectsDir{looseBytes: 3 << 16}, none},
		{"loose objects over 2 MiB, maintenance.auto=false", "[maintenance]\n\tauto = false\n", objectsDir{looseBytes: 3 << 16}, none},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := maintenanceDue(configOf(t, c.config), c.objects.make(t), 40)
			kind := none
			switch {
			case got == nil:
			case got[0] == "maintenance":
				kind = git
				require.Equal(t, []string{"maintenance", "run", "--auto", "--quiet"}, got)
			case got[0] == "repack":
				kind = pack
			}
			require.Equal(t, c.want, kind)
		})
	}
}

// twoPacks is a repository whose objects are in two packs.
func twoPacks(t *testing.T) string {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	gitRun(t, dir, "repack", "-q", "-d")
	writeFile(t, filepath.Join(dir, "b.txt"), "b\n")
	gitRun(t, dir, "add", "b.txt")
	gitRun(t, dir, "commit", "-q", "-m", "b")
	gitRun(t, dir, "repack", "-q", "-d")
	require.Equal(t, 2, packCount(t, dir))
	return dir
}

func packCount(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	require.NoError(t, err)
	return len(m)
}

// waitPacked waits until git's maintenance in dir has left one pack and
// ended (no gc.pid, no maintenance.lock).
func waitPacked(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, e1 := os.Stat(filepath.Join(dir, ".git", "gc.pid"))
		_, e2 := os.Stat(filepath.Join(dir, ".git", "objects", "maintenance.lock"))
		if packCount(t, dir) == 1 && e1 != nil && e2 != nil {
			return
		}
	}
	t.Fatalf("git maintenance did not pack %s into one pack", dir)
}

func TestAutoMaintenanceRunsGitsGC(t *testing.T) {
	for _, engine := range []string{"native", "git"} {
		t.Run(engine, func(t *testing.T) {
			dir := twoPacks(t)
			t.Setenv(NoMaintenanceEnv, "")
			start := func() bool {
				if engine == "git" {
					g, err := OpenGit(dir)
					require.NoError(t, err)
					defer g.Close()
					return g.AutoMaintenance()
				}
				return AutoMaintenance(openRepo(t, dir))
			}
			// Under git's limit of packs: nothing to do, nothing started.
			require.False(t, start())
			gitRun(t, dir, "config", "gc.autoPackLimit", "1")
			// Turned off by the environment, by maintenance.auto and by
			// gc.auto.
			t.Setenv(NoMaintenanceEnv, "1")
			require.False(t, start())
			t.Setenv(NoMaintenanceEnv, "")
			gitRun(t, dir, "config", "maintenance.auto", "false")
			require.False(t, start())
			gitRun(t, dir, "config", "--unset", "maintenance.auto")
			gitRun(t, dir, "config", "gc.auto", "0")
			require.False(t, start())
			gitRun(t, dir, "config", "--unset", "gc.auto")
			require.Equal(t, 2, packCount(t, dir))
			// While a maintenance itr started runs, no second one starts.
			marker := openRepo(t, dir).ItrPath(maintenanceMarker)
			writeFile(t, marker, fmt.Sprintf("%d %d\n", os.Getpid(), time.Now().Unix()))
			require.False(t, start())
			writeFile(t, marker, fmt.Sprintf("%d %d\n", os.Getpid(), time.Now().Add(-2*time.Hour).Unix()))
			// Two packs over a limit of one: git's gc --auto repacks.
			require.True(t, start())
			waitPacked(t, dir)
			require.Equal(t, "", checkRepo(t, dir))
		})
	}
}

func TestAutoMaintenanceWithoutGit(t *testing.T) {
	dir := twoPacks(t)
	gitRun(t, dir, "config", "gc.autoPackLimit", "1")
	r := openRepo(t, dir)
	t.Setenv("PATH", t.TempDir())
	t.Setenv(NoMaintenanceEnv, "")
	require.False(t, r.AutoMaintenance())
}
