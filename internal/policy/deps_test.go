package policy

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/itr-dev/itr"

// pure are the packages that must not touch the filesystem, git, the clock
// or the environment: the formats and the reducer.
var pure = map[string][]string{
	"state":           {"internal/clip"},
	"plan":            {"state", "internal/lazyre", "internal/clip"},
	"evidence":        nil,
	"progresslog":     {"state", "internal/lazyre", "internal/clip", "github.com/sergi/go-diff/diffmatchpatch"},
	"internal/lazyre": nil,
	"internal/clip":   nil,
	"reconcile":       {"state", "plan", "progresslog", "evidence", "internal/clip", "github.com/sergi/go-diff/diffmatchpatch"},
}

// forbiddenStd are standard packages that reach the outside world.
var forbiddenStd = []string{"os", "os/exec", "os/signal", "os/user", "net", "net/http", "syscall", "io/ioutil", "plugin", "runtime/cgo", "math/rand", "math/rand/v2", "crypto/rand", "log", "embed"}

// clock are the functions of package time that read the clock.
var clock = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"}

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goFiles calls fn with the path, and the path relative to the module
// root, of every Go file of the module (tests included) outside hidden
// folders and testdata; an error of fn or of the walk fails the test.
func goFiles(t *testing.T, fn func(path, rel string) error) {
	t.Helper()
	r := root(t)
	err := filepath.WalkDir(r, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != r && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(r, path)
		return fn(path, rel)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPurePackagesImportPolicy(t *testing.T) {
	r := root(t)
	for pkg, allowed := range pure {
		t.Run(pkg, func(t *testing.T) {
			bp, err := build.ImportDir(filepath.Join(r, pkg), 0)
			if err != nil {
				t.Fatalf("%s: %v", pkg, err)
			}
			ok := map[string]bool{}
			for _, a := range allowed {
				if strings.Contains(a, ".") {
					ok[a] = true
				} else {
					ok[module+"/"+a] = true
				}
			}
			for _, imp := range bp.Imports {
				switch {
				case ok[imp]:
				case strings.Contains(strings.Split(imp, "/")[0], "."):
					t.Errorf("%s imports %s: the pure core may import only the stdlib, %v", pkg, imp, allowed)
				default:
					for _, bad := range forbiddenStd {
						if imp == bad || strings.HasPrefix(imp, "os/") {
							t.Errorf("%s imports %s: the pure core reads no files, environment or randomness", pkg, imp)
							break
						}
					}
				}
			}
			for _, f := range bp.GoFiles {
				checkNoClock(t, filepath.Join(r, pkg, f))
			}
		})
	}
}

// checkNoClock fails when a file calls a function of package time that
// reads the clock.
func checkNoClock(t *testing.T, path string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	timeName := ""
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == "time" {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	if timeName == "" {
		return
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == timeName {
			for _, c := range clock {
				if sel.Sel.Name == c {
					t.Errorf("%s: %s.%s reads the clock; time is an input of the pure core", fset.Position(sel.Pos()), timeName, c)
				}
			}
		}
		return true
	})
}

// TestOnlyGitstateImportsGoGit keeps go-git behind one package; the
// benchmark that compares gitstate with go-git imports it too.
func TestOnlyGitstateImportsGoGit(t *testing.T) {
	onlyImporter(t, []string{"gitstate", "internal/bench"}, "go-git", "github.com/go-git/")
}

// rooms are the rooms of workspace and the rooms each may import. Arrows
// point down: no room imports workspace (the use cases above them) or a
// room not listed here, and the front ends reach the rooms only through
// workspace.
var rooms = map[string][]string{
	ws + "/store":    nil,
	ws + "/verify":   {ws + "/store", ws + "/index"},
	ws + "/recovery": {ws + "/store"},
	ws + "/runs":     nil,
	ws + "/merge":    {ws + "/store", ws + "/index"},
	ws + "/hooks":    {ws + "/store", ws + "/verify"},
	ws + "/index":    {ws + "/store"},
	ws + "/view":     {ws + "/store", ws + "/verify", ws + "/runs"},
	ws + "/record":   {ws + "/store", ws + "/verify", ws + "/recovery", ws + "/index", ws + "/merge", ws + "/view"},
	ws + "/archive":  {ws + "/store", ws + "/record", ws + "/merge", ws + "/view"},
	ws + "/sync":     {ws + "/store", ws + "/record", ws + "/merge"},
	ws + "/create":   {ws + "/store", ws + "/record", ws + "/merge", ws + "/archive"},
	ws + "/claims":   {ws + "/store", ws + "/record"},
	ws + "/board":    {ws + "/store", ws + "/view"},
}

// ws is the use cases' package, the rooms' parent.
const ws = "internal/workspace"

func TestRoomsPointDown(t *testing.T) {
	r := root(t)
	entries, err := os.ReadDir(filepath.Join(r, ws))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := rooms[ws+"/"+e.Name()]; e.IsDir() && e.Name() != "testdata" && !ok {
			t.Errorf("%s/%s is not in the policy's list of rooms: add it with the rooms it may import", ws, e.Name())
		}
	}
	isRoom := func(imp string) bool {
		_, ok := rooms[strings.TrimPrefix(imp, module+"/")]
		return ok
	}
	for room, allowed := range rooms {
		bp, err := build.ImportDir(filepath.Join(r, room), 0)
		if err != nil {
			t.Fatalf("%s: %v", room, err)
		}
		for _, imp := range bp.Imports {
			rel := strings.TrimPrefix(imp, module+"/")
			switch {
			case rel == ws:
				t.Errorf("%s imports workspace: a room never reaches up to the use cases", room)
			case isRoom(imp) && !slices.Contains(allowed, rel):
				t.Errorf("%s imports %s: it may import the rooms %v only", room, rel, allowed)
			}
		}
	}
	for _, front := range []string{"cmd/itr", "internal/mcpserver", "internal/mcpcmd", "internal/cliopts", "internal/serve"} {
		bp, err := build.ImportDir(filepath.Join(r, front), 0)
		if err != nil {
			t.Fatalf("%s: %v", front, err)
		}
		for _, imp := range bp.Imports {
			if isRoom(imp) {
				t.Errorf("%s imports %s: front ends reach the rooms through workspace", front, imp)
			}
		}
	}
}

// TestOnlyMCPServerImportsTheSDK keeps the MCP SDK (and the JSON Schema
// package it infers tool schemas with) behind one package, so the protocol
// never leaks into the workspace or the CLI.
func TestOnlyMCPServerImportsTheSDK(t *testing.T) {
	onlyImporter(t, []string{"internal/mcpserver"}, "the MCP SDK", "github.com/modelcontextprotocol/", "github.com/google/jsonschema-go/")
}

// onlyImporter fails for every Go file outside the folders pkgs that
// imports a path beginning with one of prefixes.
func onlyImporter(t *testing.T, pkgs []string, what string, prefixes ...string) {
	t.Helper()
	var offenders []string
	goFiles(t, func(path, rel string) error {
		for _, pkg := range pkgs {
			if strings.HasPrefix(rel, filepath.FromSlash(pkg)+string(filepath.Separator)) {
				return nil
			}
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, prefix := range prefixes {
				if strings.HasPrefix(p, prefix) {
					offenders = append(offenders, rel+" imports "+p)
				}
			}
		}
		return nil
	})
	sort.Strings(offenders)
	for _, o := range offenders {
		t.Errorf("%s: only %s may import %s", o, strings.Join(pkgs, " and "), what)
	}
}

// TestITRDoesNotLinkTheSDK keeps the MCP SDK out of the itr binary: its
// package inits and size would slow down every command (itr mcp runs the
// separate itr-mcp).
func TestITRDoesNotLinkTheSDK(t *testing.T) {
	walkImports(t, "cmd/itr", func(imp, via string) {
		if strings.HasPrefix(imp, "github.com/modelcontextprotocol/") || strings.HasPrefix(imp, "github.com/google/jsonschema-go/") {
			t.Errorf("cmd/itr links %s through %s: run the MCP server as itr-mcp instead", imp, via)
		}
	})
}

// walkImports calls visit for every import of the module's package start
// and of the module's packages it links, with the package importing it.
func walkImports(t *testing.T, start string, visit func(imp, via string)) map[string]bool {
	t.Helper()
	r := root(t)
	seen := map[string]bool{}
	var walk func(pkg string)
	walk = func(pkg string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		bp, err := build.ImportDir(filepath.Join(r, strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range bp.Imports {
			visit(imp, pkg)
			if strings.HasPrefix(imp, module+"/") {
				walk(imp)
			}
		}
	}
	walk(module + "/" + start)
	return seen
}

// TestHookProgramStaysSmall keeps itr-hook, which every `git commit` starts,
// to the standard library's cheap packages: each package linked adds to the
// start-up of a commit that stages no log (docs/guide/hooks.md, "The pre-commit hook").
// No module outside this one; none of crypto (its FIPS self-checks start
// with it), os/exec, net, regexp, encoding/json or text/template.
func TestHookProgramStaysSmall(t *testing.T) {
	forbidden := []string{"crypto", "os/exec", "net", "regexp", "encoding/json", "text/template", "html/template"}
	linked := walkImports(t, "cmd/itr-hook", func(imp, via string) {
		switch {
		case strings.HasPrefix(imp, module+"/"):
		case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
			t.Errorf("cmd/itr-hook links %s through %s: the hook program takes the standard library alone", imp, via)
		default:
			for _, f := range forbidden {
				if imp == f || strings.HasPrefix(imp, f+"/") {
					t.Errorf("cmd/itr-hook links %s through %s: every git commit would pay for its start-up", imp, via)
				}
			}
		}
	})
	if !linked[module+"/gitstate/precommit"] {
		t.Fatal("cmd/itr-hook no longer runs gitstate/precommit")
	}
}
