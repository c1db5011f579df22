//go:build !windows

package precommit

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The hook starts processes with os and syscall alone: os/exec would add
// its packages' start-up to every commit.

// runChained runs the hook that was there before itr's and returns its
// exit status (1 when a signal ended it).
func runChained(path string, args []string) (int, error) {
	p, err := os.StartProcess(path, append([]string{path}, args...), &os.ProcAttr{Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		return 0, err
	}
	st, err := p.Wait()
	if err != nil {
		return 0, err
	}
	if code := st.ExitCode(); code >= 0 {
		return code, nil
	}
	return 1, nil
}

// lookPath finds an executable file named name in PATH (an empty entry
// is the current folder), as the shell does.
func lookPath(name string) (string, bool) {
	for _, dir := range strings.Split(os.Getenv("PATH"), string(os.PathListSeparator)) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// runItr replaces the hook's process with `itr hooks pre-commit`.
func runItr(itr string, stderr io.Writer) int {
	err := syscall.Exec(itr, []string{"itr", "hooks", "pre-commit"}, os.Environ())
	fmt.Fprintf(stderr, "itr-hook: run %s: %v\n", itr, err)
	return 1
}
