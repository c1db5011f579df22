package gitstate

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refUpdater is what the race tests need of an engine.
type refUpdater interface {
	WriteBlob(data []byte) (string, error)
	UpdateRef(name, newID, oldID string) error
	ReadRef(name string) (string, error)
}

// engines opens dir twice with each engine: two handles on the same
// repository, each with its own mutex, as two itr processes would be.
func engines(t *testing.T, dir string) map[string][2]refUpdater {
	t.Helper()
	openGit := func() *GitRepo {
		g, err := OpenGit(dir)
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		return g
	}
	native := openRepo(t, dir)
	g := openGit()
	return map[string][2]refUpdater{
		"native":     {native, native},
		"native2":    {native, openRepo(t, dir)},
		"git":        {g, g},
		"git2":       {g, openGit()},
		"nativeXgit": {native, g},
	}
}

// raceRound races UpdateRef(name, x, "") against UpdateRef(name, y, "")
// and checks that exactly one wins and the other names the winner's value.
func raceRound(t *testing.T, a, b refUpdater, name, x, y string) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, 2)
	for i, u := range []refUpdater{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = u.UpdateRef(name, []string{x, y}[i], "")
		}()
	}
	close(start)
	wg.Wait()
	cur, err := a.ReadRef(name)
	require.NoError(t, err)
	switch {
	case errs[0] == nil && errs[1] == nil:
		t.Fatalf("%s: both creates won", name)
	case errs[0] != nil && errs[1] != nil:
		t.Fatalf("%s: both lost: %v; %v", name, errs[0], errs[1])
	}
	winner, loser := x, errs[1]
	if errs[0] != nil {
		winner, loser = y, errs[0]
	}
	assert.Equal(t, winner, cur, "%s holds the winner's value", name)
	var rc *RefChangedError
	if assert.ErrorIs(t, loser, ErrRefChanged) && assert.True(t, errors.As(loser, &rc)) {
		assert.Equal(t, winner, rc.Have, "the loser is told the winner's value")
		assert.Equal(t, "", rc.Want)
	}
}

func TestUpdateRefRaceGoroutines(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	for label, pair := range engines(t, dir) {
		t.Run(label, func(t *testing.T) {
			x, err := pair[0].WriteBlob([]byte("x " + label))
			require.NoError(t, err)
			y, err := pair[1].WriteBlob([]byte("y " + label))
			require.NoError(t, err)
			rounds := 40
			if strings.HasPrefix(label, "git") || strings.Contains(label, "Xgit") {
				rounds = 15
			}
			for i := 0; i < rounds; i++ {
				raceRound(t, pair[0], pair[1], fmt.Sprintf("refs/itr/race/%s/r%d", label, i), x, y)
			}
		})
	}
	checkRepo(t, dir)
}

// TestUpdateRefRaceProcesses races two processes (this test binary run
// again as TestUpdateRefChild) creating the same ref, round after round.
func TestUpdateRefRaceProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, dir)
	x, err := r.WriteBlob([]byte("x\n"))
	require.NoError(t, err)
	y, err := r.WriteBlob([]byte("y\n"))
	require.NoError(t, err)
	for _, engine := range []string{"native", "git"} {
		for i := 0; i < 8; i++ {
			name := fmt.Sprintf("refs/itr/proc/%s/r%d", engine, i)
			gate := filepath.Join(t.TempDir(), "go")
			var cmds []*exec.Cmd
			var outs []*strings.Builder
			for _, v := range []string{x, y} {
				cmd := exec.Command(os.Args[0], "-test.run=^TestUpdateRefChild$")
				cmd.Env = append(os.Environ(), "ITR_UPDATEREF_CHILD="+strings.Join([]string{engine, dir, name, v, gate}, "\x1f"))
				out := &strings.Builder{}
				cmd.Stdout, cmd.Stderr = out, out
				require.NoError(t, cmd.Start())
				cmds, outs = append(cmds, cmd), append(outs, out)
			}
			require.NoError(t, os.WriteFile(gate, nil, 0o644))
			var said []string
			for j, cmd := range cmds {
				require.NoError(t, cmd.Wait(), outs[j].String())
				said = append(said, childResult(outs[j].String()))
			}
			cur, err := r.ReadRef(name)
			require.NoError(t, err)
			wins := 0
			for j, s := range said {
				if s == "won" {
					wins++
					assert.Equal(t, []string{x, y}[j], cur, "the winner's value is in %s", name)
				} else {
					assert.Equal(t, "lost "+cur, s, "the loser names the winner's value")
				}
			}
			assert.Equal(t, 1, wins, "exactly one process wins %s: %v", name, said)
		}
	}
	checkRepo(t, dir)
}

// childResult is the RESULT line a child printed.
func childResult(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(line, "RESULT "); ok {
			return s
		}
	}
	return "no result: " + out
}

// TestUpdateRefChild is one racer of TestUpdateRefRaceProcesses; it does
// nothing unless ITR_UPDATEREF_CHILD is set.
func TestUpdateRefChild(t *testing.T) {
	spec := os.Getenv("ITR_UPDATEREF_CHILD")
	if spec == "" {
		t.Skip("run by TestUpdateRefRaceProcesses")
	}
	f := strings.Split(spec, "\x1f")
	engine, dir, name, value, gate := f[0], f[1], f[2], f[3], f[4]
	var u refUpdater
	if engine == "git" {
		g, err := OpenGit(dir)
		require.NoError(t, err)
		defer g.Close()
		u = g
	} else {
		r, err := Open(dir)
		require.NoError(t, err)
		defer r.Close()
		u = r
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(gate); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	err := u.UpdateRef(name, value, "")
	var rc *RefChangedError
	switch {
	case err == nil:
		fmt.Println("RESULT won")
	case errors.As(err, &rc):
		fmt.Println("RESULT lost " + rc.Have)
	default:
		fmt.Println("RESULT error " + err.Error())
	}
}

// TestUpdateRefLocked: a lock file another process holds is ErrLocked,
// and the ref is left as it was.
func TestUpdateRefLocked(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := openRepo(t, dir)
	g, err := OpenGit(dir)
	require.NoError(t, err)
	defer g.Close()
	const name = "refs/itr/locked/T1"
	x, err := r.WriteBlob([]byte("x\n"))
	require.NoError(t, err)
	require.NoError(t, r.UpdateRef(name, x, ""))
	lock := filepath.Join(dir, ".git", "refs", "itr", "locked", "T1.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	for label, u := range map[string]refUpdater{"native": r, "git": g} {
		err := u.UpdateRef(name, "", x)
		assert.ErrorIs(t, err, ErrLocked, label)
		cur, rerr := u.ReadRef(name)
		require.NoError(t, rerr)
		assert.Equal(t, x, cur, "%s: the ref is unchanged", label)
	}
	require.NoError(t, os.Remove(lock))
	require.NoError(t, g.UpdateRef(name, "", x))
	checkRepo(t, dir)
}

// TestUpdateRefReflog: with core.logAllRefUpdates=always the native
// engine writes the reflog git update-ref writes (no message), and a
// delete removes it with its empty folders.
func TestUpdateRefReflog(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	gitRun(t, dir, "config", "core.logAllRefUpdates", "always")
	r := openRepo(t, dir)
	x, err := r.WriteBlob([]byte("x\n"))
	require.NoError(t, err)
	y, err := r.WriteBlob([]byte("y\n"))
	require.NoError(t, err)
	const name = "refs/itr/log/T1"
	require.NoError(t, r.UpdateRef(name, x, ""))
	require.NoError(t, r.UpdateRef(name, y, x))
	assert.Equal(t, x+"\n", gitRun(t, dir, "rev-parse", name+"@{1}"), "git reads the reflog")
	assert.Equal(t, y+"\n", gitRun(t, dir, "rev-parse", name+"@{0}"))
	gitRun(t, dir, "update-ref", "refs/itr/log/T2", x)
	mine, err := os.ReadFile(filepath.Join(dir, ".git", "logs", "refs", "itr", "log", "T1"))
	require.NoError(t, err)
	gits, err := os.ReadFile(filepath.Join(dir, ".git", "logs", "refs", "itr", "log", "T2"))
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(mine), "\n")
	cut := func(s string) string { // up to the time, which differs
		f := strings.Fields(s)
		return strings.Join(f[:len(f)-2], " ")
	}
	assert.Equal(t, cut(strings.TrimSuffix(string(gits), "\n")), cut(first), "the line git writes")
	assert.NotContains(t, string(mine), "\t", "no message, no tab, as git")
	require.NoError(t, r.UpdateRef(name, "", y))
	require.NoError(t, r.UpdateRef("refs/itr/log/T2", "", x))
	assert.NoDirExists(t, filepath.Join(dir, ".git", "logs", "refs", "itr"))
	assert.NoDirExists(t, filepath.Join(dir, ".git", "refs", "itr"))
	checkRepo(t, dir)
}
