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

// TestCloneSharesNoNewKeys checks that a clone and its original, which
// share their key order, each keep the unknown keys set on it alone.
func TestCloneSharesNoNewKeys(t *testing.T) {
	s, err := Decode([]byte(`{"task": "x", "slug": "x", "mode": "development", "phase": "plan", "z": 1, "tasks": {"T1": {"status": "pending", "kept": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := s.Clone()
	c.Units["T1"].SetExtra("added", []byte(`2`))
	s.Units["T1"].SetExtra("other", []byte(`3`))
	c.extra.set("top", []byte(`4`))
	if got := s.Units["T1"].ExtraKeys(); len(got) != 2 || got[0] != "kept" || got[1] != "other" {
		t.Errorf("the original's unit keys are %v, want [kept other]", got)
	}
	if got := c.Units["T1"].ExtraKeys(); len(got) != 2 || got[0] != "kept" || got[1] != "added" {
		t.Errorf("the clone's unit keys are %v, want [kept added]", got)
	}
	if _, ok := s.extra.get("top"); ok || strings.Contains(string(s.Encode()), `"top"`) {
		t.Errorf("a key set on the clone shows in the original:\n%s", s.Encode())
	}
	if !strings.Contains(string(c.Encode()), `"top": 4`) {
		t.Errorf("the clone lost its key:\n%s", c.Encode())
	}
}
