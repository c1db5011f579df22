//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// This file is the cost of itr's pre-commit hook (`-only hooks`): a plain
// `git commit` with and without the hook `itr hooks install` writes, in two
// clones of the same repository with one task, measured in the same rounds
// (the case that goes first moves each round). Two kinds of commit: one of
// a file that is not itr's, and one that appends an entry to the task's
// progress.md by hand (git add, then git commit). Only `git commit` is
// timed; the edit and the git add come before it.

// The most the hook may multiply a plain git commit by.
const (
	hookTargetOther    = 1.5 // a commit touching no itr file
	hookTargetProgress = 3.0 // a commit appending an entry to progress.md
)

// benchHooks measures runs rounds of the four cases and prints them.
func benchHooks(itr, dir string, runs int, env []string) {
	dir, err := filepath.Abs(dir)
	check(err)
	base := filepath.Join(dir, "hooks-base")
	verifyRepo(itr, base, env)
	check(run(env, base, itr, "checkpoint", "T1", "--did", "first"))
	plain := filepath.Join(dir, "hooks-plain")
	hooked := filepath.Join(dir, "hooks-hooked")
	floor := filepath.Join(dir, "hooks-floor")
	for _, repo := range []string{plain, hooked, floor} {
		check(os.RemoveAll(repo))
		check(run(env, "", "git", "clone", "-q", base, repo))
	}
	check(run(env, hooked, itr, "hooks", "install"))
	// The floor: a hook that only starts sh, the least any hook costs.
	check(os.WriteFile(filepath.Join(floor, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	if _, err := os.Stat(filepath.Join(plain, ".git", "hooks", "pre-commit")); err == nil {
		check(fmt.Errorf("%s: a pre-commit hook is there; the plain clone must have none", plain))
	}

	var otherPlain, otherHooked, otherFloor, progPlain, progHooked []time.Duration
	for i := 0; i < runs; i++ {
		n := i + 1
		other := func(repo string, into *[]time.Duration) func() {
			return func() {
				appendTo(filepath.Join(repo, "work.txt"), fmt.Sprintf("round %d\n", n))
				check(run(env, repo, "git", "add", "work.txt"))
				d, _ := timed(env, repo, "git", "commit", "-q", "-m", fmt.Sprintf("work %d", n))
				*into = append(*into, d)
			}
		}
		progress := func(repo string, into *[]time.Duration) func() {
			return func() {
				p := filepath.Join(repo, ".claude", "iterative", "bench", "progress.md")
				appendTo(p, fmt.Sprintf("\n## T1 - Iteration %d - 2026-01-01T00:00:00Z\n**Did:** round %d by hand\n**Remaining:** None\n**Blockers:** None\n**Commit:** None\n", n+1, n))
				check(run(env, repo, "git", "add", p))
				d, _ := timed(env, repo, "git", "commit", "-q", "-m", fmt.Sprintf("log %d", n))
				*into = append(*into, d)
			}
		}
		cases := []func(){
			other(plain, &otherPlain), other(hooked, &otherHooked), other(floor, &otherFloor),
			progress(plain, &progPlain), progress(hooked, &progHooked),
		}
		for j := range cases {
			cases[(i+j)%len(cases)]()
		}
	}
	for _, repo := range []string{plain, hooked, floor} {
		out, err := ggGit(env, repo, "status", "--porcelain")
		check(err)
		if strings.TrimSpace(out) != "" {
			check(fmt.Errorf("%s: git status is not clean after the rounds:\n%s", repo, out))
		}
		want := 4 + 2*runs
		if repo == floor {
			want = 4 + runs
		}
		count, err := ggGit(env, repo, "rev-list", "--count", "HEAD")
		check(err)
		if strings.TrimSpace(count) != fmt.Sprint(want) {
			check(fmt.Errorf("%s: %s commits, want %d: a commit was refused", repo, strings.TrimSpace(count), want))
		}
	}
	fmt.Printf("\npre-commit hook — %d rounds, medians of whole `git commit` processes\n", runs)
	row := func(what string, p, h []time.Duration, target float64) {
		r := medianRatio(h, p)
		verdict := "meets"
		if r > target {
			verdict = "OVER"
		}
		fmt.Printf("  %-34s %10s without, %10s with the hook: ×%.2f (target ≤ ×%.1f: %s)\n", what, ms(median(p)), ms(median(h)), r, target, verdict)
	}
	row("git commit, no itr file", otherPlain, otherHooked, hookTargetOther)
	row("git commit, an entry in progress.md", progPlain, progHooked, hookTargetProgress)
	fmt.Printf("  floor: a hook that only runs sh      %10s: ×%.2f of a plain git commit of no itr file\n", ms(median(otherFloor)), medianRatio(otherFloor, otherPlain))
}

// appendTo appends s to the file p, creating it.
func appendTo(p, s string) {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	check(err)
	_, err = f.WriteString(s)
	check(err)
	check(f.Close())
}
