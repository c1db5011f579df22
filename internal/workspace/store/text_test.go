package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/itr-dev/itr/internal/workspace/store"
)

func TestPlural(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want string
	}{{0, "entries"}, {1, "entry"}, {2, "entries"}, {-1, "entries"}}
	for _, tt := range tests {
		assert.Equal(t, tt.want, "entr"+store.Plural(tt.n, "y", "ies"), tt.n)
	}
}

func TestFirstN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []string
		n    int
		want []string
	}{
		{"nil", nil, 3, nil},
		{"fewer", []string{"T1", "T2"}, 3, []string{"T1", "T2"}},
		{"exactly n", []string{"T1", "T2", "T3"}, 3, []string{"T1", "T2", "T3"}},
		{"one more", []string{"T1", "T2", "T3", "T4"}, 3, []string{"T1", "T2", "T3", "and 1 more"}},
		{"many more", []string{"T1", "T2", "T3", "T4", "T5", "T6"}, 2, []string{"T1", "T2", "and 4 more"}},
		{"none shown", []string{"T1", "T2"}, 0, []string{"and 2 more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.in...)
			got := store.FirstN(in, tt.n)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.in, in, "the input is left alone")
		})
	}
	// The cut list does not share the input's array.
	in := make([]string, 4, 10)
	copy(in, []string{"a", "b", "c", "d"})
	got := store.FirstN(in, 2)
	got[0] = "changed"
	assert.Equal(t, []string{"a", "b", "c", "d"}, in)
	assert.Equal(t, "and 2 more", got[2])
}

func TestLogDigest(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", "0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "3 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"é", "2 4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"},
		{"# Progress Log\n", "15 0081f513e848bf1f74d9a9bad8a88998d2fc2673d9cf6871e0eedbb5b5c638d2"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, store.LogDigest([]byte(tt.in)), tt.in)
	}
	assert.Equal(t, store.LogDigest(nil), store.LogDigest([]byte{}))
	assert.NotEqual(t, store.LogDigest([]byte("# Progress Log\n")), store.LogDigest([]byte("# Progress Log\r\n")))
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short", "Added the model", 80, "Added the model"},
		{"trimmed", "  \n Added the model \n\n", 80, "Added the model"},
		{"first line", "Added the model\nand the tests", 80, "Added the model …"},
		{"CRLF", "Added the model  \r\nand the tests", 80, "Added the model …"},
		{"exactly n", "abcde", 5, "abcde"},
		{"cut", "abcdefghij", 5, "abcd…"},
		{"cut in runes", "ééééééé", 4, "ééé…"},
		{"first line then cut", "abcdef\nmore", 6, "abcde…"},
		{"empty", "   ", 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := store.OneLine(tt.in, tt.n)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len([]rune(got)), tt.n)
		})
	}
}

func TestOrNone(t *testing.T) {
	for in, want := range map[string]string{"": "None", "  \n": "None", "a fix": "a fix"} {
		assert.Equal(t, want, store.OrNone(in), "%q", in)
	}
	assert.Equal(t, "none", store.ListOrNone(nil))
	assert.Equal(t, "origin", store.ListOrNone([]string{"origin"}))
	assert.Equal(t, "origin, backup", store.ListOrNone([]string{"origin", "backup"}))
}
