//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// This file is the read after a write (`-only warm`): at warmEntries
// entries, the first `itr status` (and `itr prime`) after an
// `itr checkpoint` against the same command run again right after it
// (warm), in the same round. A checkpoint that leaves the view's cache
// current makes the two cost the same; one that does not makes the first
// read re-read and refold the whole log.

// warmEntries is the size of the log the read after a write is measured at.
const warmEntries = 10000

// warmTarget is the most the first read after a write may cost, as a
// multiple of a warm read.
const warmTarget = 1.5

// benchWarm builds (or reuses) a task of warmEntries checkpoints and
// prints, for status and prime, the median processor time of the first
// read after a checkpoint and of a warm read, their ratio (the median of
// the rounds' ratios) and the verdict.
func benchWarm(itr, dir string, runs int, env []string) {
	base := filepath.Join(dir, "warm-base")
	if _, err := os.Stat(filepath.Join(base, ".git")); err != nil {
		check(os.RemoveAll(base))
		check(run(env, "", "git", "init", "-q", "-b", "main", base))
		check(os.WriteFile(filepath.Join(base, "README"), []byte("bench\n"), 0o644))
		check(run(env, base, "git", "add", "README"))
		check(run(env, base, "git", "commit", "-q", "-m", "init"))
	}
	fmt.Printf("\n== the read after a write: %d entries, %d rounds, processor time of whole processes (median)\n", warmEntries, runs)
	repo := buildHistory(itr, dir, base, "warm", warmEntries, env)
	fmt.Printf("%-14s %14s %14s %8s %8s\n", "read", "after a write", "warm", "ratio", "verdict")
	round := 0
	for _, cmd := range []string{"status", "prime"} {
		var first, warm []time.Duration
		for i := 0; i < runs; i++ {
			round++
			check(run(env, repo, itr, "checkpoint", "T1", "--did", fmt.Sprintf("warm round %d", round)))
			_, a, _ := timedFull(env, repo, itr, cmd)
			_, b, _ := timedFull(env, repo, itr, cmd)
			first, warm = append(first, a), append(warm, b)
		}
		ratio := medianRatio(first, warm)
		verdict := "ok"
		if ratio > warmTarget {
			verdict = "OVER"
		}
		fmt.Printf("%-14s %14s %14s %7.2fx %8s   (target ≤ %.1fx a warm %s)\n", "itr "+cmd, ms(median(first)), ms(median(warm)), ratio, verdict, warmTarget, cmd)
	}
}
