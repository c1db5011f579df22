package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

func TestSplitArchiveTag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		slug, date string
		ok         bool
	}{
		{"refs/tags/itr/archive/user-auth/2026-01-14", "user-auth", "2026-01-14", true},
		{"refs/tags/itr/archive/user-auth/2026-01-14-2", "user-auth", "2026-01-14-2", true},
		{"refs/tags/itr/archive/user-auth/2026-01-14-12", "user-auth", "2026-01-14-12", true},
		{"refs/tags/itr/archive/v1.2/2025-12-31", "v1.2", "2025-12-31", true},
		{"refs/heads/itr/archive/user-auth", "", "", false},
		{"refs/tags/itr/archive/user-auth", "", "", false},
		{"refs/tags/itr/archive/user-auth/", "", "", false},
		{"refs/tags/v1.0", "", "", false},
		{"refs/tags/itr/archive/User-Auth/2026-01-14", "", "", false},
		{"refs/tags/itr/archive/archive/2026-01-14", "", "", false},
		{"refs/tags/itr/archive/user-auth/2026-01-14/extra", "", "", false},
		{"refs/tags/itr/archive/user-auth/latest", "", "", false},
		{"refs/tags/itr/archive/user-auth/2026-13-01", "", "", false},
		{"refs/tags/itr/archive/user-auth/2026-1-4", "", "", false},
		{"refs/tags/itr/archive/user-auth/14-01-2026", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slug, date, ok := store.SplitArchiveTag(tt.name)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.slug, slug)
			assert.Equal(t, tt.date, date)
		})
	}
}

// archiveWorld is a repository with archived tasks as `itr archive` leaves
// them, and refs itr must skip.
type archiveWorld struct {
	*fixture
	commits map[string]string // tag or branch → commit
}

func newArchiveWorld(t *testing.T) *archiveWorld {
	t.Helper()
	w := &archiveWorld{fixture: newFixture(t), commits: map[string]string{}}
	f := w.fixture

	// user-auth: archived on 2026-01-09, then five times on 2026-01-14;
	// the tags are made out of order, and -10 must sort after -3.
	var uaCommits []string
	for i := 0; i < 6; i++ {
		f.plannedTask("user-auth")
		c := f.commit(itrMsg("user-auth", store.EventIteration),
			put(rel("user-auth", "progress.md"), string(plannedFiles(t)["progress.md"])+strings.Repeat("\n## T4 - Iteration 1 - 2026-01-14T13:00:00Z\n**Did:** again\n", i+1)))
		uaCommits = append(uaCommits, c.Hash)
	}
	for i, date := range []string{"2026-01-14-3", "2026-01-14", "2026-01-14-10", "2026-01-09", "2026-01-14-2"} {
		w.commits[f.archiveTag("user-auth", date, uaCommits[i])] = uaCommits[i]
	}
	w.commits[f.archiveBranch("user-auth", uaCommits[5])] = uaCommits[5]
	f.commit(itrMsg("user-auth", store.EventArchived), del(root+"/user-auth"))

	// docs: a branch only (archived by an older itr).
	c, _ := f.initTask("docs")
	w.commits[f.archiveBranch("docs", c.Hash)] = c.Hash
	f.commit(itrMsg("docs", store.EventArchived), del(root+"/docs"))

	// api: tags only (the branch was deleted).
	c, _ = f.initTask("api")
	w.commits[f.archiveTag("api", "2026-01-12", c.Hash)] = c.Hash
	f.commit(itrMsg("api", store.EventArchived), del(root+"/api"))

	// Refs that are not archives, or do not resolve.
	require.NoError(t, f.fake.SetRef("refs/heads/itr/archive/Bad", c.Hash))
	require.NoError(t, f.fake.SetRef("refs/tags/itr/archive/api/latest", c.Hash))
	require.NoError(t, f.fake.SetRef("refs/tags/itr/archive/Bad/2026-01-01", c.Hash))
	require.NoError(t, f.fake.SetRef("refs/heads/itr/archive/ghost", strings.Repeat("d", 40)))
	require.NoError(t, f.fake.SetRef("refs/tags/itr/archive/ghost/2026-01-01", strings.Repeat("e", 40)))
	blob := f.fake.Blob([]byte("not a commit"))
	require.NoError(t, f.fake.SetRef("refs/tags/itr/archive/blob/2026-01-01", blob))
	require.NoError(t, f.fake.SetRef("refs/heads/feature", c.Hash))
	return w
}

func TestArchives(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t)
	got, err := w.s.Archives()
	require.NoError(t, err)
	tag := func(slug, date string) string { return store.ArchiveTagPrefix + slug + "/" + date }
	want := []store.Archived{
		{Slug: "api", Ref: tag("api", "2026-01-12"), Commit: w.commits[tag("api", "2026-01-12")], Date: "2026-01-12",
			Tags: []string{tag("api", "2026-01-12")}},
		{Slug: "docs", Ref: store.ArchiveBranchPrefix + "docs", Commit: w.commits[store.ArchiveBranchPrefix+"docs"],
			Tags: []string{}, Branch: store.ArchiveBranchPrefix + "docs"},
		{Slug: "user-auth", Ref: tag("user-auth", "2026-01-14-10"), Commit: w.commits[tag("user-auth", "2026-01-14-10")], Date: "2026-01-14-10",
			Tags: []string{
				tag("user-auth", "2026-01-09"), tag("user-auth", "2026-01-14"), tag("user-auth", "2026-01-14-2"),
				tag("user-auth", "2026-01-14-3"), tag("user-auth", "2026-01-14-10"),
			},
			Branch: store.ArchiveBranchPrefix + "user-auth"},
	}
	assert.Equal(t, want, got)
	// The branch is at a newer commit than the newest tag: the tag wins.
	assert.NotEqual(t, w.commits[store.ArchiveBranchPrefix+"user-auth"], got[2].Commit)
}

func TestArchivesNone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	got, err := f.s.Archives()
	require.NoError(t, err)
	assert.NotNil(t, got)
	assert.Empty(t, got)
}

func TestArchivesErrors(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t)
	for _, prefix := range []string{store.ArchiveBranchPrefix, store.ArchiveTagPrefix} {
		t.Run(prefix, func(t *testing.T) {
			s := w.wrap(nil, map[string]error{prefix: errBoom})
			got, err := s.Archives()
			assert.ErrorIs(t, err, errBoom)
			assert.Nil(t, got)
		})
	}
}

func TestFindArchive(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t)
	tag := func(date string) string { return store.ArchiveTagPrefix + "user-auth/" + date }
	// An unrelated tag and branch the generic candidates can find.
	c := w.commits[tag("2026-01-09")]
	_, err := w.fake.CreateTag("refs/tags/v1.0", c, "release", tester)
	require.NoError(t, err)

	tests := []struct {
		name, slug, from string
		ref              string
		err              string
		noTask           bool
		is               error
	}{
		{name: "newest", slug: "user-auth", ref: tag("2026-01-14-10")},
		{name: "newest of a branch-only archive", slug: "docs", ref: store.ArchiveBranchPrefix + "docs"},
		{name: "full ref", slug: "user-auth", from: tag("2026-01-14-2"), ref: tag("2026-01-14-2")},
		{name: "tag name", slug: "user-auth", from: "itr/archive/user-auth/2026-01-14", ref: tag("2026-01-14")},
		{name: "date", slug: "user-auth", from: "2026-01-09", ref: tag("2026-01-09")},
		{name: "date with suffix", slug: "user-auth", from: "2026-01-14-3", ref: tag("2026-01-14-3")},
		{name: "branch name", slug: "user-auth", from: "itr/archive/user-auth", ref: store.ArchiveBranchPrefix + "user-auth"},
		{name: "full branch ref", slug: "docs", from: store.ArchiveBranchPrefix + "docs", ref: store.ArchiveBranchPrefix + "docs"},
		{name: "any tag", slug: "user-auth", from: "v1.0", ref: "refs/tags/v1.0"},
		{name: "unknown date", slug: "user-auth", from: "2026-02-01", noTask: true,
			err: "no task: no archive \"2026-02-01\" of user-auth; `itr list` shows the archives"},
		{name: "unknown full ref", slug: "user-auth", from: "refs/tags/itr/archive/user-auth/2020-01-01", noTask: true,
			err: "no task: no archive \"refs/tags/itr/archive/user-auth/2020-01-01\" of user-auth"},
		{name: "another slug's date", slug: "api", from: "2026-01-09", noTask: true,
			err: "no task: no archive \"2026-01-09\" of api"},
		{name: "never archived", slug: "nope", noTask: true,
			err: "no task: task \"nope\" is neither active under .claude/iterative nor archived; in a fresh clone fetch the archives first: " +
				"git fetch origin 'refs/heads/itr/archive/*:refs/heads/itr/archive/*' 'refs/tags/itr/archive/*:refs/tags/itr/archive/*'"},
		{name: "only unresolvable refs", slug: "ghost", noTask: true, err: `task "ghost" is neither active`},
		{name: "dangling branch", slug: "ghost", from: "itr/archive/ghost", is: gitstate.ErrNotFound,
			err: "archive refs/heads/itr/archive/ghost: "},
		{name: "tag of a blob", slug: "blob", from: "2026-01-01", is: gitstate.ErrNotFound,
			err: "archive refs/tags/itr/archive/blob/2026-01-01: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, commit, err := w.s.FindArchive(tt.slug, tt.from)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Equal(t, tt.noTask, err != nil && isNoTask(err), "errors.Is ErrNoTask")
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
					assert.True(t, strings.HasSuffix(err.Error(), "; run `itr verify`"), err.Error())
				}
				assert.Empty(t, ref)
				assert.Empty(t, commit)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.ref, ref)
			want, ok := w.commits[tt.ref]
			if !ok {
				want = c // refs/tags/v1.0
			}
			assert.Equal(t, want, commit)
		})
	}
}

func isNoTask(err error) bool { return errors.Is(err, store.ErrNoTask) }

func TestFindArchiveErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method string
		from   string
	}{
		{"RawRefs", ""},
		{"PeelCommit", ""}, // the unresolvable refs are left out: nothing archived
		{"ReadRef", "2026-01-14"},
		{"PeelCommit", "2026-01-14"},
	}
	w := newArchiveWorld(t)
	for _, tt := range tests {
		t.Run(tt.method+"/"+tt.from, func(t *testing.T) {
			w.fake.Fail(tt.method, errBoom)
			defer w.fake.Fail(tt.method, nil)
			ref, commit, err := w.s.FindArchive("user-auth", tt.from)
			require.Error(t, err)
			assert.Empty(t, ref)
			assert.Empty(t, commit)
			if tt.method == "PeelCommit" && tt.from == "" {
				assert.ErrorIs(t, err, store.ErrNoTask)
				return
			}
			assert.ErrorIs(t, err, errBoom)
			if tt.method == "PeelCommit" {
				assert.Equal(t, "archive refs/tags/itr/archive/user-auth/2026-01-14: boom; run `itr verify`", err.Error())
			}
		})
	}
}

func TestLoadArchived(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t)
	tag := func(date string) string { return store.ArchiveTagPrefix + "user-auth/" + date }

	task, ref, err := w.s.LoadArchived("user-auth", "")
	require.NoError(t, err)
	assert.Equal(t, tag("2026-01-14-10"), ref)
	assert.Equal(t, gitstate.Head{Hash: w.commits[ref], Detached: true}, task.Head)
	assert.Equal(t, "user-auth", task.Slug)
	assert.Equal(t, ".claude/iterative/user-auth", task.Dir)
	require.NotNil(t, task.State)
	assert.Equal(t, state.Phase("execute"), task.State.Phase)
	assert.Equal(t, 3, strings.Count(string(task.ProgressRaw), "**Did:** again"), "the archive's own log")
	// The plan comes from the archive: the folder is gone from the disk.
	assert.NoDirExists(t, w.abs(root+"/user-auth"))
	require.NoError(t, task.PlanErr)
	require.NotNil(t, task.Plan)
	assert.Equal(t, "tasks.md", task.PlanName)
	assert.Equal(t, []string{"T1", "T2", "T3", "T4", "T5"}, task.Plan.IDs())

	task, ref, err = w.s.LoadArchived("user-auth", "2026-01-09")
	require.NoError(t, err)
	assert.Equal(t, tag("2026-01-09"), ref)
	assert.Equal(t, 4, strings.Count(string(task.ProgressRaw), "**Did:** again"))

	// A branch-only archive of a task still on its template plan.
	task, ref, err = w.s.LoadArchived("docs", "")
	require.NoError(t, err)
	assert.Equal(t, store.ArchiveBranchPrefix+"docs", ref)
	assert.Equal(t, state.Phase("discover"), task.State.Phase)
	assert.Equal(t, "tasks.md", task.PlanName)
	assert.Nil(t, task.Plan)
}

func TestLoadArchivedErrors(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t)
	// An archive tag of a commit that holds no such task (archived under
	// another root, or made by hand).
	c := w.work("feat: unrelated")
	tagRef := w.archiveTag("elsewhere", "2026-01-14", c.Hash)

	task, ref, err := w.s.LoadArchived("elsewhere", "")
	require.Error(t, err)
	assert.Nil(t, task)
	assert.Empty(t, ref)
	assert.True(t, strings.HasPrefix(err.Error(),
		"archive "+tagRef+" holds no task at .claude/iterative/elsewhere (was it archived under another root?): task \"elsewhere\" not found"), err.Error())
	assert.ErrorIs(t, err, store.ErrNoTask)

	task, _, err = w.s.LoadArchived("nope", "")
	assert.Nil(t, task)
	assert.ErrorIs(t, err, store.ErrNoTask)

	w.fake.Fail("FolderHashes", errBoom)
	task, _, err = w.s.LoadArchived("user-auth", "")
	assert.Nil(t, task)
	assert.ErrorIs(t, err, errBoom)
	assert.Contains(t, err.Error(), "archive refs/tags/itr/archive/user-auth/2026-01-14-10 holds no task at .claude/iterative/user-auth")
}

func TestLoadPlanAt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	old, _ := f.initTask("user-auth")
	planned, _ := f.plannedTask("user-auth")
	knowledge := f.commit("switch to a plan.md", del(rel("user-auth", "tasks.md")), put(rel("user-auth", "plan.md"), knowledgePlan))
	f.write(rel("user-auth", "tasks.md"), "# on disk only: never read\n")

	tests := []struct {
		name, rev, planName string
		ids                 []string
	}{
		{"template", old.Hash, "tasks.md", nil},
		{"planned", planned.Hash, "tasks.md", []string{"T1", "T2", "T3", "T4", "T5"}},
		{"plan.md", knowledge.Hash, "plan.md", []string{"R1", "R2"}},
		{"by name", "HEAD~1", "tasks.md", []string{"T1", "T2", "T3", "T4", "T5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := &store.Task{Slug: "user-auth", Dir: f.s.TaskDir("user-auth")}
			f.s.LoadPlanAt(task, tt.rev)
			require.NoError(t, task.PlanErr)
			assert.Equal(t, tt.planName, task.PlanName)
			if tt.ids == nil {
				assert.Nil(t, task.Plan)
				return
			}
			require.NotNil(t, task.Plan)
			assert.Equal(t, tt.ids, task.Plan.IDs())
		})
	}

	f.fake.Fail("ReadFile", errBoom)
	task := &store.Task{Slug: "user-auth", Dir: f.s.TaskDir("user-auth")}
	f.s.LoadPlanAt(task, planned.Hash)
	assert.Equal(t, "tasks.md", task.PlanName)
	assert.ErrorIs(t, task.PlanErr, errBoom)
	assert.Nil(t, task.Plan)
}

func TestActiveAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		setup  func(f *fixture)
		slug   string
		active bool
		is     error
	}{
		{name: "unborn", setup: func(*fixture) {}, slug: "user-auth"},
		{name: "committed", setup: func(f *fixture) { f.initTask("user-auth") }, slug: "user-auth", active: true},
		{name: "only in a subfolder", setup: func(f *fixture) {
			f.commit("x", put(rel("user-auth", "sources/a.md"), "a"))
		}, slug: "user-auth"}, // deliverables an archive left in place: not a task
		{name: "log only", setup: func(f *fixture) {
			f.commit("x", put(rel("user-auth", "progress.md"), "# Progress Log\n"))
		}, slug: "user-auth", active: true},
		{name: "state only", setup: func(f *fixture) {
			f.commit("x", put(rel("user-auth", "state.json"), "{}"))
		}, slug: "user-auth", active: true},
		{name: "state only deeper", setup: func(f *fixture) {
			f.commit("x", put(rel("user-auth", "outputs/state.json"), "{}"))
		}, slug: "user-auth"},
		{name: "another task", setup: func(f *fixture) { f.initTask("api") }, slug: "user-auth"},
		{name: "on disk only", setup: func(f *fixture) {
			f.initTask("api")
			f.write(rel("user-auth", "state.json"), "{}")
		}, slug: "user-auth"},
		{name: "archived", setup: func(f *fixture) {
			f.initTask("user-auth")
			f.archive("user-auth", "2026-01-14")
		}, slug: "user-auth"},
		{name: "Head fails", setup: func(f *fixture) {
			f.initTask("user-auth")
			f.fake.Fail("Head", errBoom)
		}, slug: "user-auth", is: errBoom},
		{name: "ListFiles fails", setup: func(f *fixture) {
			f.initTask("user-auth")
			f.fake.Fail("ListFiles", errBoom)
		}, slug: "user-auth", is: errBoom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.setup(f)
			active, err := f.s.ActiveAt(tt.slug)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.active, active)
			if tt.name == "unborn" {
				assert.Zero(t, f.fake.Calls("ListFiles"), "an unborn HEAD has no tree to list")
			}
		})
	}
}

func TestArchiveRefsAndPeeledRefs(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t)

	raw, err := w.s.ArchiveRefs()
	require.NoError(t, err)
	assert.Equal(t, []string{
		"refs/heads/itr/archive/Bad",
		"refs/heads/itr/archive/docs",
		"refs/heads/itr/archive/ghost",
		"refs/heads/itr/archive/user-auth",
		"refs/tags/itr/archive/Bad/2026-01-01",
		"refs/tags/itr/archive/api/2026-01-12",
		"refs/tags/itr/archive/api/latest",
		"refs/tags/itr/archive/blob/2026-01-01",
		"refs/tags/itr/archive/ghost/2026-01-01",
		"refs/tags/itr/archive/user-auth/2026-01-09",
		"refs/tags/itr/archive/user-auth/2026-01-14",
		"refs/tags/itr/archive/user-auth/2026-01-14-10",
		"refs/tags/itr/archive/user-auth/2026-01-14-2",
		"refs/tags/itr/archive/user-auth/2026-01-14-3",
	}, sortedKeys(raw))
	// Unpeeled: a branch names its commit, an annotated tag its tag object.
	assert.Equal(t, w.commits["refs/heads/itr/archive/docs"], raw["refs/heads/itr/archive/docs"])
	tagRef := "refs/tags/itr/archive/api/2026-01-12"
	assert.NotEqual(t, w.commits[tagRef], raw[tagRef])
	tagObj, err := w.fake.ReadTag(tagRef)
	require.NoError(t, err)
	assert.Equal(t, tagObj.Hash, raw[tagRef])
	assert.Equal(t, strings.Repeat("d", 40), raw["refs/heads/itr/archive/ghost"])

	peeled, err := w.s.PeeledRefs(store.ArchiveTagPrefix)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"refs/tags/itr/archive/Bad/2026-01-01",
		"refs/tags/itr/archive/api/2026-01-12",
		"refs/tags/itr/archive/api/latest",
		"refs/tags/itr/archive/user-auth/2026-01-09",
		"refs/tags/itr/archive/user-auth/2026-01-14",
		"refs/tags/itr/archive/user-auth/2026-01-14-10",
		"refs/tags/itr/archive/user-auth/2026-01-14-2",
		"refs/tags/itr/archive/user-auth/2026-01-14-3",
	}, sortedKeys(peeled), "the ghost and blob tags do not lead to a commit")
	assert.Equal(t, w.commits[tagRef], peeled[tagRef])

	for _, prefix := range []string{store.ArchiveBranchPrefix, store.ArchiveTagPrefix} {
		s := w.wrap(nil, map[string]error{prefix: errBoom})
		raw, err := s.ArchiveRefs()
		assert.ErrorIs(t, err, errBoom, prefix)
		assert.Nil(t, raw)
		peeled, err := s.PeeledRefs(prefix)
		assert.ErrorIs(t, err, errBoom, prefix)
		assert.Nil(t, peeled)
	}
}

func TestBlobAndReadAt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c, files := f.plannedTask("user-auth")
	f.commit("later", put(rel("user-auth", "brief.md"), "# Brief\n"))

	data, err := f.s.Blob("")
	require.NoError(t, err)
	assert.Nil(t, data)
	assert.Zero(t, f.fake.Calls("ReadBlob"), "no file, no read")

	data, err = f.s.Blob(gitstate.BlobHash(files["tasks.md"]))
	require.NoError(t, err)
	assert.Equal(t, files["tasks.md"], data)

	_, err = f.s.Blob(strings.Repeat("a", 40))
	assert.ErrorIs(t, err, gitstate.ErrNotFound)

	tests := []struct {
		name, rev, path string
		want            []byte
	}{
		{"at HEAD", "HEAD", rel("user-auth", "brief.md"), []byte("# Brief\n")},
		{"at a commit", c.Hash, rel("user-auth", "state.json"), files["state.json"]},
		{"not yet there", c.Hash, rel("user-auth", "brief.md"), nil},
		{"missing folder", "HEAD", rel("nope", "state.json"), nil},
		{"a folder", "HEAD", root + "/user-auth", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := f.s.ReadAt(tt.rev, tt.path)
			require.NoError(t, err)
			assert.Equal(t, tt.want, data)
		})
	}

	f.fake.Fail("ReadFile", errBoom)
	data, err = f.s.ReadAt("HEAD", rel("user-auth", "brief.md"))
	assert.ErrorIs(t, err, errBoom)
	assert.Nil(t, data)
}

func TestShort(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0123456789abcdef0123456789abcdef01234567", "0123456"},
		{"01234567", "0123456"},
		{"0123456", "0123456"},
		{"abc", "abc"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, store.Short(tt.in), tt.in)
	}
}

func TestWorkCommits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	short := func(c gitstate.Commit) string { return c.Hash[:7] + ": " + c.Subject }

	// Before the task's first itr commit: work with no itr commit at all.
	a := f.work("feat: scaffold")
	task := &store.Task{Slug: "user-auth", Dir: f.s.TaskDir("user-auth")}
	got, err := f.s.WorkCommits(task, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{short(a)}, got)

	f.initTask("user-auth")
	b := f.work("feat(user-auth): add User model")
	f.initTask("api") // another task's itr commit is not work
	cm := f.commit("fix: typo\n\nA longer body that is not\npart of the subject.\n", put("README.md", "fixed\n"))
	d := f.work("test(user-auth): cover the model")

	got, err = f.s.WorkCommits(task, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{short(b), short(cm), short(d)}, got, "oldest first, up to the task's last itr commit")
	assert.Equal(t, cm.Hash[:7]+": fix: typo", got[1])

	// Right after the task's own commit: none.
	f.commit(itrMsg("user-auth", store.EventIteration), put(rel("user-auth", "progress.md"), "# Progress Log\n\n## x\n"))
	got, err = f.s.WorkCommits(task, nil)
	require.NoError(t, err)
	assert.Empty(t, got)

	// The revisions given, in the order given, tags peeled.
	_, err = f.fake.CreateTag("refs/tags/v0.1", a.Hash, "first", tester)
	require.NoError(t, err)
	got, err = f.s.WorkCommits(task, []string{d.Hash[:10], "v0.1", "HEAD~1"})
	require.NoError(t, err)
	assert.Equal(t, []string{short(d), short(a), short(d)}, got)

	got, err = f.s.WorkCommits(task, []string{"no-such-rev"})
	require.Error(t, err)
	assert.Nil(t, got)
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	assert.True(t, strings.HasPrefix(err.Error(), "--commit no-such-rev: "), err.Error())
}

func TestWorkCommitsCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.initTask("user-auth")
	var subjects []string
	var last gitstate.Commit
	for i := 0; i < 55; i++ {
		last = f.commit("work "+string(rune('a'+i/26))+string(rune('a'+i%26)), put("src/n.txt", strings.Repeat("x", i+1)))
		subjects = append(subjects, last.Subject)
	}
	task := &store.Task{Slug: "user-auth"}
	got, err := f.s.WorkCommits(task, nil)
	require.NoError(t, err)
	require.Len(t, got, 50, "the newest 50")
	assert.Equal(t, last.Hash[:7]+": "+last.Subject, got[49])
	for i, line := range got {
		assert.True(t, strings.HasSuffix(line, ": "+subjects[5+i]), line)
	}
}

func TestWorkCommitsUnbornAndErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	task := &store.Task{Slug: "user-auth"}
	got, err := f.s.WorkCommits(task, nil)
	require.NoError(t, err)
	assert.Empty(t, got, "an unborn branch has no work")

	c := f.work("feat: one")
	f.fake.Fail("History", errBoom)
	got, err = f.s.WorkCommits(task, nil)
	assert.ErrorIs(t, err, errBoom)
	assert.Nil(t, got)
	got, err = f.s.WorkCommits(task, []string{c.Hash})
	assert.ErrorIs(t, err, errBoom)
	assert.Nil(t, got)
	f.fake.Fail("History", nil)

	f.fake.Fail("ResolveRev", errBoom)
	got, err = f.s.WorkCommits(task, []string{"HEAD"})
	assert.ErrorIs(t, err, errBoom)
	assert.Equal(t, "--commit HEAD: boom", err.Error())
	assert.Nil(t, got)
}

func TestDeliverablesLeftInPlace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.initTask("user-auth")
	f.write(rel("lit", "outputs/memo.md"), "memo")
	f.write(rel("lit", "sources/a.md"), "a")
	f.commit("deliverables", put(rel("lit", "outputs/memo.md"), "memo"), put(rel("lit", "sources/a.md"), "a"))

	slugs, err := f.s.Slugs()
	require.NoError(t, err)
	assert.Equal(t, []string{"user-auth"}, slugs, "a folder of deliverables is not a task")
	slug, err := f.s.Select("")
	require.NoError(t, err)
	assert.Equal(t, "user-auth", slug, "nor does it make the choice ambiguous")
	active, err := f.s.ActiveAt("lit")
	require.NoError(t, err)
	assert.False(t, active)

	only, err := f.s.OnlyDeliverables(root + "/lit")
	require.NoError(t, err)
	assert.True(t, only)
	f.write(rel("lit", "notes.txt"), "x")
	only, err = f.s.OnlyDeliverables(root + "/lit")
	require.NoError(t, err)
	assert.False(t, only, "a file beside them is something else")
	_, err = f.s.OnlyDeliverables(root + "/none")
	assert.ErrorContains(t, err, "read "+root+"/none")

	dir := root + "/lit"
	assert.True(t, store.IsDeliverable(dir, dir+"/outputs/memo.md"))
	assert.True(t, store.IsDeliverable(dir, dir+"/sources/deep/a.md"))
	assert.False(t, store.IsDeliverable(dir, dir+"/outputs"))
	assert.False(t, store.IsDeliverable(dir, dir+"/outputs-old/a.md"))
	assert.False(t, store.IsDeliverable(dir, dir+"/state.json"))
	assert.True(t, store.IsTaskFiles(dir, []string{dir + "/outputs/a", dir + "/progress.md"}))
	assert.False(t, store.IsTaskFiles(dir, []string{dir + "/outputs/state.json", dir + "/sources/progress.md"}))
}
