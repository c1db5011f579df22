package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file run itr as separate processes:
// what testscript cannot express — processes racing for one repository, and
// a process killed in the middle of a checkpoint.

// itrBinary returns the itr command that testscript.Main (in TestMain) put
// on PATH: this test binary under the name itr, built with the same flags
// (-race included), so nothing is built twice.
func itrBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the itr binary many times; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the stress tests need git on PATH")
	}
	bin, err := exec.LookPath("itr")
	require.NoError(t, err, "testscript.Main puts itr on PATH")
	return bin
}

// stressRepo is a repository in a temporary folder with an environment of
// its own (HOME, identity, default branch) for git and itr.
type stressRepo struct {
	t   *testing.T
	dir string
	env []string
	bin string
}

func newStressRepo(t *testing.T) *stressRepo {
	t.Helper()
	bin := itrBinary(t)
	base := t.TempDir()
	home := filepath.Join(base, "home")
	require.NoError(t, os.MkdirAll(home, 0o755))
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "ITR_") || k == "HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"ITR_NO_MAINTENANCE=1", // no background repack outlives the test's folder
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Stress Agent", "GIT_AUTHOR_EMAIL=stress@example.com",
		"GIT_COMMITTER_NAME=Stress Agent", "GIT_COMMITTER_EMAIL=stress@example.com",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=init.defaultBranch", "GIT_CONFIG_VALUE_0=main",
	)
	r := &stressRepo{t: t, dir: filepath.Join(base, "repo"), env: env, bin: bin}
	require.NoError(t, os.MkdirAll(r.dir, 0o755))
	r.git("init", "-q")
	r.git("commit", "-q", "--allow-empty", "-m", "initial commit")
	return r
}

func (r *stressRepo) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir = r.dir
	c.Env = r.env
	return c
}

// run runs a command and returns its combined output and error.
func (r *stressRepo) run(name string, args ...string) (string, error) {
	out, err := r.cmd(name, args...).CombinedOutput()
	return string(out), err
}

// git runs git and fails the test when it fails.
func (r *stressRepo) git(args ...string) string {
	r.t.Helper()
	out, err := r.run("git", args...)
	require.NoError(r.t, err, "git %s:\n%s", strings.Join(args, " "), out)
	return out
}

// itr runs itr and fails the test when it fails.
func (r *stressRepo) itr(args ...string) string {
	r.t.Helper()
	out, err := r.run(r.bin, args...)
	require.NoError(r.t, err, "itr %s:\n%s", strings.Join(args, " "), out)
	return out
}

// startTask creates a task with one unit T1 allowing max iterations and
// plans it.
func (r *stressRepo) startTask(slug string, max int) {
	r.t.Helper()
	r.itr("init", "Task "+slug, "--slug", slug)
	plan := fmt.Sprintf("# Task %s - Tasks\n\n## Tasks\n\n- [ ] **T1**: The only unit\n  - Max iterations: %d\n", slug, max)
	require.NoError(r.t, os.WriteFile(filepath.Join(r.dir, ".claude", "iterative", slug, "tasks.md"), []byte(plan), 0o644))
	r.itr("-t", slug, "plan")
}

// fsckProblem matches what git fsck reports as damage, as words (object
// names are hex, so a plain substring such as "bad" can match a hash);
// dangling objects of a killed run are not damage.
var fsckProblem = regexp.MustCompile(`(?m)^(error|missing|broken|bad|fatal)\b|\b(corrupt|invalid)\b`)

// assertHealthy checks what the real git sees: fsck clean, linear history,
// nothing in git status.
func (r *stressRepo) assertHealthy() {
	r.t.Helper()
	fsck, err := r.run("git", "fsck", "--strict")
	require.NoError(r.t, err, "git fsck --strict:\n%s", fsck)
	assert.False(r.t, fsckProblem.MatchString(fsck), "git fsck --strict:\n%s", fsck)
	assert.Empty(r.t, r.git("rev-list", "--merges", "HEAD"), "history is linear")
	assert.Empty(r.t, r.git("status", "--porcelain", "--untracked-files=all"), "git status --porcelain")
}

var iterationHeading = regexp.MustCompile(`(?m)^## (\S+) - Iteration (\d+) - `)

// taskLog is what one task's files and history say.
type taskLog struct {
	iterations []int          // iteration numbers of T1's entries, in file order
	did        map[string]int // how often each Did value appears
	used       int            // state.json's iterations_used of T1
	commits    []int          // Itr-Iteration trailers of the task's commits, oldest first
}

// checkpointsAtOnce runs n itr commands at once, the i-th with the
// arguments args(i) and --did p<i>; each must succeed.
func (r *stressRepo) checkpointsAtOnce(t *testing.T, n int, args func(i int) []string) {
	t.Helper()
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs[i], errs[i] = r.run(r.bin, append(args(i), "--did", fmt.Sprintf("p%d", i))...)
		}(i)
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		require.NoError(t, errs[i], "itr checkpoint p%d:\n%s", i, outs[i])
	}
}

func (r *stressRepo) readTask(slug string) taskLog {
	r.t.Helper()
	dir := filepath.Join(r.dir, ".claude", "iterative", slug)
	progress, err := os.ReadFile(filepath.Join(dir, "progress.md"))
	require.NoError(r.t, err)
	var tl taskLog
	tl.did = map[string]int{}
	for _, m := range iterationHeading.FindAllStringSubmatch(string(progress), -1) {
		require.Equal(r.t, "T1", m[1])
		n, _ := strconv.Atoi(m[2])
		tl.iterations = append(tl.iterations, n)
	}
	for _, m := range regexp.MustCompile(`(?m)^\*\*Did:\*\* (.*)$`).FindAllStringSubmatch(string(progress), -1) {
		tl.did[m[1]]++
	}
	raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
	require.NoError(r.t, err)
	var st struct {
		Tasks map[string]struct {
			IterationsUsed int `json:"iterations_used"`
		} `json:"tasks"`
	}
	require.NoError(r.t, json.Unmarshal(raw, &st), "state.json:\n%s", raw)
	tl.used = st.Tasks["T1"].IterationsUsed
	log := r.git("log", "--reverse", "--format=%(trailers:key=Itr-Task,valueonly,separator=)|%(trailers:key=Itr-Event,valueonly,separator=)|%(trailers:key=Itr-Iteration,valueonly,separator=)")
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 || parts[0] != slug || parts[1] != "iteration" {
			continue
		}
		n, err := strconv.Atoi(parts[2])
		require.NoError(r.t, err, "Itr-Iteration of %q", line)
		tl.commits = append(tl.commits, n)
	}
	return tl
}

// assertSequence checks that iterations are exactly 1..n in order, and that
// the log, the view and the commits agree on n.
func assertSequence(t *testing.T, slug string, tl taskLog, n int) {
	t.Helper()
	want := make([]int, n)
	for i := range want {
		want[i] = i + 1
	}
	assert.Equal(t, want, tl.iterations, "%s: iteration entries in progress.md", slug)
	assert.Equal(t, want, tl.commits, "%s: Itr-Iteration of the iteration commits", slug)
	assert.Equal(t, n, tl.used, "%s: iterations_used in state.json", slug)
}

// TestStressConcurrentCheckpointsOneTask runs 8 checkpoints of one unit at
// once: each is recorded exactly once, numbered without gaps.
func TestStressConcurrentCheckpointsOneTask(t *testing.T) {
	r := newStressRepo(t)
	r.startTask("one", 100)
	const n = 8
	r.checkpointsAtOnce(t, n, func(int) []string { return []string{"checkpoint", "T1"} })
	tl := r.readTask("one")
	assertSequence(t, "one", tl, n)
	for i := 0; i < n; i++ {
		assert.Equal(t, 1, tl.did[fmt.Sprintf("p%d", i)], "entry p%d", i)
	}
	r.assertHealthy()
}

// TestStressConcurrentCheckpointsManyTasks runs 8 checkpoints at once, each
// on its own task: every task gets its one iteration.
func TestStressConcurrentCheckpointsManyTasks(t *testing.T) {
	r := newStressRepo(t)
	const n = 8
	for i := 0; i < n; i++ {
		r.startTask(fmt.Sprintf("task%d", i), 10)
	}
	r.checkpointsAtOnce(t, n, func(i int) []string { return []string{"-t", fmt.Sprintf("task%d", i), "checkpoint", "T1"} })
	for i := 0; i < n; i++ {
		slug := fmt.Sprintf("task%d", i)
		tl := r.readTask(slug)
		assertSequence(t, slug, tl, 1)
		assert.Equal(t, map[string]int{fmt.Sprintf("p%d", i): 1}, tl.did, "%s: entries", slug)
	}
	// Every commit of the run is one of the 8 checkpoints, each once.
	subjects := strings.Split(strings.TrimSpace(r.git("log", "--format=%s", "-n", strconv.Itoa(n))), "\n")
	sort.Strings(subjects)
	var want []string
	for i := 0; i < n; i++ {
		want = append(want, fmt.Sprintf("itr(task%d): T1 iteration 1: p%d", i, i))
	}
	assert.Equal(t, want, subjects)
	r.assertHealthy()
}

// TestStressGitCommitsDuringCheckpoints runs the git CLI committing other
// files in a loop while itr records 10 checkpoints: no commit of either is
// lost.
func TestStressGitCommitsDuringCheckpoints(t *testing.T) {
	r := newStressRepo(t)
	r.startTask("busy", 100)
	const checkpoints = 10
	stop := make(chan struct{})
	var gitCommits []string
	var gitErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				if i >= 5 {
					return
				}
			default:
			}
			name := fmt.Sprintf("work%02d.txt", i)
			if err := os.WriteFile(filepath.Join(r.dir, name), []byte(fmt.Sprintf("work %d\n", i)), 0o644); err != nil {
				gitErr = err
				return
			}
			subject := fmt.Sprintf("work %d", i)
			// git fails while itr holds the index or the branch lock
			// ("index.lock: File exists", "cannot lock ref"): that is
			// git's protocol working; try again, as a person would.
			var out string
			var err error
			for attempt := 0; attempt < 200; attempt++ {
				if out, err = r.run("git", "add", name); err == nil {
					if out, err = r.run("git", "commit", "-q", "-m", subject, "--", name); err == nil {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
			}
			if err != nil {
				gitErr = fmt.Errorf("git commit %s: %w\n%s", name, err, out)
				return
			}
			gitCommits = append(gitCommits, subject)
		}
	}()
	var itrErr error
	for i := 0; i < checkpoints; i++ {
		out, err := r.run(r.bin, "checkpoint", "T1", "--did", fmt.Sprintf("c%d", i))
		if err != nil {
			itrErr = fmt.Errorf("itr checkpoint c%d: %w\n%s", i, err, out)
			break
		}
	}
	close(stop)
	<-done
	require.NoError(t, itrErr)
	require.NoError(t, gitErr)

	seen := map[string]int{}
	for _, s := range strings.Split(strings.TrimSpace(r.git("log", "--format=%s")), "\n") {
		seen[s]++
	}
	require.NotEmpty(t, gitCommits)
	for _, s := range gitCommits {
		assert.Equal(t, 1, seen[s], "git commit %q reachable exactly once", s)
	}
	tl := r.readTask("busy")
	assertSequence(t, "busy", tl, checkpoints)
	for i := 0; i < checkpoints; i++ {
		assert.Equal(t, 1, tl.did[fmt.Sprintf("c%d", i)], "entry c%d", i)
	}
	files := r.git("ls-tree", "-r", "--name-only", "HEAD")
	for i := range gitCommits {
		assert.Contains(t, files, fmt.Sprintf("work%02d.txt", i))
	}
	r.assertHealthy()
}

// TestStressKilledCheckpoints kills itr checkpoint at random moments: after
// each kill git stays valid, and the next checkpoint either sees the killed
// one whole or not at all. A next command that refuses and names `itr
// reconcile` is logged, then reconcile repairs the task; an entry reconcile
// adopts is carried by its reconcile commit instead of an iteration commit.
func TestStressKilledCheckpoints(t *testing.T) {
	r := newStressRepo(t)
	r.startTask("killed", 1000)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	const rounds = 30
	var needReconcile []string
	adopted := 0
	for i := 0; i < rounds; i++ {
		c := r.cmd(r.bin, "checkpoint", "T1", "--did", fmt.Sprintf("k%d", i))
		require.NoError(t, c.Start())
		time.Sleep(time.Duration(rng.Intn(41)) * time.Millisecond)
		_ = c.Process.Signal(syscall.SIGKILL)
		err := c.Wait()
		var ee *exec.ExitError
		killed := errors.As(err, &ee) && !ee.Exited()
		require.True(t, err == nil || killed, "round %d: itr checkpoint failed on its own: %v", i, err)

		fsck, ferr := r.run("git", "fsck", "--strict")
		require.NoError(t, ferr, "round %d: git fsck --strict after the kill:\n%s", i, fsck)
		require.False(t, fsckProblem.MatchString(fsck), "round %d: git fsck --strict after the kill:\n%s", i, fsck)

		out, err := r.run(r.bin, "checkpoint", "T1", "--did", fmt.Sprintf("after%d", i))
		if err != nil {
			require.Contains(t, out, "itr reconcile", "round %d (killed: %v): the next checkpoint failed without naming `itr reconcile`:\n%s", i, killed, out)
			needReconcile = append(needReconcile, fmt.Sprintf("round %d: %s", i, strings.TrimSpace(out)))
			rec, err := r.run(r.bin, "reconcile")
			require.NoError(t, err, "round %d: itr reconcile:\n%s", i, rec)
			if m := regexp.MustCompile(`adopted (\d+)`).FindStringSubmatch(rec); m != nil {
				n, _ := strconv.Atoi(m[1])
				adopted += n
			}
			out, err = r.run(r.bin, "checkpoint", "T1", "--did", fmt.Sprintf("after%d", i))
			require.NoError(t, err, "round %d: itr checkpoint after itr reconcile:\n%s", i, out)
		}
		st, _ := r.run("git", "status", "--porcelain", "--untracked-files=all")
		require.Empty(t, st, "round %d: git status --porcelain after the next checkpoint", i)
		files := r.git("ls-files")
		require.NotContains(t, files, ".tmp", "round %d: a temporary file of the killed itr was committed", i)

		tl := r.readTask("killed")
		require.Equal(t, 1, tl.did[fmt.Sprintf("after%d", i)], "round %d: the next checkpoint's entry", i)
		require.LessOrEqual(t, tl.did[fmt.Sprintf("k%d", i)], 1, "round %d: the killed checkpoint's entry at most once", i)
		want := make([]int, len(tl.iterations))
		for k := range want {
			want[k] = k + 1
		}
		require.Equal(t, want, tl.iterations, "round %d: iteration entries in progress.md", i)
		require.Equal(t, len(tl.iterations), tl.used, "round %d: iterations_used in state.json", i)
		require.Equal(t, len(tl.iterations), len(tl.commits)+adopted, "round %d: iteration commits (+ %d entries adopted by reconcile)", i, adopted)
		require.True(t, sort.IntsAreSorted(tl.commits), "round %d: Itr-Iteration trailers in order: %v", i, tl.commits)
	}
	for _, s := range needReconcile {
		t.Logf("the next command refused and named `itr reconcile`: %s", s)
	}
	tl := r.readTask("killed")
	assert.GreaterOrEqual(t, len(tl.iterations), rounds)
	if adopted == 0 {
		assertSequence(t, "killed", tl, len(tl.iterations))
	}
	r.assertHealthy()
}
