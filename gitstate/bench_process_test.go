//go:build !windows

package gitstate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// procRun is what one child process cost, as its parent saw it.
type procRun struct {
	wall time.Duration
	cpu  time.Duration // user + system
}

// runProc runs cmd and measures it; it fails the benchmark on error.
func runProc(b *testing.B, cmd *exec.Cmd) procRun {
	b.Helper()
	var stderr strings.Builder
	if cmd.Stdout == nil {
		cmd.Stdout = &stderr
	}
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	require.NoError(b, err, "%s: %s", strings.Join(cmd.Args, " "), stderr.String())
	var pr procRun
	pr.wall = wall
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		pr.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return pr
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkProcessCommitFiles measures whole processes, as a user sees them:
// per round, one process that opens the repository and does one CommitFiles
// of two small files in one folder (internal/commitonce), and then `git add
// <folder> && git commit` of the same two files, in the same repository. It
// reports the medians of wall and CPU time of each, their ratio and the
// helper's peak resident memory (VmHWM of its own address space). ITR_BENCH_LARGE=1 uses
// the large repository; run it with -benchtime=Nx for N rounds.
func BenchmarkProcessCommitFiles(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("needs the go command to build the helper")
	}
	isolate(b)
	helper := filepath.Join(b.TempDir(), "commitonce")
	build := exec.Command("go", "build", "-o", helper, "./internal/commitonce")
	out, err := build.CombinedOutput()
	require.NoError(b, err, string(out))
	files, commits := benchSize(b)
	dir := genRepo(b, files, commits)
	task := ".claude/iterative/slug"
	require.NoError(b, os.MkdirAll(filepath.Join(dir, filepath.FromSlash(task)), 0o755))
	// Flush the freshly built repository, so that the first fsyncs do not
	// pay for writing it out.
	syscall.Sync()

	var itrWall, itrCPU, gitWall, gitCPU []time.Duration
	var maxRSS int64
	i := 0
	for b.Loop() {
		i++
		cmd := exec.Command(helper, "-repo", dir, "-dir", task, "-i", fmt.Sprint(2*i))
		var stdout strings.Builder
		cmd.Stdout = &stdout
		r := runProc(b, cmd)
		itrWall, itrCPU = append(itrWall, r.wall), append(itrCPU, r.cpu)
		// The helper's own VmHWM: the child's getrusage Maxrss also counts
		// this test process, whose memory the child shares until exec.
		var ns, rss, hwm int64
		var hash string
		_, err := fmt.Sscanf(stdout.String(), "elapsed_ns=%d maxrss_kib=%d vmhwm_kib=%d commit=%s", &ns, &rss, &hwm, &hash)
		require.NoError(b, err, stdout.String())
		maxRSS = max(maxRSS, hwm)

		j := 2*i + 1
		require.NoError(b, os.WriteFile(filepath.Join(dir, task, "state.json"), fmt.Appendf(nil, "{\"i\":%d}\n", j), 0o644))
		require.NoError(b, os.WriteFile(filepath.Join(dir, task, "progress.md"), fmt.Appendf(nil, "# progress\n\n%d\n", j), 0o644))
		add := runProc(b, execGit(dir, "add", task))
		commit := runProc(b, execGit(dir, "commit", "-q", "--no-verify", "-m", fmt.Sprintf("itr: checkpoint %d\n\nItr-Iteration: %d\n", j, j)))
		gitWall, gitCPU = append(gitWall, add.wall+commit.wall), append(gitCPU, add.cpu+commit.cpu)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(median(itrWall)), "itr-ms")
	b.ReportMetric(ms(median(gitWall)), "git-ms")
	b.ReportMetric(ms(median(itrWall))/ms(median(gitWall)), "ratio")
	b.ReportMetric(ms(median(itrCPU)), "itr-cpu-ms")
	b.ReportMetric(ms(median(gitCPU)), "git-cpu-ms")
	b.ReportMetric(float64(maxRSS)/1024, "itr-maxrss-MiB")
	if st := gitRun(b, dir, "status", "--porcelain"); st != "" {
		b.Fatalf("status not clean: %s", st)
	}
}
