package precommit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzFindPackedRef reads arbitrary packed-refs files: it never panics, and
// what it finds is on a line of its own ending in the name.
func FuzzFindPackedRef(f *testing.F) {
	f.Add([]byte("# pack-refs with: peeled fully-peeled sorted \n0123456789012345678901234567890123456789 refs/heads/main\n^0123456789012345678901234567890123456789\n"), "refs/heads/main")
	f.Add([]byte("0123456789012345678901234567890123456789 refs/heads/mainline\r\n"), "refs/heads/main")
	f.Add([]byte(" refs/heads/x"), "refs/heads/x")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		hexID, ok := findPackedRef(data, name)
		if !ok {
			return
		}
		line := hexID + " " + name
		for _, l := range strings.Split(string(data), "\n") {
			if strings.TrimSuffix(l, "\r") == line {
				return
			}
		}
		t.Fatalf("found %q, which is not a line of %q", line, data)
	})
}

// FuzzStagedLogs reads arbitrary bytes as the index, as the hook does
// (no checksum): it never panics, and what it keeps are logs at stage 0.
func FuzzStagedLogs(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + strings.Repeat("\x01", 20)))
	f.Add(indexWithOneLog(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "index")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		logs, why := (&repo{index: p}).stagedLogs()
		if logs == nil {
			if why == "" {
				t.Fatal("no logs and no reason")
			}
			return
		}
		for name := range logs.entries {
			base := name[strings.LastIndexByte(name, '/')+1:]
			if !isLog([]byte(base)) {
				t.Fatalf("kept %q, which is not a log", name)
			}
		}
	})
}

// indexWithOneLog is a real index (git's own) holding a staged progress.md.
func indexWithOneLog(f *testing.F) []byte {
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "progress.md"), []byte("x\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "progress.md"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			f.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		f.Fatal(err)
	}
	return data
}
