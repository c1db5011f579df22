package runs

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{
		"go test ./auth/...",
		`sh -c 'go vet ./... && go test ./...'`,
		`echo "a\"b" c\ d ''`,
		"go test | tee",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv, err := SplitCommand(s)
		if err != nil {
			if argv != nil {
				t.Fatalf("SplitCommand(%q) returned argv %q with error %v", s, argv, err)
			}
			return
		}
		if len(argv) == 0 {
			t.Fatalf("SplitCommand(%q) returned no words and no error", s)
		}
		roundTrip(t, argv)
	})
}

// roundTrip fails t unless QuoteCommand(argv) splits back to argv.
func roundTrip(t *testing.T, argv []string) {
	t.Helper()
	line := QuoteCommand(argv)
	back, err := SplitCommand(line)
	if err != nil {
		t.Fatalf("SplitCommand(QuoteCommand(%q)) = %q: %v", argv, line, err)
	}
	if !equalArgv(argv, back) {
		t.Fatalf("round trip of %q through %q gave %q", argv, line, back)
	}
}

func FuzzQuoteCommand(f *testing.F) {
	for _, s := range []string{
		"go\x00test\x00./...",
		"sh\x00-c\x00a && b",
		"echo\x00\x00it's",
		"printf\x00a\nb\x00~x#",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Split(s, "\x00")
		roundTrip(t, argv)
	})
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"\x1b[1;31mFAIL\x1b[0m\r\n",
		"10%\r100%\n",
		"\x1b]0;title\x07a\xffb\u0085c\x00",
		"\x1b(B\x1bP\x1b\\\x1b",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := Sanitize(b)
		if again := Sanitize(out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", b, out, again)
		}
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8: %q -> %q", b, out)
		}
		for _, r := range string(out) {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("control %U left in %q (from %q)", r, out, b)
			}
		}
		if bytes.Count(out, []byte{'\n'}) != bytes.Count(b, []byte{'\n'}) {
			t.Fatalf("newlines changed: %q -> %q", b, out)
		}
	})
}

func equalArgv(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
