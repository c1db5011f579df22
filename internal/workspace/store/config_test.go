package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
)

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	lines := func(l ...string) string { return strings.Join(l, "\n") + "\n" }
	tests := []struct {
		name string
		file *string // nil: no .itr.yaml
		want store.Config
		err  string // the whole message
	}{
		{name: "no file"},
		{name: "empty", file: ptr("")},
		{name: "comments only", file: ptr("# itr settings\n# none yet\n")},
		{name: "everything", file: ptr(lines(
			"# itr settings",
			"root: work/tasks",
			"mode: knowledge",
			"identity:",
			"  name: Build Agent",
			"  email: agent@example.com",
		)), want: store.Config{Root: "work/tasks", Mode: "knowledge", Identity: store.Identity{Name: "Build Agent", Email: "agent@example.com"}}},
		{name: "root only", file: ptr("root: .tasks\n"), want: store.Config{Root: ".tasks"}},
		{name: "development", file: ptr("mode: development\n"), want: store.Config{Mode: "development"}},
		{name: "quoted", file: ptr(`root: "a b/c"` + "\n"), want: store.Config{Root: "a b/c"}},
		{name: "empty identity", file: ptr("identity: {}\n")},
		{name: "unknown key", file: ptr(lines("root: .claude/iterative", "colour: red")),
			err: `.itr.yaml:2: unknown key "colour" (keys: root, mode, identity.name, identity.email, run_hooks, uncommitted_work, verify_timeout, stale_after, check_in_every, claims_remote, progress_token_limit, index, entry_field_limit)`},
		{name: "index", file: ptr("index: true\n"), want: store.Config{Index: true}},
		{name: "index off", file: ptr("index: false\n")},
		{name: "index path", file: ptr("root: x\nindex: docs/INDEX.md\n"), err: `.itr.yaml:2: index is true (keep <root>/INDEX.md in step) or false, not "docs/INDEX.md"`},
		{name: "stale and check-in", file: ptr("stale_after: 30m\ncheck_in_every: 5\n"), want: store.Config{StaleAfter: 30 * time.Minute, CheckInEvery: 5}},
		{name: "progress token limit", file: ptr("progress_token_limit: 500\n"), want: store.Config{ProgressTokenLimit: 500}},
		{name: "progress token limit not a number", file: ptr("root: x\nprogress_token_limit: lots\n"), err: `.itr.yaml:2: progress_token_limit "lots" is not a positive whole number of tokens (such as 20000)`},
		{name: "progress token limit zero", file: ptr("progress_token_limit: 0\n"), err: `.itr.yaml:1: progress_token_limit "0" is not a positive whole number of tokens (such as 20000)`},
		{name: "entry field limit", file: ptr("entry_field_limit: 1000\n"), want: store.Config{EntryFieldLimit: 1000}},
		{name: "entry field limit in KiB", file: ptr("entry_field_limit: 64KiB\n"), want: store.Config{EntryFieldLimit: 65536}},
		{name: "entry field limit in MiB", file: ptr("entry_field_limit: 2MiB\n"), want: store.Config{EntryFieldLimit: 2 << 20}},
		{name: "entry field limit not a size", file: ptr("entry_field_limit: big\n"), err: `.itr.yaml:1: entry_field_limit "big" is not a size in bytes above zero (such as 65536, 64KiB or 1MiB)`},
		{name: "entry field limit zero", file: ptr("entry_field_limit: 0KiB\n"), err: `.itr.yaml:1: entry_field_limit "0KiB" is not a size in bytes above zero (such as 65536, 64KiB or 1MiB)`},
		{name: "claims remote", file: ptr("claims_remote: upstream\n"), want: store.Config{ClaimsRemote: "upstream"}},
		{name: "claims remote not a name", file: ptr("claims_remote: 'git@host:x'\n"), err: `.itr.yaml:1: claims_remote "git@host:x" is not a remote's name (such as origin) or none`},
		{name: "bad check-in", file: ptr("check_in_every: often\n"), err: `.itr.yaml:1: check_in_every "often" is not a positive whole number of iterations`},
		{name: "verify timeout", file: ptr("verify_timeout: 90s\n"), want: store.Config{VerifyTimeout: 90 * time.Second}},
		{name: "bad verify timeout", file: ptr("verify_timeout: soon\n"), err: `.itr.yaml:1: verify_timeout "soon" is not a duration such as 10m or 90s`},
		{name: "bad mode", file: ptr(lines("root: x", "", "mode: fast")),
			err: `.itr.yaml:3: mode "fast" is not development or knowledge`},
		{name: "empty mode", file: ptr("mode:\n"),
			err: `.itr.yaml:1: mode "" is not development or knowledge`},
		{name: "root list", file: ptr(lines("root:", "  - a", "  - b")),
			err: `.itr.yaml:2: root must be a single value`},
		{name: "mode map", file: ptr("mode: {a: b}\n"),
			err: `.itr.yaml:1: mode must be a single value`},
		{name: "identity scalar", file: ptr(lines("mode: development", "identity: me")),
			err: `.itr.yaml:2: identity holds name and email`},
		{name: "identity unknown key", file: ptr(lines("identity:", "  name: A", "  phone: 123")),
			err: `.itr.yaml:3: unknown key "phone" under identity (keys: name, email)`},
		{name: "identity name only", file: ptr(lines("root: x", "identity:", "  name: A")),
			err: `.itr.yaml:2: identity needs both name and email`},
		{name: "identity email only", file: ptr(lines("identity:", "  email: a@example.com")),
			err: `.itr.yaml:1: identity needs both name and email`},
		{name: "identity name list", file: ptr(lines("identity:", "  name: [a, b]", "  email: a@example.com")),
			err: `.itr.yaml:2: name must be a single value`},
		{name: "identity email map", file: ptr(lines("identity:", "  name: A", "  email:", "    x: y")),
			err: `.itr.yaml:4: email must be a single value`},
		{name: "a list, not keys", file: ptr(lines("", "- root", "- mode")),
			err: ".itr.yaml:2: expected keys such as `root: .claude/iterative`"},
		{name: "a scalar, not keys", file: ptr("just text\n"),
			err: ".itr.yaml:1: expected keys such as `root: .claude/iterative`"},
		{name: "syntax error", file: ptr(lines("root: a", "mode: b: c")),
			err: ".itr.yaml:2: mapping values are not allowed in this context"},
		{name: "unterminated quote", file: ptr(lines("root: a", `mode: "development`)),
			err: ".itr.yaml:2: found unexpected end of stream"},
		{name: "tab indentation", file: ptr("identity:\n\tname: A\n"),
			err: ".itr.yaml:2: found character that cannot start any token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != nil {
				require.NoError(t, os.WriteFile(filepath.Join(dir, store.ConfigFile), []byte(*tt.file), 0o666))
			}
			got, err := store.LoadConfig(dir)
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLoadConfigUnreadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, store.ConfigFile), 0o777))
	got, err := store.LoadConfig(dir)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "read .itr.yaml: "), err.Error())
	assert.Equal(t, store.Config{}, got)
}

func TestLoadConfigErrorWithoutLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Invalid UTF-8: yaml reports it without a line.
	require.NoError(t, os.WriteFile(filepath.Join(dir, store.ConfigFile), []byte("root: \xff\xfe\n"), 0o666))
	_, err := store.LoadConfig(dir)
	require.Error(t, err)
	assert.Equal(t, ".itr.yaml: invalid leading UTF-8 octet", err.Error())
}

func ptr(s string) *string { return &s }
