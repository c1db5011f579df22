//go:build !windows

package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestShapedPlan: the three shapes of the plans table.
func TestShapedPlan(t *testing.T) {
	for _, tt := range []struct {
		shape, want string
	}{
		{"chain", "- [ ] **T1**: unit 1\n  - Max iterations: 5\n- [ ] **T2**: unit 2\n  - Max iterations: 5\n  - Depends: T1\n- [ ] **T3**: unit 3\n  - Max iterations: 5\n  - Depends: T2\n"},
		{"wide", "- [ ] **T1**: unit 1\n  - Max iterations: 5\n- [ ] **T2**: unit 2\n  - Max iterations: 5\n- [ ] **T3**: unit 3\n  - Max iterations: 5\n"},
		{"star", "- [ ] **T1**: unit 1\n  - Max iterations: 5\n- [ ] **T2**: unit 2\n  - Max iterations: 5\n  - Depends: T1\n- [ ] **T3**: unit 3\n  - Max iterations: 5\n  - Depends: T1\n"},
	} {
		got := string(shapedPlan(tt.shape, 3))
		if want := "# Demo - Tasks\n\n## Tasks\n\n" + tt.want; got != want {
			t.Errorf("shapedPlan(%s, 3) =\n%s\nwant\n%s", tt.shape, got, want)
		}
	}
}

// TestMainPlansOnly: -only plans measures every command on every shape
// and prints a ratio with a verdict for each, never asserting a time.
func TestMainPlansOnly(t *testing.T) {
	itr := itrBinary(t)
	dir := t.TempDir()
	stdout, stderr, code := benchMain(t, "-only", "plans", "-plans", "3,5", "-runs", "1", "-itr", itr, "-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "plans only") || !strings.Contains(stdout, "== large plans") {
		t.Errorf("the output:\n%s", stdout)
	}
	for _, c := range append([]string{"plan"}, planReads...) {
		for _, s := range planShapes {
			matchLine(t, stdout, regexp.MustCompile(`^`+c+` +`+s+` +\d+\.\dx \(<=\d+\) (ok|OVER) \[\d+\.\d-\d+\.\d\]$`))
		}
	}
	for _, s := range planShapes {
		matchLine(t, stdout, regexp.MustCompile(`^`+s+` +5  plan \d+\.\d ms  prime `))
	}
}
