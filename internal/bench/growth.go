package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/itr-dev/itr/workspace"
)

// buildHistory makes a task with n checkpoints in a fresh clone of base,
// in-process through the workspace package (the same code as the CLI,
// without a process start per checkpoint), and returns the clone.
func buildHistory(itr, dir, base, name string, n int, env []string) string {
	repo := filepath.Join(dir, fmt.Sprintf("%s-hist-%d", strings.ToLower(name), n))
	if _, err := os.Stat(filepath.Join(repo, ".claude", "iterative", "bench", "state.json")); err == nil {
		return repo // kept from an earlier run
	}
	clone(env, base, repo)
	check(run(env, repo, itr, "init", "Bench", "--slug", "bench"))
	task := filepath.Join(repo, ".claude", "iterative", "bench")
	check(os.WriteFile(filepath.Join(task, "tasks.md"), []byte(benchPlan), 0o644))
	check(run(env, repo, itr, "plan"))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	ws, err := workspace.Open(workspace.Options{Dir: repo})
	check(err)
	defer ws.Close()
	start := time.Now()
	for i := 0; i < n; i++ {
		_, err := ws.Checkpoint(workspace.CheckpointRequest{Slug: "bench", Unit: "T1", Did: fmt.Sprintf("history %d: a line of the size agents write", i)})
		check(err)
	}
	fmt.Printf("  made %d checkpoints in %s\n", n, time.Since(start).Round(time.Millisecond))
	return repo
}

func benchGrowth(itr, dir, base, name string, runs int, counts string, env []string) {
	fmt.Printf("\n== %s: reconcile --check, verify and status as the task's history grows\n", name)
	fmt.Printf("%-12s %18s %18s %18s\n", "checkpoints", "reconcile --check", "verify", "status")
	for _, c := range strings.Split(counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		check(err)
		repo := buildHistory(itr, dir, base, name, n, env)
		var rc, vf, st []time.Duration
		var rss int64
		for i := 0; i < runs; i++ {
			d, r := timed(env, repo, itr, "reconcile", "--check")
			rc = append(rc, d)
			rss = max(rss, r)
			d, r = timed(env, repo, itr, "verify")
			vf = append(vf, d)
			rss = max(rss, r)
			d, _ = timed(env, repo, itr, "status")
			st = append(st, d)
		}
		fmt.Printf("%-12d %18s %18s %18s   peak %.1f MiB\n", n, ms(median(rc)), ms(median(vf)), ms(median(st)), float64(rss)/1024)
	}
}
