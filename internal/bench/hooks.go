//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file is the cost of itr's pre-commit hook (`-only hooks`): a plain
// `git commit` with and without the hook `itr hooks install` writes, in
// clones of the same repository with one task, measured in the same rounds
// (the case that goes first moves each round). The hook installed is the
// itr-hook program (beside the itr under test, as make build puts it); the
// shell-script hook (`--script`) and a hook that only starts sh are timed
// beside it. Two kinds of commit: one of a file that is not itr's, and one
// that appends an entry to the task's progress.md by hand (git add, then
// git commit). Only `git commit` is timed; the edit and the git add come
// before it. Two repositories: the small one of the other parts, and one of
// 5,000 files in 250 folders, packed.

// The most the hook may multiply a plain git commit by.
const (
	hookTargetOther    = 1.5 // a commit touching no itr file
	hookTargetProgress = 3.0 // a commit appending an entry to progress.md
)

// benchHooks measures runs rounds of the cases in both repositories and
// prints them.
func benchHooks(itr, dir string, runs int, env []string) {
	dir, err := filepath.Abs(dir)
	check(err)
	if _, err := os.Stat(filepath.Join(filepath.Dir(itr), "itr-hook")); err != nil {
		check(fmt.Errorf("no itr-hook beside %s: build it with make build", itr))
	}
	small := filepath.Join(dir, "hooks-small")
	verifyRepo(itr, small, env)
	check(run(env, small, itr, "checkpoint", "T1", "--did", "first"))
	benchHooksIn(itr, small, "a small repository", runs, env)

	large := filepath.Join(dir, "hooks-large")
	verifyRepo(itr, large, env)
	for i := 0; i < 5000; i++ {
		p := filepath.Join(large, "src", fmt.Sprintf("d%03d", i%250), fmt.Sprintf("f%04d.go", i))
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		check(os.WriteFile(p, []byte(fmt.Sprintf("package d\n\n// file %d\n", i)), 0o644))
	}
	check(run(env, large, "git", "add", "-A"))
	check(run(env, large, "git", "commit", "-q", "-m", "5,000 files"))
	check(run(env, large, itr, "checkpoint", "T1", "--did", "first"))
	check(run(env, large, "git", "gc", "-q"))
	benchHooksIn(itr, large, "5,000 files, packed", runs, env)
}

// benchHooksIn times the hook's cases in clones of base.
func benchHooksIn(itr, base, what string, runs int, env []string) {
	clone := func(name string) string {
		repo := base + "-" + name
		check(os.RemoveAll(repo))
		check(run(env, "", "git", "clone", "-q", base, repo))
		return repo
	}
	plain, program, script, floor := clone("plain"), clone("program"), clone("script"), clone("floor")
	check(run(env, program, itr, "hooks", "install"))
	check(run(env, script, itr, "hooks", "install", "--script"))
	installed, err := os.ReadFile(filepath.Join(program, ".git", "hooks", "pre-commit"))
	check(err)
	if !strings.HasPrefix(string(installed), "\x7fELF") {
		check(fmt.Errorf("%s: itr hooks install did not install the itr-hook program", program))
	}
	// The floor: a hook that only starts sh, the least a script hook costs.
	check(os.WriteFile(filepath.Join(floor, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	if _, err := os.Stat(filepath.Join(plain, ".git", "hooks", "pre-commit")); err == nil {
		check(fmt.Errorf("%s: a pre-commit hook is there; the plain clone must have none", plain))
	}

	var otherPlain, otherProgram, otherScript, otherFloor, progPlain, progProgram, progScript []time.Duration
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
			other(plain, &otherPlain), other(program, &otherProgram), other(script, &otherScript), other(floor, &otherFloor),
			progress(plain, &progPlain), progress(program, &progProgram), progress(script, &progScript),
		}
		for j := range cases {
			cases[(i+j)%len(cases)]()
		}
	}
	for _, repo := range []string{plain, program, script, floor} {
		out, err := ggGit(env, repo, "status", "--porcelain")
		check(err)
		if strings.TrimSpace(out) != "" {
			check(fmt.Errorf("%s: git status is not clean after the rounds:\n%s", repo, out))
		}
		before, err := ggGit(env, base, "rev-list", "--count", "HEAD")
		check(err)
		want := atoi(strings.TrimSpace(before)) + 2*runs
		if repo == floor {
			want = atoi(strings.TrimSpace(before)) + runs
		}
		count, err := ggGit(env, repo, "rev-list", "--count", "HEAD")
		check(err)
		if strings.TrimSpace(count) != fmt.Sprint(want) {
			check(fmt.Errorf("%s: %s commits, want %d: a commit was refused", repo, strings.TrimSpace(count), want))
		}
	}
	fmt.Printf("\npre-commit hook, %s — %d rounds, medians of whole `git commit` processes\n", what, runs)
	row := func(what string, p, h []time.Duration, target float64) {
		hookRow(48, "meets", what, p, h, target)
	}
	row("git commit, no itr file (itr-hook)", otherPlain, otherProgram, hookTargetOther)
	row("git commit, an entry in progress.md (itr-hook)", progPlain, progProgram, hookTargetProgress)
	row("git commit, no itr file (--script)", otherPlain, otherScript, 0)
	row("git commit, an entry in progress.md (--script)", progPlain, progScript, 0)
	row("git commit, a hook that only runs sh", otherPlain, otherFloor, 0)
}

// hookRow prints one row of a hook's table: the medians of the runs
// without (p) and with (h) the hook, their median pair ratio, and against
// a target above 0 its verdict, okWord or OVER; what is padded to width.
func hookRow(width int, okWord, what string, p, h []time.Duration, target float64) {
	r := medianRatio(h, p)
	verdict := ""
	if target > 0 {
		word := okWord
		if r > target {
			word = "OVER"
		}
		verdict = fmt.Sprintf(" (target ≤ ×%.1f: %s)", target, word)
	}
	fmt.Printf("  %-*s %8s without, %8s with: ×%.2f%s\n", width, what, msp(median(p)), msp(median(h)), r, verdict)
}

// msp is a duration in milliseconds to two places.
func msp(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	check(err)
	return n
}

// appendTo appends s to the file p, creating it.
func appendTo(p, s string) {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	check(err)
	_, err = f.WriteString(s)
	check(err)
	check(f.Close())
}
