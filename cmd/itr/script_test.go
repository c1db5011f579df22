package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/itr-dev/itr/internal/mcpcmd"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"itr": func() {
			os.Exit(Main(os.Args[1:], IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv}))
		},
		"itr-mcp": func() {
			os.Exit(mcpcmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, "test"))
		},
	})
}

// TestScripts runs the end-to-end scenarios in testdata/script: each builds
// its repository with the real git and judges the result with it.
func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the end-to-end scenarios need git on PATH")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_NAME", "Test Agent")
			env.Setenv("GIT_AUTHOR_EMAIL", "agent@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Test Agent")
			env.Setenv("GIT_COMMITTER_EMAIL", "agent@example.com")
			env.Setenv("GIT_CONFIG_COUNT", "1")
			env.Setenv("GIT_CONFIG_KEY_0", "init.defaultBranch")
			env.Setenv("GIT_CONFIG_VALUE_0", "main")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
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

func runGit(ts *testscript.TestScript, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
