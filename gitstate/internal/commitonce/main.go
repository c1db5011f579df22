//go:build !windows

// Command commitonce is a measurement helper: it opens the repository given
// by -repo and makes one gitstate.CommitFiles of two small files in one
// folder (written to the working tree too), the way an itr checkpoint does.
// It prints its own wall time and peak resident memory (getrusage Maxrss) as
// "elapsed_ns=<n> maxrss_kib=<n> vmhwm_kib=<n> commit=<hash>". The benchmark
// BenchmarkProcessCommitFiles builds and runs it next to the git CLI. It is
// built for Unix only: getrusage and /proc measure it.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/itr-dev/itr/gitstate"
)

func main() {
	repo := flag.String("repo", ".", "a folder inside the repository")
	dir := flag.String("dir", ".claude/iterative/slug", "the folder the two files go into")
	i := flag.Int("i", 1, "iteration number written into the files and the message")
	n := flag.Int("n", 1, "commits to make, each with its own Open (for profiling)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile to this file")
	flag.Parse()
	if *memprofile != "" {
		runtime.MemProfileRate = 4096
		defer func() {
			f, err := os.Create(*memprofile)
			if err != nil {
				fail(err)
			}
			runtime.GC()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fail(err)
			}
			_ = f.Close()
		}()
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	var hash string
	for k := 0; k < *n; k++ {
		h, err := commitOnce(*repo, *dir, *i+k)
		if err != nil {
			fail(err)
		}
		hash = h
	}
	elapsed := time.Since(start)
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("elapsed_ns=%d maxrss_kib=%d vmhwm_kib=%d commit=%s\n", elapsed.Nanoseconds(), ru.Maxrss, vmHWM(), hash)
}

// vmHWM returns the peak resident memory of this program's own address
// space (VmHWM in /proc/self/status), or -1. Unlike getrusage's Maxrss it
// does not include the parent's memory inherited through vfork before exec.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// commitOnce opens the repository and commits the two files.
func commitOnce(repo, dir string, i int) (string, error) {
	r, err := gitstate.Open(repo)
	if err != nil {
		return "", err
	}
	c, err := r.CommitFiles(gitstate.CommitRequest{
		Changes: []gitstate.FileChange{
			{Path: dir + "/state.json", Data: fmt.Appendf(nil, "{\"i\":%d}\n", i)},
			{Path: dir + "/progress.md", Data: fmt.Appendf(nil, "# progress\n\n%d\n", i)},
		},
		Message:  fmt.Sprintf("itr: checkpoint %d\n\nItr-Iteration: %d\n", i, i),
		Worktree: true,
	})
	if err != nil {
		_ = r.Close()
		return "", err
	}
	return c.Hash, r.Close()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "commitonce:", err)
	os.Exit(1)
}
