//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// This file is the cost of itr verify on a long history (`-only
// verifyfull`): the full walk (ITR_VERIFY_NO_CACHE=1) against `git log -p`
// of the task's progress.md in the same repository (the yardstick: git
// reading every version of the same file), alternated round by round, and
// the repeated verify (from the walk the one before remembered) against
// its fixed bound.

// verifyFullEntries is the history the targets are set at.
const verifyFullEntries = 10000

// verifyFullTarget is the most a full verify may cost against git log -p
// of the same file.
const verifyFullTarget = 1.5

// verifyAgainTarget is the most a repeated verify may take.
const verifyAgainTarget = 100 * time.Millisecond

// benchVerifyFull builds (or reuses) a task of verifyFullEntries
// checkpoints on SMALL and prints the two targets' lines.
func benchVerifyFull(itr, dir string, runs int, env []string) {
	base := filepath.Join(dir, "small-base")
	if _, err := os.Stat(filepath.Join(base, ".git")); err != nil {
		fmt.Println("building SMALL...")
		check(buildRepo(base, repoSize{"SMALL", 99, 10, 50}, env))
	}
	repo := buildHistory(itr, dir, base, "SMALL", verifyFullEntries, env)
	waitMaintenance(repo)
	full := append(append([]string{}, env...), "ITR_VERIFY_NO_CACHE=1")
	rounds := min(runs, 7) // a full walk takes seconds
	var vf, gl, vfCPU, glCPU, gr []time.Duration
	var rss int64
	for i := 0; i < rounds; i++ {
		// The case that goes first moves each round.
		cases := []func(){
			func() {
				d, cpu, r := timedFull(full, repo, itr, "verify")
				vf, vfCPU, rss = append(vf, d), append(vfCPU, cpu), max(rss, r)
			},
			func() {
				d, cpu, _ := timedFull(env, repo, "git", "log", "-p", "--", ".claude/iterative/bench/progress.md")
				gl, glCPU = append(gl, d), append(glCPU, cpu)
			},
			func() {
				// For scale: the same walk without the diffs, which make
				// git log -p grow with the square of the log.
				d, _ := timed(env, repo, "git", "log", "--raw", "--format=%H", "--", ".claude/iterative/bench/progress.md")
				gr = append(gr, d)
			},
		}
		for j := range cases {
			cases[(i+j)%len(cases)]()
		}
	}
	timed(env, repo, itr, "verify") // remembers the walk, if it did not yet
	var va []time.Duration
	for i := 0; i < runs; i++ {
		d, _ := timed(env, repo, itr, "verify")
		va = append(va, d)
	}
	ratio := medianRatio(vf, gl)
	fmt.Printf("\nitr verify at %d entries — %d alternated rounds (full) and %d (again), medians of whole processes, load average %s\n", verifyFullEntries, rounds, runs, loadAverage())
	fmt.Printf("  itr verify (full, ITR_VERIFY_NO_CACHE=1)   %10s  cpu %10s   peak %.1f MiB\n", ms(median(vf)), ms(median(vfCPU)), float64(rss)/1024)
	fmt.Printf("  git log -p -- progress.md                  %10s  cpu %10s\n", ms(median(gl)), ms(median(glCPU)))
	fmt.Printf("  git log --raw -- progress.md (for scale)   %10s\n", ms(median(gr)))
	fmt.Printf("  full verify / git log -p: %.2fx (target ≤ %.1fx: %s)\n", ratio, verifyFullTarget, verifyVerdict(ratio <= verifyFullTarget))
	again := median(va)
	fmt.Printf("  itr verify (again): %s (target ≤ %s: %s)\n", ms(again), ms(verifyAgainTarget), verifyVerdict(again <= verifyAgainTarget))
}

// verifyVerdict is a target's verdict.
func verifyVerdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "OVER"
}
