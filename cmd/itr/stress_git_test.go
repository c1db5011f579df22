package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stressSettings reads how long TestStressGitBeside runs and on which
// repository sizes: ITR_STRESS_DURATION (a Go duration; CI's short version
// is the default) and ITR_STRESS_FILES (comma-separated file counts; 0 is
// an almost empty repository). `make stress` sets 5m and 0,100000.
func stressSettings(t *testing.T) (time.Duration, []int) {
	t.Helper()
	d := 8 * time.Second
	if v := os.Getenv("ITR_STRESS_DURATION"); v != "" {
		var err error
		d, err = time.ParseDuration(v)
		require.NoError(t, err, "ITR_STRESS_DURATION")
	}
	sizes := []int{0}
	if v := os.Getenv("ITR_STRESS_FILES"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			require.NoError(t, err, "ITR_STRESS_FILES")
			sizes = append(sizes, n)
		}
	}
	return d, sizes
}

var hexName = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

// TestStressGitBeside runs itr checkpoints in a loop beside every git
// command that writes the index or refs on its own: git add + git commit and
// git commit -a (one after the other), git gc --auto (with a low gc.auto, so it repacks and
// prunes often), git pack-refs --all and git reflog expire. Afterwards every
// checkpoint that exited 0 is in HEAD's log exactly once, every git commit
// that exited 0 is reachable, git fsck --strict and itr verify are clean,
// and git status shows nothing.
//
// Two ways. With itr's pre-commit hook installed, no git commit may take a
// checkpoint's entries out at all. Without it, git's own race (a git commit
// that read the index before a checkpoint writes it back after, fails,
// and the next git commit lands it) can; each such commit must be found
// and repaired by itr (the next checkpoint, or the final itr reconcile),
// so that nothing is lost and verify names every one.
func TestStressGitBeside(t *testing.T) {
	d, sizes := stressSettings(t)
	for _, files := range sizes {
		for _, hook := range []bool{true, false} {
			t.Run(fmt.Sprintf("files=%d/hook=%v", files, hook), func(t *testing.T) { stressGitBeside(t, d, files, hook) })
		}
	}
}

func stressGitBeside(t *testing.T, d time.Duration, files int, hook bool) {
	r := newStressRepo(t)
	if files > 0 {
		for i := 0; i < files; i++ {
			dir := filepath.Join(r.dir, "tree", fmt.Sprintf("d%03d", i%1000))
			if i < 1000 {
				require.NoError(t, os.MkdirAll(dir, 0o755))
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%06d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644))
		}
		r.git("add", "tree")
		r.git("commit", "-q", "-m", "a large tree")
	}
	require.NoError(t, os.WriteFile(filepath.Join(r.dir, "counter.txt"), []byte("0\n"), 0o644))
	r.git("add", "counter.txt")
	r.git("commit", "-q", "-m", "counter")
	r.startTask("race", 1000000)
	if hook {
		// The itr-hook program, as a user has it (on PATH); the install
		// must take it, not the script.
		dir := buildHookProgram(t)
		for i, kv := range r.env {
			if strings.HasPrefix(kv, "PATH=") {
				r.env[i] = "PATH=" + dir + string(os.PathListSeparator) + kv[len("PATH="):]
			}
		}
		require.Contains(t, r.itr("hooks", "install"), "the itr-hook program")
	}
	r.git("config", "gc.auto", "10")
	r.git("config", "gc.autoPackLimit", "2")
	r.git("config", "gc.autoDetach", "false")

	deadline := time.Now().Add(d)
	var (
		mu        sync.Mutex
		okCP      []string
		okGit     []string
		failures  = map[string]int{}
		wg        sync.WaitGroup
		loopCount = map[string]int{}
	)
	fail := func(what, out string) {
		mu.Lock()
		defer mu.Unlock()
		line := strings.TrimSpace(out)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		line = hexName.ReplaceAllString(line, "<hash>")
		line = strings.ReplaceAll(line, r.dir, "<repo>")
		if len(line) > 100 {
			line = line[:100]
		}
		failures[what+": "+line]++
	}
	loop := func(name string, body func(n int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for time.Now().Before(deadline) {
				n++
				body(n)
			}
			mu.Lock()
			loopCount[name] = n
			mu.Unlock()
		}()
	}
	// On a large repository a checkpoint holds index.lock for most of its
	// ~50 ms and git commit does not wait for a lock: back to back, itr
	// would starve git. A pause between checkpoints keeps both running.
	pause := time.Duration(0)
	if files > 0 {
		pause = 250 * time.Millisecond
	}
	loop("itr checkpoint", func(n int) {
		time.Sleep(pause)
		did := fmt.Sprintf("CP-%d", n)
		out, err := r.run(r.bin, "checkpoint", "T1", "--did", did, "--remaining", "more")
		if err != nil {
			fail("itr checkpoint", out)
			return
		}
		mu.Lock()
		okCP = append(okCP, did)
		mu.Unlock()
	})
	// One loop for the git commits, alternating git add + git commit and
	// git commit -a: two git commits at once race for .git/COMMIT_EDITMSG
	// (one commit gets the other's message), which is git's own limit.
	loop("git commit", func(n int) {
		var subject string
		var args []string
		if n%2 == 1 {
			name := fmt.Sprintf("g%05d.txt", n)
			if err := os.WriteFile(filepath.Join(r.dir, name), []byte(name+"\n"), 0o644); err != nil {
				fail("write", err.Error())
				return
			}
			if out, err := r.run("git", "add", name); err != nil {
				fail("git add", out)
				return
			}
			subject = fmt.Sprintf("G-%d", n)
			args = []string{"commit", "-q", "-m", subject}
		} else {
			if err := os.WriteFile(filepath.Join(r.dir, "counter.txt"), []byte(fmt.Sprintf("%d\n", n)), 0o644); err != nil {
				fail("write", err.Error())
				return
			}
			subject = fmt.Sprintf("A-%d", n)
			args = []string{"commit", "-q", "-a", "-m", subject}
		}
		if out, err := r.run("git", args...); err != nil {
			fail("git "+strings.Join(args[:len(args)-2], " "), out)
			return
		}
		mu.Lock()
		okGit = append(okGit, subject)
		mu.Unlock()
	})
	housekeeping := func(name string, args ...string) {
		loop(name, func(int) {
			if out, err := r.run("git", args...); err != nil {
				fail(name, out)
			}
			time.Sleep(200 * time.Millisecond)
		})
	}
	housekeeping("git gc --auto", "gc", "--auto", "--quiet")
	housekeeping("git pack-refs --all", "pack-refs", "--all")
	housekeeping("git reflog expire", "reflog", "expire", "--expire=now", "--all")
	wg.Wait()

	t.Logf("%s on %d files: loops %v", d, files, loopCount)
	t.Logf("exited 0: %d checkpoints, %d git commits", len(okCP), len(okGit))
	for k, v := range failures {
		t.Logf("refused %4d× %s", v, k)
	}
	require.NotEmpty(t, okCP, "no checkpoint succeeded")
	require.NotEmpty(t, okGit, "no git commit succeeded")

	// Commits that took entries out and the repairs of them.
	var verifyOut struct {
		Repaired []struct {
			Commit string `json:"commit"`
		} `json:"repaired"`
	}
	if !hook {
		// Repair what the last git commits may have taken out after the
		// last checkpoint.
		out, err := r.run(r.bin, "reconcile")
		require.NoError(t, err, "itr reconcile:\n%s", out)
	}
	vj, _ := r.run(r.bin, "verify", "--json")
	require.NoError(t, json.Unmarshal([]byte(vj), &verifyOut), "itr verify --json:\n%s", vj)
	undone := len(verifyOut.Repaired)
	t.Logf("commits made by git that took checkpoint entries out (all put back): %d", undone)
	if hook {
		assert.Zero(t, undone, "with the pre-commit hook no git commit takes entries out")
	}

	// Every checkpoint that exited 0 is in HEAD's log exactly once.
	headLog := r.git("show", "HEAD:.claude/iterative/race/progress.md")
	count := map[string]int{}
	for _, l := range strings.Split(headLog, "\n") {
		if v, ok := strings.CutPrefix(l, "**Did:** "); ok {
			count[v]++
		}
	}
	lost := 0
	for _, did := range okCP {
		if count[did] != 1 {
			lost++
			t.Errorf("checkpoint %s is in HEAD's progress.md %d times", did, count[did])
		}
	}
	// Every git commit that exited 0 is reachable.
	reach := map[string]int{}
	for _, s := range strings.Split(strings.TrimSpace(r.git("log", "--format=%s")), "\n") {
		reach[s]++
	}
	for _, s := range okGit {
		assert.Equal(t, 1, reach[s], "git commit %q reachable exactly once", s)
	}
	fsck, err := r.run("git", "fsck", "--strict")
	require.NoError(t, err, "git fsck --strict:\n%s", fsck)
	assert.False(t, fsckProblem.MatchString(fsck), "git fsck --strict:\n%s", fsck)
	out, err := r.run(r.bin, "verify")
	assert.NoError(t, err, "itr verify:\n%s", out)
	// The loops leave their own files behind (a git add refused while itr
	// held the index); itr's folder must be clean.
	st := r.git("status", "--porcelain", "--", ".claude")
	assert.Empty(t, st, "git status --porcelain -- .claude")
	fmt.Printf("stress: %s on %d files, hook=%v: %d checkpoints and %d git commits exited 0; %d git commits took entries out and were repaired; %d checkpoints missing from HEAD\n", d, files, hook, len(okCP), len(okGit), undone, lost)
}
