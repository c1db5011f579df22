package policy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownTestsOver is the size, in lines of non-test Go, above which a
// package must have tests of its own: reaching it only through the
// packages above it, or only through end-to-end scenarios, is not enough.
const ownTestsOver = 300

// TestLargePackagesHaveTestsOfTheirOwn fails for every package of the
// module with more than ownTestsOver lines of non-test Go and no _test.go
// file of its own.
func TestLargePackagesHaveTestsOfTheirOwn(t *testing.T) {
	type pkg struct {
		lines int
		tests bool
	}
	pkgs := map[string]*pkg{}
	goFiles(t, func(path, file string) error {
		rel := filepath.Dir(file)
		p := pkgs[rel]
		if p == nil {
			p = &pkg{}
			pkgs[rel] = p
		}
		if strings.HasSuffix(path, "_test.go") {
			p.tests = true
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		p.lines += bytes.Count(data, []byte("\n"))
		return nil
	})
	for rel, p := range pkgs {
		if p.lines > ownTestsOver && !p.tests {
			t.Errorf("%s has %d lines of Go and no tests of its own: add a %s/*_test.go that tests it directly", filepath.ToSlash(rel), p.lines, filepath.ToSlash(rel))
		}
	}
}
