package gitstate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseConfigMatchesGit parses a config file full of git's syntax
// corners and compares with `git config --list`.
func TestParseConfigMatchesGit(t *testing.T) {
	isolate(t)
	text := "\uFEFF# comment\n" +
		"; another\n" +
		"[core]\n" +
		"\trepositoryformatversion = 0\n" +
		"\tBare\n" +
		"\tfsync = committed , index   # trailing comment\n" +
		"[user]\n" +
		"  name = \"  Quoted  Name  \"\n" +
		"  email = a@example.com ; comment\n" +
		"[Remote \"Origin\"]\n" +
		"\turl = https://example.com/a\\\n" +
		"b.git\n" +
		"\tfetch = +refs/heads/*:refs/remotes/Origin/*\n" +
		"[alias]\n" +
		"\tlg = log \"--format=%h \\\"%s\\\"\" \\t tab\n" +
		"\tsemi = \"a;b#c\"\n" +
		"\tempty =\n" +
		"[Section.Sub]\n" +
		"\tkey-with-dash = value with  inner  blanks   \n" +
		"[user]\r\n" +
		"\tname = Second\r\n" +
		"[sub \"with \\\"quote\\\" and \\\\ back\"] key = inline\n"
	path := filepath.Join(t.TempDir(), "config")
	writeFile(t, path, text)
	out := gitRun(t, filepath.Dir(path), "config", "--file", path, "--list", "--null")
	var want []string
	for _, item := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		k, v, ok := strings.Cut(item, "\n")
		if !ok {
			v = "true" // a key with no "=" is a boolean true
		}
		want = append(want, k+"="+v)
	}
	var got []string
	require.NoError(t, parseConfig([]byte(text), func(section, subsection, key, value string) error {
		name := section + "." + key
		if subsection != "" {
			name = section + "." + subsection + "." + key
		}
		got = append(got, name+"="+value)
		return nil
	}))
	assert.Equal(t, want, got)
}

// TestParseConfigErrors: what git refuses is an error naming the line.
func TestParseConfigErrors(t *testing.T) {
	for _, text := range []string{
		"key = outside\n",
		"[core\n",
		"[core]\n\tname = \"open\n",
		"[core]\n\tname = bad \\q escape\n",
		"[core]\n\t1key = x\n",
		"[sec \"sub]\n",
	} {
		err := parseConfig([]byte(text), func(string, string, string, string) error { return nil })
		var se *configSyntaxError
		assert.ErrorAs(t, err, &se, "%q", text)
	}
	err := parseConfig([]byte("[core]\n\n\tname = \"open\n"), func(string, string, string, string) error { return nil })
	assert.ErrorContains(t, err, "line 3")
}
