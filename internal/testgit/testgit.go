// Package testgit prepares the real git for tests: a home of their own
// with an identity, and nothing of the machine's configuration or of the
// caller's environment that would make git or itr look elsewhere. Only
// tests import it.
package testgit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Name and Email are the identity Isolate gives git.
const (
	Name  = "Test Agent"
	Email = "agent@example.com"
)

// cleared are the variables that would make git or itr look elsewhere
// than the test's repository and home, or name another identity or time.
var cleared = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
	"GIT_CEILING_DIRECTORIES", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_SYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
	"GIT_COMMITTER_EMAIL", "EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE",
	"ITR_ROOT", "ITR_TASK", "ITR_ENGINE", "ITR_AGENT", "ITR_MODEL", "ITR_SESSION", "ITR_NOW",
}

// noMaintenance is gitstate.NoMaintenanceEnv: itr starts no background
// git maintenance after its commits, which would outlive the test's
// folders. (Spelled here so that this package imports nothing of itr's.)
const noMaintenance = "ITR_NO_MAINTENANCE"

// Isolate points HOME and XDG_CONFIG_HOME at a new temporary folder whose
// .gitconfig names the identity Name <Email>, main as the default branch
// and no advice on detached heads; it reads no system configuration,
// clears the variables in cleared for the test, and keeps itr from
// starting git's maintenance. It returns the home.
func Isolate(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range cleared {
		t.Setenv(v, "")
		if err := os.Unsetenv(v); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(noMaintenance, "1")
	config := "[init]\n\tdefaultBranch = main\n[user]\n\tname = " + Name + "\n\temail = " + Email + "\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// Git runs git in dir and returns what it printed, stdout and stderr
// together; an error fails the test, naming the command and its output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Try(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Try runs git in dir and returns what it printed, stdout and stderr
// together, and its error.
func Try(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
