package state

import (
	"fmt"
	"strings"
	"testing"
)

// TestDecodeAllocatesLittlePerUnit holds decoding to the allocations it
// needs: a unit's ID, and a few per thousand units for the arenas that
// hold the units, their counts and their keys' order. A unit's keys are
// shared strings, its path is built only for an error, and its key list
// is one buffer reused. Before, a plain unit cost twelve.
func TestDecodeAllocatesLittlePerUnit(t *testing.T) {
	const n = 4000
	var b strings.Builder
	b.WriteString(`{"schema_version": 1, "task": "Demo", "slug": "demo", "mode": "development", "phase": "execute", "tasks": {`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"T%d": {"status": "pending", "iterations_used": 0, "max_iterations": 5}`, i)
	}
	b.WriteString("}}")
	data := []byte(b.String())
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Units) != n || Val(s.Units["T77"].MaxIterations) != 5 || s.Units["T77"].ID != "T77" {
		t.Fatalf("decoded %d units, T77 = %+v", len(s.Units), s.Units["T77"])
	}
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Decode(data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1.2*n {
		t.Errorf("Decode of %d units made %.0f allocations, want at most %d", n, allocs, int(1.2*n))
	}
}
