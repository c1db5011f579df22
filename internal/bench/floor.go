//go:build !windows

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// This file is `-only floor` (issue #33): the fixed cost of a small `itr
// checkpoint` against the floor program (internal/bench/floor), the least
// work a Go program does to write the same objects, index entries, ref and
// reflogs, in two clones of the same repository, in the same rounds, on
// SMALL and (unless -large=false) LARGE. The target: itr at most
// floorTarget times the floor (the ratio of the medians of wall time).
// After the rounds both repositories must pass git fsck --strict with a
// clean git status. Where strace is on PATH, one more run of each under
// `strace -f -c` gives their system calls.

const floorTarget = 1.2

func benchFloor(itr, dir string, runs int, large bool, env []string) {
	floorBin, err := filepath.Abs(filepath.Join(dir, "floor"))
	check(err)
	check(run(env, "", "go", "build", "-o", floorBin, "github.com/itr-dev/itr/internal/bench/floor"))
	sizes := []repoSize{{"SMALL", 99, 10, 50}}
	if large {
		sizes = append(sizes, repoSize{"LARGE", 99980, 960, 2000})
	}
	rel := ".claude/iterative/bench"
	for _, size := range sizes {
		low := strings.ToLower(size.name)
		base := filepath.Join(dir, low+"-base")
		if _, err := os.Stat(filepath.Join(base, ".git")); err != nil {
			fmt.Printf("building %s (%d files, %d folders, %d commits)...\n", size.name, size.files, size.dirs, size.commits)
			check(buildRepo(base, size, env))
		}
		itrRepo, floorRepo := filepath.Join(dir, low+"-floor-itr"), filepath.Join(dir, low+"-floor-floor")
		for _, repo := range []string{itrRepo, floorRepo} {
			clone(env, base, repo)
			check(run(env, repo, itr, "init", "Bench", "--slug", "bench"))
			check(os.WriteFile(filepath.Join(repo, filepath.FromSlash(rel), "tasks.md"), []byte(benchPlan), 0o644))
			check(run(env, repo, itr, "plan"))
			check(run(env, repo, itr, "checkpoint", "T1", "--did", "warm up"))
		}
		var itrT, floorT, itrCPU, floorCPU []time.Duration
		task := filepath.Join(floorRepo, filepath.FromSlash(rel))
		floorRound := func(i int) {
			appendFile(filepath.Join(task, "progress.md"), fmt.Sprintf("\n## T1 - Iteration %d - 2026-01-01T00:00:00Z\n**Did:** floor %d\n", 1000+i, i))
			appendFile(filepath.Join(task, "state.json"), " ")
			d, cpu, _ := timedFull(env, floorRepo, floorBin, floorRepo, rel, fmt.Sprintf("floor checkpoint %d", i))
			floorT, floorCPU = append(floorT, d), append(floorCPU, cpu)
		}
		itrRound := func(i int) {
			d, cpu, _ := timedFull(env, itrRepo, itr, "checkpoint", "T1", "--did", fmt.Sprintf("iteration %d", i))
			itrT, itrCPU = append(itrT, d), append(itrCPU, cpu)
		}
		loadStart := loadAverage()
		for i := 0; i < runs; i++ {
			if i%2 == 0 {
				itrRound(i)
				floorRound(i)
			} else {
				floorRound(i)
				itrRound(i)
			}
		}
		for _, repo := range []string{itrRepo, floorRepo} {
			check(run(env, repo, "git", "fsck", "--strict", "--no-progress"))
			if out := gitOut(env, repo, "status", "--porcelain"); len(out) > 0 {
				check(fmt.Errorf("%s: git status is not clean after the rounds:\n%s", repo, out))
			}
		}
		r := float64(median(itrT)) / float64(median(floorT))
		verdict := "ok"
		if r > floorTarget {
			verdict = "OVER"
		}
		fmt.Printf("\n== %s: itr checkpoint against the floor program (same objects, index entries, ref and reflogs), runs=%d alternating, load average %s at the start, %s at the end\n",
			size.name, runs, loadStart, loadAverage())
		fmt.Printf("itr checkpoint   %10s  cpu %10s\n", ms(median(itrT)), ms(median(itrCPU)))
		fmt.Printf("floor program    %10s  cpu %10s\n", ms(median(floorT)), ms(median(floorCPU)))
		fmt.Printf("floor: itr checkpoint %.2f× the floor (per-round %.2f×, cpu %.2f×), target ≤ %.1f× %s\n",
			r, medianRatio(itrT, floorT), float64(median(itrCPU))/float64(median(floorCPU)), floorTarget, verdict)
		if strace, err := exec.LookPath("strace"); err == nil {
			i := runs
			appendFile(filepath.Join(task, "progress.md"), fmt.Sprintf("\n## T1 - Iteration %d - 2026-01-01T00:00:00Z\n**Did:** floor %d\n", 1000+i, i))
			appendFile(filepath.Join(task, "state.json"), " ")
			a := syscalls(env, itrRepo, strace, itr, "checkpoint", "T1", "--did", "strace")
			b := syscalls(env, floorRepo, strace, floorBin, floorRepo, rel, "floor strace")
			fmt.Printf("system calls (strace -f -c, one run each): itr checkpoint %d, floor %d (%.2f×)\n", a, b, float64(a)/float64(max(b, 1)))
		}
	}
}

var straceTotal = regexp.MustCompile(`(?m)^\s*100\.00\s+\S+\s+\S+\s+(\d+)\s+(?:\d+\s+)?total`)

// syscalls runs a command under strace -f -c and returns its system calls.
func syscalls(env []string, dir, strace string, name string, args ...string) int {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("bench-strace-%d.txt", os.Getpid()))
	defer os.Remove(out)
	check(run(env, dir, strace, append([]string{"-f", "-c", "-o", out, name}, args...)...))
	data, err := os.ReadFile(out)
	check(err)
	m := straceTotal.FindSubmatch(data)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}
