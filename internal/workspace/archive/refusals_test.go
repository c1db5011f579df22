package archive

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// refusal is one request archive or restore refuses: the repository it
// meets, the request, what the error says is wrong and the fix it names.
type refusal struct {
	name  string
	setup func(f *fixture)
	run   func(t *testing.T, f *fixture) error
	want  string // what is wrong
	fix   string // how to put it right
	check func(t *testing.T, err error)
}

// The repositories the refusals meet.

// started is the task of three units with T1 under way.
func started(f *fixture) {
	f.newTask(threeUnits)
	f.checkpoint("T1", "began the model", false, "")
}

// finishedOne is a task of one unit, done.
func finishedOne(f *fixture) {
	f.newTask(oneUnit)
	f.done("T1")
}

// archived is finishedOne, archived.
func archived(f *fixture) {
	finishedOne(f)
	_, err := f.archive(Request{Slug: slug})
	require.NoError(f.t, err)
}

// merging leaves git in the middle of a merge: the fake says so, a real
// repository has a MERGE_HEAD.
func merging(f *fixture) {
	if !f.real() {
		f.fake.SetOperation("merge", f.head())
		return
	}
	gitDir := f.gitLine("rev-parse", "--absolute-git-dir")
	require.NoError(f.t, os.WriteFile(filepath.Join(gitDir, "MERGE_HEAD"), []byte(f.head()+"\n"), 0o644))
}

// archiveRun runs Archive with req, failing the test if the refusal
// drops claims.
func archiveRun(req Request) func(t *testing.T, f *fixture) error {
	return func(t *testing.T, f *fixture) error {
		_, err := Archive(f.store(), req, func(s string) []string {
			t.Errorf("the refused archive dropped the claims of %s", s)
			return nil
		})
		return err
	}
}

// restoreRun runs Restore with req.
func restoreRun(req RestoreRequest) func(t *testing.T, f *fixture) error {
	return func(_ *testing.T, f *fixture) error {
		_, err := f.restore(req)
		return err
	}
}

// isUnfinished checks that err is an UnfinishedError of units, with
// failed among them.
func isUnfinished(units, failed []string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		var ue *UnfinishedError
		require.True(t, errors.As(err, &ue), "%T %v", err, err)
		assert.Equal(t, slug, ue.Slug)
		assert.Equal(t, units, ue.Units)
		assert.Equal(t, failed, ue.Failed)
	}
}

// isNoTask checks that err means there is no such task.
func isNoTask(t *testing.T, err error) { assert.ErrorIs(t, err, store.ErrNoTask) }

var archiveRefusals = []refusal{
	{name: "force without a reason", setup: started, run: archiveRun(Request{Slug: slug, Force: true}),
		want: "--force needs --reason TEXT", fix: "say why the task is archived unfinished"},
	{name: "force with a blank reason", setup: started, run: archiveRun(Request{Slug: slug, Force: true, Reason: " \t "}),
		want: "--force needs --reason TEXT", fix: "say why"},
	{name: "a reason without force", setup: started, run: archiveRun(Request{Slug: slug, Reason: "no force"}),
		want: "--reason goes with --force", fix: "drop it, or add --force"},
	{name: "a reason with a NUL byte", setup: started, run: archiveRun(Request{Slug: slug, Force: true, Reason: "a\x00b"}),
		want: "holds a NUL byte", fix: "remove it",
		check: func(t *testing.T, err error) {
			var fe *record.FieldError
			require.True(t, errors.As(err, &fe), "%T %v", err, err)
			assert.Equal(t, "reason", fe.Field)
		}},
	{name: "unfinished units without force", setup: started, run: archiveRun(Request{Slug: slug}),
		want:  "task demo has 3 unfinished unit(s): T1 (in_progress), T2 (pending), T3 (pending)",
		fix:   "finish them, record what exists first with `itr deliver --limitations TEXT` (done with limitations), or pass --force --reason TEXT to archive it as abandoned",
		check: isUnfinished([]string{"T1 (in_progress)", "T2 (pending)", "T3 (pending)"}, nil)},
	{name: "no units without force", setup: func(f *fixture) { f.newTask("") }, run: archiveRun(Request{Slug: slug}),
		want: "task demo has no units: there is nothing finished to archive", fix: "pass --force --reason TEXT",
		check: isUnfinished([]string{}, nil)},
	{name: "a failed unit without force",
		setup: func(f *fixture) {
			f.newTask(oneUnit)
			f.checkpoint("T1", "tried", false, "")
			f.fail("T1", "the API is gone")
		},
		run:   archiveRun(Request{Slug: slug}),
		want:  "task demo has 1 unfinished unit(s): T1 (failed: the API is gone)",
		fix:   "T1 failed: reopen it once the cause is fixed (`itr reopen T1 --reason TEXT`)",
		check: isUnfinished([]string{"T1 (failed: the API is gone)"}, []string{"T1"})},
	{name: "a symbolic link in the folder",
		setup: func(f *fixture) {
			finishedOne(f)
			require.NoError(f.t, os.Symlink("../../../README.md", f.abs(taskFile("readme-link"))))
		},
		run:  archiveRun(Request{Slug: slug}),
		want: taskFile("readme-link") + " is not a regular file", fix: "move it out of " + taskDir() + " first"},
	{name: "a task already archived", setup: archived, run: archiveRun(Request{Slug: slug}),
		want: `task "demo" not found under ` + store.DefaultRoot + "; it is archived as " + store.ArchiveTagPrefix + slug + "/2026-01-14",
		fix:  "bring it back with `itr restore demo`", check: isNoTask},
	{name: "no task at all", setup: func(*fixture) {}, run: archiveRun(Request{}),
		want: "no task under " + store.DefaultRoot, fix: "start one with `itr init NAME`", check: isNoTask},
	{name: "an unsafe slug", setup: finishedOne, run: archiveRun(Request{Slug: "../demo"}),
		want: `slug "../demo" is not a safe folder name`, fix: "use lower-case letters, digits"},
	{name: "git in the middle of a merge", setup: func(f *fixture) { finishedOne(f); merging(f) }, run: archiveRun(Request{Slug: slug}),
		want: "a git merge is in progress", fix: "`git merge --continue`"},
}

var restoreRefusals = []refusal{
	{name: "an active task of the slug", setup: finishedOne, run: restoreRun(RestoreRequest{Slug: slug}),
		want: `an active task has the slug "demo" (` + taskDir() + ")", fix: "archive it first (`itr archive --task demo`), or restore on another branch"},
	{name: "an occupied folder",
		setup: func(f *fixture) {
			archived(f)
			f.write(taskFile("notes.md"), "mine\n")
		},
		run:  restoreRun(RestoreRequest{Slug: slug}),
		want: taskDir() + " exists in the working tree", fix: "move it away first, then run `itr restore demo` again"},
	{name: "a missing archive", setup: finishedOne, run: restoreRun(RestoreRequest{Slug: "ghost"}),
		want: `task "ghost" is neither active under ` + store.DefaultRoot + " nor archived", fix: "fetch the archives first", check: isNoTask},
	{name: "an archive date that is not there", setup: archived, run: restoreRun(RestoreRequest{Slug: slug, From: "2020-01-01"}),
		want: `no archive "2020-01-01" of demo`, fix: "`itr list` shows the archives", check: isNoTask},
	{name: "a ref that holds no task",
		setup: func(f *fixture) {
			archived(f)
			_, err := f.store().Repo.CreateTag("refs/tags/v1", f.firstCommit(), "v1\n", gitstate.Signature{Name: "Test Agent", Email: "agent@example.com", When: f.now})
			require.NoError(f.t, err)
		},
		run:  restoreRun(RestoreRequest{Slug: slug, From: "v1"}),
		want: "archive refs/tags/v1 holds no task at " + taskDir(), fix: "was it archived under another root?"},
	{name: "an unsafe slug", setup: archived, run: restoreRun(RestoreRequest{Slug: "Demo"}),
		want: `slug "Demo" is not a safe folder name`, fix: "use lower-case letters, digits"},
	{name: "git in the middle of a merge", setup: func(f *fixture) { archived(f); merging(f) }, run: restoreRun(RestoreRequest{Slug: slug}),
		want: "a git merge is in progress", fix: "`git merge --continue`"},
}

// Each refusal of archive and restore, in the fake and in a real
// repository under each engine: the error says what is wrong and names
// the fix, and nothing changed: HEAD, the refs, the working tree and, for
// git, the status are as they were, and git fsck finds nothing wrong.
func TestRefusalsChangeNothing(t *testing.T) {
	for _, set := range []struct {
		name  string
		cases []refusal
	}{{"archive", archiveRefusals}, {"restore", restoreRefusals}} {
		t.Run(set.name, func(t *testing.T) {
			for _, c := range set.cases {
				t.Run(c.name, func(t *testing.T) {
					eachKind(t, allKinds, func(t *testing.T, f *fixture) {
						c.setup(f)
						before := f.snapshot()
						f.tick()
						err := c.run(t, f)
						require.Error(t, err)
						assert.ErrorContains(t, err, c.want)
						assert.ErrorContains(t, err, c.fix)
						if c.check != nil {
							c.check(t, err)
						}
						assert.Equal(t, before, f.snapshot(), "the refusal changed nothing")
						if f.real() {
							f.fsck()
						}
					})
				})
			}
		})
	}
}

// firstCommit is the repository's first commit (the README alone).
func (f *fixture) firstCommit() string {
	f.t.Helper()
	var first string
	require.NoError(f.t, f.store().Repo.History(f.head(), func(c gitstate.Commit) bool {
		first = c.Hash
		return true
	}))
	return first
}
