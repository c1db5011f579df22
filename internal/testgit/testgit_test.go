package testgit

import (
	"os"
	"strings"
	"testing"

	"github.com/itr-dev/itr/gitstate"
)

// The name of the maintenance switch is gitstate's.
func TestNoMaintenanceIsGitstates(t *testing.T) {
	if noMaintenance != gitstate.NoMaintenanceEnv {
		t.Fatalf("noMaintenance is %q, gitstate reads %q", noMaintenance, gitstate.NoMaintenanceEnv)
	}
}

// An isolated git commits as the test identity on main, reads nothing of
// the caller's environment, and Git fails on git's errors.
func TestIsolate(t *testing.T) {
	t.Setenv("GIT_AUTHOR_NAME", "Someone Else")
	t.Setenv("ITR_TASK", "other")
	home := Isolate(t)
	if os.Getenv("HOME") != home {
		t.Fatalf("HOME is %q, not %q", os.Getenv("HOME"), home)
	}
	if _, set := os.LookupEnv("GIT_AUTHOR_NAME"); set {
		t.Error("GIT_AUTHOR_NAME is still set")
	}
	if _, set := os.LookupEnv("ITR_TASK"); set {
		t.Error("ITR_TASK is still set")
	}
	dir := t.TempDir()
	Git(t, dir, "init", "-q")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	if got := strings.TrimSpace(Git(t, dir, "log", "-1", "--format=%an <%ae>")); got != Name+" <"+Email+">" {
		t.Errorf("author %q", got)
	}
	if got := strings.TrimSpace(Git(t, dir, "symbolic-ref", "--short", "HEAD")); got != "main" {
		t.Errorf("branch %q", got)
	}
	if out, err := Try(dir, "rev-parse", "--verify", "no-such-ref"); err == nil {
		t.Errorf("Try of a failing git returned no error: %q", out)
	}
}
