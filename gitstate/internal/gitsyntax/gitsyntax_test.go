package gitsyntax

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSuffixes(t *testing.T) {
	tests := []struct {
		ops  string
		want []Step
		ok   bool
	}{
		{"", nil, true},
		{"~", []Step{{Op: '~', N: 1}}, true},
		{"~3^2", []Step{{Op: '~', N: 3}, {Op: '^', N: 2}}, true},
		{"^0", []Step{{Op: '^', N: 0}}, true},
		{"^{commit}~2^{}", []Step{{Peel: true}, {Op: '~', N: 2}, {Peel: true}}, true},
		{"~99999999999999999999", nil, false},
	}
	for _, tt := range tests {
		got, ok := Suffixes(tt.ops)
		assert.Equal(t, tt.ok, ok, tt.ops)
		assert.Equal(t, tt.want, got, tt.ops)
	}
}

func TestZone(t *testing.T) {
	for tz, want := range map[string]int{"+0000": 0, "+0200": 7200, "-0130": -5400, "+1400": 50400} {
		loc, ok := Zone(tz)
		require.True(t, ok, tz)
		_, off := time.Unix(0, 0).In(loc).Zone()
		assert.Equal(t, want, off, tz)
	}
	for _, tz := range []string{"", "0200", "+02", "+02000", "+aa00", "+00bb", "*0200"} {
		_, ok := Zone(tz)
		assert.False(t, ok, tz)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[byte]byte{'n': '\n', 't': '\t', 'b': '\b', '\\': '\\', '"': '"'} {
		got, ok := Unescape(in)
		assert.True(t, ok)
		assert.Equal(t, want, got)
	}
	_, ok := Unescape('x')
	assert.False(t, ok)
}

func TestQuoteConfig(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "": `""`, " lead": `" lead"`, "a#b": `"a#b"`, "a;b": `"a;b"`,
		`say "hi"`: `"say \"hi\""`, `back\slash`: `"back\\slash"`,
	} {
		assert.Equal(t, want, QuoteConfig(in), in)
	}
}

func TestSetSection(t *testing.T) {
	const base = "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /x\n[user]\n\tname = A\n"
	tests := []struct {
		name, data, sub string
		keys            [][2]string
		want            string
	}{
		{"replaced in place", base, "origin", [][2]string{{"url", "/y"}, {"fetch", "+refs/*:refs/*"}},
			"[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /y\n\tfetch = +refs/*:refs/*\n[user]\n\tname = A\n"},
		{"removed", base, "origin", nil, "[core]\n\tbare = false\n[user]\n\tname = A\n"},
		{"added at the end, after a newline", "[core]\n\tbare = false", "up", [][2]string{{"url", "a b "}},
			"[core]\n\tbare = false\n[remote \"up\"]\n\turl = \"a b \"\n"},
		{"added to nothing", "", "up", [][2]string{{"url", "/u"}}, "[remote \"up\"]\n\turl = /u\n"},
		{"nothing to remove", base, "none", nil, base},
		{"the last section, name in another case", "[REMOTE \"origin\"]\n\turl = /x\n", "origin", [][2]string{{"url", "/z"}},
			"[remote \"origin\"]\n\turl = /z\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetSection([]byte(tt.data), "remote", tt.sub, tt.keys)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	_, err := SetSection([]byte(base), "remote", "origin", [][2]string{{"url", "a\nb"}})
	assert.ErrorContains(t, err, "config remote.origin.url: a value cannot hold a newline")
	start, end := FindSection([]byte(base), "remote", "Origin")
	assert.Equal(t, [2]int{-1, -1}, [2]int{start, end}, "the subsection matches in its case")
}
