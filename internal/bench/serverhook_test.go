//go:build !windows

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestBenchServerHook(t *testing.T) {
	dir, env, itr := itrEnv(t)
	out := captureStdout(t, func() { benchServerHook(itr, dir, 2, env) })
	if !strings.Contains(out, "\nserver guard (pre-receive), 2 rounds, medians of whole `git push` processes, one new commit each\n") {
		t.Errorf("heading:\n%s", out)
	}
	row := regexp.MustCompile(`^  (.{44}) +(\d+\.\d\d ms) without, +(\d+\.\d\d ms) with: ×(\d+\.\d\d)(?: \(target ≤ ×(\d\.\d): (ok|OVER)\))?$`)
	want := map[string]string{
		"git push, no itr file":                        "1.5",
		"git push, a checkpoint (progress.md checked)": "",
	}
	seen := 0
	for _, l := range strings.Split(out, "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		seen++
		label := strings.TrimSpace(m[1])
		if target, ok := want[label]; !ok || m[5] != target {
			t.Errorf("row %q: target %q, want %q", label, m[5], target)
		}
		if msValue(t, m[2]) <= 0 || msValue(t, m[3]) <= 0 {
			t.Errorf("row %q: a time is not positive", label)
		}
		if m[6] != "" {
			ratio, _ := strconv.ParseFloat(m[4], 64)
			limit, _ := strconv.ParseFloat(m[5], 64)
			if (ratio < limit-0.01 && m[6] != "ok") || (ratio > limit+0.01 && m[6] != "OVER") {
				t.Errorf("row %q: ×%.2f %s the target ×%.1f", label, ratio, m[6], limit)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d rows, want %d:\n%s", seen, len(want), out)
	}
	// The guarded remote has the guard; both got every push (the bench
	// checks main, and fails on a refusal).
	hook, err := os.ReadFile(filepath.Join(dir, "serverhook-guarded.git", "hooks", "pre-receive"))
	if err != nil || !strings.Contains(string(hook), "itr hooks pre-receive") {
		t.Errorf("the guarded remote has no server guard: %v", err)
	}
	for _, r := range []string{"serverhook-plain.git", "serverhook-guarded.git"} {
		n, _ := strconv.Atoi(strings.TrimSpace(runGit(t, env, filepath.Join(dir, r), "rev-list", "--count", "main")))
		if n < 2+4 {
			t.Errorf("%s: %d commits on main, want the task's and 4 pushed", r, n)
		}
	}
}
