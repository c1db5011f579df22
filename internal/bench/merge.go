//go:build !windows

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// mergeCheckpointLimit is the largest side built with real checkpoints;
// larger sides are one commit each (a checkpoint rewrites the whole log,
// so n real checkpoints cost n² bytes written and hashed).
const mergeCheckpointLimit = 2000

// mergePlan gives both units room for any number of iterations.
const mergePlan = `# Bench - Tasks

## Tasks

- [ ] **T1**: Iterate
  - Max iterations: 1000000
- [ ] **T2**: Other side
  - Max iterations: 1000000
`

// benchMerge times the merge of two branches that each added n entries to
// the same task's log: a real `git merge` that runs itr's merge driver for
// progress.md and state.json, the driver alone called as git calls it
// (itr merge-driver %O %A %B %P), and, without the driver, the conflicted
// git merge and the `itr reconcile` that resolves it. Each run is checked:
// the merge must conclude with both sides' entries in the log, once each,
// and state.json the fold of that log (and `itr reconcile --check` must
// agree, checked on the first run).
func benchMerge(itr, dir, base, name string, runs, n int, env []string) {
	repo := filepath.Join(dir, fmt.Sprintf("%s-merge-%d", strings.ToLower(name), n))
	task := filepath.Join(repo, ".claude", "iterative", "bench")
	rel := ".claude/iterative/bench/"
	how := "itr checkpoint"
	if n > mergeCheckpointLimit {
		how = "one commit a side"
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "refs", "tags", "ours-start")); err != nil {
		clone(env, base, repo)
		check(run(env, repo, itr, "init", "Bench", "--slug", "bench"))
		check(os.WriteFile(filepath.Join(task, "tasks.md"), []byte(mergePlan), 0o644))
		check(run(env, repo, itr, "plan"))
		check(run(env, repo, "git", "branch", "theirs"))
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
		side := func(branch, unit string) {
			check(run(env, repo, "git", "checkout", "-q", branch))
			if n > mergeCheckpointLimit {
				appendSide(repo, task, env, branch, unit, n)
				return
			}
			ws, err := workspace.Open(workspace.Options{Dir: repo})
			check(err)
			for i := 0; i < n; i++ {
				_, err := ws.Checkpoint(workspace.CheckpointRequest{Slug: "bench", Unit: unit, Did: fmt.Sprintf("%s %d: a line of the size agents write", branch, i)})
				check(err)
			}
			ws.Close()
		}
		side("theirs", "T2")
		side("main", "T1")
		check(run(env, repo, "git", "tag", "-f", "ours-start"))
	}
	mb := strings.TrimSpace(string(gitOut(env, repo, "merge-base", "ours-start", "theirs")))
	baseLog := gitShow(env, repo, mb+":"+rel+"progress.md")
	oursLog := gitShow(env, repo, "ours-start:"+rel+"progress.md")
	theirsLog := gitShow(env, repo, "theirs:"+rel+"progress.md")
	wantEntries := len(progresslog.Parse(oursLog).Entries) + len(progresslog.Parse(theirsLog).Entries) - len(progresslog.Parse(baseLog).Entries)
	fmt.Printf("\n== %s: merge of %d entries on each side (%s; logs of %.2f and %.2f MB)\n",
		name, n, how, float64(len(oursLog))/1e6, float64(len(theirsLog))/1e6)

	// The three versions as git hands them to the driver.
	tmp, err := os.MkdirTemp("", "itr-bench-merge-")
	check(err)
	defer os.RemoveAll(tmp)
	for f, data := range map[string][]byte{"base": baseLog, "ours": oursLog, "theirs": theirsLog} {
		check(os.WriteFile(filepath.Join(tmp, f), data, 0o644))
	}
	var withDriver, driverLog, driverState, gitOnly, reconciled []time.Duration
	var cpuMerge, cpuLog, cpuState []time.Duration
	for i := 0; i < runs; i++ {
		check(run(env, repo, "git", "reset", "-q", "--hard", "ours-start"))
		check(run(env, repo, itr, "setup"))
		d, cpu := timedCPU(env, repo, "git", "merge", "-q", "--no-edit", "theirs")
		withDriver, cpuMerge = append(withDriver, d), append(cpuMerge, cpu)
		checkMerged(env, repo, task, wantEntries)
		if i == 0 {
			check(run(env, repo, itr, "reconcile", "--check"))
		}

		// The driver alone, as git runs it: from the top of the worktree,
		// the result written over %A.
		check(run(env, repo, "git", "reset", "-q", "--hard", "ours-start"))
		check(os.WriteFile(filepath.Join(tmp, "result"), oursLog, 0o644))
		d, cpu = timedCPU(env, repo, itr, "merge-driver", filepath.Join(tmp, "base"), filepath.Join(tmp, "result"), filepath.Join(tmp, "theirs"), rel+"progress.md")
		driverLog, cpuLog = append(driverLog, d), append(cpuLog, cpu)
		got, err := os.ReadFile(filepath.Join(tmp, "result"))
		check(err)
		if c := len(progresslog.Parse(got).Entries); c != wantEntries {
			check(fmt.Errorf("the driver's progress.md has %d entries, want %d", c, wantEntries))
		}
		stateOurs := gitShow(env, repo, "ours-start:"+rel+"state.json")
		check(os.WriteFile(filepath.Join(tmp, "state-base"), gitShow(env, repo, mb+":"+rel+"state.json"), 0o644))
		check(os.WriteFile(filepath.Join(tmp, "state-result"), stateOurs, 0o644))
		check(os.WriteFile(filepath.Join(tmp, "state-theirs"), gitShow(env, repo, "theirs:"+rel+"state.json"), 0o644))
		d, cpu = timedCPU(env, repo, itr, "merge-driver", filepath.Join(tmp, "state-base"), filepath.Join(tmp, "state-result"), filepath.Join(tmp, "state-theirs"), rel+"state.json")
		driverState, cpuState = append(driverState, d), append(cpuState, cpu)

		check(run(env, repo, "git", "config", "--remove-section", "merge.itr"))
		start := time.Now()
		_ = run(env, repo, "git", "merge", "-q", "--no-edit", "theirs") // conflicts
		gitOnly = append(gitOnly, time.Since(start))
		d, _ = timed(env, repo, itr, "reconcile")
		reconciled = append(reconciled, d)
		check(run(env, repo, "git", "commit", "-q", "--no-edit"))
		checkMerged(env, repo, task, wantEntries)
		if i == 0 {
			check(run(env, repo, itr, "reconcile", "--check"))
		}
	}
	check(run(env, repo, itr, "setup"))
	fmt.Printf("%-40s %10s %14s\n", "", "wall", "cpu (user+sys)")
	fmt.Printf("%-40s %10s %14s   (runs both drivers, writes the commit)\n", "git merge with itr's driver", ms(median(withDriver)), ms(median(cpuMerge)))
	fmt.Printf("%-40s %10s %14s\n", "  itr merge-driver on progress.md alone", ms(median(driverLog)), ms(median(cpuLog)))
	fmt.Printf("%-40s %10s %14s\n", "  itr merge-driver on state.json alone", ms(median(driverState)), ms(median(cpuState)))
	fmt.Printf("%-40s %10s\n", "git merge without it (conflicts)", ms(median(gitOnly)))
	fmt.Printf("%-40s %10s\n", "itr reconcile resolving the conflict", ms(median(reconciled)))
}

// timedCPU runs a command and returns its wall time and the processor
// time it and the processes it waited for used (user and system), which a
// busy machine does not inflate as much.
func timedCPU(env []string, dir string, name string, args ...string) (time.Duration, time.Duration) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	start := time.Now()
	check(cmd.Run())
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// appendSide commits n iteration entries of unit at once, with the
// state.json the reducer folds from the log, as n checkpoints would leave
// them (apart from the history: one commit instead of n).
func appendSide(repo, task string, env []string, branch, unit string, n int) {
	logPath := filepath.Join(task, "progress.md")
	old, err := os.ReadFile(logPath)
	check(err)
	var b bytes.Buffer
	b.Write(old)
	for i := 0; i < n; i++ {
		e := progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: i + 1,
			Stamp: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339),
			Fields: []progresslog.Field{
				{Name: "Did", Value: fmt.Sprintf("%s %d: a line of the size agents write", branch, i)},
				{Name: "Remaining", Value: "None"}, {Name: "Blockers", Value: "None"}, {Name: "Commit", Value: "None"},
			}}
		r, err := progresslog.RenderEntry(e, "\n")
		check(err)
		b.WriteByte('\n')
		b.Write(r)
	}
	check(os.WriteFile(logPath, b.Bytes(), 0o644))
	check(os.WriteFile(filepath.Join(task, "state.json"), foldState(task, b.Bytes()), 0o644))
	check(run(env, repo, "git", "add", task))
	check(run(env, repo, "git", "commit", "-q", "-m", fmt.Sprintf("itr(bench): %d iterations of %s", n, unit)))
}

// foldState is the state.json the reducer folds from log with the task's
// plan, carrying what no event knows from the state.json on disk.
func foldState(task string, log []byte) []byte {
	cur, err := os.ReadFile(filepath.Join(task, "state.json"))
	check(err)
	base, err := state.Decode(cur)
	check(err)
	tasks, err := os.ReadFile(filepath.Join(task, "tasks.md"))
	check(err)
	p, err := plan.Parse("tasks.md", tasks)
	check(err)
	s, _ := reconcile.Fold(reconcile.Input{Slug: "bench", Base: base, Plan: p, Entries: progresslog.Parse(log).Entries})
	return s.Encode()
}

// checkMerged fails the bench unless the merge concluded with every entry
// of both sides in the log once and state.json the fold of that log.
func checkMerged(env []string, repo, task string, want int) {
	if out := gitOut(env, repo, "status", "--porcelain"); len(out) > 0 {
		check(fmt.Errorf("the merge left changes:\n%s", out))
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "MERGE_HEAD")); err == nil {
		check(fmt.Errorf("the merge did not conclude"))
	}
	log, err := os.ReadFile(filepath.Join(task, "progress.md"))
	check(err)
	l := progresslog.Parse(log)
	if len(l.Entries) != want || l.Conflicted {
		check(fmt.Errorf("the merged log has %d entries (conflicted %v), want %d", len(l.Entries), l.Conflicted, want))
	}
	got, err := os.ReadFile(filepath.Join(task, "state.json"))
	check(err)
	if !bytes.Equal(got, foldState(task, log)) {
		check(fmt.Errorf("the merged state.json is not the fold of the merged log"))
	}
}

// gitShow returns the file git show prints for rev:path.
func gitShow(env []string, repo, spec string) []byte { return gitOut(env, repo, "show", spec) }

// gitOut returns what a git command prints.
func gitOut(env []string, repo string, args ...string) []byte {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = repo, env
	out, err := cmd.Output()
	if err != nil {
		check(fmt.Errorf("git %s: %w", strings.Join(args, " "), err))
	}
	return out
}
