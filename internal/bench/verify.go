//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// This file is the cost of a verification run (`-only verify`): what
// `itr checkpoint --verify -- true` takes beyond `itr checkpoint` without
// a check and beyond running `true` itself, all measured in the same
// rounds, each itr case in its own copy of the same task.

// verifyOverheadTarget is the most a verification run may add to a
// checkpoint beyond the command it runs.
const verifyOverheadTarget = 5 * time.Millisecond

// benchVerify measures runs rounds of the three cases and prints them.
func benchVerify(itr, dir string, runs int, env []string) {
	plain := verifyRepo(itr, filepath.Join(dir, "verify-plain"), env)
	checked := verifyRepo(itr, filepath.Join(dir, "verify-checked"), env)
	truePath := "/bin/true"
	if _, err := os.Stat(truePath); err != nil {
		truePath = "/usr/bin/true"
	}
	var tPlain, tChecked, tTrue []time.Duration
	for i := 0; i < runs; i++ {
		did := fmt.Sprintf("round %d", i+1)
		// The case that goes first moves each round.
		cases := []func(){
			func() {
				d, _ := timed(env, plain, itr, "checkpoint", "T1", "--did", did)
				tPlain = append(tPlain, d)
			},
			func() {
				d, _ := timed(env, checked, itr, "checkpoint", "T1", "--did", did, "--verify", "--", "true")
				tChecked = append(tChecked, d)
			},
			func() {
				d, _ := timed(env, checked, truePath)
				tTrue = append(tTrue, d)
			},
		}
		for j := range cases {
			cases[(i+j)%len(cases)]()
		}
	}
	for _, repo := range []string{plain, checked} {
		out, err := ggGit(env, repo, "status", "--porcelain")
		check(err)
		if strings.TrimSpace(out) != "" {
			check(fmt.Errorf("%s: git status is not clean after the rounds:\n%s", repo, out))
		}
	}
	log, err := ggGit(env, checked, "show", "HEAD:.claude/iterative/bench/progress.md")
	check(err)
	if strings.Count(log, "**Run result:** passed") != runs {
		check(fmt.Errorf("%s: %d of %d runs recorded as passed", checked, strings.Count(log, "**Run result:** passed"), runs))
	}
	mp, mc, mt := median(tPlain), median(tChecked), median(tTrue)
	over := mc - mp - mt
	verdict := "meets"
	if over > verifyOverheadTarget {
		verdict = "MISSES"
	}
	fmt.Printf("\nverification runs — %d rounds, medians of whole processes\n", runs)
	fmt.Printf("  itr checkpoint                       %8.2f ms\n", msf(mp))
	fmt.Printf("  itr checkpoint --verify -- true      %8.2f ms\n", msf(mc))
	fmt.Printf("  true                                 %8.2f ms\n", msf(mt))
	fmt.Printf("  overhead of --verify beyond the command: %.2f ms (target ≤ %.0f ms: %s)\n", msf(over), msf(verifyOverheadTarget), verdict)
}

// verifyRepo makes a repository with one task whose T1 takes every round.
func verifyRepo(itr, repo string, env []string) string {
	planTask(itr, repo, "# Bench - Tasks\n\n## Tasks\n\n- [ ] **T1**: every round\n  - Max iterations: 100000\n", env)
	return repo
}

// planTask makes repo afresh: a git repository with one commit, and in it
// the task bench (.claude/iterative/bench) planned from plan.
func planTask(itr, repo, plan string, env []string) {
	check(os.RemoveAll(repo))
	check(run(env, "", "git", "init", "-q", "-b", "main", repo))
	check(os.WriteFile(filepath.Join(repo, "README"), []byte("bench\n"), 0o644))
	check(run(env, repo, "git", "add", "README"))
	check(run(env, repo, "git", "commit", "-q", "-m", "init"))
	check(run(env, repo, itr, "init", "Bench", "--slug", "bench"))
	check(os.WriteFile(filepath.Join(repo, ".claude/iterative/bench/tasks.md"), []byte(plan), 0o644))
	check(run(env, repo, itr, "plan"))
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
