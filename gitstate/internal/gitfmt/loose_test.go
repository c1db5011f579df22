package gitfmt

import (
	"bytes"
	"compress/zlib"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// deflated is s compressed as a loose object is.
func deflated(s string) *bytes.Reader {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return bytes.NewReader(b.Bytes())
}

// TestReadLoose reads a loose object into one buffer of the size its
// header names (with Room to spare) and refuses any header or body that
// does not agree; looseSize reads the header alone.
func TestReadLoose(t *testing.T) {
	big := strings.Repeat("entry\n", (1<<20)/6+1)
	for _, tc := range []struct {
		name, raw string
		want      string
		ok        bool
	}{
		{"blob", "blob 5\x00hello", "hello", true},
		{"empty", "blob 0\x00", "", true},
		{"large", "blob " + itoa(len(big)) + "\x00" + big, big, true},
		{"short body", "blob 6\x00hello", "", false},
		{"trailing bytes", "blob 4\x00hello", "", false},
		{"leading zero", "blob 05\x00hello", "", false},
		{"negative", "blob -5\x00hello", "", false},
		{"no size", "blob\x00hello", "", false},
		{"bad type", "blub 5\x00hello", "", false},
		{"no NUL", "blob 5 hello", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ, data, err := readLoose(deflated(tc.raw))
			if !tc.ok {
				if !errors.Is(err, ErrUnreadable) {
					t.Fatalf("readLoose = %v, want ErrUnreadable", err)
				}
				return
			}
			if err != nil || typ != Blob || string(data) != tc.want {
				t.Fatalf("readLoose = %v, %d bytes, %v", typ, len(data), err)
			}
			if cap(data)-len(data) != Room(len(data)) {
				t.Errorf("spare capacity %d, want Room = %d", cap(data)-len(data), Room(len(data)))
			}
			st, n, err := looseSize(deflated(tc.raw))
			if err != nil || st != Blob || n != int64(len(tc.want)) {
				t.Errorf("looseSize = %v, %d, %v", st, n, err)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRoom: none below a megabyte; 1/256 from there, at least 64 KiB.
func TestRoom(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1<<20 - 1: 0, 1 << 20: 64 << 10, 100 << 20: 400 << 10} {
		if got := Room(n); got != want {
			t.Errorf("Room(%d) = %d, want %d", n, got, want)
		}
	}
}
