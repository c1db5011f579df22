package precommit

import (
	"fmt"
	"io"
	"os"
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
			code, err := runChained(chained, args[1:])
			if err != nil {
				fmt.Fprintf(stderr, "itr-hook: run %s: %v\n", chained, err)
				return 1
			}
			if code != 0 {
				return code
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
	itr, ok := lookPath("itr")
	if !ok {
		fmt.Fprintln(stderr, "itr: not on PATH; the append-only check of itr's logs was skipped")
		return 0
	}
	return runItr(itr, stderr)
}
