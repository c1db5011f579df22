//go:build !windows

package precommit

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// runItr replaces the hook's process with `itr hooks pre-commit`.
func runItr(itr string, stderr io.Writer) int {
	err := syscall.Exec(itr, []string{"itr", "hooks", "pre-commit"}, os.Environ())
	fmt.Fprintf(stderr, "itr-hook: run %s: %v\n", itr, err)
	return 1
}
