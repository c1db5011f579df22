package agentsetup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/itr-dev/itr/internal/atomicfile"
)

// safeTarget returns the file to write for abs: abs itself, or where its
// symbolic links lead when that is still inside base (the repository, or
// the home folder with --global). A link out of base is refused: itr does
// not write through it.
func safeTarget(base, abs, shown string) (string, error) {
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", base, err)
	}
	// Resolve the longest existing prefix: the file, else its folders.
	existing, rest := abs, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("%s: %w; fix or remove the broken link, nothing was changed", shown, err)
	}
	if rest != "" {
		real = filepath.Join(real, rest)
	}
	if !within(realBase, real) {
		return "", fmt.Errorf("%s is a symbolic link to %s, outside %s; itr does not write through it: edit that file yourself or replace the link, nothing was changed", shown, real, base)
	}
	if st, err := os.Stat(real); err == nil && !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file; nothing was changed", shown)
	}
	return real, nil
}

func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// writeAtomic replaces path with data through a temporary file beside it,
// so a reader sees the old file or the new one, never a part.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	return atomicfile.Write(path, data, mode)
}
