//go:build !windows

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// trailerRepo builds the repository of the -gogit parts (packed, see
// repos_test.go) in a fresh folder, makes this process see the bench's
// HOME as benchGoGit does (ggProcessEnv; the test's environment comes back
// when it ends), and returns the folder for the parts' own copies, the
// environment and the repository as benchGoGit describes it.
func trailerRepo(t *testing.T) (string, []string, ggRepo) {
	t.Helper()
	dir, env := benchEnv(t)
	guardAll(t, env)
	guardEnv(t, "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM")
	ggProcessEnv(env)
	r := ggRepo{name: "SMALL", dir: filepath.Join(dir, "gogit-small"), files: packed.files}
	r.path = ggPath(packed, (packed.commits-1)*7919%packed.files)
	if err := buildTrailerRepo(r.dir, packed, env); err != nil {
		t.Fatal(err)
	}
	return dir, env, r
}

// wantClean fails the test unless both engines of a part measured runs
// times without failing and the notes are want.
func wantClean(t *testing.T, row ggRow, runs int, part string, want ...string) {
	t.Helper()
	if row.part != part || row.repo != "SMALL" {
		t.Errorf("row %q of %s, want %q of SMALL", row.part, row.repo, part)
	}
	for name, s := range map[string]ggStats{"gitstate": row.gs, "go-git": row.gg} {
		if s.err != nil || len(s.times) != runs || len(s.bytes) != runs {
			t.Errorf("%s: %d times, %d byte counts, error %v; want %d and no error", name, len(s.times), len(s.bytes), s.err, runs)
		}
	}
	if !slices.Equal(row.notes, want) {
		t.Errorf("notes %q, want %q", row.notes, want)
	}
}

func TestGGProcessEnv(t *testing.T) {
	_, env := benchEnv(t)
	guardAll(t, env)
	guardEnv(t, "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM")
	t.Setenv("GIT_DIR", "/nowhere/.git")
	t.Setenv("GIT_COMMITTER_NAME", "Someone Else")
	ggProcessEnv(env)
	for _, k := range []string{"GIT_DIR", "GIT_COMMITTER_NAME", "GIT_AUTHOR_NAME"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s=%q is left in the process's environment", k, v)
		}
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM"} {
		want, _ := envValue(env, k)
		if got := os.Getenv(k); got != want {
			t.Errorf("%s=%q, want the bench's %q", k, got, want)
		}
	}
}

func TestGGOpen(t *testing.T) {
	_, env, r := trailerRepo(t)
	// From a folder inside the repository, as itr opens it.
	repo, err := ggOpen(filepath.Join(r.dir, filepath.Dir(r.path)))
	if err != nil {
		t.Fatal(err)
	}
	h, err := repo.Head()
	ggClose(repo)
	if err != nil || h.Hash().String() != strings.TrimSpace(runGit(t, env, r.dir, "rev-parse", "HEAD")) {
		t.Errorf("go-git's HEAD %v, %v", h, err)
	}
	if _, err := ggOpen(t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "go-git open ") {
		t.Errorf("ggOpen of a folder outside any repository: %v", err)
	}
}

func TestGGReadParts(t *testing.T) {
	_, env, r := trailerRepo(t)
	wantClean(t, ggOpenHead(r, 2, env), 2, "1 open + HEAD + resolve main", "both equal git rev-parse")
	wantClean(t, ggReadFile(r, 2, env), 2, "2 read 1 file at HEAD (open, tree walk, delta blob)", "both equal git cat-file")
	wantClean(t, ggHistory(r, 2, env), 2, "3 first-parent history, 40 commits + trailers", "both equal git rev-list --first-parent")
	wantClean(t, ggIndex(r, 2, env), 2, "4 read the index (7 entries)", "both equal git ls-files -s")

	keep := strings.Repeat("a line that later versions keep\n", 8)
	if err := gsRead(r.dir, r.path, "file 1 changed in 39\n"+keep); err != nil {
		t.Errorf("gsRead: %v", err)
	}
	if err := ggRead(r.dir, r.path, "file 1 changed in 39\n"+keep); err != nil {
		t.Errorf("ggRead: %v", err)
	}
	// Both check what they read.
	if err := gsRead(r.dir, r.path, "something else"); err == nil {
		t.Error("gsRead accepted a content git does not have")
	}
	if err := ggRead(r.dir, r.path, "something else"); err == nil {
		t.Error("ggRead accepted a content git does not have")
	}
}

func TestGGPartsFail(t *testing.T) {
	_, env, r := trailerRepo(t)
	// A commit without trailers: 41 commits, 80 trailers, not 82.
	runGit(t, env, r.dir, "commit", "-q", "--allow-empty", "-m", "no trailers")
	row := ggHistory(r, 1, env)
	for name, s := range map[string]ggStats{"gitstate": row.gs, "go-git": row.gg} {
		if s.err == nil || s.err.Error() != "41 commits and 80 trailers, want 41 and 82" {
			t.Errorf("%s on a commit without trailers: %v", name, s.err)
		}
		if ggTime(s) != "failed" {
			t.Errorf("%s: the table says %q, want failed", name, ggTime(s))
		}
	}
	if len(row.notes) != 2 || !strings.HasPrefix(row.notes[0], "gitstate FAILED: ") || !strings.HasPrefix(row.notes[1], "go-git FAILED: ") {
		t.Errorf("notes %q", row.notes)
	}
	// A detached HEAD is not on refs/heads/main.
	runGit(t, env, r.dir, "checkout", "-q", "--detach")
	row = ggOpenHead(r, 1, env)
	if row.gs.err == nil || row.gg.err == nil {
		t.Errorf("ggOpenHead on a detached HEAD: gitstate %v, go-git %v; want both to fail", row.gs.err, row.gg.err)
	}
}

func TestGGConfig(t *testing.T) {
	dir, env, r := trailerRepo(t)
	rows := ggConfig(dir, r, 2, env)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if rows[0].part != `5a config: [merge "x"] of the repository's config` || rows[0].gs.err != nil || len(rows[0].gs.times) != 2 {
		t.Errorf("row %q: gitstate %v in %d runs", rows[0].part, rows[0].gs.err, len(rows[0].gs.times))
	}
	// git reads the include in place: the name from identity.inc, the
	// email from the [user] section after it.
	if rows[1].part != "5b config: identity through include.path" || len(rows[1].notes) < 3 || rows[1].notes[0] != "git: Included Name <after@example.com>" {
		t.Fatalf("row %q, notes %q", rows[1].part, rows[1].notes)
	}
	if rows[1].notes[1] != "gitstate right" || rows[1].gs.err != nil {
		t.Errorf("gitstate's identity: %q, %v", rows[1].notes[1], rows[1].gs.err)
	}
	if !strings.HasPrefix(rows[1].notes[2], "go-git ") {
		t.Errorf("go-git's identity note: %q", rows[1].notes[2])
	}
	if wrong := strings.HasPrefix(rows[1].notes[2], "go-git WRONG"); wrong != (rows[1].gg.err != nil) {
		t.Errorf("go-git's note %q with error %v", rows[1].notes[2], rows[1].gg.err)
	}
	cfg := filepath.Join(dir, "gogit-config", ".git")
	if got := strings.TrimSpace(runGit(t, env, filepath.Dir(cfg), "config", "merge.itrbench.driver")); got != "itr merge-driver %O %A %B %P" {
		t.Errorf("the config repository's merge.itrbench.driver is %q", got)
	}
}

func TestGGAlternates(t *testing.T) {
	dir, env, r := trailerRepo(t)
	rows := ggAlternates(dir, r, 2, env)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	alt := filepath.Join(dir, "gogit-shared-small")
	if _, err := os.Stat(filepath.Join(alt, ".git", "objects", "info", "alternates")); err != nil {
		t.Fatalf("the shared clone has no alternates: %v", err)
	}
	if n := looseObjects(t, filepath.Join(alt, ".git")); n != 0 {
		t.Errorf("the shared clone holds %d objects of its own", n)
	}
	if rows[0].gs.err != nil || rows[1].gs.err != nil {
		t.Errorf("gitstate through alternates: %v, %v", rows[0].gs.err, rows[1].gs.err)
	}
	wantClean(t, rows[1], 2, `6b the same, go-git with filesystem.Options{AlternatesFS: osfs.New("/")}`, "both equal git cat-file")
	// 6a: PlainOpen's failure, if it fails, is explained.
	explained := slices.ContainsFunc(rows[0].notes, func(n string) bool { return strings.HasPrefix(n, "PlainOpen's object store is chrooted") })
	if explained != (rows[0].gg.err != nil) {
		t.Errorf("6a: go-git error %v, notes %q", rows[0].gg.err, rows[0].notes)
	}
}

// checkWrite fails the test unless the commit hash made by one of the
// writers in round is HEAD of repo, with the message, author and files
// the writers promise, and git fsck --strict finds nothing wrong.
func checkWrite(t *testing.T, env []string, repo, hash string, round int) {
	t.Helper()
	if head := strings.TrimSpace(runGit(t, env, repo, "rev-parse", "HEAD")); head != hash {
		t.Errorf("HEAD is %s, the writer returned %s", head, hash)
	}
	if got := strings.TrimSpace(runGit(t, env, repo, "symbolic-ref", "HEAD")); got != "refs/heads/main" {
		t.Errorf("HEAD is %s, want refs/heads/main", got)
	}
	msg := runGit(t, env, repo, "log", "-1", "--format=%an <%ae>%n%B", hash)
	if want := "Bench <bench@example.com>\nwrite " + strconv.Itoa(round) + "\n\nItr-Unit: T1\n\n"; msg != want {
		t.Errorf("git log -1: %q, want %q", msg, want)
	}
	if got := lines(runGit(t, env, repo, "diff-tree", "--no-commit-id", "--name-only", "-r", hash)); round == 0 && !slices.Equal(got, []string{"gogit-bench/a.txt", "gogit-bench/b.txt"}) {
		t.Errorf("the first write changed %q", got)
	}
	for _, f := range ggFiles(round) {
		if got := runGit(t, env, repo, "show", "HEAD:"+f[0]); got != f[1] {
			t.Errorf("HEAD:%s = %q, want %q", f[0], got, f[1])
		}
		if got, err := os.ReadFile(filepath.Join(repo, f[0])); err != nil || string(got) != f[1] {
			t.Errorf("%s in the working tree = %q, %v; want %q", f[0], got, err, f[1])
		}
	}
	mustFsck(t, env, repo)
}

func TestGSWriteAndGGWriteCommit(t *testing.T) {
	dir, env, r := trailerRepo(t)
	for _, w := range []struct {
		name  string
		write ggWriter
	}{{"gitstate", gsWrite}, {"go-git", ggWriteCommit}} {
		repo := filepath.Join(dir, "write-"+w.name)
		clone(env, r.dir, repo)
		before := strings.TrimSpace(runGit(t, env, repo, "rev-parse", "HEAD"))
		for round := 0; round < 2; round++ {
			h, err := w.write(repo, round)
			if err != nil {
				t.Fatalf("%s round %d: %v", w.name, round, err)
			}
			checkWrite(t, env, repo, h, round)
		}
		if got := lines(runGit(t, env, repo, "rev-list", "--first-parent", "-3", "HEAD")); len(got) != 3 || got[2] != before {
			t.Errorf("%s: the two writes are not two commits on top of %s: %q", w.name, before, got)
		}
		if w.name == "gitstate" {
			if st := runGit(t, env, repo, "status", "--porcelain"); st != "" {
				t.Errorf("git status after gsWrite:\n%s", st)
			}
		}
	}
}

func TestGGWrite(t *testing.T) {
	dir, env, r := trailerRepo(t)
	row := ggWrite(dir, r, 2, env)
	if row.part != "7 write 1 commit of 2 files (+ worktree, index, branch)" {
		t.Errorf("part %q", row.part)
	}
	if row.gs.err != nil || len(row.gs.times) != 2 {
		t.Errorf("gitstate: %d times, %v", len(row.gs.times), row.gs.err)
	}
	if len(row.notes) != 2 || row.notes[0] != "gitstate: fsck --strict ok, status clean, reflog has every commit" || !strings.HasPrefix(row.notes[1], "go-git: ") {
		t.Errorf("notes %q", row.notes)
	}
	// What the notes say, git says too.
	for _, name := range []string{"gitstate", "go-git"} {
		repo := filepath.Join(dir, "gogit-write-small-"+name)
		if got := runGit(t, env, repo, "log", "-2", "--format=%s"); got != "write 1\nwrite 0\n" {
			t.Errorf("%s: git log %q", name, got)
		}
	}
	mustFsck(t, env, filepath.Join(dir, "gogit-write-small-gitstate"))
}

func TestGGRaceOne(t *testing.T) {
	dir, env, r := trailerRepo(t)
	lost := strings.Repeat("d", 40)
	// ggRaceWrites rounds: three real commits, one hash that is in no
	// history, and failures, which cost nothing (a real engine's 200
	// writes take seconds each; ggRaceRow runs two).
	write := func(dir string, round int) (string, error) {
		switch {
		case round < 3:
			return gsWrite(dir, round)
		case round == 3:
			return lost, nil
		}
		return "", errors.New("skipped round " + strconv.Itoa(round))
	}
	besides := []string{"commit", "gc"}
	if testing.Short() {
		besides = besides[:1] // ggRaceWrites collections beside each loop
	}
	for _, beside := range besides {
		res := ggRaceOne(dir, r, beside, "test", write, env)
		repo := filepath.Join(dir, "gogit-race-"+beside+"-test")
		if len(res.stats.times) != 4 || res.failed != ggRaceWrites-4 || res.failSample != "skipped round 4" {
			t.Errorf("%s: %d measured, %d failed (%q); want 4 and %d (skipped round 4)", beside, len(res.stats.times), res.failed, res.failSample, ggRaceWrites-4)
		}
		if res.lostOwn != 1 || res.lostBeside != 0 || res.roots != 1 {
			t.Errorf("%s: lost own %d, lost git's %d, %d roots; want 1, 0, 1", beside, res.lostOwn, res.lostBeside, res.roots)
		}
		if res.fsck != "fsck --strict ok" || res.status != "status clean" {
			t.Errorf("%s: %q, %q", beside, res.fsck, res.status)
		}
		mustFsck(t, env, repo)
		log := runGit(t, env, repo, "log", "--format=%s", "main")
		for round := 0; round < 3; round++ {
			if !strings.Contains(log, "write "+strconv.Itoa(round)+"\n") {
				t.Errorf("%s: write %d is not in the history", beside, round)
			}
		}
		// Every git commit the loop counted is in the history.
		if beside == "commit" && strings.Count(log, "beside ") != res.beside {
			t.Errorf("the loop made %d commits, the history holds %d", res.beside, strings.Count(log, "beside "))
		}
	}
}

func TestGGInitTrace(t *testing.T) {
	_, env := benchEnv(t)
	// This test binary, told to exit at once: its packages initialise.
	env = append(env, asVar+"=exit", "GORACE=atexit_sleep_ms=0")
	in := ggInitTrace(env, t.TempDir(), os.Args[0], 1)
	if len(in.order) == 0 || !slices.Contains(in.order, "runtime") {
		t.Fatalf("init order %q, want runtime among the packages", in.order)
	}
	var sum time.Duration
	for _, p := range in.order {
		d, ok := in.clock[p]
		if !ok || d < 0 {
			t.Errorf("package %s: clock %v, %v", p, d, ok)
		}
		sum += d
	}
	if len(in.clock) != len(in.order) {
		t.Errorf("%d packages timed, %d in order", len(in.clock), len(in.order))
	}
	// One run: the total is the sum of the packages.
	if in.total != sum || in.total <= 0 {
		t.Errorf("total %v, the packages sum to %v", in.total, sum)
	}
	if in.bytes == 0 {
		t.Error("no package initialisation allocated anything")
	}
	three := ggInitTrace(env, t.TempDir(), os.Args[0], 3)
	if !slices.Equal(three.order, in.order) {
		t.Errorf("the order of three runs %q differs from one run's %q", three.order, in.order)
	}
}

func TestGoGitVersion(t *testing.T) {
	got := goGitVersion()
	mod, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github\.com/go-git/go-git/v5 (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod requires no go-git")
	}
	if got != string(m[1]) {
		t.Errorf("goGitVersion() = %q, go.mod requires %s", got, m[1])
	}
}

func TestGGProcessStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs; skipped with -short")
	}
	dir, env, r := trailerRepo(t)
	// go build ./internal/bench/initcost/... from the top of the module,
	// as make bench-gogit runs it.
	t.Chdir(moduleRoot(t))
	row := ggProcessStart(dir, r, 1, env, startEnv)
	if row.part != "9 process: init + open + HEAD (whole binary)" || row.bytesNote != "B/op = bytes allocated by package init" {
		t.Errorf("row %q, %q", row.part, row.bytesNote)
	}
	for name, s := range map[string]ggStats{"gitstate": row.gs, "go-git": row.gg} {
		if len(s.times) != 3 || len(s.bytes) != 1 || s.bytes[0] == 0 {
			t.Errorf("%s: %d times, bytes %v", name, len(s.times), s.bytes)
		}
	}
	if len(row.notes) != 3 || !strings.HasPrefix(row.notes[0], "package init ") || !strings.HasPrefix(row.notes[2], "binaries ") {
		t.Errorf("notes %q", row.notes)
	}
	// Both programs print HEAD as git says it.
	head := runGit(t, env, r.dir, "rev-parse", "HEAD")
	for _, n := range []string{"gitstate", "gogit"} {
		cmd := exec.Command(filepath.Join(dir, "gogit-bin", "initcost-"+n), r.dir)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil || string(out) != head {
			t.Errorf("initcost-%s printed %q, %v; want %q", n, out, err, head)
		}
	}
}
