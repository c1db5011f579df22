package plan

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/itr-dev/itr/state"
)

// chainedPlan is a tasks.md of n units, each depending on the one before,
// as the bench's plans part writes it.
func chainedPlan(n int) []byte {
	var b strings.Builder
	b.WriteString("# Demo - Tasks\n\n## Tasks\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] **T%d**: unit %d\n  - Max iterations: 5\n", i, i)
		if i > 1 {
			fmt.Fprintf(&b, "  - Depends: T%d\n", i-1)
		}
	}
	return []byte(b.String())
}

// BenchmarkParseLarge parses a plan of 10,000 chained units and asks it
// what a view asks of every unit.
func BenchmarkParseLarge(b *testing.B) {
	data := chainedPlan(10000)
	b.ReportAllocs()
	for b.Loop() {
		p, err := Parse("tasks.md", data)
		if err != nil {
			b.Fatal(err)
		}
		_ = p.DepMap()
		_ = p.ReplacedBy()
	}
}

// TestOneSpaced checks oneSpaced against what it stands for.
func TestOneSpaced(t *testing.T) {
	for _, s := range []string{"", " ", "Max iterations", "Max  iterations", " Depends", "Depends ", "Check\tlint", "a\u00a0b", "Check lint x", "x\n", "Ünit key", "a\vb"} {
		if got, want := oneSpaced(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneSpaced(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestParseLargeSharesTheCheckedGraph checks that a parsed plan's queries
// answer from the graph Parse checked, as a fresh build would.
func TestParseLargeSharesTheCheckedGraph(t *testing.T) {
	p, err := Parse("tasks.md", chainedPlan(50))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Deps("T50"); len(got) != 1 || got[0] != "T49" {
		t.Errorf("Deps(T50) = %v, want [T49]", got)
	}
	fresh := p.build(nil)
	for i, id := range fresh.ids {
		if got, want := p.Deps(id), fresh.names(fresh.deps[i]); !slices.Equal(got, want) {
			t.Errorf("Deps(%s) = %v, a fresh graph says %v", id, got, want)
		}
	}
	if p.AnyReplaces() || len(p.ReplacedBy()) != 0 {
		t.Errorf("a plan without Replaces: AnyReplaces %v, ReplacedBy %v", p.AnyReplaces(), p.ReplacedBy())
	}
}

// TestSyncViewWithTheParsedPlan checks that syncing with the plan Parse
// returned for the same bytes writes what a sync that reads them does.
func TestSyncViewWithTheParsedPlan(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string][]byte{"chain": chainedPlan(30)}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = data
		texts[f+" (CRLF)"] = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	}
	for name, data := range texts {
		for _, file := range []string{"tasks.md", "plan.md"} {
			p, err := Parse(file, data)
			if err != nil {
				continue
			}
			ids := p.IDs()
			s := &state.State{Units: map[string]*state.Unit{}}
			for i, id := range ids {
				st := state.Pending
				if i%2 == 0 {
					st = state.Done
				}
				s.Units[id] = &state.Unit{ID: id, Status: st}
			}
			if ok, _ := parsedFrom(p, data); !ok && !bytes.ContainsAny(data, "\r") {
				t.Errorf("%s as %s: the plan just parsed is not known as the file's", name, file)
			}
			want, wantChanged := SyncView(data, ids, s)
			got, gotChanged := SyncViewWith(data, p, ids, s)
			if !bytes.Equal(got, want) || gotChanged != wantChanged {
				t.Errorf("%s as %s: SyncViewWith differs from SyncView", name, file)
			}
		}
	}
}

// TestParseAllocatesLittlePerUnit holds Parse of a chained plan to a few
// allocations per unit: the units come from one slab, a sub-item being
// read is the parser's own, the units' key lines share chunks, and a
// Depends value's IDs are written over its tokens. Before, a unit of
// three lines cost eight.
func TestParseAllocatesLittlePerUnit(t *testing.T) {
	const n = 4000
	data := chainedPlan(n)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Parse("tasks.md", data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 4*n {
		t.Errorf("Parse of %d units made %.0f allocations, want at most %d", n, allocs, 4*n)
	}
}
