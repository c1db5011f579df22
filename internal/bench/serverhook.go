//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// This file is the cost of the server's guard (`-only serverhook`): a
// `git push` of one new commit into a bare repository with the pre-receive
// hook `itr hooks install --server` writes, against the same push into a
// bare repository without it, in the same rounds (which goes first moves
// each round). The pushes go over git's local transport, so receive-pack
// and the hook run as on a server while no network time hides the hook's.
// Two kinds of push: a commit of a file that is not itr's (the guard's
// fast path: two git processes find no log changed), and a checkpoint,
// which appends an entry the guard reads and checks.

// The most the guard may multiply a push that changes no log by.
const serverHookTarget = 1.5

// benchServerHook measures runs rounds of both pushes and prints them.
func benchServerHook(itr, dir string, runs int, env []string) {
	dir, err := filepath.Abs(dir)
	check(err)
	work := filepath.Join(dir, "serverhook-work")
	verifyRepo(itr, work, env)
	check(run(env, work, itr, "checkpoint", "T1", "--did", "first"))
	plain, guarded := filepath.Join(dir, "serverhook-plain.git"), filepath.Join(dir, "serverhook-guarded.git")
	for _, r := range []string{plain, guarded} {
		check(os.RemoveAll(r))
		check(run(env, "", "git", "clone", "-q", "--bare", work, r))
	}
	check(run(env, guarded, itr, "hooks", "install", "--server"))
	if _, err := os.Stat(filepath.Join(plain, "hooks", "pre-receive")); err == nil {
		check(fmt.Errorf("%s: a pre-receive hook is there; the plain remote must have none", plain))
	}
	push := func(remote string, into *[]time.Duration) {
		d, _ := timed(env, work, "git", "push", "-q", remote, "HEAD:main")
		*into = append(*into, d)
	}
	var otherPlain, otherGuarded, logPlain, logGuarded []time.Duration
	for i := 0; i < runs; i++ {
		appendTo(filepath.Join(work, "work.txt"), fmt.Sprintf("round %d\n", i))
		check(run(env, work, "git", "add", "work.txt"))
		check(run(env, work, "git", "commit", "-q", "-m", fmt.Sprintf("work %d", i)))
		if i%2 == 0 {
			push(plain, &otherPlain)
			push(guarded, &otherGuarded)
		} else {
			push(guarded, &otherGuarded)
			push(plain, &otherPlain)
		}
		check(run(env, work, itr, "checkpoint", "T1", "--did", fmt.Sprintf("round %d", i)))
		if i%2 == 0 {
			push(guarded, &logGuarded)
			push(plain, &logPlain)
		} else {
			push(plain, &logPlain)
			push(guarded, &logGuarded)
		}
	}
	head, err := ggGit(env, work, "rev-parse", "HEAD")
	check(err)
	for _, r := range []string{plain, guarded} {
		got, err := ggGit(env, r, "rev-parse", "main")
		check(err)
		if strings.TrimSpace(got) != strings.TrimSpace(head) {
			check(fmt.Errorf("%s: main is %s, not the pushed %s: a push was refused", r, strings.TrimSpace(got), strings.TrimSpace(head)))
		}
	}
	fmt.Printf("\nserver guard (pre-receive), %d rounds, medians of whole `git push` processes, one new commit each\n", runs)
	hookRow(44, "ok", "git push, no itr file", otherPlain, otherGuarded, serverHookTarget)
	hookRow(44, "ok", "git push, a checkpoint (progress.md checked)", logPlain, logGuarded, 0)
}
