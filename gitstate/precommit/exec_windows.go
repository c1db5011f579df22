package precommit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// runItr runs `itr hooks pre-commit` and returns its exit status.
func runItr(itr string, stderr io.Writer) int {
	cmd := exec.Command(itr, "hooks", "pre-commit")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "itr-hook: run %s: %v\n", itr, err)
	return 1
}
