//go:build !windows

package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/itr-dev/itr/progresslog"
)

// The tests of this file run the real itr, built from cmd/itr (itrBinary),
// on the smallest repositories the bench's functions accept, and judge
// what the functions print by its form and its arithmetic, never by how
// long anything took.

// itrEnv is benchEnv with the itr under test first on PATH, as main sets
// it up, and that itr.
func itrEnv(t *testing.T) (string, []string, string) {
	t.Helper()
	itr := itrBinary(t)
	dir, env := benchEnv(t)
	return dir, withPath(env, filepath.Dir(itr)), itr
}

// runItr runs itr in dir and fails the test when it fails.
func runItr(t *testing.T, itr string, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(itr, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("itr %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// matchLine returns the submatches of the first line of out that re
// matches; the test fails when none does.
func matchLine(t *testing.T, out string, re *regexp.Regexp) []string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			return m
		}
	}
	t.Fatalf("no line matches %s in:\n%s", re, out)
	return nil
}

// hookRowSeen is one row of a hook's table as the bench printed it: the
// times without and with the hook, and their ratio.
type hookRowSeen struct {
	label         string
	without, with float64 // ms
	ratio         float64
}

// checkHookRows reads the rows of a hook's table in out (labels padded to
// width) and checks that they are the rows of want, each with its target
// (want's value, "" for none) and, where it has one, the verdict its
// ratio earns (ok, the word for a ratio within the target, or OVER).
func checkHookRows(t *testing.T, out string, width int, ok string, want map[string]string) []hookRowSeen {
	t.Helper()
	row := regexp.MustCompile(fmt.Sprintf(`^  (.{%d}) +(\d+\.\d\d ms) without, +(\d+\.\d\d ms) with: ×(\d+\.\d\d)(?: \(target ≤ ×(\d\.\d): (%s|OVER)\))?$`, width, ok))
	var rows []hookRowSeen
	for _, l := range strings.Split(out, "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		r := hookRowSeen{label: strings.TrimSpace(m[1]), without: msValue(t, m[2]), with: msValue(t, m[3])}
		r.ratio, _ = strconv.ParseFloat(m[4], 64)
		rows = append(rows, r)
		if target, known := want[r.label]; !known || m[5] != target {
			t.Errorf("row %q: target %q, want %q", r.label, m[5], target)
		}
		if m[6] != "" {
			limit, _ := strconv.ParseFloat(m[5], 64)
			if (r.ratio < limit-0.01 && m[6] != ok) || (r.ratio > limit+0.01 && m[6] != "OVER") {
				t.Errorf("row %q: ×%.2f %s the target ×%.1f", r.label, r.ratio, m[6], limit)
			}
		}
	}
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d:\n%s", len(rows), len(want), out)
	}
	return rows
}

// msValue parses "12.34 ms" or "12.34" into milliseconds.
func msValue(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "ms")), 64)
	if err != nil {
		t.Fatalf("%q is not a number of milliseconds", s)
	}
	return f
}

func TestVerifyRepoAndDoctorEngine(t *testing.T) {
	dir, env, itr := itrEnv(t)
	repo := verifyRepo(itr, filepath.Join(dir, "verify-plain"), env)
	if repo != filepath.Join(dir, "verify-plain") {
		t.Errorf("verifyRepo returned %s", repo)
	}
	want := []string{"itr(bench): plan 1 units", "itr(bench): start task Bench", "init"}
	if got := lines(runGit(t, env, repo, "log", "--format=%s")); !slices.Equal(got, want) {
		t.Errorf("git log: %q, want %q", got, want)
	}
	if got := runGit(t, env, repo, "status", "--porcelain"); got != "" {
		t.Errorf("git status:\n%s", got)
	}
	tasks := runGit(t, env, repo, "show", "HEAD:.claude/iterative/bench/tasks.md")
	if !strings.Contains(tasks, "**T1**: every round") || !strings.Contains(tasks, "Max iterations: 100000") {
		t.Errorf("tasks.md:\n%s", tasks)
	}
	// verifyRepo starts afresh.
	runItr(t, itr, env, repo, "checkpoint", "T1", "--did", "x")
	verifyRepo(itr, repo, env)
	if got := lines(runGit(t, env, repo, "log", "--format=%s")); !slices.Equal(got, want) {
		t.Errorf("git log after verifyRepo again: %q", got)
	}

	if got := doctorEngine(itr, env, repo); got != "native" {
		t.Errorf("doctorEngine = %q, want native", got)
	}
	if got := doctorEngine(itr, append(slices.Clone(env), "ITR_ENGINE=git"), repo); got != "git" {
		t.Errorf("doctorEngine with ITR_ENGINE=git = %q, want git", got)
	}
	// In a core.autocrlf=true clone itr chooses git's plumbing by itself,
	// and the bench's own entries there keep CRLF.
	crlf := filepath.Join(dir, "verify-crlf")
	cloneCRLF(env, repo, crlf)
	if got := doctorEngine(itr, env, crlf); got != "git" {
		t.Errorf("doctorEngine in a CRLF clone = %q, want git", got)
	}
	if got := lineEnding(filepath.Join(crlf, ".claude", "iterative", "bench", "progress.md")); got != "\r\n" {
		t.Errorf("progress.md in the CRLF clone ends its lines with %q", got)
	}
}

func TestBuildUnits(t *testing.T) {
	dir, env, itr := itrEnv(t)
	repo, planTime, err := buildUnits(itr, dir, 3, env)
	if err != nil {
		t.Fatal(err)
	}
	if repo != filepath.Join(dir, "units-3") || planTime <= 0 {
		t.Errorf("buildUnits = %s, %v", repo, planTime)
	}
	if got := runGit(t, env, repo, "log", "-1", "--format=%s"); got != "itr(demo): T1 iteration 1: x\n" {
		t.Errorf("the last commit is %q, want T1's checkpoint", got)
	}
	if got := runGit(t, env, repo, "status", "--porcelain"); got != "" {
		t.Errorf("git status:\n%s", got)
	}
	out := runItr(t, itr, env, repo, "prime")
	if !strings.Contains(out, "Current unit: T1") {
		t.Errorf("itr prime:\n%s", out)
	}
	// Made again from nothing.
	repo2, _, err := buildUnits(itr, dir, 3, env)
	if err != nil || repo2 != repo {
		t.Fatalf("buildUnits again: %s, %v", repo2, err)
	}
	if n := strings.TrimSpace(runGit(t, env, repo, "rev-list", "--count", "HEAD")); n != "3" {
		t.Errorf("%s commits after building again, want 3 (start, plan, checkpoint)", n)
	}
}

func TestBenchUnits(t *testing.T) {
	dir, env, itr := itrEnv(t)
	out := captureStdout(t, func() { benchUnits(itr, dir, "2, 3", env) })
	if !strings.HasPrefix(out, "\n== prime and status as the task's number of units grows (chained units, T1 current; medians of 9 runs)\n") {
		t.Errorf("the table starts:\n%s", out)
	}
	if _, err := peakRSS(env, dir, "true"); err == nil && !strings.Contains(out, "peak RSS from /usr/bin/time -f %M\n") {
		t.Errorf("the peaks do not come from /usr/bin/time:\n%s", out)
	}
	row := regexp.MustCompile(`^(\d+) +(\d+\.\d ms) +(\d+\.\d ms) +(\d+\.\d) MiB +(\d+\.\d ms) +(\d+\.\d) MiB$`)
	var units []string
	for _, l := range strings.Split(out, "\n") {
		if m := row.FindStringSubmatch(l); m != nil {
			units = append(units, m[1])
			for _, mib := range []string{m[4], m[6]} {
				if v, _ := strconv.ParseFloat(mib, 64); v < 1 || v > 1024 {
					t.Errorf("a peak of %s MiB for itr: %q", mib, l)
				}
			}
		}
	}
	if !slices.Equal(units, []string{"2", "3"}) {
		t.Errorf("rows for %q units, want 2 and 3:\n%s", units, out)
	}
	if !strings.HasSuffix(out, "prime target (300.0 ms at 10000 units): not measured; add 10000 to -units\n") {
		t.Errorf("the target line:\n%s", out)
	}
}

func TestBenchVerify(t *testing.T) {
	dir, env, itr := itrEnv(t)
	out := captureStdout(t, func() { benchVerify(itr, dir, 2, env) })
	if !strings.Contains(out, "\nverification runs — 2 rounds, medians of whole processes\n") {
		t.Errorf("heading:\n%s", out)
	}
	mp := msValue(t, matchLine(t, out, regexp.MustCompile(`^  itr checkpoint {23}( *\d+\.\d\d) ms$`))[1])
	mc := msValue(t, matchLine(t, out, regexp.MustCompile(`^  itr checkpoint --verify -- true {6}( *\d+\.\d\d) ms$`))[1])
	mt := msValue(t, matchLine(t, out, regexp.MustCompile(`^  true {33}( *\d+\.\d\d) ms$`))[1])
	m := matchLine(t, out, regexp.MustCompile(`^  overhead of --verify beyond the command: (-?\d+\.\d\d) ms \(target ≤ 5 ms: (meets|MISSES)\)$`))
	over := msValue(t, m[1])
	// The overhead is the checked checkpoint less the plain one and the
	// command (each figure rounded to 0.01 ms).
	if math.Abs(over-(mc-mp-mt)) > 0.021 {
		t.Errorf("overhead %.2f ms, but %.2f - %.2f - %.2f = %.2f", over, mc, mp, mt, mc-mp-mt)
	}
	if (over < 4.99 && m[2] != "meets") || (over > 5.01 && m[2] != "MISSES") {
		t.Errorf("an overhead of %.2f ms %s the 5 ms target", over, m[2])
	}
	for name, want := range map[string]string{
		"verify-plain":   "itr(bench): T1 iteration 2: round 2\nitr(bench): T1 iteration 1: round 1\n",
		"verify-checked": "itr(bench): T1 iteration 2: round 2\nitr(bench): T1 iteration 1: round 1\n",
	} {
		if got := runGit(t, env, filepath.Join(dir, name), "log", "-2", "--format=%s"); got != want {
			t.Errorf("%s: git log %q, want %q", name, got, want)
		}
	}
	log := runGit(t, env, filepath.Join(dir, "verify-checked"), "show", "HEAD:.claude/iterative/bench/progress.md")
	if n := strings.Count(log, "**Run result:** passed"); n != 2 {
		t.Errorf("%d passed runs in the checked task's log, want 2", n)
	}
}

func TestBenchHooksIn(t *testing.T) {
	dir, env, itr := itrEnv(t)
	base := verifyRepo(itr, filepath.Join(dir, "hooks-small"), env)
	runItr(t, itr, env, base, "checkpoint", "T1", "--did", "first")
	out := captureStdout(t, func() { benchHooksIn(itr, base, "a tiny repository", 1, env) })
	if !strings.Contains(out, "\npre-commit hook, a tiny repository — 1 rounds, medians of whole `git commit` processes\n") {
		t.Errorf("heading:\n%s", out)
	}
	want := map[string]string{
		"git commit, no itr file (itr-hook)":             "1.5",
		"git commit, an entry in progress.md (itr-hook)": "3.0",
		"git commit, no itr file (--script)":             "",
		"git commit, an entry in progress.md (--script)": "",
		"git commit, a hook that only runs sh":           "",
	}
	for _, r := range checkHookRows(t, out, 48, "meets", want) {
		// One round: the ratio is with ÷ without.
		if r.without <= 0 || math.Abs(r.ratio-r.with/r.without) > 0.02*r.ratio+0.01 {
			t.Errorf("row %q: ×%.2f, but %.2f ms ÷ %.2f ms = %.3f", r.label, r.ratio, r.with, r.without, r.with/r.without)
		}
	}
	// The four clones: each with its hook, each commit made.
	program, err := os.ReadFile(filepath.Join(base+"-program", ".git", "hooks", "pre-commit"))
	if err != nil || !bytes.HasPrefix(program, []byte("\x7fELF")) {
		t.Errorf("the program clone's hook is not a program: %v", err)
	}
	script, err := os.ReadFile(filepath.Join(base+"-script", ".git", "hooks", "pre-commit"))
	if err != nil || !bytes.HasPrefix(script, []byte("#!")) {
		t.Errorf("the script clone's hook is not a script: %v", err)
	}
	before, _ := strconv.Atoi(strings.TrimSpace(runGit(t, env, base, "rev-list", "--count", "HEAD")))
	for name, n := range map[string]int{"plain": 2, "program": 2, "script": 2, "floor": 1} {
		got, _ := strconv.Atoi(strings.TrimSpace(runGit(t, env, base+"-"+name, "rev-list", "--count", "HEAD")))
		if got != before+n {
			t.Errorf("%s: %d commits, want %d", name, got, before+n)
		}
	}
	// The hand-written entry went through the hook into the log.
	log := runGit(t, env, base+"-program", "show", "HEAD:.claude/iterative/bench/progress.md")
	if !strings.Contains(log, "**Did:** round 1 by hand") {
		t.Errorf("the program clone's log lacks the entry written by hand:\n%s", log)
	}
}

func TestBenchCheckpoint(t *testing.T) {
	dir, env, itr := itrEnv(t)
	base := filepath.Join(dir, "small-base")
	if err := buildRepo(base, tiny, env); err != nil {
		t.Fatal(err)
	}
	out := captureStdout(t, func() { benchCheckpoint(itr, dir, base, "SMALL", 1, 2, env) })
	for _, want := range []string{
		"\n== SMALL: itr checkpoint by engine against git add DIR && git commit\n",
		"preparing 5 copies of the task (a clone of small-base each; two with core.autocrlf=true)...\n",
		"engines checked with itr doctor --json: [small-run: native] [small-run-gitengine: git] [small-run-crlf: git] \n",
		"\nmade 2 checkpoints in ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	targets := map[string]float64{
		"itr checkpoint, native engine":                          0.5,
		"itr checkpoint, git engine (ITR_ENGINE=git)":            1.0,
		"CRLF clone: itr checkpoint (git engine, chosen by itr)": 1.0,
	}
	re := regexp.MustCompile(`^target SMALL (.+): (\d+\.\d\d)× ≤ (\d\.\d)× — (within|OVER)$`)
	seen := 0
	for _, l := range strings.Split(out, "\n") {
		m := re.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		seen++
		r, _ := strconv.ParseFloat(m[2], 64)
		if want, ok := targets[m[1]]; !ok || m[3] != fmt.Sprintf("%.1f", want) {
			t.Errorf("target line %q", l)
		} else if (r < want-0.01 && m[4] != "within") || (r > want+0.01 && m[4] != "OVER") {
			t.Errorf("%.2f× is %s a target of %.1f×", r, m[4], want)
		}
		// The table's row says the same ratio.
		row := matchLine(t, out, regexp.MustCompile(`^`+regexp.QuoteMeta(m[1])+` +\d+\.\d ms +\d+\.\d ms +\d+\.\d ms +\d+\.\d MiB +(\d+\.\d\d)× +(\d+\.\d\d)× +≤ (\d\.\d)× +(within|OVER) +\d+\.\d ms$`))
		if row[1] != m[2] || row[3] != m[3] || row[4] != m[4] {
			t.Errorf("the table says %q, the target line %q", row[0], l)
		}
	}
	if seen != 3 {
		t.Errorf("%d target lines, want 3:\n%s", seen, out)
	}
	for _, label := range []string{"git add DIR && git commit", "CRLF clone: git add DIR && git commit"} {
		matchLine(t, out, regexp.MustCompile(`^`+regexp.QuoteMeta(label)+` +\d+\.\d ms +\d+\.\d ms +\d+\.\d ms +\d+\.\d MiB +— +— +— +\d+\.\d ms$`))
	}
	matchLine(t, out, regexp.MustCompile(`^itr status \(2 ckpts\) +\d+\.\d ms +peak +\d+\.\d MiB$`))
	matchLine(t, out, regexp.MustCompile(`^git log -1 \(floor\) +\d+\.\d ms$`))

	// The native case's repository is kept, with the history; the others
	// are gone.
	repo := filepath.Join(dir, "small-run")
	if got := runGit(t, env, repo, "log", "-2", "--format=%s"); got != "itr(bench): T1 iteration 2: history 1\nitr(bench): T1 iteration 1: history 0\n" {
		t.Errorf("git log in %s: %q", repo, got)
	}
	for _, gone := range []string{"small-run-gitengine", "small-run-git", "small-run-crlf", "small-run-crlf-git"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is left behind: %v", gone, err)
		}
	}
}

func TestBuildHistoryAndBenchGrowth(t *testing.T) {
	dir, env, itr := itrEnv(t)
	guardAll(t, env) // buildHistory sets the process's environment
	t.Setenv("ITR_NO_MAINTENANCE", "1")
	base := filepath.Join(dir, "small-base")
	if err := buildRepo(base, tiny, env); err != nil {
		t.Fatal(err)
	}
	var repo string
	out := captureStdout(t, func() { repo = buildHistory(itr, dir, base, "SMALL", 3, env) })
	if repo != filepath.Join(dir, "small-hist-3") || !strings.HasPrefix(out, "  made 3 checkpoints in ") {
		t.Errorf("buildHistory = %s, printed %q", repo, out)
	}
	want := "itr(bench): T1 iteration 3: history 2: a line of the size agents write\n" +
		"itr(bench): T1 iteration 2: history 1: a line of the size agents write\n" +
		"itr(bench): T1 iteration 1: history 0: a line of the size agents write\n"
	if got := runGit(t, env, repo, "log", "-3", "--format=%s"); got != want {
		t.Errorf("git log: %q, want %q", got, want)
	}
	runItr(t, itr, env, repo, "reconcile", "--check")
	mustFsck(t, env, repo)
	// Kept from an earlier run: nothing is made again.
	head := runGit(t, env, repo, "rev-parse", "HEAD")
	if again := buildHistory(itr, dir, base, "SMALL", 3, env); again != repo || runGit(t, env, repo, "rev-parse", "HEAD") != head {
		t.Errorf("buildHistory again made %s anew", again)
	}

	out = captureStdout(t, func() { benchGrowth(itr, dir, base, "SMALL", 1, "3", env) })
	for _, want := range []string{
		"\n== SMALL: reconcile --check, verify, status and prime as the task's history grows; git status and git log -1 beside them\n",
		"\n== SMALL: .git after the checkpoints (no maintenance: ITR_NO_MAINTENANCE=1), and after git gc\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	matchLine(t, out, regexp.MustCompile(`^3 +(\d+\.\d ms +){7}  peak \d+\.\d MiB$`))
	m := matchLine(t, out, regexp.MustCompile(`^3 +(\d+) KiB +(\d+) +(\d+) KiB +(\d+) +(\d+) KiB +(\d+\.\d\d)x$`))
	du, _ := strconv.ParseFloat(m[1], 64)
	gc, _ := strconv.ParseFloat(m[5], 64)
	if m[6] != fmt.Sprintf("%.2f", du/gc) {
		t.Errorf("ratio %sx of %s KiB to %s KiB", m[6], m[1], m[5])
	}
	// Without maintenance the checkpoints' objects are loose, in no pack;
	// git gc packs them.
	if m[2] == "0" || m[4] != "0" || gc >= du {
		t.Errorf("%s loose objects, %s packs, %s KiB after gc of %s: %q", m[2], m[4], m[5], m[1], m[0])
	}
}

func TestAppendSide(t *testing.T) {
	dir, env, itr := itrEnv(t)
	repo := verifyRepo(itr, filepath.Join(dir, "side"), env)
	task := filepath.Join(repo, ".claude", "iterative", "bench")
	runItr(t, itr, env, repo, "checkpoint", "T1", "--did", "by itr")
	old, err := os.ReadFile(filepath.Join(task, "progress.md"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(progresslog.Parse(old).Entries)
	appendSide(repo, task, env, "main", "T1", 3)
	if got := runGit(t, env, repo, "log", "-1", "--format=%s"); got != "itr(bench): 3 iterations of T1\n" {
		t.Errorf("the commit: %q", got)
	}
	if got := runGit(t, env, repo, "status", "--porcelain"); got != "" {
		t.Errorf("git status:\n%s", got)
	}
	data, err := os.ReadFile(filepath.Join(task, "progress.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, old) {
		t.Error("appendSide rewrote the log instead of appending to it")
	}
	es := progresslog.Parse(data).Entries
	if len(es) != before+3 {
		t.Fatalf("%d entries, want %d", len(es), before+3)
	}
	for i, e := range es[before:] {
		if e.Kind != progresslog.KindIteration || e.Unit != "T1" || e.Iteration != i+1 {
			t.Errorf("entry %d: %s %s %d", i, e.Kind, e.Unit, e.Iteration)
		}
	}
	// itr itself finds state.json the fold of the log.
	runItr(t, itr, env, repo, "reconcile", "--check")
	st, err := os.ReadFile(filepath.Join(task, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(st, foldState(task, data)) {
		t.Error("state.json is not foldState of the log")
	}
}

func TestBenchMerge(t *testing.T) {
	dir, env, itr := itrEnv(t)
	guardAll(t, env) // benchMerge sets the process's environment
	base := filepath.Join(dir, "small-base")
	if err := buildRepo(base, tiny, env); err != nil {
		t.Fatal(err)
	}
	// benchMerge checks every merge (checkMerged) and stops the bench
	// when one is wrong; here it must print its table.
	out := captureStdout(t, func() { benchMerge(itr, dir, base, "SMALL", 1, 2, env) })
	if !regexp.MustCompile(`\n== SMALL: merge of 2 entries on each side \(itr checkpoint; logs of \d+\.\d\d and \d+\.\d\d MB\)\n`).MatchString(out) {
		t.Errorf("heading:\n%s", out)
	}
	for _, label := range []string{"git merge with itr's driver", "  itr merge-driver on progress.md alone", "  itr merge-driver on state.json alone"} {
		matchLine(t, out, regexp.MustCompile(`^`+regexp.QuoteMeta(label)+` +\d+\.\d ms +\d+\.\d ms`))
	}
	for _, label := range []string{"git merge without it (conflicts)", "itr reconcile resolving the conflict"} {
		matchLine(t, out, regexp.MustCompile(`^`+regexp.QuoteMeta(label)+` +\d+\.\d ms$`))
	}
	repo := filepath.Join(dir, "small-merge-2")
	// The last merge: two parents, both sides' entries, state.json the
	// fold of the log as itr sees it, the driver configured again.
	if parents := strings.Fields(runGit(t, env, repo, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Errorf("HEAD has parents %q, want a merge", parents)
	}
	runItr(t, itr, env, repo, "reconcile", "--check")
	log := runGit(t, env, repo, "show", "HEAD:.claude/iterative/bench/progress.md")
	for _, did := range []string{"main 0", "main 1", "theirs 0", "theirs 1"} {
		if n := strings.Count(log, "**Did:** "+did+": "); n != 1 {
			t.Errorf("%q is %d times in the merged log, want once", did, n)
		}
	}
	if got := strings.TrimSpace(runGit(t, env, repo, "config", "merge.itr.driver")); !strings.Contains(got, "merge-driver") {
		t.Errorf("merge.itr.driver after the bench: %q", got)
	}
}

// benchMain runs the test binary as the bench (TestMain) with args and
// returns its standard output, standard error and exit code.
func benchMain(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(slices.Clone(startEnv), asVar+"=bench", "GORACE=atexit_sleep_ms=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

func TestMainRejectsAnUnknownPart(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := benchMain(t, "-only", "bogus", "-dir", dir)
	want := "bench: -only \"bogus\": the parts that run alone are agents, units, engines, verify, verifyfull, hooks, warm, floor, plans, memory and serverhook\n"
	if code != 1 || stderr != want || stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q; want 1 and %q", code, stderr, stdout, want)
	}
	// -dir is made, with the bench's own HOME.
	if fi, err := os.Stat(filepath.Join(dir, "home")); err != nil || !fi.IsDir() {
		t.Errorf("no HOME in -dir: %v", err)
	}
}

func TestMainUnitsOnly(t *testing.T) {
	itr := itrBinary(t)
	dir := t.TempDir()
	stdout, stderr, code := benchMain(t, "-only", "units", "-units", "2", "-itr", itr, "-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !regexp.MustCompile(`^itr bench — \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, units only\n\n== prime and status`).MatchString(stdout) {
		t.Errorf("the output starts:\n%s", stdout)
	}
	matchLine(t, stdout, regexp.MustCompile(`^2 +\d+\.\d ms +\d+\.\d ms`))
	if _, err := os.Stat(filepath.Join(dir, "units-2", ".git")); err != nil {
		t.Errorf("the units repository is not in -dir: %v", err)
	}
	if strings.Contains(stdout, "SMALL") {
		t.Errorf("-only units built or measured SMALL:\n%s", stdout)
	}
}

func TestMainEnginesOnly(t *testing.T) {
	itr := itrBinary(t)
	dir := t.TempDir()
	stdout, stderr, code := benchMain(t, "-only", "engines", "-large=false", "-runs", "1", "-itr", itr, "-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	head := regexp.MustCompile(`^itr bench — \S+, engines only, git version [^,]+, \d+ cores, runs=1, medians of whole processes \(load average [^)]+\)\n\nbuilding SMALL \(99 files, 10 folders, 50 commits\)\.\.\.\n`)
	if !head.MatchString(stdout) {
		t.Errorf("the output starts:\n%s", stdout)
	}
	if n := strings.Count(stdout, "\ntarget SMALL "); n != 3 {
		t.Errorf("%d target lines, want 3:\n%s", n, stdout)
	}
	// The checkpoint comparison alone: no status history, growth, merge,
	// units, agents, verify or hooks.
	for _, absent := range []string{"itr status (", "reconcile --check", "merge of", "== prime and status", "Many agents", "verification runs", "pre-commit hook", "LARGE"} {
		if strings.Contains(stdout, absent) {
			t.Errorf("-only engines printed %q:\n%s", absent, stdout)
		}
	}
	env := isolatedEnv(dir)
	base := filepath.Join(dir, "small-base")
	if n := strings.TrimSpace(runGit(t, env, base, "rev-list", "--count", "HEAD")); n != "50" {
		t.Errorf("SMALL has %s commits, want 50", n)
	}
	if n := len(lines(runGit(t, env, base, "ls-files"))); n != 99 {
		t.Errorf("SMALL has %d files, want 99", n)
	}
}

func TestBenchAgents(t *testing.T) {
	dir, env, itr := itrEnv(t)
	// One row of the table, one agent on one clone, for a moment.
	old := agentRuns
	agentRuns = [][2]int{{1, 1}}
	t.Cleanup(func() { agentRuns = old })
	out := captureStdout(t, func() { benchAgents(itr, dir, 200*time.Millisecond, env) })
	if !strings.HasPrefix(out, "\nMany agents, one remote (git http-backend on 127.0.0.1 with Basic auth), 200ms per row; claim and push are p50/p95 of whole processes\n") {
		t.Errorf("heading:\n%s", out)
	}
	row := matchLine(t, out, regexp.MustCompile(`^1 +1 +(\d+) +(\d+\.\d) +(\d+) +(\d+\.\d) ms / (\d+\.\d) ms +(\d+\.\d) ms / (\d+\.\d) ms +(\d+\.\d\d)×( OVER)? +\d+\.\d ms (.*)$`))
	if row[10] != "clean" {
		t.Errorf("the invariants: %q", row[10])
	}
	c50, p50 := msValue(t, row[4]), msValue(t, row[6])
	ratio, _ := strconv.ParseFloat(row[8], 64)
	if p50 > 0 && math.Abs(ratio-c50/p50) > 0.02*ratio+0.01 {
		t.Errorf("ratio ×%.2f, but %.1f ms ÷ %.1f ms = %.3f", ratio, c50, p50, c50/p50)
	}
	if over := row[9] != ""; (ratio > claimTarget+0.01 && !over) || (ratio < claimTarget-0.01 && over) {
		t.Errorf("a ratio of ×%.2f marked OVER: %v", ratio, over)
	}
	matchLine(t, out, regexp.MustCompile(`^        server: \d+ requests \(\d+ ref advertisements, \d+ upload-pack, \d+ receive-pack\), \d+ claims, \d+ entries$`))
	if !strings.HasSuffix(out, "target: a claim takes at most 2× a plain git push to the same remote (ratio of the p50s)\n") {
		t.Errorf("the target line:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "agents-1-1")); !os.IsNotExist(err) {
		t.Errorf("the row's folder is left behind: %v", err)
	}
}
