package gitstate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var identRe = regexp.MustCompile(`^(.*) <(.*)> \d+ [+-]\d{4}$`)

// gitIdent returns name and email from `git var`, or ok=false if git fails.
func gitIdent(t *testing.T, dir, which string) (string, string, bool) {
	t.Helper()
	out, err := gitTry(dir, "var", which)
	if err != nil {
		return "", "", false
	}
	m := identRe.FindStringSubmatch(strings.TrimSpace(out))
	require.NotNil(t, m, out)
	return m[1], m[2], true
}

func TestIdentityMatchesGitVar(t *testing.T) {
	type setup func(t *testing.T, home, dir string)
	cases := []struct {
		name  string
		setup setup
		fails bool // git var succeeds only with a default identity, we refuse
	}{
		{"global gitconfig", func(t *testing.T, home, dir string) {}, false},
		{"xdg config", func(t *testing.T, home, dir string) {
			os.Remove(filepath.Join(home, ".gitconfig"))
			writeFile(t, filepath.Join(home, "xdg", "git", "config"), "[user]\nname = Xdg Person\nemail = xdg@example.com\n")
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
		}, false},
		{"gitconfig beats xdg", func(t *testing.T, home, dir string) {
			writeFile(t, filepath.Join(home, ".config", "git", "config"), "[user]\nname = Xdg Person\nemail = xdg@example.com\n")
		}, false},
		{"repo config beats global", func(t *testing.T, home, dir string) {
			gitRun(t, dir, "config", "user.name", "Repo Person")
		}, false},
		{"author.* beats user.*", func(t *testing.T, home, dir string) {
			gitRun(t, dir, "config", "author.name", "Author Only")
			gitRun(t, dir, "config", "committer.email", "committer@example.com")
		}, false},
		{"env beats config", func(t *testing.T, home, dir string) {
			t.Setenv("GIT_AUTHOR_NAME", "Env Author")
			t.Setenv("GIT_AUTHOR_EMAIL", "env@example.com")
			t.Setenv("GIT_COMMITTER_NAME", "Env Committer")
		}, false},
		{"EMAIL env as last resort", func(t *testing.T, home, dir string) {
			writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\nname = No Mail\n")
			t.Setenv("EMAIL", "fallback@example.com")
		}, false},
		{"GIT_CONFIG_GLOBAL", func(t *testing.T, home, dir string) {
			writeFile(t, filepath.Join(home, "other"), "[user]\nname = Other Global\nemail = og@example.com\n")
			t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "other"))
		}, false},
		{"GIT_CONFIG_COUNT", func(t *testing.T, home, dir string) {
			t.Setenv("GIT_CONFIG_COUNT", "1")
			t.Setenv("GIT_CONFIG_KEY_0", "user.name")
			t.Setenv("GIT_CONFIG_VALUE_0", "From Env Config")
		}, false},
		{"include.path relative and tilde", func(t *testing.T, home, dir string) {
			writeFile(t, filepath.Join(home, ".gitconfig"), "[include]\npath = inc/one\n")
			writeFile(t, filepath.Join(home, "inc", "one"), "[user]\nemail = one@example.com\n[include]\npath = ~/two\n")
			writeFile(t, filepath.Join(home, "two"), "[user]\nname = Two Deep\n")
		}, false},
		{"includeIf gitdir", func(t *testing.T, home, dir string) {
			writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\nname = Base\nemail = base@example.com\n[includeIf \"gitdir:"+dir+"/\"]\npath = work\n[includeIf \"gitdir:/nowhere/**\"]\npath = never\n")
			writeFile(t, filepath.Join(home, "work"), "[user]\nemail = work@example.com\n")
			writeFile(t, filepath.Join(home, "never"), "[user]\nname = Never\n")
		}, false},
		{"includeIf gitdir relative pattern", func(t *testing.T, home, dir string) {
			writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\nname = Base\nemail = base@example.com\n[includeIf \"gitdir:"+filepath.Base(dir)+"/\"]\npath = work\n")
			writeFile(t, filepath.Join(home, "work"), "[user]\nname = Relative Match\n")
		}, false},
		{"includeIf onbranch", func(t *testing.T, home, dir string) {
			writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\nname = Base\nemail = base@example.com\n[includeIf \"onbranch:ma*\"]\npath = br\n")
			writeFile(t, filepath.Join(home, "br"), "[user]\nname = On Main\n")
		}, false},
		{"crud trimmed", func(t *testing.T, home, dir string) {
			writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\nname = \"  <Odd, Name;> \"\nemail = \" <odd@example.com>. \"\n")
		}, false},
		{"no identity", func(t *testing.T, home, dir string) {
			os.Remove(filepath.Join(home, ".gitconfig"))
			gitRun(t, dir, "config", "user.useConfigOnly", "true")
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t, nil)
			tc.setup(t, os.Getenv("HOME"), dir)
			r := openRepo(t, dir)
			now := time.Unix(1700000000, 0)
			for _, which := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
				var sig Signature
				var err error
				if which == "GIT_AUTHOR_IDENT" {
					sig, err = r.Author(now)
				} else {
					sig, err = r.Committer(now)
				}
				name, email, ok := gitIdent(t, dir, which)
				if tc.fails {
					assert.False(t, ok, "git var should fail")
					require.ErrorIs(t, err, ErrNoIdentity)
					assert.Contains(t, err.Error(), `git config --global user.name "Your Name"`)
					continue
				}
				require.True(t, ok)
				require.NoError(t, err, which)
				assert.Equal(t, name, sig.Name, which)
				assert.Equal(t, email, sig.Email, which)
				assert.Equal(t, now, sig.When)
			}
		})
	}
}

func TestCommitFilesNoIdentityChangesNothing(t *testing.T) {
	dir := newRepo(t, map[string]string{"a": "a"})
	os.Remove(filepath.Join(os.Getenv("HOME"), ".gitconfig"))
	before := snapshot(t, dir)
	r := openRepo(t, dir)
	_, err := r.CommitFiles(CommitRequest{Changes: []FileChange{{Path: "b", Data: []byte("b")}}, Message: "m", Worktree: true})
	require.ErrorIs(t, err, ErrNoIdentity)
	assert.Equal(t, before, snapshot(t, dir))
}

func TestWildmatch(t *testing.T) {
	cases := []struct {
		pat, text string
		want      bool
	}{
		{"/a/b/**", "/a/b/.git", true},
		{"/a/b/**", "/a/c/.git", false},
		{"**/b/**", "/x/y/b/.git", true},
		{"**/b/", "/x/b/", true},
		{"/a/*/c", "/a/b/c", true},
		{"/a/*/c", "/a/b/d/c", false},
		{"/a/**/c", "/a/c", true},
		{"/a/**/c", "/a/b/d/c", true},
		{"ma?n", "main", true},
		{"ma[ij]n", "main", true},
		{"ma[!i]n", "main", false},
		{"feature/**", "feature/x/y", true},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, wildmatch(tc.pat, tc.text, false), "%s vs %s", tc.pat, tc.text)
	}
}
