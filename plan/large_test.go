package plan

import (
	"fmt"
	"strings"
	"testing"
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
