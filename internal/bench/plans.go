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

// The commands of the plans table, each run on a planned task; itr plan
// itself is measured on a fresh repository each run.
var planReads = []string{"prime", "status", "next", "graph", "report"}

// planShapes are the dependency shapes of the plans table: a chain (T2
// depends on T1, ...), wide (no dependencies) and a star (every unit
// depends on T1).
var planShapes = []string{"chain", "wide", "star"}

// Linear means at most linearLimit times the CPU for ten times the units;
// itr plan at 100,000 units may take at most planLimit times 10,000.
const (
	linearLimit = 12.0
	planLimit   = 10.0
)

// shapedPlan is a tasks.md of n units of shape (see planShapes), each with
// at most 5 iterations.
func shapedPlan(shape string, n int) []byte {
	var b strings.Builder
	b.WriteString("# Demo - Tasks\n\n## Tasks\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] **T%d**: unit %d\n  - Max iterations: 5\n", i, i)
		switch {
		case shape == "chain" && i > 1:
			fmt.Fprintf(&b, "  - Depends: T%d\n", i-1)
		case shape == "star" && i > 1:
			b.WriteString("  - Depends: T1\n")
		}
	}
	return []byte(b.String())
}

// planOnce makes a fresh repository at repo holding a task of n units of
// shape, runs itr plan on it and returns the CPU time of itr plan.
func planOnce(itr, repo, shape string, n int, env []string) time.Duration {
	check(os.RemoveAll(repo))
	check(run(env, "", "git", "init", "-q", "-b", "main", repo))
	check(run(env, repo, itr, "init", "Demo", "--slug", "demo"))
	check(os.WriteFile(filepath.Join(repo, ".claude", "iterative", "demo", "tasks.md"), shapedPlan(shape, n), 0o644))
	_, cpu := timedCPU(env, repo, itr, "plan")
	return cpu
}

// benchPlans measures the CPU time (user + system, medians of runs) of itr
// plan, prime, status, next, graph and report on tasks of each number of
// units in counts and each shape, with T1 done and T2 under way, and
// prints for each command and shape the ratio of each count to the one
// before with a verdict: ok when the CPU grew at most linearLimit times
// for ten times the units (scaled for other steps: (n2/n1)*1.2), and
// for itr plan from 10,000 to 100,000 units at most planLimit times.
// prime at primeTargetUnits chained units is held to primeTarget.
func benchPlans(itr, dir, counts string, runs int, env []string) {
	var sizes []int
	for _, c := range strings.Split(counts, ",") {
		if c = strings.TrimSpace(c); c != "" {
			n, err := strconv.Atoi(c)
			check(err)
			sizes = append(sizes, n)
		}
	}
	fmt.Printf("\n== large plans: CPU (user+sys) of each command as the units grow, chained, wide and star (medians of %d runs; 3 at 100,000 units and over)\n", runs)
	cmds := append([]string{"plan"}, planReads...)
	// cpu[shape][cmd][i] is the median at sizes[i].
	cpu := map[string]map[string][]time.Duration{}
	for _, shape := range planShapes {
		cpu[shape] = map[string][]time.Duration{}
		for _, n := range sizes {
			r := runs
			if n >= 100000 {
				r = min(runs, 3)
			}
			repo := filepath.Join(dir, fmt.Sprintf("plans-%s-%d", shape, n))
			var plans []time.Duration
			for i := 0; i < r; i++ {
				plans = append(plans, planOnce(itr, repo, shape, n, env))
			}
			cpu[shape]["plan"] = append(cpu[shape]["plan"], median(plans))
			check(run(env, repo, itr, "checkpoint", "T1", "--did", "x"))
			check(run(env, repo, itr, "checkpoint", "T1", "--did", "x", "--signal"))
			check(run(env, repo, itr, "checkpoint", "T1", "--did", "x", "--signal"))
			check(run(env, repo, itr, "checkpoint", "T1", "--did", "x", "--verified-by", "bench"))
			check(run(env, repo, itr, "checkpoint", "T2", "--did", "x"))
			for _, c := range planReads {
				var ts []time.Duration
				for i := 0; i < r; i++ {
					_, t := timedCPU(env, repo, itr, c)
					ts = append(ts, t)
				}
				cpu[shape][c] = append(cpu[shape][c], median(ts))
			}
			row := fmt.Sprintf("%-6s %8d", shape, n)
			for _, c := range cmds {
				row += fmt.Sprintf("  %s %s", c, ms(cpu[shape][c][len(cpu[shape][c])-1]))
			}
			fmt.Println(row + "  (load " + loadAverage() + ")")
		}
	}
	head := fmt.Sprintf("%-8s %-6s", "command", "shape")
	for i := 1; i < len(sizes); i++ {
		head += fmt.Sprintf("  %-20s", fmt.Sprintf("%d/%d", sizes[i], sizes[i-1]))
	}
	fmt.Println(strings.TrimRight(head, " "))
	for _, c := range cmds {
		for _, shape := range planShapes {
			row := fmt.Sprintf("%-8s %-6s", c, shape)
			for i := 1; i < len(sizes); i++ {
				ratio := float64(cpu[shape][c][i]) / float64(max(cpu[shape][c][i-1], time.Microsecond))
				limit := linearLimit / 10 * float64(sizes[i]) / float64(sizes[i-1])
				if c == "plan" && sizes[i-1] == 10000 && sizes[i] == 100000 {
					limit = planLimit
				}
				verdict := "ok"
				if ratio > limit {
					verdict = "OVER"
				}
				row += fmt.Sprintf("  %-20s", fmt.Sprintf("%.1fx (<=%.0f) %s", ratio, limit, verdict))
			}
			fmt.Println(strings.TrimRight(row, " "))
		}
	}
	for i, n := range sizes {
		if n == primeTargetUnits {
			p := cpu["chain"]["prime"][i]
			verdict := "ok"
			if p > primeTarget {
				verdict = "OVER"
			}
			fmt.Printf("prime at %d chained units: %s of CPU (target %s) %s\n", n, ms(p), ms(primeTarget), verdict)
		}
	}
}
