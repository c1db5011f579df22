//go:build !windows

// Command bench measures itr against the git CLI in the same run, on
// repositories it builds with git fast-import: SMALL (~100 files) and LARGE
// (~100,000 files in nested folders, ~2,000 commits). It prints medians,
// ratios and peak memory: itr checkpoint on the native engine, on git's own
// plumbing (ITR_ENGINE=git) and in a core.autocrlf=true clone (where itr
// chooses git's plumbing) against git add && git commit in the same rounds,
// with their targets (engines.go; -only engines runs that comparison
// alone). It also times itr prime and itr status on tasks of 100 to 10,000
// chained units in fresh repositories (units.go, -units; -only units runs
// that table alone), and -only hooks times a plain git commit with and
// without itr's pre-commit hook (hooks.go). It is `make bench`; it is not
// a test and asserts nothing about time (a target missed prints OVER). It
// is built for Unix only: getrusage and stat blocks are its measures.
package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
)

func main() {
	itr := flag.String("itr", "bin/itr", "the itr binary to measure")
	dir := flag.String("dir", ".bench", "where the repositories are built (kept between runs)")
	runs := flag.Int("runs", 15, "measured runs per case (the median is reported)")
	large := flag.Bool("large", true, "also build and measure LARGE")
	history := flag.Int("history", 1000, "checkpoints on the task before measuring itr status")
	growth := flag.String("growth", "", "comma-separated checkpoint counts for the reconcile/verify growth table (e.g. 100,1000,10000); empty skips it")
	merge := flag.Int("merge", 0, "entries on each side for the merge benchmark; 0 skips it")
	skipCheckpoint := flag.Bool("skip-checkpoint", false, "skip the checkpoint/status part")
	gogit := flag.Bool("gogit", false, "only compare gitstate with go-git (gogit.go) and print that table")
	units := flag.String("units", "100,1000,10000", "comma-separated unit counts for the itr prime/status table (units.go); empty skips it")
	plans := flag.String("plans", "1000,10000,100000", "comma-separated unit counts for the large-plans table (plans.go); empty skips it")
	agentsFor := flag.Duration("agents-for", 20*time.Second, "how long each row of the many-agents simulation runs")
	flag.StringVar(&agentRowsFlag, "agents-rows", "", "comma-separated AGENTSxCLONES rows of the many-agents simulation (e.g. 8x4); empty runs them all")
	only := flag.String("only", "", "run one part alone: agents (the many-agents simulation through one smart-HTTP remote) or units (the -units table, no SMALL or LARGE repository) or engines (itr checkpoint on the native engine, on git's plumbing (ITR_ENGINE=git) and in a core.autocrlf=true clone, against git add && git commit, on SMALL and, unless -large=false, LARGE) or verify (itr checkpoint --verify -- true against itr checkpoint and true) or verifyfull (itr verify at 10,000 entries, full against git log -p of progress.md, and repeated) or hooks (git commit with and without itr's pre-commit hook, of a file that is not itr's and of an entry appended to progress.md) or warm (the first itr status and itr prime after a checkpoint against a warm one, at 10,000 entries) or floor (itr checkpoint against the floor program writing the same objects, index and ref, floor.go) or plans (itr plan, prime, status, next, graph and report at each -plans count, chained, wide and star, with the growth per 10x) or memory (the peak memory of checkpoint, status, prime, verify and reconcile on a 100 MiB progress.md against the file, memory.go) or serverhook (git push of one commit into a bare repository with and without itr's pre-receive guard, serverhook.go); empty runs everything")
	flag.Parse()
	abs, err := filepath.Abs(*itr)
	check(err)
	*itr = abs
	check(os.MkdirAll(*dir, 0o755))
	// The parts run programs in the repositories they build, some with a
	// repository's path as an argument: every path under -dir is absolute.
	*dir, err = filepath.Abs(*dir)
	check(err)
	env := isolatedEnv(*dir)
	// git runs itr's merge driver by name: put this itr first on PATH.
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + filepath.Dir(*itr) + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}

	if *gogit {
		benchGoGit(*dir, *runs, *large, env)
		return
	}
	switch *only {
	case "":
	case "units":
		fmt.Printf("itr bench — %s, units only\n", time.Now().UTC().Format(time.RFC3339))
		benchUnits(*itr, *dir, *units, env)
		return
	case "agents":
		fmt.Printf("itr bench — %s, agents only, %s, %d cores, load average %s\n", time.Now().UTC().Format(time.RFC3339), gitVersion(env), runtime.NumCPU(), loadAverage())
		benchAgents(*itr, *dir, *agentsFor, env)
		return
	case "verify":
		fmt.Printf("itr bench — %s, verify only, %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), gitVersion(env), loadAverage())
		benchVerify(*itr, *dir, *runs, env)
		return
	case "verifyfull":
		fmt.Printf("itr bench — %s, verifyfull only, %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), gitVersion(env), loadAverage())
		benchVerifyFull(*itr, *dir, *runs, env)
		return
	case "hooks":
		fmt.Printf("itr bench — %s, hooks only, %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), gitVersion(env), loadAverage())
		benchHooks(*itr, *dir, *runs, env)
		return
	case "warm":
		fmt.Printf("itr bench — %s, warm only, %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), gitVersion(env), loadAverage())
		benchWarm(*itr, *dir, *runs, env)
		return
	case "floor":
		fmt.Printf("itr bench — %s, floor only, %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), gitVersion(env), loadAverage())
		benchFloor(*itr, *dir, *runs, *large, env)
		return
	case "plans":
		fmt.Printf("itr bench — %s, plans only, %d cores, load average %s\n", time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), loadAverage())
		benchPlans(*itr, *dir, *plans, min(*runs, planRounds), env)
		return
	case "memory":
		fmt.Printf("itr bench — %s, memory only, %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), gitVersion(env), loadAverage())
		benchMemory(*itr, *dir, *runs, env)
		return
	case "serverhook":
		fmt.Printf("itr bench — %s, serverhook only, %s, load average %s\n", time.Now().UTC().Format(time.RFC3339), gitVersion(env), loadAverage())
		benchServerHook(*itr, *dir, max(*runs, 41), env)
		return
	case "engines":
		// The checkpoint comparison alone: no itr status history, growth,
		// merge or units.
		*history, *growth, *merge, *units, *skipCheckpoint = 0, "", 0, "", false
	default:
		check(fmt.Errorf("-only %q: the parts that run alone are agents, units, engines, verify, verifyfull, hooks, warm, floor, plans, memory and serverhook", *only))
	}
	sizes := []repoSize{{"SMALL", 99, 10, 50}}
	if *large {
		sizes = append(sizes, repoSize{"LARGE", 99980, 960, 2000})
	}
	part := ""
	if *only != "" {
		part = ", " + *only + " only"
	}
	fmt.Printf("itr bench — %s%s, %s, %d cores, runs=%d, medians of whole processes (load average %s)\n\n",
		time.Now().UTC().Format(time.RFC3339), part, gitVersion(env), runtime.NumCPU(), *runs, loadAverage())
	for _, size := range sizes {
		base := filepath.Join(*dir, strings.ToLower(size.name)+"-base")
		if _, err := os.Stat(filepath.Join(base, ".git")); err != nil {
			fmt.Printf("building %s (%d files, %d folders, %d commits)...\n", size.name, size.files, size.dirs, size.commits)
			check(buildRepo(base, size, env))
		}
		if !*skipCheckpoint {
			benchCheckpoint(*itr, *dir, base, size.name, *runs, *history, env)
		}
		if *growth != "" {
			benchGrowth(*itr, *dir, base, size.name, *runs, *growth, env)
		}
		if *merge > 0 {
			benchMerge(*itr, *dir, base, size.name, *runs, *merge, env)
		}
	}
	if *units != "" {
		benchUnits(*itr, *dir, *units, env)
	}
	if *only == "" {
		benchAgents(*itr, *dir, *agentsFor, env)
		benchVerify(*itr, *dir, *runs, env)
		benchVerifyFull(*itr, *dir, *runs, env)
		// A hook's few milliseconds need more rounds than -runs gives the
		// slower parts for a steady median.
		benchHooks(*itr, *dir, max(*runs, 41), env)
		benchWarm(*itr, *dir, *runs, env)
		benchFloor(*itr, *dir, *runs, *large, env)
		if *plans != "" {
			benchPlans(*itr, *dir, *plans, min(*runs, planRounds), env)
		}
		benchMemory(*itr, *dir, *runs, env)
		benchServerHook(*itr, *dir, max(*runs, 41), env)
	}
}

type repoSize struct {
	name                 string
	files, dirs, commits int
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func isolatedEnv(dir string) []string {
	home, _ := filepath.Abs(filepath.Join(dir, "home"))
	_ = os.MkdirAll(home, 0o755)
	env := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || strings.HasPrefix(kv, "ITR_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
}

// buildRepo writes a repository with git fast-import: one commit with every
// file, then small commits touching a few files each, then a checkout.
func buildRepo(dir string, size repoSize, env []string) error {
	return importRepo(dir, size, env, func(c int) string { return fmt.Sprintf("commit %d", c) }, func(i, c int) string {
		if c == 0 {
			return fmt.Sprintf("file %d\n", i)
		}
		return fmt.Sprintf("file %d changed in %d\n", i, c)
	})
}

// importRepo writes a repository with git fast-import: size.commits
// commits with the messages msg gives, the first with every file, each
// other touching three of them, body(i, c) being file i's content in
// commit c; fast-import stores each changed file as a delta against its
// previous version and the pack is kept as written. Then a checkout
// writes the working tree and the index.
func importRepo(dir string, size repoSize, env []string, msg func(c int) string, body func(i, c int) string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := run(env, "", "git", "init", "-q", "-b", "main", dir); err != nil {
		return err
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	w := bufio.NewWriterSize(in, 1<<20)
	file := func(i, c int) {
		b := body(i, c)
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", ggPath(size, i), len(b), b)
	}
	when := int64(1700000000)
	for c := 0; c < size.commits; c++ {
		fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\n", when+int64(c)*60)
		m := msg(c)
		fmt.Fprintf(w, "data %d\n%s\n", len(m), m)
		if c == 0 {
			for i := 0; i < size.files; i++ {
				file(i, c)
			}
		} else {
			for k := 0; k < 3; k++ {
				file((c*7919+k*104729)%size.files, c)
			}
		}
		fmt.Fprintln(w)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	if err := run(env, dir, "git", "checkout", "-q", "-f", "main"); err != nil {
		return err
	}
	return run(env, dir, "git", "status", "--porcelain")
}

// gitVersion is what `git --version` says.
func gitVersion(env []string) string {
	cmd := exec.Command("git", "--version")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "git ?"
	}
	return strings.TrimSpace(string(out))
}

func run(env []string, dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// timed runs a command and returns its wall time and peak memory (KiB).
// The peak is the child's ru_maxrss, which on Linux never reads below the
// bench's own peak at the time (see peakRSS): it is exact only for a child
// that grows larger than the bench.
func timed(env []string, dir string, name string, args ...string) (time.Duration, int64) {
	d, _, rss := timedFull(env, dir, name, args...)
	return d, rss
}

// median returns the middle value of ds (the upper one of an even count).
func median[T cmp.Ordered](ds []T) T {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// medianRatio is the median of a[i]/b[i]: each round's two measurements
// were taken back to back, under the same load.
func medianRatio(a, b []time.Duration) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = float64(a[i]) / float64(b[i])
	}
	sort.Float64s(r)
	return r[len(r)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// clone copies the base repository (hard links for objects) so every case
// starts from the same state.
func clone(env []string, base, dst string) {
	check(os.RemoveAll(dst))
	check(run(env, "", "git", "clone", "-q", "--no-checkout", base, dst))
	check(run(env, dst, "git", "checkout", "-q", "-f", "main"))
	check(run(env, dst, "git", "status", "--porcelain"))
}

const benchPlan = `# Bench - Tasks

## Tasks

- [ ] **T1**: Iterate
`

// benchCheckpoint times itr checkpoint on each engine against the git CLI
// (compareCheckpoints, engines.go) and, with history above 0, itr status
// on a task with that many checkpoints.
func benchCheckpoint(itr, dir, base, name string, runs, history int, env []string) {
	repo := compareCheckpoints(itr, dir, base, name, runs, env)
	if history <= 0 {
		return
	}
	task := filepath.Join(repo, ".claude", "iterative", "bench")

	// itr status on a task with `history` checkpoints.
	fmt.Println()
	clone(env, base, repo)
	check(run(env, repo, itr, "init", "Bench", "--slug", "bench"))
	check(os.WriteFile(filepath.Join(task, "tasks.md"), []byte(benchPlan), 0o644))
	check(run(env, repo, itr, "plan"))
	start := time.Now()
	for i := 0; i < history; i++ {
		check(run(env, repo, itr, "checkpoint", "T1", "--did", fmt.Sprintf("history %d", i)))
	}
	fmt.Printf("made %d checkpoints in %s\n", history, time.Since(start).Round(time.Millisecond))
	var st []time.Duration
	var stRSS int64
	for i := 0; i < runs; i++ {
		d, rss := timed(env, repo, itr, "status")
		st = append(st, d)
		stRSS = max(stRSS, rss)
	}
	fmt.Printf("itr status (%d ckpts)    %10s   peak %6.1f MiB\n", history, ms(median(st)), float64(stRSS)/1024)
	var gl []time.Duration
	for i := 0; i < runs; i++ {
		d, _ := timed(env, repo, "git", "log", "-1", "--format=%H")
		gl = append(gl, d)
	}
	fmt.Printf("git log -1 (floor)        %10s\n", ms(median(gl)))
}

func appendFile(p, s string) {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0o644)
	check(err)
	_, err = f.WriteString(s)
	check(err)
	check(f.Close())
}
