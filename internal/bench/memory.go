//go:build !windows

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// This file is `-only memory` (issue #33): the peak memory (the whole
// process's max RSS, from /usr/bin/time -f %M) of itr checkpoint, status,
// prime, verify and reconcile on a task whose progress.md holds
// memoryLogMiB MiB, against the largest file each command reads (that
// log). The target: at most memoryTarget times that file.
//
// The task is built once and kept in -dir: the log is written in one go
// (entries of about a kilobyte, words from a small vocabulary so that it
// compresses like prose), committed with one plain git commit, and folded
// into state.json by `itr reconcile`. Auto maintenance is off in the
// measured runs (ITR_NO_MAINTENANCE=1): a repack started in the
// background is git's memory, not itr's.

// memoryLogMiB is the size of the log the targets are set at.
const memoryLogMiB = 100

// memoryTarget is the most a command's peak may be, as a multiple of the
// largest file it reads.
const memoryTarget = 2.0

// memoryCase is one measured command.
type memoryCase struct {
	label string
	env   []string
	args  []string
	// before runs ahead of each measured run (not measured).
	before func()
	// info marks a line printed for scale, without a verdict.
	info bool
}

// benchMemory builds (or reuses) the large task and prints each command's
// peak, the log's size, their ratio and the verdict.
func benchMemory(itr, dir string, runs int, env []string) {
	env = append(append([]string{}, env...), "ITR_NO_MAINTENANCE=1")
	repo := buildMemoryTask(itr, dir, env)
	logPath := filepath.Join(repo, ".claude", "iterative", "bench", "progress.md")
	rounds := min(runs, 3)
	noCache := append(append([]string{}, env...), "ITR_VERIFY_NO_CACHE=1")
	gitEngine := append(append([]string{}, env...), "ITR_ENGINE=git")
	n := 0
	did := func() []string {
		n++
		return []string{"checkpoint", "T1", "--did", fmt.Sprintf("memory round %d", n)}
	}
	// The view's cache (view/facts.go) removed: the read parses the log.
	noView := func() { check(os.RemoveAll(filepath.Join(repo, ".git", "itr-view-bench.json"))) }
	cases := []memoryCase{
		{label: "checkpoint", env: env},
		{label: "checkpoint (ITR_ENGINE=git)", env: gitEngine},
		{label: "status", env: env, args: []string{"status"}},
		{label: "status (no view cache)", env: env, args: []string{"status"}, before: noView},
		{label: "prime", env: env, args: []string{"prime"}},
		{label: "prime (no view cache)", env: env, args: []string{"prime"}, before: noView},
		{label: "verify (full)", env: noCache, args: []string{"verify"}},
		{label: "verify (again)", env: env, args: []string{"verify"}, before: func() { check(run(env, repo, itr, "verify")) }},
		{label: "reconcile --check", env: env, args: []string{"reconcile", "--check"}},
		{label: "reconcile", env: env, args: []string{"reconcile"}},
		// The disk's log appends an entry to the commit's: reconcile
		// checks the committed prefix by its hash and reads only the
		// disk's copy, once.
		{label: "reconcile (adopting by hand)", env: env, args: []string{"reconcile"}, before: func() {
			n++
			appendFile(logPath, fmt.Sprintf("\n## T1 - Iteration %d - 2026-01-01T00:00:00Z\n**Did:** appended by hand %d\n", 900000+n, n))
		}},
	}
	fmt.Printf("\n== memory: peak RSS of whole processes (/usr/bin/time -f %%M, the largest of %d runs) against the largest file read (progress.md), load average %s\n", rounds, loadAverage())
	fmt.Printf("%-32s %12s %12s %8s %8s %8s\n", "command", "peak", "file", "ratio", "target", "verdict")
	for _, c := range cases {
		var peak, file int64
		for i := 0; i < rounds; i++ {
			if c.before != nil {
				c.before()
			}
			args := c.args
			if args == nil {
				args = did()
			}
			fi, err := os.Stat(logPath)
			check(err)
			kib, err := peakRSS(c.env, repo, itr, args...)
			check(err)
			peak, file = max(peak, kib), max(file, fi.Size()/1024)
		}
		ratio := float64(peak) / float64(file)
		if c.info {
			fmt.Printf("%-32s %12s %12s %7.2fx %8s %8s\n", "itr "+c.label, mib(peak), mib(file), ratio, "-", "(scale)")
			continue
		}
		fmt.Printf("%-32s %12s %12s %7.2fx %7.1fx %8s\n", "itr "+c.label, mib(peak), mib(file), ratio, memoryTarget, verifyVerdict(ratio <= memoryTarget))
	}
	check(run(env, repo, itr, "verify"))
	check(run(env, repo, itr, "reconcile", "--check"))
}

// buildMemoryTask returns the repository holding the large task, building
// it when -dir does not hold it yet.
func buildMemoryTask(itr, dir string, env []string) string {
	repo := filepath.Join(dir, fmt.Sprintf("memory-%dmib", memoryLogMiB))
	task := filepath.Join(repo, ".claude", "iterative", "bench")
	if _, err := os.Stat(filepath.Join(repo, ".git", "itr-bench-built")); err == nil {
		return repo // kept from an earlier run
	}
	fmt.Printf("building a task with a %d MiB progress.md...\n", memoryLogMiB)
	planTask(itr, repo, benchPlan, env)
	check(run(env, repo, itr, "checkpoint", "T1", "--did", "the first"))
	n := writeMemoryLog(filepath.Join(task, "progress.md"), memoryLogMiB<<20)
	check(run(env, repo, "git", "add", "-A"))
	check(run(env, repo, "git", "commit", "-q", "-m", fmt.Sprintf("log of %d entries", n)))
	check(run(env, repo, itr, "reconcile"))
	check(run(env, repo, "git", "gc", "-q"))
	check(os.WriteFile(filepath.Join(repo, ".git", "itr-bench-built"), nil, 0o644))
	check(run(env, repo, "git", "status", "--porcelain"))
	fmt.Printf("  %d entries\n", n)
	return repo
}

// memoryWords is the vocabulary of the generated entries.
var memoryWords = strings.Fields("the parser now reads each entry once and keeps offsets into the buffer so that a fold " +
	"walks the log without copying it test added for the empty case fixed a race in the writer renamed " +
	"helpers moved the check into verify measured peak memory on a large log with one hundred thousand entries")

// writeMemoryLog appends iteration entries of T1 (from iteration 2 on) to
// the log at p until it holds at least size bytes, and returns how many it
// wrote.
func writeMemoryLog(p string, size int64) int {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0o644)
	check(err)
	fi, err := f.Stat()
	check(err)
	w := bufio.NewWriterSize(f, 1<<20)
	total, n, seed := fi.Size(), 0, uint32(1)
	var did strings.Builder
	for total < size {
		did.Reset()
		for did.Len() < 900 {
			seed = seed*1664525 + 1013904223
			if did.Len() > 0 {
				did.WriteByte(' ')
			}
			did.WriteString(memoryWords[int(seed>>16)%len(memoryWords)])
		}
		e := fmt.Sprintf("\n## T1 - Iteration %d - 2026-01-01T00:00:00Z\n**Did:** %s\n**Remaining:** None\n**Blockers:** None\n**Commit:** None\n**Agent:** bench@host:bench\n", n+2, did.String())
		_, err := w.WriteString(e)
		check(err)
		total += int64(len(e))
		n++
	}
	check(w.Flush())
	check(f.Close())
	return n
}
