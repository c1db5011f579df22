package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuoteAndText(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, tc := range []struct{ in, quote, text string }{
		{"T1", `"T1"`, "T1"},
		{"", `""`, ""},
		{strings.Repeat("y", Max), `"` + strings.Repeat("y", Max) + `"`, strings.Repeat("y", Max)},
		{long, `"` + strings.Repeat("x", Max) + `"… (1048576 bytes)`, strings.Repeat("x", Max) + "… (1048576 bytes)"},
		// a character across the cut is left out whole
		{strings.Repeat("a", Max-1) + "é" + "zz", `"` + strings.Repeat("a", Max-1) + `"… (203 bytes)`, strings.Repeat("a", Max-1) + "… (203 bytes)"},
	} {
		if got := Quote(tc.in); got != tc.quote {
			t.Errorf("Quote(%.20q…) = %.60q, want %.60q", tc.in, got, tc.quote)
		}
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%.20q…) = %.60q, want %.60q", tc.in, got, tc.text)
		}
		if !utf8.ValidString(Text(tc.in)) {
			t.Errorf("Text(%.20q…) is not UTF-8", tc.in)
		}
	}
}

func TestWithin(t *testing.T) {
	long := strings.Repeat("y", 1000)
	msg := "open /tmp/refs/" + long + ": file name too long (" + long + ")"
	want := "open /tmp/refs/" + Text(long) + ": file name too long (" + Text(long) + ")"
	if got := Within(msg, []string{"short", long}); got != want {
		t.Errorf("Within = %.80q…, want %.80q…", got, want)
	}
	if got := Within("short and short", []string{"short"}); got != "short and short" {
		t.Errorf("a short argument was cut: %q", got)
	}
}
