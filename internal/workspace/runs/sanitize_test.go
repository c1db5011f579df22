package runs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "ok  \tgithub.com/x\t0.1s\n", "ok  \tgithub.com/x\t0.1s\n"},
		{"empty", "", ""},
		{"sgr colours", "\x1b[1;31mFAIL\x1b[0m x\n", "FAIL x\n"},
		{"csi private", "\x1b[?25lhidden\x1b[?25h\n", "hidden\n"},
		{"csi erase line", "a\x1b[2K\x1b[1Gb\n", "ab\n"},
		{"csi intermediate", "a\x1b[1 qb", "ab"},
		{"osc bel", "\x1b]0;title\x07text\n", "text\n"},
		{"osc st", "\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\\n", "link\n"},
		{"dcs st", "a\x1bPq#0;2\x1b\\b", "ab"},
		{"osc unterminated keeps newline", "\x1b]0;title\nnext\n", "\nnext\n"},
		{"osc cut by esc", "\x1b]0;t\x1b[31mred", "red"},
		{"two-byte esc", "a\x1b7b\x1b8c\x1b=d", "abcd"},
		{"charset designation", "\x1b(Bplain\x1b[m", "plain"},
		{"lone esc at end", "abc\x1b", "abc"},
		{"esc before control", "a\x1b\x01b", "ab"},
		{"csi cut by newline", "a\x1b[12\nb", "a\nb"},
		{"csi at end", "a\x1b[12", "a"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"progress bar", "10%\r50%\r100%\ndone\n", "100%\ndone\n"},
		{"progress bar then clear", "working\r\x1b[Kdone\n", "done\n"},
		{"trailing cr", "abc\r", ""},
		{"cr cr lf", "abc\r\r\n", "\n"},
		{"cr only on its line", "a\nb\rc\nd", "a\nc\nd"},
		{"c0 controls", "a\x00b\x01c\x07d\x08e\x0bf\x0cg\x7fh", "abcdefgh"},
		{"tab kept", "a\tb", "a\tb"},
		{"c1 controls", "a\u0085b\u009bc\u0080d\u009fe", "abcde"},
		{"not c1", "a\u00a0b\u00e9c", "a\u00a0b\u00e9c"},
		{"invalid utf8", "a\xffb\xc3c", "a\ufffdb\ufffdc"},
		{"raw c1 byte", "a\x9bb", "a\ufffdb"},
		{"truncated rune at end", "ab\xe2\x82", "ab\ufffd\ufffd"},
		{"surrogate", "a\xed\xa0\x80b", "a\ufffd\ufffd\ufffdb"},
		{"valid runes", "héllo, 世界 🎉\n", "héllo, 世界 🎉\n"},
		{"replacement char kept", "a\ufffdb", "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize([]byte(tt.in))
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, string(got), string(Sanitize(got)), "idempotent")
		})
	}
}

// TestSanitizeSplitReads checks what Run relies on: output read in pieces,
// with an escape sequence or a rune split between reads, sanitizes the same
// as when it is read at once, because Run sanitizes the joined bytes.
func TestSanitizeSplitReads(t *testing.T) {
	in := []byte("\x1b[1;32mok\x1b[0m 世界\r\nnext\x1b]0;t\x07 é\n")
	want := "ok 世界\nnext é\n"
	for cut := 0; cut <= len(in); cut++ {
		c := &capture{}
		_, _ = c.Write(in[:cut])
		_, _ = c.Write(in[cut:])
		var r Result
		c.fill(&r)
		assert.Equal(t, want, string(r.Output), "cut at %d", cut)
		assert.Equal(t, 2, r.Lines)
	}
}
