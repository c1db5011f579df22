//go:build !windows

package main

import (
	"os"
	"path/filepath"
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
	want := map[string]string{
		"git push, no itr file":                        "1.5",
		"git push, a checkpoint (progress.md checked)": "",
	}
	for _, r := range checkHookRows(t, out, 44, "ok", want) {
		if r.without <= 0 || r.with <= 0 {
			t.Errorf("row %q: a time is not positive", r.label)
		}
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
