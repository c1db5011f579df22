//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/itr-dev/itr/internal/agentsim"
)

// This file is the many-agents simulation (`-only agents`): N agents over
// M clones through one smart-HTTP remote (internal/agentsim), each looping
// claim → 4 checkpoints → release → sync for a fixed time. It prints the
// invariants (double claims, lost or doubled entries, itr verify on every
// clone: all must be 0 / clean), claim latency against a plain git push to
// the same server measured in the same run, sync time and throughput.

// claimTarget is the most a claim may take, as a multiple of a plain git
// push round trip to the same remote in the same run.
const claimTarget = 2.0

// agentRuns are the (agents, clones) pairs of the table.
var agentRuns = [][2]int{{1, 1}, {2, 1}, {2, 2}, {4, 2}, {8, 4}, {16, 4}}

// agentRowsFlag is -agents-rows: the rows to run ("8x4,16x4"), "" all.
var agentRowsFlag string

// agentRows are the rows -agents-rows names, else agentRuns.
func agentRows() [][2]int {
	if agentRowsFlag == "" {
		return agentRuns
	}
	var rows [][2]int
	for _, f := range strings.Split(agentRowsFlag, ",") {
		var a, c int
		if _, err := fmt.Sscanf(strings.TrimSpace(f), "%dx%d", &a, &c); err != nil {
			check(fmt.Errorf("-agents-rows: %q is not AGENTSxCLONES (e.g. 8x4): %w", f, err))
		}
		if a < 1 || c < 1 {
			check(fmt.Errorf("-agents-rows: %q needs at least one agent and one clone (e.g. 8x4)", f))
		}
		rows = append(rows, [2]int{a, c})
	}
	return rows
}

func benchAgents(itr, dir string, each time.Duration, env []string) {
	fmt.Printf("\nMany agents, one remote (git http-backend on 127.0.0.1 with Basic auth), %s per row; claim and push are p50/p95 of whole processes\n\n", each)
	fmt.Printf("%-7s %-7s %9s %9s %12s %21s %21s %7s %12s %s\n", "agents", "clones", "units", "units/min", "lost races", "claim p50/p95", "git push p50/p95", "ratio", "sync p50", "invariants")
	for _, r := range agentRows() {
		work := filepath.Join(dir, fmt.Sprintf("agents-%d-%d", r[0], r[1]))
		check(os.RemoveAll(work))
		check(os.MkdirAll(work, 0o755))
		res, err := agentsim.Run(agentsim.Config{Itr: itr, Dir: work, Agents: r[0], Clones: r[1], For: each, Env: env})
		check(err)
		c50, c95 := agentsim.Quantile(res.Claims, .5), agentsim.Quantile(res.Claims, .95)
		p50, p95 := agentsim.Quantile(res.Pushes, .5), agentsim.Quantile(res.Pushes, .95)
		ratio := 0.0
		if p50 > 0 {
			ratio = float64(c50) / float64(p50)
		}
		verdict := "clean"
		if !res.Clean() {
			verdict = "BROKEN: " + strings.Join(res.Problems(), "; ")
		}
		over := ""
		if ratio > claimTarget {
			over = " OVER"
		}
		fmt.Printf("%-7d %-7d %9d %9.1f %12d %21s %21s %6.2f×%s %12s %s\n", r[0], r[1], res.Finished, res.PerMinute(), res.LostClaims,
			ms(c50)+" / "+ms(c95), ms(p50)+" / "+ms(p95), ratio, over, ms(agentsim.Quantile(res.Syncs, .5)), verdict)
		if later := res.LaterClaims; len(res.FirstClaims) > 0 && len(later) > 0 && p50 > 0 {
			f50, l50 := agentsim.Quantile(res.FirstClaims, .5), agentsim.Quantile(later, .5)
			fmt.Printf("        claims: each agent's first (all start at once) p50 %s (%.2f×), the %d later p50 %s (%.2f×)\n",
				ms(f50), float64(f50)/float64(p50), len(later), ms(l50), float64(l50)/float64(p50))
		}
		st := res.ServerStats
		fmt.Printf("        server: %d requests (%d ref advertisements, %d upload-pack, %d receive-pack), %d claims, %d entries\n",
			st.Requests, st.InfoRefs, st.UploadPack, st.ReceivePack, len(res.Claims), res.Committed)
		for i, l := range res.ErrorLines() {
			if i == 5 {
				break
			}
			fmt.Printf("        %s\n", l)
		}
		check(os.RemoveAll(work))
	}
	fmt.Printf("target: a claim takes at most %.0f× a plain git push to the same remote (ratio of the p50s)\n", claimTarget)
}
