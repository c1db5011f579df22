package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/templates"
)

// The tests build a store over gitstate/gitfake, in the manner of
// git-bug's repository tests: commit task folders through the fake, then
// check what the store reads back.

const root = store.DefaultRoot

// when is the time of every commit the tests make.
var when = time.Date(2026, 1, 14, 10, 30, 0, 0, time.UTC)

// fixedClock is 10:30:45.987654321Z seen from a UTC+1 zone, so Now has to
// both convert and truncate it.
func fixedClock() time.Time {
	return time.Date(2026, 1, 14, 11, 30, 45, 987654321, time.FixedZone("CET", 3600))
}

var errBoom = errors.New("boom")

var tester = gitstate.Signature{Name: gitfake.DefaultName, Email: gitfake.DefaultEmail, When: when}

// fixture is a fake repository and the store over it.
type fixture struct {
	t    *testing.T
	fake *gitfake.Repo
	s    *store.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fake := gitfake.New(t.TempDir())
	s, err := store.New(fake, root, store.Config{}, "", fixedClock)
	require.NoError(t, err)
	return &fixture{t: t, fake: fake, s: s}
}

// abs is the filesystem path of a repository-relative slash path.
func (f *fixture) abs(rel string) string {
	return filepath.Join(f.fake.Root(), filepath.FromSlash(rel))
}

// write puts a file in the working tree only.
func (f *fixture) write(rel, data string) {
	f.t.Helper()
	testgit.Write(f.t, f.fake.Root(), rel, data)
}

// symlink makes rel a symbolic link to target in the working tree.
func (f *fixture) symlink(rel, target string) {
	f.t.Helper()
	p := f.abs(rel)
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o777))
	_ = os.Remove(p)
	require.NoError(f.t, os.Symlink(target, p))
}

// commit commits changes on the current branch and in the working tree.
func (f *fixture) commit(msg string, changes ...gitstate.FileChange) gitstate.Commit {
	f.t.Helper()
	c, err := f.fake.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: when, Worktree: true})
	require.NoError(f.t, err)
	return c
}

// work makes a work commit (no itr trailers) of one file.
func (f *fixture) work(subject string) gitstate.Commit {
	f.t.Helper()
	return f.commit(subject, put("src/"+store.Slugify(subject)+".go", "package src // "+subject+"\n"))
}

func put(rel, data string) gitstate.FileChange {
	return gitstate.FileChange{Path: rel, Data: []byte(data)}
}

func del(rel string) gitstate.FileChange { return gitstate.FileChange{Path: rel, Delete: true} }

// itrMsg is the message of an itr commit of slug with its trailers.
func itrMsg(slug, event string) string {
	return testrepo.Message(slug, event, testrepo.Trailers(slug, event, nil, nil))
}

func rel(slug, name string) string { return root + "/" + slug + "/" + name }

// newTaskFiles renders the files `itr init` writes for a new task.
func newTaskFiles(t *testing.T, slug, mode string) []templates.File {
	t.Helper()
	files, err := templates.Task(templates.Data{Name: "User authentication", Slug: slug, Created: when.Format(time.RFC3339), Mode: mode})
	require.NoError(t, err)
	return files
}

// initTask commits a new task as `itr init` does and returns its files by name.
func (f *fixture) initTask(slug string) (gitstate.Commit, map[string][]byte) {
	f.t.Helper()
	byName := map[string][]byte{}
	var changes []gitstate.FileChange
	for _, file := range newTaskFiles(f.t, slug, "development") {
		byName[file.Name] = file.Data
		changes = append(changes, gitstate.FileChange{Path: rel(slug, file.Name), Data: file.Data})
	}
	return f.commit(itrMsg(slug, store.EventCreated), changes...), byName
}

// plannedFiles are a planned task midway (testdata/user-auth, state.json
// being the seed's example), by name.
func plannedFiles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range []string{"state.json", "tasks.md", "progress.md", "guardrails.md"} {
		data, err := os.ReadFile(filepath.Join("testdata", "user-auth", name))
		require.NoError(t, err)
		out[name] = data
	}
	return out
}

// plannedTask commits the planned task under slug.
func (f *fixture) plannedTask(slug string) (gitstate.Commit, map[string][]byte) {
	f.t.Helper()
	files := plannedFiles(f.t)
	var changes []gitstate.FileChange
	for name, data := range files {
		changes = append(changes, gitstate.FileChange{Path: rel(slug, name), Data: data})
	}
	return f.commit(itrMsg(slug, store.EventIteration), changes...), files
}

// archiveTag makes the annotated archive tag of slug on date at commit.
func (f *fixture) archiveTag(slug, date, commit string) string {
	f.t.Helper()
	name := store.ArchiveTagPrefix + slug + "/" + date
	_, err := f.fake.CreateTag(name, commit, "itr: archive "+slug, tester)
	require.NoError(f.t, err)
	return name
}

// archiveBranch points the archive branch of slug at commit.
func (f *fixture) archiveBranch(slug, commit string) string {
	f.t.Helper()
	name := store.ArchiveBranchPrefix + slug
	require.NoError(f.t, f.fake.SetBranch(name, commit, tester, "itr: archive "+slug))
	return name
}

// archive archives slug as `itr archive` does: branch and tag at the
// current commit, then a commit removing the folder.
func (f *fixture) archive(slug, date string) (ref, commit string) {
	f.t.Helper()
	head, err := f.fake.Head()
	require.NoError(f.t, err)
	f.archiveBranch(slug, head.Hash)
	ref = f.archiveTag(slug, date, head.Hash)
	f.commit(itrMsg(slug, store.EventArchived), del(root+"/"+slug))
	return ref, head.Hash
}

// wrapped is the fake with a few calls made to fail selectively, where
// gitfake's Fail (every call of a method) is too blunt.
type wrapped struct {
	*gitfake.Repo
	failBlob    map[string]error // ReadBlob of these hashes
	failRawRefs map[string]error // RawRefs of these prefixes
}

func (w *wrapped) ReadBlob(hash string) ([]byte, error) {
	if err := w.failBlob[hash]; err != nil {
		return nil, err
	}
	return w.Repo.ReadBlob(hash)
}

func (w *wrapped) RawRefs(prefix string) (map[string]string, error) {
	if err := w.failRawRefs[prefix]; err != nil {
		return nil, err
	}
	return w.Repo.RawRefs(prefix)
}

// wrap returns a store over f's fake with the given failures.
func (f *fixture) wrap(blobs, rawRefs map[string]error) *store.Store {
	f.t.Helper()
	s, err := store.New(&wrapped{Repo: f.fake, failBlob: blobs, failRawRefs: rawRefs}, root, store.Config{}, "", fixedClock)
	require.NoError(f.t, err)
	return s
}

func TestCleanRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{in: ".claude/iterative", want: ".claude/iterative"},
		{in: "./.claude//iterative/", want: ".claude/iterative"},
		{in: "tasks/../work", want: "work"},
		{in: "tasks", want: "tasks"},
		{in: ".gitignored", want: ".gitignored"},
		{in: "/srv/tasks", err: `root "/srv/tasks" must be relative to the repository top, such as .claude/iterative`},
		{in: "", err: `root "" is outside the working tree; use a folder such as .claude/iterative`},
		{in: ".", err: `root "." is outside the working tree`},
		{in: "a/..", err: `root "a/.." is outside the working tree`},
		{in: "..", err: `root ".." is outside the working tree`},
		{in: "../elsewhere", err: `root "../elsewhere" is outside the working tree`},
		{in: "a/../../b", err: `root "a/../../b" is outside the working tree`},
		{in: ".git/itr", err: `root ".git/itr" is outside the working tree`},
		{in: ".GIT", err: `root ".GIT" is outside the working tree`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := store.CleanRoot(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	fake := gitfake.New(t.TempDir())
	cfg := store.Config{Root: "tasks", Mode: "knowledge"}
	s, err := store.New(fake, "./tasks/", cfg, "user-auth", nil)
	require.NoError(t, err)
	assert.Same(t, fake, s.Repo.(*gitfake.Repo))
	assert.Equal(t, "tasks", s.Root)
	assert.Equal(t, cfg, s.Config)
	assert.Equal(t, "user-auth", s.Task)
	require.NotNil(t, s.Clock, "a nil clock becomes time.Now")
	assert.Equal(t, time.UTC, s.Now().Location())
	assert.Zero(t, s.Now().Nanosecond())

	s, err = store.New(fake, "../up", cfg, "", nil)
	require.Error(t, err)
	assert.Nil(t, s)
	assert.Contains(t, err.Error(), `root "../up" is outside the working tree`)
}

func TestNowAndStamp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := f.s.Now()
	assert.Equal(t, time.Date(2026, 1, 14, 10, 30, 45, 0, time.UTC), now)
	assert.Equal(t, time.UTC, now.Location())
	assert.Equal(t, "2026-01-14T10:30:45Z", f.s.Stamp())
}

func TestPaths(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	assert.Equal(t, ".claude/iterative/user-auth", f.s.TaskDir("user-auth"))
	assert.Equal(t, ".claude/iterative/user-auth/state.json", f.s.Rel("user-auth", store.StateFile))
	assert.Equal(t, filepath.Join(f.fake.Root(), ".claude", "iterative", "user-auth", "tasks.md"),
		f.s.Abs(".claude/iterative/user-auth/tasks.md"))
}

func TestValidSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		slug, err string
	}{
		{slug: "user-auth"},
		{slug: "a"},
		{slug: "0"},
		{slug: "v1.2_final-3"},
		{slug: "archived"},
		{slug: string(make64('a'))},
		{slug: "", err: "the slug is empty; give a name with letters or digits, or --slug"},
		{slug: string(make64('a')) + "b", err: "is longer than 64 characters, the most a task's slug has; name a shorter one"},
		{slug: "archive", err: `slug "archive" is reserved for archived copies; pick another --slug`},
		{slug: "User-Auth", err: `slug "User-Auth" is not a safe folder name: use lower-case letters, digits, '-' or '_', starting with a letter or digit`},
		{slug: "-x", err: "is not a safe folder name"},
		{slug: ".hidden", err: "is not a safe folder name"},
		{slug: "_x", err: "is not a safe folder name"},
		{slug: "a/b", err: "is not a safe folder name"},
		{slug: "a b", err: "is not a safe folder name"},
		{slug: "é", err: "is not a safe folder name"},
		{slug: "a..b", err: `slug "a..b" contains ".."; pick another --slug`},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			err := store.ValidSlug(tt.slug)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func make64(c byte) []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return b
}

func TestSlugify(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"User authentication", "user-authentication"},
		{"  Fix: the LOGIN bug!! ", "fix-the-login-bug"},
		{"v2.0 release", "v2-0-release"},
		{"Ünïcode naïve café", "n-code-na-ve-caf"},
		{"---", ""},
		{"", ""},
		{"日本語", ""},
		{"a__b", "a-b"},
		// 60 characters are cut to 48, and the dash the cut leaves is dropped.
		{"abcdefghij abcdefghij abcdefghij abcdefghij abcdefg hijkl", "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcd"},
		{"abcdefghij abcdefghij abcdefghij abcdefghij abcdef ghijkl", "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcd"},
		{"abcdefghij abcdefghij abcdefghij abcdefghij abcd efghijkl", "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcd"},
		{"abcdefghij abcdefghij abcdefghij abcdefghij abc defghijkl", "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abc"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := store.Slugify(tt.in)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), 48)
			if got != "" {
				assert.NoError(t, store.ValidSlug(got))
			}
		})
	}
}

func TestSlugs(t *testing.T) {
	t.Parallel()
	t.Run("no root", func(t *testing.T) {
		f := newFixture(t)
		slugs, err := f.s.Slugs()
		require.NoError(t, err)
		assert.Nil(t, slugs)
	})
	t.Run("root is a file", func(t *testing.T) {
		f := newFixture(t)
		f.write(root, "not a folder")
		slugs, err := f.s.Slugs()
		require.Error(t, err)
		assert.Nil(t, slugs)
		assert.Contains(t, err.Error(), "read the task root .claude/iterative: ")
	})
	t.Run("folders", func(t *testing.T) {
		f := newFixture(t)
		f.write(rel("user-auth", "state.json"), "{}")
		f.write(rel("notes", "progress.md"), "# Progress Log\n")
		f.write(rel("api", "state.json"), "{}")
		f.write(rel("api", "progress.md"), "# Progress Log\n")
		f.symlink(rel("linked", "state.json"), "/nowhere/state.json") // Lstat: a link counts
		f.write(rel("drafts", "brief.md"), "# Not a task\n")          // neither file
		require.NoError(t, os.MkdirAll(f.abs(rel("empty", "sub")), 0o777))
		f.write(rel("archive", "state.json"), "{}") // reserved for archived copies
		f.write(rel("Bad-Slug", "state.json"), "{}")
		f.write(root+"/README.md", "# Tasks\n")
		f.write(rel("nested", "deeper/state.json"), "{}")
		slugs, err := f.s.Slugs()
		require.NoError(t, err)
		assert.Equal(t, []string{"api", "linked", "notes", "user-auth"}, slugs)
	})
}

func TestSelect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		active []string
		task   string // Store.Task (flag or ITR_TASK)
		arg    string
		rootIs string // "file": the root is a file
		want   string
		err    string
		noTask bool
	}{
		{name: "given, not checked to exist", arg: "elsewhere", want: "elsewhere"},
		{name: "given beats the only active", active: []string{"user-auth"}, arg: "api", want: "api"},
		{name: "given beats the environment", task: "api", arg: "user-auth", want: "user-auth"},
		{name: "environment", active: []string{"api", "user-auth"}, task: "api", want: "api"},
		{name: "given unsafe", arg: "../etc", err: `slug "../etc" is not a safe folder name`},
		{name: "environment unsafe", task: "Tasks", err: `slug "Tasks" is not a safe folder name`},
		{name: "the only active", active: []string{"user-auth"}, want: "user-auth"},
		{name: "none active", noTask: true, err: "no task under .claude/iterative: start one with `itr init NAME`"},
		{name: "several active", active: []string{"user-auth", "api", "docs"}, noTask: true,
			err: "no task chosen: 3 tasks are active (api, docs, user-auth); pick one with --task SLUG or ITR_TASK"},
		{name: "unreadable root", rootIs: "file", err: "read the task root .claude/iterative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.s.Task = tt.task
			for _, slug := range tt.active {
				f.write(rel(slug, "state.json"), "{}")
			}
			if tt.rootIs == "file" {
				f.write(root, "")
			}
			got, err := f.s.Select(tt.arg)
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.noTask, errors.Is(err, store.ErrNoTask), "errors.Is ErrNoTask")
				assert.Contains(t, err.Error(), tt.err)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// sortedKeys is the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A new slug has no dot (the seeds' rule); the error offers it with
// hyphens. A task made before the rule keeps its dotted slug.
func TestNewSlug(t *testing.T) {
	cases := []struct{ slug, err string }{
		{slug: "iv-a"},
		{slug: "v1-2_final-3"},
		{slug: "iv.a", err: `slug "iv.a" is not a safe folder name: it holds a dot, and a new slug never does (IV-A, never IV.A); use lower-case letters, digits, '-' or '_', starting with a letter or digit: write it with a hyphen, --slug iv-a`},
		{slug: "v1.2_final-3", err: `write it with a hyphen, --slug v1-2_final-3`},
		{slug: "a.", err: `write it with a hyphen, --slug a`},
		{slug: "a..b", err: `contains ".."`},
		{slug: "User-Auth", err: `is not a safe folder name`},
	}
	for _, c := range cases {
		err := store.NewSlug(c.slug)
		if c.err == "" {
			assert.NoError(t, err, c.slug)
			continue
		}
		require.Error(t, err, c.slug)
		assert.Contains(t, err.Error(), c.err, c.slug)
	}
	assert.NoError(t, store.ValidSlug("v1.2"), "an existing dotted slug is still read")
}
