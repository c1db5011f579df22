//go:build !windows

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// This file is the checkpoint comparison of benchCheckpoint (`-only
// engines` runs it alone): `itr checkpoint` on each of gitstate's engines
// against `git add DIR && git commit`, every case in its own copy of the
// same task, all in the same rounds.
//
//   - itr on the native engine (the default on these repositories);
//   - itr on git's own plumbing, forced with ITR_ENGINE=git;
//   - the git CLI, the reference of both ratios;
//   - itr in a clone made with `git clone -c core.autocrlf=true`, where itr
//     chooses git's plumbing by itself, against the git CLI in another such
//     clone (git converts line endings there too).
//
// Before measuring, `itr doctor --json` must name the engine each itr case
// is meant to run on; the bench stops otherwise. Each round runs every case
// once, the first case moving one place each round, so that no case always
// follows the same one; each checkpoint is followed by a `git status` in its
// repository. After the rounds every repository must hold one commit per
// round more and a clean `git status`.

// Checkpoint targets: the most `itr checkpoint` may take, as a fraction of
// `git add DIR && git commit` measured in the same rounds (the ratio of the
// medians).
const (
	nativeTargetSmall = 0.5 // native engine, SMALL
	nativeTargetLarge = 0.2 // native engine, LARGE
	gitEngineTarget   = 1.0 // git's plumbing, every repository (the CRLF clone too)
)

// ckCase is one way of committing an iteration, in its own repository.
type ckCase struct {
	label  string
	repo   string
	env    []string
	itr    bool    // itr checkpoint; otherwise git add DIR && git commit
	crlf   bool    // a clone with core.autocrlf=true
	engine string  // the engine `itr doctor --json` must name ("" for the git CLI)
	target float64 // the most the ratio to ref may be; 0: no target
	ref    int     // the index of the git CLI case it is compared with (itself for one)
	start  int     // commits before the rounds

	times, cpu, status []time.Duration
	rss                int64
}

// nativeTarget is the native engine's target for a repository size.
func nativeTarget(name string) float64 {
	if name == "LARGE" {
		return nativeTargetLarge
	}
	return nativeTargetSmall
}

// compareCheckpoints prepares every case from base, measures runs rounds
// and prints the table. It returns the native case's repository; the
// others are removed.
func compareCheckpoints(itr, dir, base, name string, runs int, env []string) string {
	low := strings.ToLower(name)
	gitEnv := append(append([]string{}, env...), "ITR_ENGINE=git")
	cases := []ckCase{
		{label: "itr checkpoint, native engine", repo: filepath.Join(dir, low+"-run"), env: env, itr: true, engine: "native", target: nativeTarget(name), ref: 2},
		{label: "itr checkpoint, git engine (ITR_ENGINE=git)", repo: filepath.Join(dir, low+"-run-gitengine"), env: gitEnv, itr: true, engine: "git", target: gitEngineTarget, ref: 2},
		{label: "git add DIR && git commit", repo: filepath.Join(dir, low+"-run-git"), env: env, ref: 2},
		{label: "CRLF clone: itr checkpoint (git engine, chosen by itr)", repo: filepath.Join(dir, low+"-run-crlf"), env: env, itr: true, crlf: true, engine: "git", target: gitEngineTarget, ref: 4},
		{label: "CRLF clone: git add DIR && git commit", repo: filepath.Join(dir, low+"-run-crlf-git"), env: env, crlf: true, ref: 4},
	}
	fmt.Printf("\n== %s: itr checkpoint by engine against git add DIR && git commit\n", name)
	fmt.Printf("preparing %d copies of the task (a clone of %s each; two with core.autocrlf=true)...\n", len(cases), filepath.Base(base))
	for i := range cases {
		c := &cases[i]
		if c.crlf {
			cloneCRLF(env, base, c.repo)
		} else {
			clone(env, base, c.repo)
		}
		check(run(c.env, c.repo, itr, "init", "Bench", "--slug", "bench"))
		check(os.WriteFile(filepath.Join(c.repo, ".claude", "iterative", "bench", "tasks.md"), []byte(benchPlan), 0o644))
		check(run(c.env, c.repo, itr, "plan"))
		check(run(c.env, c.repo, itr, "checkpoint", "T1", "--did", "warm up"))
		if c.crlf && lineEnding(filepath.Join(c.repo, ".claude", "iterative", "bench", "progress.md")) != "\r\n" {
			check(fmt.Errorf("%s: progress.md has no CRLF line endings in %s: the clone does not convert as a core.autocrlf=true clone does", c.label, c.repo))
		}
		if c.itr {
			got := doctorEngine(itr, c.env, c.repo)
			if got != c.engine {
				check(fmt.Errorf("%s: itr doctor --json says engine %q in %s, the case needs %q: the figures would measure the wrong engine", c.label, got, c.repo, c.engine))
			}
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(gitOut(env, c.repo, "rev-list", "--count", "HEAD"))))
		check(err)
		c.start = n
	}
	fmt.Printf("engines checked with itr doctor --json: ")
	for _, c := range cases {
		if c.itr {
			fmt.Printf("[%s: %s] ", filepath.Base(c.repo), c.engine)
		}
	}
	fmt.Println()

	rel := filepath.Join(".claude", "iterative", "bench")
	var loads []float64
	loadStart := loadAverage()
	start := time.Now()
	for i := 0; i < runs; i++ {
		if l, err := strconv.ParseFloat(loadAverage(), 64); err == nil {
			loads = append(loads, l)
		}
		for k := range cases {
			c := &cases[(i+k)%len(cases)]
			if c.itr {
				d, cpu, rss := timedFull(c.env, c.repo, itr, "checkpoint", "T1", "--did", fmt.Sprintf("iteration %d", i))
				c.times, c.cpu, c.rss = append(c.times, d), append(c.cpu, cpu), max(c.rss, rss)
			} else {
				// The git CLI doing the same: append an entry, rewrite
				// state.json, add the task folder and commit. The entry
				// keeps the file's line endings (CRLF in a CRLF clone).
				task := filepath.Join(c.repo, rel)
				nl := lineEnding(filepath.Join(task, "progress.md"))
				appendFile(filepath.Join(task, "progress.md"), strings.ReplaceAll(fmt.Sprintf("\n## T1 - Iteration %d - 2026-01-01T00:00:00Z\n**Did:** git %d\n", 1000+i, i), "\n", nl))
				appendFile(filepath.Join(task, "state.json"), " ")
				d1, cpu1, rss1 := timedFull(c.env, c.repo, "git", "add", rel)
				d2, cpu2, rss2 := timedFull(c.env, c.repo, "git", "commit", "-q", "-m", fmt.Sprintf("git checkpoint %d", i))
				c.times, c.cpu, c.rss = append(c.times, d1+d2), append(c.cpu, cpu1+cpu2), max(c.rss, rss1, rss2)
			}
			d, _ := timed(c.env, c.repo, "git", "status", "--porcelain")
			c.status = append(c.status, d)
		}
	}
	elapsed := time.Since(start)
	if l, err := strconv.ParseFloat(loadAverage(), 64); err == nil {
		loads = append(loads, l)
	}

	// Every case must have committed once a round and left nothing behind.
	for _, c := range cases {
		n, err := strconv.Atoi(strings.TrimSpace(string(gitOut(env, c.repo, "rev-list", "--count", "HEAD"))))
		check(err)
		if n != c.start+runs {
			check(fmt.Errorf("%s: %d commits after %d rounds, want %d", c.label, n, runs, c.start+runs))
		}
		if out := gitOut(env, c.repo, "status", "--porcelain"); len(out) > 0 {
			check(fmt.Errorf("%s: git status is not clean after the rounds:\n%s", c.label, out))
		}
	}

	during := "not known here (no /proc/loadavg)"
	if len(loads) > 0 {
		during = fmt.Sprintf("median %.2f, max %.2f", median(loads), slices.Max(loads))
	}
	fmt.Printf("runs=%d rounds (every case once a round, order rotated), %s; load average (1 min, /proc/loadavg) %s at the start, during the rounds %s\n",
		runs, elapsed.Round(10*time.Millisecond), loadStart, during)
	fmt.Printf("ratio = median of the case ÷ median of its git CLI case; per-round: median of the ratios of the two measurements of each round\n")
	fmt.Printf("cpu = user+sys of the process and every child it waited for (git's children included); peak = the largest ru_maxrss, never below the bench's own (see timed)\n\n")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tmedian\tmin\tcpu\tpeak\tratio\tper-round\ttarget\t\tgit status after")
	for _, c := range cases {
		ref := cases[c.ref]
		mc, mr := median(c.times), median(ref.times)
		ratio, perRound, target, verdict := "—", "—", "—", ""
		if c.itr {
			r := float64(mc) / float64(mr)
			ratio = fmt.Sprintf("%.2f×", r)
			perRound = fmt.Sprintf("%.2f×", medianRatio(c.times, ref.times))
			if c.target > 0 {
				target = fmt.Sprintf("≤ %.1f×", c.target)
				verdict = "within"
				if r > c.target {
					verdict = "OVER"
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f MiB\t%s\t%s\t%s\t%s\t%s\n", c.label, ms(mc), ms(slices.Min(c.times)), ms(median(c.cpu)),
			float64(c.rss)/1024, ratio, perRound, target, verdict, ms(median(c.status)))
	}
	check(tw.Flush())
	for _, c := range cases {
		if c.target > 0 {
			r := float64(median(c.times)) / float64(median(cases[c.ref].times))
			word := "within"
			if r > c.target {
				word = "OVER"
			}
			fmt.Printf("target %s %s: %.2f× ≤ %.1f× — %s\n", name, c.label, r, c.target, word)
		}
	}

	for _, c := range cases[1:] {
		check(os.RemoveAll(c.repo))
	}
	return cases[0].repo
}

// cloneCRLF is clone with core.autocrlf=true in the clone's configuration,
// as a Windows user's clone is: git writes text files with CRLF.
func cloneCRLF(env []string, base, dst string) {
	check(os.RemoveAll(dst))
	check(run(env, "", "git", "clone", "-q", "-c", "core.autocrlf=true", "--no-checkout", base, dst))
	check(run(env, dst, "git", "checkout", "-q", "-f", "main"))
	check(run(env, dst, "git", "status", "--porcelain"))
	if v := strings.TrimSpace(string(gitOut(env, dst, "config", "core.autocrlf"))); v != "true" {
		check(fmt.Errorf("%s: core.autocrlf is %q after git clone -c core.autocrlf=true", dst, v))
	}
}

// doctorEngine is the engine `itr doctor --json` names in repo.
func doctorEngine(itr string, env []string, repo string) string {
	cmd := exec.Command(itr, "doctor", "--json")
	cmd.Dir, cmd.Env = repo, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var rep struct {
		Engine string `json:"engine"`
	}
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		check(fmt.Errorf("itr doctor --json in %s: %w; %w: %s", repo, err, jerr, strings.TrimSpace(stderr.String())))
	}
	if rep.Engine == "" {
		check(fmt.Errorf("itr doctor --json in %s names no engine: %s", repo, out))
	}
	return rep.Engine
}

// lineEnding is "\r\n" when the file holds CRLF line endings, else "\n".
func lineEnding(p string) string {
	data, err := os.ReadFile(p)
	check(err)
	if bytes.Contains(data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// timedFull runs a command and returns its wall time, the processor time
// it and the children it waited for used (user and system), and its peak
// memory in KiB (see timed for what the peak means).
func timedFull(env []string, dir string, name string, args ...string) (time.Duration, time.Duration, int64) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	start := time.Now()
	check(cmd.Run())
	d := time.Since(start)
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return d, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss
}
