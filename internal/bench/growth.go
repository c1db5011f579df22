//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/itr-dev/itr/internal/workspace"
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

// benchGrowth prints, for each count of checkpoints, the time of itr
// reconcile --check, of itr verify walking the whole history (its first run,
// ITR_VERIFY_NO_CACHE=1) and again (from the walk the first run remembered),
// of itr status and itr prime, and of git status and git log -1 in the same
// repository for scale; then the size of .git that the checkpoints left, with
// git's automatic maintenance as itr starts it after each commit, against
// what `git gc` leaves of it.
func benchGrowth(itr, dir, base, name string, runs int, counts string, env []string) {
	fmt.Printf("\n== %s: reconcile --check, verify, status and prime as the task's history grows; git status and git log -1 beside them\n", name)
	fmt.Printf("%-12s %18s %15s %15s %10s %10s %12s %12s\n", "checkpoints", "reconcile --check", "verify (full)", "verify (again)", "status", "prime", "git status", "git log -1")
	full := append(append([]string{}, env...), "ITR_VERIFY_NO_CACHE=1")
	var sizes []storage
	for _, c := range strings.Split(counts, ",") {
		if strings.TrimSpace(c) == "" {
			continue // "" skips the table; a trailing comma adds no row
		}
		n, err := strconv.Atoi(strings.TrimSpace(c))
		check(err)
		repo := buildHistory(itr, dir, base, name, n, env)
		waitMaintenance(repo)
		sizes = append(sizes, measureStorage(env, repo, n))
		var rc, vf, va, st, pr, gs, gl []time.Duration
		var rss int64
		for i := 0; i < runs; i++ {
			d, r := timed(env, repo, itr, "reconcile", "--check")
			rc = append(rc, d)
			rss = max(rss, r)
			d, r = timed(full, repo, itr, "verify")
			vf = append(vf, d)
			rss = max(rss, r)
			timed(env, repo, itr, "verify") // remembers the walk, if it did not yet
			d, r = timed(env, repo, itr, "verify")
			va = append(va, d)
			rss = max(rss, r)
			d, _ = timed(env, repo, itr, "status")
			st = append(st, d)
			d, _ = timed(env, repo, itr, "prime")
			pr = append(pr, d)
			d, _ = timed(env, repo, "git", "status", "--porcelain")
			gs = append(gs, d)
			d, _ = timed(env, repo, "git", "log", "-1", "--format=%H")
			gl = append(gl, d)
		}
		fmt.Printf("%-12d %18s %15s %15s %10s %10s %12s %12s   peak %.1f MiB\n", n, ms(median(rc)), ms(median(vf)), ms(median(va)), ms(median(st)), ms(median(pr)), ms(median(gs)), ms(median(gl)), float64(rss)/1024)
	}
	how := "itr starts git's auto maintenance after each"
	if v := os.Getenv("ITR_NO_MAINTENANCE"); v != "" && v != "0" {
		how = "no maintenance: ITR_NO_MAINTENANCE=" + v
	}
	fmt.Printf("\n== %s: .git after the checkpoints (%s), and after git gc\n", name, how)
	fmt.Printf("%-12s %12s %14s %12s %8s %14s %8s\n", "checkpoints", ".git (du)", "loose objects", "loose size", "packs", "after git gc", "ratio")
	for _, s := range sizes {
		fmt.Printf("%-12d %12s %14d %12s %8d %14s %7.2fx\n", s.n, kib(s.du), s.loose, kib(s.looseKiB), s.packs, kib(s.gcDu), float64(s.du)/float64(s.gcDu))
	}
}

// storage is what .git holds after n checkpoints (sizes in KiB).
type storage struct {
	n                  int
	du, looseKiB, gcDu int64
	loose, packs       int64
}

// measureStorage measures .git as the checkpoints left it (du, and `git
// count-objects -v`), then what `git gc` leaves of a copy of it.
func measureStorage(env []string, repo string, n int) storage {
	gitDir := filepath.Join(repo, ".git")
	s := storage{n: n, du: duKiB(gitDir)}
	out, err := ggGit(env, repo, "count-objects", "-v")
	check(err)
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(line, ": ")
		x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "count":
			s.loose = x
		case "size":
			s.looseKiB = x
		case "packs":
			s.packs = x
		}
	}
	cp := repo + "-gc"
	check(os.RemoveAll(cp))
	check(run(env, "", "cp", "-a", repo, cp))
	check(run(env, cp, "git", "gc", "-q"))
	s.gcDu = duKiB(filepath.Join(cp, ".git"))
	check(os.RemoveAll(cp))
	return s
}

// waitMaintenance waits (up to ten minutes) until no maintenance that an
// itr commit started is running in repo: no objects/maintenance.lock (git
// maintenance run) and no gc.pid (a git gc --auto it detached).
func waitMaintenance(repo string) {
	time.Sleep(200 * time.Millisecond)
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		_, e1 := os.Stat(filepath.Join(repo, ".git", "objects", "maintenance.lock"))
		_, e2 := os.Stat(filepath.Join(repo, ".git", "gc.pid"))
		if e1 != nil && e2 != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// duKiB is what `du -sk` says of a folder: the blocks its files take.
func duKiB(dir string) int64 {
	var blocks int64
	check(filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			blocks += st.Blocks
		}
		return nil
	}))
	return blocks * 512 / 1024
}

func kib(k int64) string {
	if k >= 10*1024 {
		return fmt.Sprintf("%.1f MiB", float64(k)/1024)
	}
	return fmt.Sprintf("%d KiB", k)
}
