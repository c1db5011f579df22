package runs

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitCommandAccepts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"go test ./auth/...", []string{"go", "test", "./auth/..."}},
		{"  go\ttest   ./...  ", []string{"go", "test", "./..."}},
		{`sh -c 'go vet ./... && go test ./...'`, []string{"sh", "-c", "go vet ./... && go test ./..."}},
		{`go test -run 'TestA$|TestB'`, []string{"go", "test", "-run", "TestA$|TestB"}},
		{`echo "a b" 'c d'`, []string{"echo", "a b", "c d"}},
		{`echo "it's" 'say "hi"'`, []string{"echo", "it's", `say "hi"`}},
		{`echo "a\"b\\c\$d\` + "`" + `e"`, []string{"echo", "a\"b\\c$d`e"}},
		{`echo "a\nb"`, []string{"echo", `a\nb`}},
		{`echo "cost: $"`, []string{"echo", "cost: $"}},
		{`echo "a$ b"`, []string{"echo", "a$ b"}},
		{`echo a\ b \| \$x`, []string{"echo", "a b", "|", "$x"}},
		{`echo '' ""`, []string{"echo", "", ""}},
		{`echo a''b "c"d'e'`, []string{"echo", "ab", "cde"}},
		{`echo a~b a#b ''#c ""~`, []string{"echo", "a~b", "a#b", "#c", "~"}},
		{`echo a=b ] ! % ^ , @`, []string{"echo", "a=b", "]", "!", "%", "^", ",", "@"}},
		{"echo 'line1\nline2'", []string{"echo", "line1\nline2"}},
		{"echo \"x\\\ny\"", []string{"echo", "xy"}},
		{"echo a\\\nb", []string{"echo", "ab"}},
		{"echo héllo 'wörld'", []string{"echo", "héllo", "wörld"}},
		{`'it'\''s'`, []string{"it's"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := SplitCommand(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSplitCommandRefuses(t *testing.T) {
	const shell = ": it needs a shell: write the check as sh -c '...'"
	tests := []struct {
		in, msg string
		shell   bool // the error wraps ErrNeedsShell
	}{
		{"go vet ./... && go test ./...", `"&" at column 14` + shell, true},
		{"go test | tee log", `"|" at column 9` + shell, true},
		{"a; b", `";" at column 2` + shell, true},
		{"cat < in", `"<" at column 5` + shell, true},
		{"echo > out", `">" at column 6` + shell, true},
		{"(cd x)", `"(" at column 1` + shell, true},
		{"echo a)", `")" at column 7` + shell, true},
		{"echo $HOME", `"$" at column 6` + shell, true},
		{"echo `date`", "\"`\" at column 6" + shell, true},
		{"ls *.go", `"*" at column 4` + shell, true},
		{"ls a?", `"?" at column 5` + shell, true},
		{"ls [ab]", `"[" at column 4` + shell, true},
		{"echo {a,b}", `"{" at column 6` + shell, true},
		{"echo }", `"}" at column 6` + shell, true},
		{"cd ~/src", `"~" at column 4` + shell, true},
		{"echo #comment", `"#" at column 6` + shell, true},
		{"go test\ngo vet", "newline at column 8" + shell, true},
		{`echo "$HOME"`, `"$" at column 7` + shell, true},
		{`echo "${x}"`, `"$" at column 7` + shell, true},
		{"echo \"`date`\"", "\"`\" at column 7" + shell, true},
		{"echo 'a\nb' ; x", `";" at column 4` + shell, true},
		{"écho | x", `"|" at column 6` + shell, true},
		{"echo 'abc", "unclosed ' quote at column 6", false},
		{`echo "abc`, `unclosed " quote at column 6`, false},
		{`echo abc\`, "lone backslash at column 9 ends the command", false},
		{"", "empty command", false},
		{" \t ", "empty command", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := SplitCommand(tt.in)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Equal(t, tt.msg, err.Error())
			assert.Equal(t, tt.shell, errors.Is(err, ErrNeedsShell))
		})
	}
}

func TestQuoteCommand(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"go", "test", "./..."}, "go test ./..."},
		{[]string{"sh", "-c", "a && b"}, "sh -c 'a && b'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"echo", "a\nb"}, "echo 'a\nb'"},
		{[]string{"go", "test", "-run", "TestA$"}, "go test -run 'TestA$'"},
		{[]string{"echo", "~x", "x~", "#x", "x#"}, "echo '~x' x~ '#x' x#"},
		{[]string{"env", "A=b,c:d@e%f+g^h"}, "env A=b,c:d@e%f+g^h"},
		{[]string{"echo", "héllo"}, "echo héllo"},
		{[]string{"echo", "a\tb", "a\\b", `"`}, "echo 'a\tb' 'a\\b' '\"'"},
		{[]string{"echo", "\xff"}, "echo '\xff'"},
		{nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := QuoteCommand(tt.argv)
			assert.Equal(t, tt.want, got)
			if len(tt.argv) > 0 {
				back, err := SplitCommand(got)
				require.NoError(t, err)
				assert.Equal(t, tt.argv, back)
			}
		})
	}
}
