//go:build !windows

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// unitRuns is how many times itr prime and itr status run on each task of
// the units table; the median is reported.
const unitRuns = 9

// primeTarget is the most itr prime may take on a task of primeTargetUnits
// units.
const (
	primeTarget      = 300 * time.Millisecond
	primeTargetUnits = 10000
)

// unitsPlan returns a tasks.md of n units in a chain: T1, then T2 depending
// on T1, and so on, each with at most 5 iterations.
func unitsPlan(n int) []byte {
	var b strings.Builder
	b.WriteString("# Demo - Tasks\n\n## Tasks\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] **T%d**: unit %d\n  - Max iterations: 5\n", i, i)
		if i > 1 {
			fmt.Fprintf(&b, "  - Depends: T%d\n", i-1)
		}
	}
	return []byte(b.String())
}

// buildUnits makes a fresh repository in dir holding a task of n chained
// units, planned with itr plan and with one checkpoint on T1, and returns
// the repository and the wall time of itr plan.
func buildUnits(itr, dir string, n int, env []string) (string, time.Duration, error) {
	repo := filepath.Join(dir, fmt.Sprintf("units-%d", n))
	if err := os.RemoveAll(repo); err != nil {
		return "", 0, fmt.Errorf("remove %s: %w", repo, err)
	}
	if err := run(env, "", "git", "init", "-q", "-b", "main", repo); err != nil {
		return "", 0, err
	}
	if err := run(env, repo, itr, "init", "Demo", "--slug", "demo"); err != nil {
		return "", 0, err
	}
	tasks := filepath.Join(repo, ".claude", "iterative", "demo", "tasks.md")
	if err := os.WriteFile(tasks, unitsPlan(n), 0o644); err != nil {
		return "", 0, fmt.Errorf("write tasks.md: %w", err)
	}
	start := time.Now()
	if err := run(env, repo, itr, "plan"); err != nil {
		return "", 0, err
	}
	plan := time.Since(start)
	if err := run(env, repo, itr, "checkpoint", "T1", "--did", "x"); err != nil {
		return "", 0, err
	}
	// A prime that found no task would print nothing and exit 0: make sure
	// the runs below measure the real thing.
	cmd := exec.Command(itr, "prime")
	cmd.Dir, cmd.Env = repo, env
	out, err := cmd.Output()
	if err != nil {
		return "", 0, fmt.Errorf("itr prime: %w", err)
	}
	if !strings.Contains(string(out), "Current unit: T1") {
		return "", 0, fmt.Errorf("itr prime on %d units does not show T1 as the current unit:\n%s", n, out)
	}
	return repo, plan, nil
}

// benchUnits measures itr prime and itr status on tasks of each number of
// units in counts (comma-separated), and itr plan once on each. Wall times
// come from plain runs; peak RSS from as many runs again under
// /usr/bin/time (see peakRSS).
func benchUnits(itr, dir string, counts string, env []string) {
	fmt.Printf("\n== prime and status as the task's number of units grows (chained units, T1 current; medians of %d runs)\n", unitRuns)
	rssFrom := "/usr/bin/time -f %M"
	if _, err := peakRSS(env, dir, "true"); err != nil {
		rssFrom = "rusage, never below the bench's own peak (" + err.Error() + ")"
	}
	fmt.Printf("peak RSS from %s\n", rssFrom)
	fmt.Printf("%-8s %12s %12s %12s %12s %12s\n", "units", "plan (once)", "prime", "prime RSS", "status", "status RSS")
	var targetPrime time.Duration
	for _, c := range strings.Split(counts, ",") {
		if strings.TrimSpace(c) == "" {
			continue // "" skips the table; a trailing comma adds no row
		}
		n, err := strconv.Atoi(strings.TrimSpace(c))
		check(err)
		repo, plan, err := buildUnits(itr, dir, n, env)
		check(err)
		var pr, st []time.Duration
		var prRSS, stRSS []int64
		measure := func(sub string, times *[]time.Duration, peaks *[]int64) {
			d, rss := timed(env, repo, itr, sub)
			*times = append(*times, d)
			if peak, err := peakRSS(env, repo, itr, sub); err == nil {
				rss = peak
			}
			*peaks = append(*peaks, rss)
		}
		for i := 0; i < unitRuns; i++ {
			measure("prime", &pr, &prRSS)
			measure("status", &st, &stRSS)
		}
		fmt.Printf("%-8d %12s %12s %12s %12s %12s\n", n, ms(plan), ms(median(pr)), mib(median(prRSS)), ms(median(st)), mib(median(stRSS)))
		if n == primeTargetUnits {
			targetPrime = median(pr)
		}
	}
	switch {
	case targetPrime == 0:
		fmt.Printf("prime target (%s at %d units): not measured; add %d to -units\n", ms(primeTarget), primeTargetUnits, primeTargetUnits)
	case targetPrime <= primeTarget:
		fmt.Printf("prime at %d units: %s, within the %s target\n", primeTargetUnits, ms(targetPrime), ms(primeTarget))
	default:
		fmt.Printf("prime at %d units: %s, OVER the %s target\n", primeTargetUnits, ms(targetPrime), ms(primeTarget))
	}
}

// peakRSS runs a command under /usr/bin/time -f %M and returns its peak
// RSS in KiB. The rusage of a child started from Go is not enough for a
// small command: Go starts children with vfork, and Linux counts the
// parent's high-water mark at exec in the child's ru_maxrss, so it never
// reads below the bench's own peak.
func peakRSS(env []string, dir, name string, args ...string) (int64, error) {
	f, err := os.CreateTemp("", "itr-bench-rss-*")
	if err != nil {
		return 0, fmt.Errorf("temporary file for /usr/bin/time: %w", err)
	}
	out := f.Name()
	f.Close()
	defer os.Remove(out)
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", out, name}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	if b, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("/usr/bin/time %s: %w\n%s", name, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return 0, fmt.Errorf("read /usr/bin/time output: %w", err)
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/usr/bin/time -f %%M printed %q: %w", b, err)
	}
	return kib, nil
}

// mib formats a size in KiB as MiB.
func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
