//go:build !windows

package runs

import "strings"

// hasDir reports whether the command name is a path (holds a slash) rather
// than a name to look up in PATH.
func hasDir(name string) bool { return strings.Contains(name, "/") }

// findExecutable returns path when it is a file this process may execute,
// else why not.
func findExecutable(path string) (string, error) {
	if err := checkExecutable(path); err != nil {
		return "", err
	}
	return path, nil
}

// sameEnvKey reports whether two names of environment variables are the
// same variable's.
func sameEnvKey(a, b string) bool { return a == b }
