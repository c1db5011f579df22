package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/itr-dev/itr/internal/gitserver"
	"github.com/itr-dev/itr/internal/mcpcmd"
)

func TestMain(m *testing.M) {
	os.Setenv("GORACE", noExitSleep(os.Getenv("GORACE")))
	testscript.Main(m, map[string]func(){
		"itr": func() {
			os.Exit(Main(os.Args[1:], IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv}))
		},
		"itr-mcp": func() {
			os.Exit(mcpcmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, "test"))
		},
	})
}

// noExitSleep adds atexit_sleep_ms=0 to the race detector's options (the
// GORACE variable) unless they set it: under -race every process sleeps a
// second on its way out by default, waiting for goroutines to race, and
// the scenarios run the test binary as itr some two thousand times. A race
// is still reported when it happens (exit 66 fails the command).
func noExitSleep(gorace string) string {
	if strings.Contains(gorace, "atexit_sleep_ms") {
		return gorace
	}
	return strings.TrimSpace(gorace + " atexit_sleep_ms=0")
}

// buildHookProgram builds cmd/itr-hook as make build does, into a folder of
// its own that the scenarios put on PATH.
func buildHookProgram(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "itr-hook"), "../itr-hook")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build itr-hook: %v\n%s", err, out)
	}
	return dir
}

// TestScripts runs the end-to-end scenarios in testdata/script: each builds
// its repository with the real git and judges the result with it.
func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the end-to-end scenarios need git on PATH")
	}
	hookDir := buildHookProgram(t)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "newergit":
				// Set up once; why it could not be is printed once.
				_, err := newerGit()
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			// itr-hook, which `itr hooks install` copies, as a user has
			// it: on PATH (next to itr there is the test binary alone).
			env.Setenv("PATH", hookDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("GORACE", os.Getenv("GORACE")) // set by TestMain
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_TERMINAL_PROMPT", "0") // a refused login fails instead of asking
			env.Setenv("GIT_AUTHOR_NAME", "Test Agent")
			env.Setenv("GIT_AUTHOR_EMAIL", "agent@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Test Agent")
			env.Setenv("GIT_COMMITTER_EMAIL", "agent@example.com")
			env.Setenv("GIT_CONFIG_COUNT", "1")
			env.Setenv("GIT_CONFIG_KEY_0", "init.defaultBranch")
			env.Setenv("GIT_CONFIG_VALUE_0", "main")
			// No background repack may outlive a scenario's folder;
			// maintenance-auto.txtar turns it back on where it is the subject.
			env.Setenv("ITR_NO_MAINTENANCE", "1")
			// ITR_ENGINE=git runs every scenario on git's plumbing;
			// ITR_ENGINE_TRACE counts the engines the scenarios choose.
			for _, v := range []string{"ITR_ENGINE", "ITR_ENGINE_TRACE"} {
				if val := os.Getenv(v); val != "" {
					env.Setenv(v, val)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// gitserver ROOT [USER PASSWORD]: serves the bare repositories
			// under ROOT over smart HTTP (git http-backend, Basic auth when
			// a user is given) until the script ends; sets GITSERVER to its
			// URL and, with a user, GITSERVER_CRED to the credential-store
			// line http://USER:PASSWORD@127.0.0.1:PORT.
			"gitserver": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || (len(args) != 1 && len(args) != 3) {
					ts.Fatalf("usage: gitserver ROOT [USER PASSWORD]")
				}
				var opt gitserver.Options
				if len(args) == 3 {
					opt = gitserver.Options{User: args[1], Password: args[2]}
				}
				srv, err := gitserver.Start(ts.MkAbs(args[0]), opt)
				ts.Check(err)
				ts.Defer(func() {
					// Outside a script line ts.Fatalf would panic: log it.
					if err := srv.Close(); err != nil {
						ts.Logf("gitserver: %v", err)
					}
				})
				ts.Setenv("GITSERVER", srv.URL)
				if opt.User != "" {
					ts.Setenv("GITSERVER_CRED", srv.CredentialURL())
				}
			},
			// usenewergit: puts git 2.47 (../shared/tools/newer-git) first on
			// PATH for the rest of the script (guard it with [newergit]).
			"usenewergit": func(ts *testscript.TestScript, neg bool, args []string) {
				dir, err := newerGit()
				if err != nil {
					ts.Fatalf("newer git (2.47) could not be set up: %v", err)
				}
				ts.Setenv("PATH", dir+string(os.PathListSeparator)+ts.Getenv("PATH"))
			},
			// itrexit CODE ARGS...: runs itr ARGS and checks its exit code;
			// stdout and stderr are kept for the next stdout/stderr lines.
			"itrexit": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 1 {
					ts.Fatalf("usage: itrexit CODE [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				got := 0
				if err := ts.Exec("itr", args[1:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("itr: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("itr exited with %d, want %d", got, want)
				}
			},
			// bigline FILE N BEFORE AFTER: appends to FILE one line of
			// BEFORE, N bytes of "x" and AFTER, for inputs too large to
			// spell in a script (a 17 MiB JSON-RPC request, a 70 KiB --did).
			"bigline": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 4 {
					ts.Fatalf("usage: bigline FILE N BEFORE AFTER")
				}
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				ts.Check(err)
				_, err = f.WriteString(args[2] + strings.Repeat("x", n) + args[3] + "\n")
				ts.Check(errors.Join(err, f.Close()))
			},
			// jsonvalid: the last command's stdout is one valid JSON value.
			"jsonvalid": func(ts *testscript.TestScript, neg bool, _ []string) {
				out := ts.ReadFile("stdout")
				if json.Valid([]byte(out)) == neg {
					ts.Fatalf("stdout is valid JSON: %v\n%s", !neg, out)
				}
			},
			// gitsnap save|check NAME: records, or compares with the record,
			// HEAD, every ref, the index entries and git status --porcelain,
			// so a scenario can assert that a failed command changed nothing.
			"gitsnap": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: gitsnap save|check NAME")
				}
				snap := runGit(ts, "rev-parse", "HEAD") + runGit(ts, "for-each-ref") +
					runGit(ts, "ls-files", "--stage", "-t") + runGit(ts, "status", "--porcelain", "--untracked-files=all")
				file := filepath.Join(ts.Getenv("WORK"), ".gitsnap-"+args[1])
				switch args[0] {
				case "save":
					ts.Check(os.WriteFile(file, []byte(snap), 0o644))
				case "check":
					before, err := os.ReadFile(file)
					ts.Check(err)
					if string(before) != snap {
						ts.Fatalf("the repository changed:\nbefore:\n%s\nafter:\n%s", before, snap)
					}
				default:
					ts.Fatalf("usage: gitsnap save|check NAME")
				}
			},
			// gitclean: git fsck --strict is clean and git status --porcelain
			// shows nothing (or only the given paths' lines).
			"gitclean": func(ts *testscript.TestScript, neg bool, args []string) {
				fsck := runGit(ts, "fsck", "--strict")
				if strings.Contains(fsck, "error") || strings.Contains(fsck, "missing") {
					ts.Fatalf("git fsck --strict:\n%s", fsck)
				}
				status := runGit(ts, "status", "--porcelain")
				var extra []string
				for _, line := range strings.Split(strings.TrimRight(status, "\n"), "\n") {
					if line == "" {
						continue
					}
					allowed := false
					for _, a := range args {
						if strings.Contains(line, a) {
							allowed = true
						}
					}
					if !allowed {
						extra = append(extra, line)
					}
				}
				if (len(extra) > 0) != neg {
					ts.Fatalf("git status --porcelain:\n%s", status)
				}
			},
		},
	})
}

var (
	newerGitOnce sync.Once
	newerGitDir  string
	newerGitErr  error
	newerGitSaid sync.Once
)

// newerGit installs git 2.47 with ../shared/tools/newer-git once per test
// process (cached under $ITR_NEWER_GIT, else the user cache folder) and
// returns the folder of its git program.
func newerGit() (string, error) {
	newerGitOnce.Do(func() {
		tool, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "tools", "newer-git"))
		if err != nil {
			newerGitErr = err
			return
		}
		if _, err := os.Stat(tool); err != nil {
			newerGitErr = fmt.Errorf("%s is missing (../shared is not beside the checkout)", tool)
			return
		}
		cache := os.Getenv("ITR_NEWER_GIT")
		if cache == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				newerGitErr = err
				return
			}
			cache = filepath.Join(base, "itr-newer-git")
		}
		out, err := exec.Command("bash", tool, cache).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
			}
			newerGitErr = err
			return
		}
		newerGitDir = filepath.Dir(strings.TrimSpace(string(out)))
	})
	if newerGitErr != nil {
		newerGitSaid.Do(func() {
			fmt.Fprintf(os.Stderr, "SKIP: the reftable scenarios need git 2.47 from ../shared/tools/newer-git, which could not be set up: %v\n", newerGitErr)
		})
	}
	return newerGitDir, newerGitErr
}

func runGit(ts *testscript.TestScript, args ...string) string {
	// The script's git: usenewergit puts another first on its PATH.
	git := "git"
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, "git"); dir != "" {
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				git = p
				break
			}
		}
	}
	cmd := exec.Command(git, args...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "PATH"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
