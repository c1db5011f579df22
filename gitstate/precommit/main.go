package precommit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Marker is in every copy of the hook program, as it is in the script
// hook: `itr hooks install` and `uninstall` know their own hook by it.
const Marker = "# itr-hook: append-only check"

// ChainedName is the hook that was in place before itr's, run first.
const ChainedName = "pre-commit.itr-chained"

// Main runs the pre-commit hook and returns its exit status. args are the
// hook's command line (args[0] is where git found it); the hook that was
// there before runs first, and a failure of it is the commit's. Then Look
// decides: Clean lets the commit go on; otherwise `itr hooks pre-commit`
// takes over the process. Without itr on PATH, a commit that stages a log
// is let through with a warning, as the script hook does. ITR_HOOK_TRACE=1
// prints the verdict on stderr.
func Main(args []string, stderr io.Writer) int {
	if len(args) > 1 && (args[1] == "--version" || args[1] == "--about") {
		fmt.Fprintf(stderr, "itr-hook: itr's pre-commit hook program\n%s\n", Marker)
		return 0
	}
	if len(args) > 0 {
		chained := filepath.Join(filepath.Dir(args[0]), ChainedName)
		if fi, err := os.Stat(chained); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			cmd := exec.Command(chained, args[1:]...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					return ee.ExitCode()
				}
				fmt.Fprintf(stderr, "itr-hook: run %s: %v\n", chained, err)
				return 1
			}
		}
	}
	v, why := Look(".", os.Getenv)
	if os.Getenv("ITR_HOOK_TRACE") != "" {
		fmt.Fprintf(stderr, "itr-hook: %s %s\n", v, why)
	}
	if v == Clean {
		return 0
	}
	itr, err := exec.LookPath("itr")
	if err != nil {
		fmt.Fprintln(stderr, "itr: not on PATH; the append-only check of itr's logs was skipped")
		return 0
	}
	return runItr(itr, stderr)
}
