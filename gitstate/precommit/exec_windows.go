package precommit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// runChained runs the hook that was there before itr's and returns its
// exit status.
func runChained(path string, args []string) (int, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// lookPath finds name in PATH.
func lookPath(name string) (string, bool) {
	p, err := exec.LookPath(name)
	return p, err == nil
}

// runItr runs `itr hooks pre-commit` and returns its exit status.
func runItr(itr string, stderr io.Writer) int {
	code, err := runChained(itr, []string{"hooks", "pre-commit"})
	if err != nil {
		fmt.Fprintf(stderr, "itr-hook: run %s: %v\n", itr, err)
		return 1
	}
	return code
}
