package precommit

import (
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
