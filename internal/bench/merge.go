package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/itr-dev/itr/workspace"
)

// benchMerge times the merge of two branches that each added n checkpoints
// to the same task: with the merge driver (git merge resolves by itself),
// and without it (git merge conflicts, itr reconcile resolves and stages).
func benchMerge(itr, dir, base, name string, runs, n int, env []string) {
	fmt.Printf("\n== %s: merge of %d checkpoints on each side\n", name, n)
	repo := filepath.Join(dir, fmt.Sprintf("%s-merge-%d", strings.ToLower(name), n))
	if _, err := os.Stat(filepath.Join(repo, ".git", "refs", "heads", "theirs")); err != nil {
		clone(env, base, repo)
		check(run(env, repo, itr, "init", "Bench", "--slug", "bench"))
		task := filepath.Join(repo, ".claude", "iterative", "bench")
		check(os.WriteFile(filepath.Join(task, "tasks.md"), []byte(benchPlan+"- [ ] **T2**: Other side\n"), 0o644))
		check(run(env, repo, itr, "plan"))
		check(run(env, repo, "git", "branch", "theirs"))
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
		side := func(branch, unit string) {
			check(run(env, repo, "git", "checkout", "-q", branch))
			ws, err := workspace.Open(workspace.Options{Dir: repo})
			check(err)
			for i := 0; i < n; i++ {
				_, err := ws.Checkpoint(workspace.CheckpointRequest{Slug: "bench", Unit: unit, Did: fmt.Sprintf("%s %d", branch, i)})
				check(err)
			}
			ws.Close()
		}
		side("theirs", "T2")
		side("main", "T1")
		check(run(env, repo, "git", "tag", "-f", "ours-start"))
	}
	var withDriver, gitOnly, reconcile []time.Duration
	for i := 0; i < runs; i++ {
		check(run(env, repo, "git", "reset", "-q", "--hard", "ours-start"))
		check(run(env, repo, itr, "setup"))
		d, _ := timed(env, repo, "git", "merge", "-q", "--no-edit", "theirs")
		withDriver = append(withDriver, d)

		check(run(env, repo, "git", "reset", "-q", "--hard", "ours-start"))
		check(run(env, repo, "git", "config", "--remove-section", "merge.itr"))
		start := time.Now()
		_ = run(env, repo, "git", "merge", "-q", "--no-edit", "theirs") // conflicts
		gitOnly = append(gitOnly, time.Since(start))
		d, _ = timed(env, repo, itr, "reconcile")
		reconcile = append(reconcile, d)
		check(run(env, repo, "git", "commit", "-q", "--no-edit"))
		check(run(env, repo, itr, "reconcile", "--check"))
	}
	check(run(env, repo, itr, "setup"))
	fmt.Printf("git merge with itr's driver          %10s\n", ms(median(withDriver)))
	fmt.Printf("git merge without it (conflicts)     %10s\n", ms(median(gitOnly)))
	fmt.Printf("itr reconcile resolving the conflict %10s\n", ms(median(reconcile)))
}
