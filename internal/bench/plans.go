//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
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

// planRounds is how many rounds the plans table runs (fewer when -runs
// asks for fewer): seven, so that the median of the rounds' ratios is not
// moved by two rounds that a burst of the machine's load caught.
const planRounds = 7

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

// benchPlans measures the CPU time (user + system) of itr plan, prime,
// status, next, graph and report on tasks of each number of units in
// counts and each shape, with T1 done and T2 under way, and prints for
// each command and shape the growth from each count to the one before with
// a verdict: ok when the CPU grew at most linearLimit times for ten times
// the units (scaled for other steps: (n2/n1)*1.2), and for itr plan from
// 10,000 to 100,000 units at most planLimit times. prime at
// primeTargetUnits chained units is held to primeTarget.
//
// The counts are measured in alternation: each round runs the command at
// every count in turn (the smaller counts smallRepeats times, their
// median standing for the round), and a growth is the median of the rounds' own
// ratios (each round's time at n2 over the same round's at n1), not the
// ratio of two medians taken minutes apart. On a machine shared with other
// work the load moves while a part runs; it moves both sides of a round's
// ratio alike, so the median of the ratios holds still where a ratio of
// medians moved by a quarter from one run of the part to the next. The
// spread of the rounds' ratios is printed beside each growth.
func benchPlans(itr, dir, counts string, runs int, env []string) {
	var sizes []int
	for _, c := range strings.Split(counts, ",") {
		if c = strings.TrimSpace(c); c != "" {
			n, err := strconv.Atoi(c)
			check(err)
			sizes = append(sizes, n)
		}
	}
	fmt.Printf("\n== large plans: CPU (user+sys) of each command as the units grow, chained, wide and star (%d rounds, each running every count in turn, the smaller ones %d times for their median; medians, and the growth as the median of the rounds' own ratios)\n", runs, smallRepeats)
	cmds := append([]string{"plan"}, planReads...)
	// cpu[shape][cmd][round][i] is the CPU of a round at sizes[i].
	cpu := map[string]map[string][][]time.Duration{}
	for _, shape := range planShapes {
		cpu[shape] = measureShape(itr, dir, shape, sizes, runs, env)
		for i, n := range sizes {
			row := fmt.Sprintf("%-6s %8d", shape, n)
			for _, c := range cmds {
				row += fmt.Sprintf("  %s %s", c, ms(roundsMedian(cpu[shape][c], i)))
			}
			fmt.Println(row + "  (load " + loadAverage() + ")")
		}
	}
	head := fmt.Sprintf("%-8s %-6s", "command", "shape")
	for i := 1; i < len(sizes); i++ {
		head += fmt.Sprintf("  %-30s", fmt.Sprintf("%d/%d [rounds' spread]", sizes[i], sizes[i-1]))
	}
	fmt.Println(strings.TrimRight(head, " "))
	for _, c := range cmds {
		for _, shape := range planShapes {
			row := fmt.Sprintf("%-8s %-6s", c, shape)
			for i := 1; i < len(sizes); i++ {
				ratio, lo, hi := growth(cpu[shape][c], i)
				limit := linearLimit / 10 * float64(sizes[i]) / float64(sizes[i-1])
				if c == "plan" && sizes[i-1] == 10000 && sizes[i] == 100000 {
					limit = planLimit
				}
				verdict := "ok"
				if ratio > limit {
					verdict = "OVER"
				}
				row += fmt.Sprintf("  %-30s", fmt.Sprintf("%.1fx (<=%.0f) %s [%.1f-%.1f]", ratio, limit, verdict, lo, hi))
			}
			fmt.Println(strings.TrimRight(row, " "))
		}
	}
	for i, n := range sizes {
		if n == primeTargetUnits {
			p := roundsMedian(cpu["chain"]["prime"], i)
			verdict := "ok"
			if p > primeTarget {
				verdict = "OVER"
			}
			fmt.Printf("prime at %d chained units: %s of CPU (target %s) %s\n", n, ms(p), ms(primeTarget), verdict)
		}
	}
}

// measureShape builds a task of each count of units of shape, then runs
// itr plan (on a fresh repository each time) and each read in rounds,
// every count once per round in turn, and returns the CPU times by command,
// round and count.
func measureShape(itr, dir, shape string, sizes []int, rounds int, env []string) map[string][][]time.Duration {
	out := map[string][][]time.Duration{}
	reads := make([]string, len(sizes))
	for i, n := range sizes {
		reads[i] = filepath.Join(dir, fmt.Sprintf("plans-%s-%d", shape, n))
		planOnce(itr, reads[i], shape, n, env)
		check(run(env, reads[i], itr, "checkpoint", "T1", "--did", "x"))
		check(run(env, reads[i], itr, "checkpoint", "T1", "--did", "x", "--signal"))
		check(run(env, reads[i], itr, "checkpoint", "T1", "--did", "x", "--signal"))
		check(run(env, reads[i], itr, "checkpoint", "T1", "--did", "x", "--verified-by", "bench"))
		check(run(env, reads[i], itr, "checkpoint", "T2", "--did", "x"))
	}
	for r := 0; r < rounds; r++ {
		row := make([]time.Duration, len(sizes))
		for i, n := range sizes {
			row[i] = repeated(i, len(sizes), func() time.Duration { return planOnce(itr, reads[i]+"-plan", shape, n, env) })
		}
		out["plan"] = append(out["plan"], row)
	}
	for _, c := range planReads {
		for r := 0; r < rounds; r++ {
			row := make([]time.Duration, len(sizes))
			for i := range sizes {
				row[i] = repeated(i, len(sizes), func() time.Duration {
					_, cpu := timedCPU(env, reads[i], itr, c)
					return cpu
				})
			}
			out[c] = append(out[c], row)
		}
	}
	for i := range sizes {
		check(os.RemoveAll(reads[i] + "-plan"))
	}
	return out
}

// smallRepeats is how many times a round runs a count below the largest:
// a run of 10,000 units takes a tenth of one of 100,000, so a jolt of the
// machine's load that is lost in the long run is a tenth of the short
// one. Its median of three holds a round's ratio to the work, for a
// fraction of the round's time.
const smallRepeats = 3

// repeated is the CPU of a round's run at count i of n counts: one run
// of the largest count, the median of smallRepeats runs of the others.
func repeated(i, n int, once func() time.Duration) time.Duration {
	if i == n-1 {
		return once()
	}
	ts := make([]time.Duration, smallRepeats)
	for k := range ts {
		ts[k] = once()
	}
	return median(ts)
}

// roundsMedian is the median over the rounds of the time at count i.
func roundsMedian(rounds [][]time.Duration, i int) time.Duration {
	var ts []time.Duration
	for _, r := range rounds {
		ts = append(ts, r[i])
	}
	return median(ts)
}

// growth is the median over the rounds of each round's time at count i
// over its time at count i-1, with the smallest and largest of them.
func growth(rounds [][]time.Duration, i int) (med, lo, hi float64) {
	var rs []float64
	for _, r := range rounds {
		rs = append(rs, float64(r[i])/float64(max(r[i-1], time.Microsecond)))
	}
	sort.Float64s(rs)
	if len(rs) == 0 {
		return 0, 0, 0
	}
	med = rs[len(rs)/2]
	if len(rs)%2 == 0 {
		med = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
	}
	return med, rs[0], rs[len(rs)-1]
}
