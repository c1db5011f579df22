//go:build !windows

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tiny is the smallest repository worth building: seven files in three
// folders, four commits. Commit c > 0 changes files (c*7919 + k*104729)
// mod 7 for k = 0, 1, 2, that is (2c + 2k) mod 7: files 2, 4, 6 in commit
// 1; 4, 6, 1 in commit 2; 6, 1, 3 in commit 3. Files 0 and 5 never change.
var tiny = repoSize{"SMALL", 7, 3, 4}

// packed is tiny with 40 commits: enough objects (over fast-import's
// unpack limit of 100) for fast-import to keep its pack. Commit 39 changes
// files (78 + 2k) mod 7: 1, 3 and 5; file 0 last changed in commit 35
// ((70 + 2k) mod 7 = 0, 2, 4), file 6 in commit 38 ((76 + 2k) mod 7 = 6,
// 1, 3).
var packed = repoSize{"SMALL", 7, 3, 40}

// wantPaths is every file of size, as ggPath names them, sorted.
func wantPaths(size repoSize) []string {
	var paths []string
	for i := 0; i < size.files; i++ {
		paths = append(paths, ggPath(size, i))
	}
	slices.Sort(paths)
	return paths
}

func TestBuildRepo(t *testing.T) {
	dir, env := benchEnv(t)
	repo := filepath.Join(dir, "small-base")
	// A leftover from an earlier run is replaced.
	if err := os.MkdirAll(filepath.Join(repo, "junk"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := buildRepo(repo, tiny, env); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "junk")); !os.IsNotExist(err) {
		t.Errorf("buildRepo kept what was in %s before: %v", repo, err)
	}
	mustFsck(t, env, repo)
	if got := runGit(t, env, repo, "rev-list", "--count", "main"); strings.TrimSpace(got) != "4" {
		t.Errorf("%s commits, want 4", strings.TrimSpace(got))
	}
	wantLog := []string{"1700000180 commit 3", "1700000120 commit 2", "1700000060 commit 1", "1700000000 commit 0"}
	if got := lines(runGit(t, env, repo, "log", "--format=%ct %s")); !slices.Equal(got, wantLog) {
		t.Errorf("git log: %q, want %q", got, wantLog)
	}
	if got := strings.TrimSpace(runGit(t, env, repo, "symbolic-ref", "HEAD")); got != "refs/heads/main" {
		t.Errorf("HEAD is %s, want refs/heads/main", got)
	}
	// ggPath names the files as buildRepo does.
	if got := lines(runGit(t, env, repo, "ls-files")); !slices.Equal(got, wantPaths(tiny)) {
		t.Errorf("git ls-files: %q, want %q", got, wantPaths(tiny))
	}
	if got := runGit(t, env, repo, "status", "--porcelain"); got != "" {
		t.Errorf("git status after buildRepo:\n%s", got)
	}
	for i, want := range map[int]string{
		0: "file 0\n", 5: "file 5\n",
		2: "file 2 changed in 1\n", 4: "file 4 changed in 2\n", 6: "file 6 changed in 3\n",
	} {
		p := ggPath(tiny, i)
		if got := runGit(t, env, repo, "show", "HEAD:"+p); got != want {
			t.Errorf("HEAD:%s = %q, want %q", p, got, want)
		}
		if got, err := os.ReadFile(filepath.Join(repo, p)); err != nil || string(got) != want {
			t.Errorf("checked-out %s = %q (%v), want %q", p, got, err, want)
		}
	}
}

func TestBuildTrailerRepo(t *testing.T) {
	dir, env := benchEnv(t)
	repo := filepath.Join(dir, "gogit-small")
	if err := buildTrailerRepo(repo, packed, env); err != nil {
		t.Fatal(err)
	}
	mustFsck(t, env, repo)
	hashes := lines(runGit(t, env, repo, "rev-list", "main"))
	if len(hashes) != 40 {
		t.Fatalf("%d commits, want 40", len(hashes))
	}
	for k, h := range hashes {
		c := 39 - k
		msg := runGit(t, env, repo, "log", "-1", "--format=%B", h)
		if want := "iteration " + strconv.Itoa(c) + "\n\nItr-Unit: T1\nItr-Iteration: " + strconv.Itoa(c) + "\n\n"; msg != want {
			t.Errorf("commit %d message %q, want %q", c, msg, want)
		}
		// git itself reads the two trailers.
		tr := runGit(t, env, repo, "log", "-1", "--format=%(trailers:only,unfold)", h)
		if want := "Itr-Unit: T1\nItr-Iteration: " + strconv.Itoa(c) + "\n\n"; tr != want {
			t.Errorf("commit %d trailers %q, want %q", c, tr, want)
		}
	}
	if got := lines(runGit(t, env, repo, "ls-files")); !slices.Equal(got, wantPaths(packed)) {
		t.Errorf("git ls-files: %q, want %q", got, wantPaths(packed))
	}
	if got := runGit(t, env, repo, "status", "--porcelain"); got != "" {
		t.Errorf("git status after buildTrailerRepo:\n%s", got)
	}
	keep := strings.Repeat("a line that later versions keep\n", 8)
	for i, want := range map[int]string{0: "file 0 changed in 35\n", 6: "file 6 changed in 38\n"} {
		if got := runGit(t, env, repo, "show", "HEAD:"+ggPath(packed, i)); got != want+keep {
			t.Errorf("file %d = %q, want %q", i, got, want+keep)
		}
	}
	// The file benchGoGit reads: one the last commit changed, stored as a
	// delta against its previous version. For packed, 39*7919 mod 7 = 1.
	path := ggPath(packed, (packed.commits-1)*7919%packed.files)
	if path != ggPath(packed, 1) {
		t.Fatalf("the file benchGoGit reads is %s, want file 1", path)
	}
	if got := lines(runGit(t, env, repo, "diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD")); !slices.Contains(got, path) {
		t.Errorf("the last commit changed %q, not %s", got, path)
	}
	if got, want := runGit(t, env, repo, "show", "HEAD:"+path), "file 1 changed in 39\n"+keep; got != want {
		t.Errorf("%s = %q, want %q", path, got, want)
	}
	blob := strings.TrimSpace(runGit(t, env, repo, "rev-parse", "HEAD:"+path))
	cmd := exec.Command("git", "cat-file", "--batch-check=%(objectname) %(deltabase)")
	cmd.Dir, cmd.Env, cmd.Stdin = repo, env, strings.NewReader(blob+"\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(out)); len(f) != 2 || strings.Trim(f[1], "0") == "" {
		t.Errorf("%s is not stored as a delta: %q", path, out)
	}
	// The pack is kept as written: no loose objects, one pack.
	counts := map[string]string{}
	for _, l := range lines(runGit(t, env, repo, "count-objects", "-v")) {
		k, v, _ := strings.Cut(l, ": ")
		counts[k] = v
	}
	if counts["count"] != "0" || counts["packs"] != "1" {
		t.Errorf("git count-objects -v: %v, want no loose object and one pack", counts)
	}
}

func TestClone(t *testing.T) {
	dir, env := benchEnv(t)
	base := filepath.Join(dir, "small-base")
	if err := buildRepo(base, tiny, env); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "small-run")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "leftover"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	clone(env, base, dst)
	if _, err := os.Stat(filepath.Join(dst, "leftover")); !os.IsNotExist(err) {
		t.Errorf("clone kept a file of the folder it replaced: %v", err)
	}
	if a, b := runGit(t, env, base, "rev-parse", "HEAD"), runGit(t, env, dst, "rev-parse", "HEAD"); a != b {
		t.Errorf("the clone is at %s, the base at %s", b, a)
	}
	if got := strings.TrimSpace(runGit(t, env, dst, "symbolic-ref", "HEAD")); got != "refs/heads/main" {
		t.Errorf("the clone's HEAD is %s, want refs/heads/main", got)
	}
	if got := runGit(t, env, dst, "status", "--porcelain"); got != "" {
		t.Errorf("git status in the clone:\n%s", got)
	}
	if got := lines(runGit(t, env, dst, "ls-files")); !slices.Equal(got, wantPaths(tiny)) {
		t.Errorf("the clone holds %q", got)
	}
	mustFsck(t, env, dst)
	// A local clone hard-links the objects: HEAD's commit is the base's
	// file (buildRepo of tiny leaves its few objects loose: fast-import
	// unpacks an import of fewer than 100 objects).
	commit := strings.TrimSpace(runGit(t, env, base, "rev-parse", "HEAD"))
	obj := filepath.Join("objects", commit[:2], commit[2:])
	a, err1 := os.Stat(filepath.Join(base, ".git", obj))
	b, err2 := os.Stat(filepath.Join(dst, ".git", obj))
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		t.Errorf("the clone's %s is not a hard link of the base's: %v %v", obj, err1, err2)
	}
}

func TestCloneCRLF(t *testing.T) {
	dir, env := benchEnv(t)
	base := filepath.Join(dir, "small-base")
	if err := buildRepo(base, tiny, env); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "small-run-crlf")
	cloneCRLF(env, base, dst)
	if got := strings.TrimSpace(runGit(t, env, dst, "config", "--local", "core.autocrlf")); got != "true" {
		t.Errorf("core.autocrlf is %q in the clone's own config, want true", got)
	}
	if got := runGit(t, env, dst, "status", "--porcelain"); got != "" {
		t.Errorf("git status in the CRLF clone:\n%s", got)
	}
	for _, p := range wantPaths(tiny) {
		data, err := os.ReadFile(filepath.Join(dst, p))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(data), "\r\n") || strings.Count(string(data), "\n") != strings.Count(string(data), "\r\n") {
			t.Errorf("%s in the CRLF clone = %q, want every line ending in CRLF", p, data)
		}
		if lineEnding(filepath.Join(dst, p)) != "\r\n" || lineEnding(filepath.Join(base, p)) != "\n" {
			t.Errorf("lineEnding: %s is not CRLF in the clone and LF in the base", p)
		}
		// What git stores is unchanged: LF.
		if blob := runGit(t, env, dst, "show", "HEAD:"+p); strings.Contains(blob, "\r") {
			t.Errorf("HEAD:%s holds a CR: %q", p, blob)
		}
	}
}

// looseObjects counts the files in the object folders 00 to ff of gitDir.
func looseObjects(t *testing.T, gitDir string) int {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(gitDir, "objects", "[0-9a-f][0-9a-f]"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		n += len(es)
	}
	return n
}

// duSK is what `du -sk` says of p.
func duSK(t *testing.T, p string) int64 {
	t.Helper()
	out, err := exec.Command("du", "-sk", p).Output()
	if err != nil {
		t.Skipf("du -sk: %v", err)
	}
	n, err := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	if err != nil {
		t.Fatalf("du -sk %s printed %q", p, out)
	}
	return n
}

// closeTo fails the test unless got is want within a KiB: du rounds the
// 512-byte blocks up to KiB, duKiB rounds down.
func closeTo(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got < want-1 || got > want {
		t.Errorf("%s: %d KiB, du -sk says %d", what, got, want)
	}
}

func TestDuKiB(t *testing.T) {
	dir := t.TempDir()
	closeTo(t, "an empty folder", duKiB(dir), duSK(t, dir))
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, size := range []int{1, 5000, 100_000} {
		p := filepath.Join(dir, "a", strings.Repeat("b/", i%2), "f"+strconv.Itoa(i))
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	got, want := duKiB(dir), duSK(t, dir)
	closeTo(t, "a folder of three files", got, want)
	if got < 100_000/1024 {
		t.Errorf("duKiB = %d KiB for 100 kB of data", got)
	}
}

func TestMeasureStorage(t *testing.T) {
	dir, env := benchEnv(t)
	repo := filepath.Join(dir, "small-hist-20")
	runGit(t, env, "", "init", "-q", repo)
	for i := 0; i < 20; i++ {
		name := "f" + strconv.Itoa(i) + ".txt"
		if err := os.WriteFile(filepath.Join(repo, name), []byte(strings.Repeat(name, 50)), 0o644); err != nil {
			t.Fatal(err)
		}
		runGit(t, env, repo, "add", name)
		runGit(t, env, repo, "commit", "-q", "-m", name)
	}
	gitDir := filepath.Join(repo, ".git")
	loose := looseObjects(t, gitDir) // 20 commits, trees and blobs
	if loose != 60 {
		t.Fatalf("%d loose objects before, want 60", loose)
	}
	du := duSK(t, gitDir)

	s := measureStorage(env, repo, 20)
	if s.n != 20 {
		t.Errorf("n = %d, want 20", s.n)
	}
	closeTo(t, ".git", s.du, du)
	if s.loose != int64(loose) || s.packs != 0 {
		t.Errorf("loose %d, packs %d; the folder holds %d loose objects and no pack", s.loose, s.packs, loose)
	}
	if s.looseKiB <= 0 || s.looseKiB > s.du {
		t.Errorf("loose objects take %d KiB of a .git of %d", s.looseKiB, s.du)
	}
	// git gc packs the 60 objects into one file: less than 60 blocks.
	if s.gcDu <= 0 || s.gcDu >= s.du {
		t.Errorf(".git after git gc: %d KiB, before %d KiB", s.gcDu, s.du)
	}
	// The copy that was collected is gone and the repository untouched.
	if _, err := os.Stat(repo + "-gc"); !os.IsNotExist(err) {
		t.Errorf("the gc copy %s-gc is left behind: %v", repo, err)
	}
	if got := looseObjects(t, gitDir); got != loose {
		t.Errorf("measureStorage changed the repository: %d loose objects, were %d", got, loose)
	}
	mustFsck(t, env, repo)
}

func TestWaitMaintenance(t *testing.T) {
	repo := t.TempDir()
	objects := filepath.Join(repo, ".git", "objects")
	if err := os.MkdirAll(objects, 0o755); err != nil {
		t.Fatal(err)
	}
	waitMaintenance(repo) // nothing running: returns

	locks := []string{filepath.Join(objects, "maintenance.lock"), filepath.Join(repo, ".git", "gc.pid")}
	for _, l := range locks {
		if err := os.WriteFile(l, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		waitMaintenance(repo)
		close(done)
	}()
	for _, l := range locks {
		select {
		case <-done:
			t.Fatalf("waitMaintenance returned while %s was there", l)
		case <-time.After(400 * time.Millisecond):
		}
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("waitMaintenance still waits with no lock left")
	}
}

func TestRun(t *testing.T) {
	dir, env := benchEnv(t)
	repo := filepath.Join(dir, "r")
	if err := run(env, "", "git", "init", "-q", repo); err != nil {
		t.Fatalf("run git init: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		t.Fatalf("git init made no repository: %v", err)
	}
	err := run(env, repo, "git", "rev-parse", "--verify", "nope")
	if err == nil {
		t.Fatal("run of a failing git returned no error")
	}
	// The command, its failure and what it printed.
	for _, want := range []string{"git rev-parse --verify nope: exit status 128", "fatal: Needed a single revision"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("run's error %q does not hold %q", err, want)
		}
	}
}

func TestGGGit(t *testing.T) {
	dir, env := benchEnv(t)
	repo := filepath.Join(dir, "r")
	runGit(t, env, "", "init", "-q", repo)
	runGit(t, env, repo, "commit", "-q", "--allow-empty", "-m", "first")
	out, err := ggGit(env, repo, "log", "--format=%s %an <%ae>")
	// isolatedEnv's identity wins over the .gitconfig's.
	if err != nil || out != "first Bench <bench@example.com>\n" {
		t.Errorf("ggGit log = %q, %v", out, err)
	}
	_, err = ggGit(env, repo, "rev-parse", "nope")
	if err == nil {
		t.Fatal("ggGit of a failing command returned no error")
	}
	if !strings.HasPrefix(err.Error(), "git rev-parse nope: exit status 128: fatal: ambiguous argument 'nope'") {
		t.Errorf("ggGit's error %q", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("ggGit's error holds more than git's first line: %q", err)
	}
	if got := string(gitOut(env, repo, "log", "--format=%s")); got != "first\n" {
		t.Errorf("gitOut = %q", got)
	}
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, env, repo, "add", "a.txt")
	runGit(t, env, repo, "commit", "-q", "-m", "a")
	if got := string(gitShow(env, repo, "HEAD:a.txt")); got != "a\nb\n" {
		t.Errorf("gitShow = %q", got)
	}
	if got, want := gitVersion(env), strings.TrimSpace(runGit(t, env, "", "--version")); got != want || !strings.HasPrefix(got, "git version ") {
		t.Errorf("gitVersion = %q, git --version says %q", got, want)
	}
}

func TestTimed(t *testing.T) {
	dir, env := benchEnv(t)
	d, rss := timed(env, dir, "true")
	if d <= 0 || rss <= 0 {
		t.Errorf("timed(true) = %v, %d KiB; want both positive", d, rss)
	}
	loop := "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"
	d, cpu, rss := timedFull(env, dir, "sh", "-c", loop)
	if d <= 0 || cpu <= 0 || rss <= 0 {
		t.Errorf("timedFull(a shell loop) = %v, cpu %v, %d KiB; want all positive", d, cpu, rss)
	}
	d, cpu = timedCPU(env, dir, "sh", "-c", "sh -c '"+loop+"'")
	if d <= 0 || cpu <= 0 {
		t.Errorf("timedCPU(a loop in a child) = %v, cpu %v; want both positive (the child's time counts)", d, cpu)
	}
	// The command runs in dir with env.
	out := filepath.Join(dir, "out")
	timed(append(env, "BENCH_TEST_MARK=here"), dir, "sh", "-c", `pwd > out; echo "$BENCH_TEST_MARK" >> out`)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := filepath.EvalSymlinks(dir)
	if g := strings.Split(strings.TrimSpace(string(got)), "\n"); len(g) != 2 || (g[0] != dir && g[0] != wd) || g[1] != "here" {
		t.Errorf("the command saw %q, want its folder %s and the environment given", got, dir)
	}
}

func TestPeakRSS(t *testing.T) {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		t.Skip("no /usr/bin/time")
	}
	dir, env := benchEnv(t)
	small, err := peakRSS(env, dir, "true")
	if err != nil {
		t.Skipf("/usr/bin/time -f %%M does not work here: %v", err)
	}
	if small <= 0 {
		t.Errorf("peakRSS(true) = %d KiB", small)
	}
	// awk building a string of 64 MiB: the peak is the command's, not the
	// bench's nor /usr/bin/time's.
	big, err := peakRSS(env, dir, "awk", `BEGIN { s = "x"; while (length(s) < 50000000) s = s s; print length(s) }`)
	if err != nil {
		t.Fatal(err)
	}
	if big < 60_000 || big <= small {
		t.Errorf("peakRSS of awk holding 64 MiB = %d KiB (true: %d KiB)", big, small)
	}
	if _, err := peakRSS(env, dir, "false"); err == nil || !strings.Contains(err.Error(), "/usr/bin/time false") {
		t.Errorf("peakRSS(false) = %v, want the command's failure", err)
	}
}

func TestGGFsck(t *testing.T) {
	dir, env := benchEnv(t)
	repo := filepath.Join(dir, "r")
	runGit(t, env, "", "init", "-q", repo)
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, env, repo, "add", "a.txt")
	runGit(t, env, repo, "commit", "-q", "-m", "a")
	if got := ggFsck(env, repo); got != "fsck --strict ok" {
		t.Errorf("ggFsck of a sound repository = %q", got)
	}
	// Take the blob away: fsck must complain.
	blob := strings.TrimSpace(runGit(t, env, repo, "rev-parse", "HEAD:a.txt"))
	if err := os.Remove(filepath.Join(repo, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	if got := ggFsck(env, repo); !strings.HasPrefix(got, "fsck --strict FAILED (") {
		t.Errorf("ggFsck of a repository missing a blob = %q", got)
	}
}

func TestGGReflog(t *testing.T) {
	dir, env := benchEnv(t)
	repo := filepath.Join(dir, "r")
	runGit(t, env, "", "init", "-q", "-b", "main", repo)
	var hashes []string
	for i := 0; i < 3; i++ {
		runGit(t, env, repo, "commit", "-q", "--allow-empty", "-m", strconv.Itoa(i))
		hashes = append(hashes, strings.TrimSpace(runGit(t, env, repo, "rev-parse", "HEAD")))
	}
	cases := []struct {
		hashes []string
		want   string
	}{
		{hashes, "reflog has every commit"},
		{nil, "reflog has every commit"},
		{append(slices.Clone(hashes[:2]), strings.Repeat("0", 40)), "reflog MISSING 1 of 3 commits"},
		{[]string{"1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"}, "reflog MISSING 2 of 2 commits"},
	}
	for _, c := range cases {
		if got := ggReflog(env, repo, c.hashes); got != c.want {
			t.Errorf("ggReflog(%d hashes) = %q, want %q", len(c.hashes), got, c.want)
		}
	}
	// Without the branch's reflog none of them is recorded.
	if err := os.Remove(filepath.Join(repo, ".git", "logs", "refs", "heads", "main")); err != nil {
		t.Fatal(err)
	}
	if got := ggReflog(env, repo, hashes); got != "reflog MISSING 3 of 3 commits" {
		t.Errorf("ggReflog without a reflog = %q", got)
	}
	// Without the branch, git cannot show its reflog.
	empty := filepath.Join(dir, "empty")
	runGit(t, env, "", "init", "-q", "-b", "main", empty)
	if got := ggReflog(env, empty, hashes); !strings.HasPrefix(got, "reflog unreadable: git reflog show") {
		t.Errorf("ggReflog of a branch not yet born = %q", got)
	}
}

func TestGGFreshClone(t *testing.T) {
	dir, env := benchEnv(t)
	base := filepath.Join(dir, "gogit-small")
	if err := buildTrailerRepo(base, tiny, env); err != nil {
		t.Fatal(err)
	}
	head := runGit(t, env, base, "rev-parse", "HEAD")
	dst := filepath.Join(dir, "gogit-write-small-gitstate")
	ggFreshClone(env, base, dst)
	if got := runGit(t, env, dst, "rev-parse", "HEAD"); got != head {
		t.Fatalf("the fresh clone is at %s, want %s", got, head)
	}
	// An earlier run's commit and files are undone, the clone kept.
	marker := filepath.Join(dst, ".git", "kept")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "untracked.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, env, dst, "commit", "-q", "--allow-empty", "-m", "an earlier run")
	if err := os.WriteFile(filepath.Join(dst, ggPath(tiny, 0)), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ggFreshClone(env, base, dst)
	if got := runGit(t, env, dst, "rev-parse", "HEAD"); got != head {
		t.Errorf("after a reset the clone is at %s, want %s", got, head)
	}
	if got := runGit(t, env, dst, "status", "--porcelain", "--ignored"); got != "" {
		t.Errorf("git status after a reset:\n%s", got)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the clone was made again instead of reset: %v", err)
	}
	// A folder without its own .git is cloned, not reset.
	plain := filepath.Join(dir, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	ggFreshClone(env, base, plain)
	if got := runGit(t, env, plain, "rev-parse", "HEAD"); got != head {
		t.Errorf("a clone into a plain folder is at %s, want %s", got, head)
	}
}
