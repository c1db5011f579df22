package gitstate

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseRawTree: any bytes parse without panic; a parsed tree written
// back in the same order is the same bytes, for both hash sizes.
func FuzzParseRawTree(f *testing.F) {
	f.Add([]byte("100644 a.txt\x00"+strings.Repeat("\x01", 20)+"40000 d\x00"+strings.Repeat("\x02", 20)), false)
	f.Add([]byte("100644 a.txt\x00"+strings.Repeat("\x01", 32)), true)
	f.Add([]byte("100644 a"), false)
	f.Add([]byte(""), true)
	f.Fuzz(func(t *testing.T, data []byte, sha256 bool) {
		n := 20
		if sha256 {
			n = 32
		}
		es, err := parseRawTree(data, n)
		if err != nil {
			return
		}
		var b bytes.Buffer
		for _, e := range es {
			raw, err := hex.DecodeString(e.id)
			if err != nil || len(raw) != n {
				t.Fatalf("entry %q: id %q is not %d bytes of hex", e.name, e.id, n)
			}
			b.WriteString(e.mode + " " + e.name + "\x00")
			b.Write(raw)
		}
		if !bytes.Equal(b.Bytes(), data) {
			t.Fatalf("round trip: %q != %q", b.Bytes(), data)
		}
	})
}

// FuzzAttributeReasons: any attributes file reads without panic, and a
// line is a reason exactly when one of its attributes (after the pattern)
// sets a converting attribute.
func FuzzAttributeReasons(f *testing.F) {
	for _, s := range []string{"*.md text eol=crlf\n", "*.png binary\n", "* -text\n", "[attr]mine filter=x\n* mine\n", "# comment\n\n*.json filter=redact", "*.go merge=itr diff=golang\n", "* !eol\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		dir := t.TempDir()
		p := filepath.Join(dir, ".gitattributes")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		rs := attributeFileReasons(Location{Root: dir}, p)
		want := 0
		for _, line := range strings.Split(strings.ReplaceAll(content, "\r", "\n"), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
				continue
			}
			for _, tok := range fields[1:] {
				k, _, _ := strings.Cut(tok, "=")
				if conversionAttrs[k] {
					want++
					break
				}
			}
		}
		if len(rs) > want {
			t.Fatalf("%d reasons for %d converting lines in %q: %v", len(rs), want, content, rs)
		}
		if want > 0 && len(rs) == 0 && !strings.Contains(content, "\r") {
			t.Fatalf("no reason for %q", content)
		}
	})
}

// FuzzKeepTrailers: whatever a commit-msg hook leaves, itr's trailers are
// trailers of the final message, and a message that kept them is left as
// it is.
func FuzzKeepTrailers(f *testing.F) {
	orig := "itr(demo): T1 iteration 1: x\n\nItr-Task: demo\nItr-Unit: T1\n"
	f.Add(orig + "\nHooked-By: me\n")
	f.Add(orig)
	f.Add("a hook rewrote everything\n")
	f.Add(orig + "Signed-off-by: A <a@b>\n")
	f.Fuzz(func(t *testing.T, edited string) {
		if strings.ContainsAny(edited, "\x00\r") {
			return
		}
		kept := keepTrailers(orig, edited)
		if strings.TrimSpace(kept) == "" {
			return // an emptied message: the commit is refused
		}
		final := cleanMessage(kept)
		have := map[string]bool{}
		for _, tr := range ParseTrailers(final) {
			have[tr.Key+": "+tr.Value] = true
		}
		for _, tr := range ParseTrailers(orig) {
			if !have[tr.Key+": "+tr.Value] {
				t.Fatalf("trailer %s: %s lost from %q (hook left %q)", tr.Key, tr.Value, final, edited)
			}
		}
	})
}

// FuzzParseCone: any sparse-checkout file parses without panic, and every
// path is either in a cone it parsed or not; a cone always has the files at
// the top and everything under a folder it names with "/name/".
func FuzzParseCone(f *testing.F) {
	f.Add("/*\n!/*/\n/src/\n")
	f.Add("/*\n!/*/\n/a/\n!/a/*/\n/a/b/\n")
	f.Add("*.md\n")
	f.Add("/*\n")
	f.Add("/*\n!/*/\n/we\\*ird/\n")
	f.Fuzz(func(t *testing.T, data string) {
		c := parseCone(data)
		if c == nil {
			return
		}
		if !c.includes("top.txt") {
			t.Fatalf("a file at the top is outside the cone of %q", data)
		}
		for d := range c.recursive {
			if !c.includes(d + "/x/y.txt") {
				t.Fatalf("%s/x/y.txt is outside the cone of %q, which names %s/", d, data, d)
			}
		}
	})
}
