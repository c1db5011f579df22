package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// readAll reads every line of in with a bound of max bytes, a long line
// as "LONG <size> <id>".
func readAll(t *testing.T, in string, max int) []string {
	t.Helper()
	lr := &lineReader{r: bufio.NewReaderSize(strings.NewReader(in), 16), max: max}
	var got []string
	for {
		line, long, err := lr.next()
		switch {
		case long != nil:
			got = append(got, "LONG "+itoa(long.size)+" "+string(long.id))
		case len(line) > 0:
			got = append(got, string(line))
		}
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestLineReader(t *testing.T) {
	big := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"short lines pass whole", "{\"id\":1}\n{}\n", []string{"{\"id\":1}\n", "{}\n"}},
		{"the last line needs no newline", "a\nb", []string{"a\n", "b"}},
		{"a line at the bound passes", strings.Repeat("y", 63) + "\n", []string{strings.Repeat("y", 63) + "\n"}},
		{"a line over the bound is skipped, its id read", `{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"` + big + `"}}` + "\nnext\n",
			[]string{`LONG 156 7`, "next\n"}},
		{"the id after the params", `{"params":{"id":3,"a":"` + big + `"},"id":"req-9"}` + "\n",
			[]string{`LONG 140 "req-9"`}},
		{"an id inside a string is not the id", `{"method":"x","params":"\"id\":5 ` + big + `"}` + "\n",
			[]string{`LONG 136 `}},
		{"an id that is an object is not read", `{"id":{"a":1},"p":"` + big + `"}`,
			[]string{`LONG 121 `}},
		{"a batch has no id", `[{"id":1,"p":"` + big + `"}]` + "\n", []string{`LONG 118 `}},
		{"not JSON", big + "\n", []string{`LONG 101 `}},
		{"an escaped quote before the id", `{"p":"\"` + big + `","id":-2.5}` + "\n", []string{`LONG 121 -2.5`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readAll(t, tc.in, 64)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// FuzzLineReader: whatever the input, the reader gives back every line of
// up to max bytes whole and in order, and for each longer one its size and
// the id json.Unmarshal reads from it (when the line is one JSON object
// with a string or number id).
func FuzzLineReader(f *testing.F) {
	for _, seed := range []string{
		"{\"id\":1}\n{}\n", `{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"` + strings.Repeat("x", 80) + "\"}}\nnext",
		`{"params":{"id":3},"id":"r"}`, "[1,2]\n\n\n", `{"id":"\u0041\"` + strings.Repeat("z", 70) + `"}`,
	} {
		f.Add([]byte(seed), uint8(40))
	}
	f.Fuzz(fuzzLinesBody)
}

// fuzzLinesBody is FuzzLineReader's check of one input.
func fuzzLinesBody(t *testing.T, in []byte, max uint8) {
	m := int(max)%96 + 1
	lr := &lineReader{r: bufio.NewReaderSize(bytes.NewReader(in), 16), max: m}
	want := bytes.SplitAfter(in, []byte{'\n'})
	for i := 0; ; i++ {
		line, long, err := lr.next()
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		if i >= len(want) {
			if line != nil || long != nil || err == nil {
				t.Fatalf("more lines than the input holds")
			}
			return
		}
		w := want[i]
		if len(w) <= m {
			if !bytes.Equal(line, w) || long != nil {
				t.Fatalf("line %d: got %q (long %v), want %q", i, line, long, w)
			}
		} else {
			if long == nil || long.size != int64(len(w)) {
				t.Fatalf("line %d of %d bytes over %d: got %q, %+v", i, len(w), m, line, long)
			}
			checkID(t, w, long.id)
		}
		if errors.Is(err, io.EOF) {
			if i != len(want)-1 {
				t.Fatalf("the input ended at line %d of %d", i, len(want))
			}
			return
		}
	}
}

// checkID compares the id the scanner read from line with the one
// encoding/json reads, where the line is one object whose id is a string
// or a number of up to maxID bytes.
func checkID(t *testing.T, line []byte, got json.RawMessage) {
	t.Helper()
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || bytes.Count(line, []byte(`"id"`)) != 1 || bytes.Contains(line, []byte(`\`)) {
		return // duplicate keys and escaped keys: either answer will do
	}
	id, ok := m["id"]
	if !ok || len(id) > maxID || (id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		if got != nil {
			t.Fatalf("read id %s from %q, which has none to read", got, line)
		}
		return
	}
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(id, &b) != nil || a != b {
		t.Fatalf("read id %s from %q, want %s", got, line, id)
	}
}
