package policy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gitDirLiteral reports whether a string constant names a place inside
// git's own directory or in /proc: ".git", ".git/…", "/proc/…". Prose that
// mentions such a path in a sentence is not a path and passes.
func gitDirLiteral(s string) bool {
	return s == ".git" || strings.HasPrefix(s, ".git/") || strings.HasPrefix(s, ".git\\") ||
		strings.HasPrefix(s, "/proc/") || s == "/proc"
}

// ownProcesses allows internal/workspace/runs to read /proc: it watches the
// processes of the check it started itself (to tell the zombies an init
// that reaps nothing leaves from a group still running), never git's.
func ownProcesses(file, s string) bool {
	return strings.Contains(filepath.ToSlash(file), "/workspace/runs/") && (s == "/proc" || strings.HasPrefix(s, "/proc/"))
}

// TestOnlyGitstateKnowsGitsDirectory keeps the layout of the git directory
// (and reading other processes through /proc) inside gitstate: no other
// non-test Go file holds a string naming ".git/…" or "/proc/…", or asks
// for the git directory itself (Repo.GitDir, Repo.CommonDir) to build paths
// under it. internal/bench is a measuring tool outside the product: it
// builds repositories and drives the git CLI like a user.
func TestOnlyGitstateKnowsGitsDirectory(t *testing.T) {
	keep := func(rel string) bool { return !under(rel, "gitstate") && !under(rel, "internal/bench") }
	eachGoFile(t, keep, func(fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind == token.STRING {
					if s, err := strconv.Unquote(x.Value); err == nil && gitDirLiteral(s) && !ownProcesses(fset.Position(x.Pos()).Filename, s) {
						t.Errorf("%s: the string %s: only gitstate knows where git's directory is and what is in it; add what you need to gitstate", fset.Position(x.Pos()), x.Value)
					}
				}
			case *ast.SelectorExpr:
				if x.Sel.Name == "GitDir" || x.Sel.Name == "CommonDir" {
					t.Errorf("%s: a call of %s: only gitstate knows where git's directory is; add what you need to gitstate", fset.Position(x.Pos()), x.Sel.Name)
				}
			}
			return true
		})
	})
}

// TestGitDirLiteral pins what counts as a path into git's directory.
func TestGitDirLiteral(t *testing.T) {
	for s, want := range map[string]bool{
		".git": true, ".git/config": true, ".git/itr-run": true, "/proc/1/cmdline": true,
		"kept under .git/itr/recovered/": false, ".gitattributes": false, "/procedure": false, "": false,
	} {
		if got := gitDirLiteral(s); got != want {
			t.Errorf("gitDirLiteral(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestStatusNamesLiveInState: the unit statuses that are not also common
// words are spelled only in package state; every other package uses its
// constants, so a new status or a renamed one is a change in one place.
func TestStatusNamesLiveInState(t *testing.T) {
	names := map[string]bool{"in_progress": true, "confirming": true, "verifying": true}
	eachGoFile(t, func(rel string) bool { return !under(rel, "state") }, func(fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			if x, ok := n.(*ast.BasicLit); ok && x.Kind == token.STRING {
				if s, err := strconv.Unquote(x.Value); err == nil && names[s] {
					t.Errorf("%s: the status %s is spelled here; use package state's constant", fset.Position(x.Pos()), x.Value)
				}
			}
			return true
		})
	})
}

// eachGoFile parses every non-test Go file of the module (outside hidden
// folders and testdata) whose path relative to the module root keep
// accepts, and calls fn with it.
func eachGoFile(t *testing.T, keep func(rel string) bool, fn func(fset *token.FileSet, f *ast.File)) {
	t.Helper()
	goFiles(t, func(path, rel string) error {
		if strings.HasSuffix(path, "_test.go") || !keep(rel) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		fn(fset, f)
		return nil
	})
}

// under reports whether rel is inside the folder dir (slash-separated).
func under(rel, dir string) bool {
	return strings.HasPrefix(filepath.ToSlash(rel), dir+"/")
}
