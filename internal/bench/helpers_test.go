//go:build !windows

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// startEnv is the environment the test process started with: the go
// command that builds itr needs its own HOME (its build cache), whatever a
// test has set since.
var startEnv = os.Environ()

// asVar names the variable that makes the test binary act as something
// else when a test runs it again: "bench" runs main with the arguments
// given, "exit" exits at once (a binary whose package initialisation
// ggInitTrace can read).
const asVar = "BENCH_TEST_AS"

func TestMain(m *testing.M) {
	switch os.Getenv(asVar) {
	case "bench":
		main()
		os.Exit(0)
	case "exit":
		os.Exit(0)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// benchEnv returns a fresh folder and the environment the bench gives every
// command it runs there (isolatedEnv), with a .gitconfig in that HOME
// holding an identity and init.defaultBranch=main. isolatedEnv already
// drops GIT_*, ITR_*, HOME and XDG_CONFIG_HOME from the test's own
// environment and sets GIT_CONFIG_NOSYSTEM=1.
func benchEnv(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	env := isolatedEnv(dir)
	home := filepath.Join(dir, "home")
	gitconfig := "[user]\n\tname = Bench Test\n\temail = bench-test@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, env
}

// withPath returns env with dir first on PATH, as main puts the itr under
// test there (git runs itr's merge driver by name).
func withPath(env []string, dir string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if strings.HasPrefix(kv, "PATH=") {
			out[i] = "PATH=" + dir + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	return out
}

// envValue is the value of key in env, the last one winning as in exec.
func envValue(env []string, key string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if k, val, _ := strings.Cut(kv, "="); k == key {
			v, ok = val, true
		}
	}
	return v, ok
}

// guardEnv makes the test restore each of keys in its own environment
// when it ends: for the bench's functions that set the process's
// environment (buildHistory, benchMerge, ggProcessEnv).
func guardEnv(t *testing.T, keys ...string) {
	t.Helper()
	for _, k := range keys {
		v, ok := os.LookupEnv(k)
		t.Setenv(k, v)
		if !ok {
			os.Unsetenv(k)
		}
	}
}

// guardAll is guardEnv for every variable of env and every GIT_ variable
// the test process has.
func guardAll(t *testing.T, env []string) {
	t.Helper()
	var keys []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		keys = append(keys, k)
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	guardEnv(t, slices.Compact(keys)...)
}

// runGit runs git in dir with env and returns its standard output; the test
// fails when git does.
func runGit(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	out, err := ggGit(env, dir, args...)
	if err != nil {
		t.Fatalf("in %s: %v", dir, err)
	}
	return out
}

// lines splits a command's output into its lines, without the last
// newline; none for empty output.
func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// mustFsck fails the test unless git fsck --strict finds nothing wrong in
// the repository of dir.
func mustFsck(t *testing.T, env []string, dir string) {
	t.Helper()
	cmd := exec.Command("git", "fsck", "--strict", "--no-dangling", "--no-progress")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("git fsck --strict in %s: %v\n%s", dir, err, out)
	}
}

// captureStdout runs f with os.Stdout going to a pipe and returns what f
// printed there. The bench prints its tables with fmt.Printf.
func captureStdout(t *testing.T, f func()) (out string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(&buf, r)
		close(done)
	}()
	old := os.Stdout
	os.Stdout = w
	defer func() {
		os.Stdout = old
		w.Close()
		<-done
		r.Close()
		out = buf.String()
	}()
	f()
	return ""
}

var (
	binOnce sync.Once
	binDir  string // itr and itr-hook, built once for the whole run
	binErr  error
)

// itrBinary builds cmd/itr and cmd/itr-hook into one folder, as make build
// puts them, once for the whole run, and returns the itr binary. Tests
// that need it are skipped with -short.
func itrBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs itr; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the bench's tests need git on PATH")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "itr-bench-test-bin-")
		if binErr != nil {
			return
		}
		for _, p := range []string{"itr", "itr-hook"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, p), "../../cmd/"+p)
			cmd.Env = append(slices.Clone(startEnv), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = &buildError{p, err, out}
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "itr")
}

// buildError is a failed go build of one of itr's programs.
type buildError struct {
	prog string
	err  error
	out  []byte
}

func (e *buildError) Error() string {
	return "go build ./cmd/" + e.prog + ": " + e.err.Error() + "\n" + string(e.out)
}

// moduleRoot is the folder holding go.mod, two levels above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod two levels above the package: %v", err)
	}
	return root
}
