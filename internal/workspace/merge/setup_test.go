package merge

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const itrAttributes = "# itr: merge progress.md and state.json with `itr merge-driver` (itr setup)\n" +
	"*/progress.md merge=itr\n" +
	"*/guardrails.md merge=itr\n" +
	"*/state.json merge=itr\n" +
	"*/tasks.md merge=itr\n" +
	"*/plan.md merge=itr\n" +
	"*/decisions.md merge=itr\n"

// olderAttributes is what an itr before decisions.md wrote.
const olderAttributes = "# itr: merge progress.md and state.json with `itr merge-driver` (itr setup)\n" +
	"*/progress.md merge=itr\n" +
	"*/guardrails.md merge=itr\n" +
	"*/state.json merge=itr\n" +
	"*/tasks.md merge=itr\n" +
	"*/plan.md merge=itr\n"

// attrsPath is where the root's .gitattributes is on disk.
func (f *fixture) attrsPath() string { return f.st.Abs(taskRoot + "/.gitattributes") }

func (f *fixture) writeAttrs(data string) {
	f.t.Helper()
	require.NoError(f.t, os.MkdirAll(filepath.Dir(f.attrsPath()), 0o755))
	require.NoError(f.t, os.WriteFile(f.attrsPath(), []byte(data), 0o644))
}

func TestSetupTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)

	changed, err := Setup(f.st)
	require.NoError(t, err)
	assert.Equal(t, []string{
		f.repo.ConfigFile() + ` [merge "itr"]`,
		taskRoot + "/.gitattributes (commit it so every clone merges alike)",
	}, changed)
	keys, err := f.repo.ConfigSection("merge", "itr")
	require.NoError(t, err)
	assert.Equal(t, [][2]string{
		{"name", "itr: union of log entries, state rebuilt from the log"},
		{"driver", "itr merge-driver %O %A %B %P"},
	}, keys)
	assert.Equal(t, itrAttributes, string(f.read(f.attrsPath())))
	config := f.read(f.repo.ConfigFile())

	changed, err = Setup(f.st)
	require.NoError(t, err)
	assert.Empty(t, changed, "a second run changes nothing")
	assert.Equal(t, itrAttributes, string(f.read(f.attrsPath())))
	assert.Equal(t, string(config), string(f.read(f.repo.ConfigFile())))
}

func TestSetupOnlyWhatIsMissing(t *testing.T) {
	t.Parallel()
	t.Run("the config is set, the attributes are not", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, Register(f.st))
		changed, err := Setup(f.st)
		require.NoError(t, err)
		assert.Equal(t, []string{taskRoot + "/.gitattributes (commit it so every clone merges alike)"}, changed)
	})
	t.Run("the attributes are there, the config is not", func(t *testing.T) {
		f := newFixture(t)
		f.writeAttrs("*.png binary\n" + itrAttributes)
		changed, err := Setup(f.st)
		require.NoError(t, err)
		assert.Equal(t, []string{f.repo.ConfigFile() + ` [merge "itr"]`}, changed)
		assert.Equal(t, "*.png binary\n"+itrAttributes, string(f.read(f.attrsPath())))
	})
	t.Run("an older itr's attributes get the decisions.md line", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, Register(f.st))
		f.writeAttrs(olderAttributes)
		changed, err := Setup(f.st)
		require.NoError(t, err)
		assert.Equal(t, []string{taskRoot + "/.gitattributes (commit it so every clone merges alike)"}, changed)
		assert.Equal(t, itrAttributes, string(f.read(f.attrsPath())), "the one missing line is appended, nothing else changes")
	})
	t.Run("a stale driver command is replaced", func(t *testing.T) {
		f := newFixture(t)
		_, err := f.repo.SetConfigSection("merge", "itr", [][2]string{{"driver", "old-itr %O %A %B"}})
		require.NoError(t, err)
		_, err = f.repo.SetConfigSection("core", "", [][2]string{{"editor", "vi"}})
		require.NoError(t, err)
		changed, err := Setup(f.st)
		require.NoError(t, err)
		assert.Contains(t, changed, f.repo.ConfigFile()+` [merge "itr"]`)
		keys, err := f.repo.ConfigSection("merge", "itr")
		require.NoError(t, err)
		assert.Contains(t, keys, [2]string{"driver", "itr merge-driver %O %A %B %P"})
		core, err := f.repo.ConfigSection("core", "")
		require.NoError(t, err)
		assert.Equal(t, [][2]string{{"editor", "vi"}}, core, "other sections stay")
	})
}

func TestAttributes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		have    *string // nil: no file
		want    string
		changed bool
	}{
		{"no file", nil, itrAttributes, true},
		{"empty file", ptr(""), itrAttributes, true},
		{"foreign lines kept, a newline added", ptr("*.png binary\n*.sh text eol=lf"),
			"*.png binary\n*.sh text eol=lf\n" + itrAttributes, true},
		{"foreign lines kept", ptr("*.png binary\n"), "*.png binary\n" + itrAttributes, true},
		{"all there", ptr(itrAttributes), itrAttributes, false},
		{"all there without the header", ptr("*/decisions.md merge=itr\n*/plan.md merge=itr\n*/tasks.md merge=itr\n*/state.json merge=itr\n*/progress.md merge=itr\n*/guardrails.md merge=itr"),
			"*/decisions.md merge=itr\n*/plan.md merge=itr\n*/tasks.md merge=itr\n*/state.json merge=itr\n*/progress.md merge=itr\n*/guardrails.md merge=itr", false},
		{"all there, indented", ptr("  */progress.md merge=itr\t\n*/guardrails.md merge=itr\n */state.json merge=itr\n */tasks.md merge=itr\n\t*/plan.md merge=itr\n */decisions.md merge=itr\n"),
			"  */progress.md merge=itr\t\n*/guardrails.md merge=itr\n */state.json merge=itr\n */tasks.md merge=itr\n\t*/plan.md merge=itr\n */decisions.md merge=itr\n", false},
		{"an older itr's lines: decisions.md added", ptr(olderAttributes), itrAttributes, true},
		{"one missing: only it is added, the header kept once",
			ptr("# itr: merge progress.md and state.json with `itr merge-driver` (itr setup)\n*/progress.md merge=itr\n*/state.json merge=itr\n"),
			"# itr: merge progress.md and state.json with `itr merge-driver` (itr setup)\n*/progress.md merge=itr\n*/state.json merge=itr\n*/guardrails.md merge=itr\n*/tasks.md merge=itr\n*/plan.md merge=itr\n*/decisions.md merge=itr\n", true},
		{"one missing, no header", ptr("*.png binary\n*/progress.md merge=itr\n"),
			"*.png binary\n*/progress.md merge=itr\n# itr: merge progress.md and state.json with `itr merge-driver` (itr setup)\n*/guardrails.md merge=itr\n*/state.json merge=itr\n*/tasks.md merge=itr\n*/plan.md merge=itr\n*/decisions.md merge=itr\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.have != nil {
				f.writeAttrs(*tt.have)
			}
			got, changed, err := Attributes(f.st)
			require.NoError(t, err)
			assert.Equal(t, tt.changed, changed)
			assert.Equal(t, tt.want, string(got))
			// Attributes only computes; the file is as it was.
			if tt.have != nil {
				assert.Equal(t, *tt.have, string(f.read(f.attrsPath())))
			} else {
				assert.NoFileExists(t, f.attrsPath())
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestAttributesRefusesLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeAttrs("x\n")
	target := filepath.Join(f.tmp, "elsewhere")
	require.NoError(t, os.WriteFile(target, []byte("*.png binary\n"), 0o644))
	require.NoError(t, os.Remove(f.attrsPath()))
	require.NoError(t, os.Symlink(target, f.attrsPath()))

	_, _, err := Attributes(f.st)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a symbolic link")

	changed, err := Setup(f.st)
	require.Error(t, err)
	assert.Nil(t, changed)
	assert.Equal(t, "*.png binary\n", string(f.read(target)), "nothing written through the link")
}

func TestSetupErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	t.Run("reading the config", func(t *testing.T) {
		f := newFixture(t)
		f.repo.Fail("ConfigSection", boom)
		changed, err := Setup(f.st)
		require.ErrorIs(t, err, boom)
		assert.Nil(t, changed)
		assert.NoFileExists(t, f.attrsPath())
	})
	t.Run("writing the config", func(t *testing.T) {
		f := newFixture(t)
		f.repo.Fail("SetConfigSection", boom)
		changed, err := Setup(f.st)
		require.ErrorIs(t, err, boom)
		assert.Contains(t, err.Error(), "register the merge driver in the git config: boom")
		assert.Nil(t, changed)
		assert.NoFileExists(t, f.attrsPath())
		require.ErrorIs(t, Register(f.st), boom)
	})
	t.Run("the root cannot be made", func(t *testing.T) {
		f := newFixture(t)
		// A file where the root's folder should be.
		p := f.st.Abs(taskRoot)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("not a folder"), 0o644))
		_, err := Setup(f.st)
		require.Error(t, err)
		assert.Equal(t, "not a folder", string(f.read(p)))
	})
	t.Run("the attributes cannot be written", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes into a read-only folder")
		}
		f := newFixture(t)
		p := f.st.Abs(taskRoot)
		require.NoError(t, os.MkdirAll(p, 0o755))
		require.NoError(t, os.Chmod(p, 0o555))
		t.Cleanup(func() { _ = os.Chmod(p, 0o755) })
		_, err := Setup(f.st)
		require.Error(t, err)
		assert.NoFileExists(t, f.attrsPath())
	})
}
