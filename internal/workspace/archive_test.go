package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// A finished task becomes the archive branch and an annotated tag at the
// commit of its Archived entry; one more commit takes the folder out of
// the working tree and touches nothing else; its claims go with it; git
// finds the repository clean and itr verify the archive.
func TestArchiveFinishedTask(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	_, err := ucOpen(t, dir, "alice", clock).Claim(ClaimRequest{Slug: ucSlug, Unit: "T1", For: time.Hour})
	require.NoError(t, err)
	for _, unit := range []string{"T1", "T2", "T3"} {
		ucDone(t, ucOpen(t, dir, "alice", clock), unit)
	}
	before := ucGitLine(t, dir, "rev-parse", "HEAD")

	clock.Set(time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC))
	rep, err := ucOpen(t, dir, "alice", clock).Archive(ArchiveRequest{Slug: ucSlug})
	require.NoError(t, err)
	assert.Equal(t, store.ArchiveBranchPrefix+ucSlug, rep.Branch)
	assert.Equal(t, store.ArchiveTagPrefix+ucSlug+"/2026-01-15", rep.Tag)
	assert.Equal(t, 3, rep.Done)
	assert.Equal(t, 3, rep.Total)
	assert.Empty(t, rep.Unfinished)
	assert.Empty(t, rep.Forced)
	assert.Empty(t, rep.ClaimWarnings)

	// The Archived entry is one commit on top of the last checkpoint; the
	// removal is one commit on top of it.
	assert.Equal(t, before, ucGitLine(t, dir, "rev-parse", rep.Checkpoint+"^"))
	assert.Equal(t, store.EventArchived, ucGitLine(t, dir, "log", "-1", "--format=%(trailers:key=Itr-Event,valueonly)", rep.Checkpoint))
	assert.Equal(t, state.Complete, ucStateAt(t, dir, rep.Checkpoint).Phase)
	assert.Equal(t, rep.Commit, ucGitLine(t, dir, "rev-parse", "HEAD"))
	assert.Equal(t, rep.Checkpoint, ucGitLine(t, dir, "rev-parse", "HEAD^"))

	// The refs: the branch at the checkpoint, an annotated tag of it.
	assert.Equal(t, rep.Checkpoint, ucGitLine(t, dir, "rev-parse", rep.Branch))
	assert.Equal(t, "tag "+rep.TagObject+" commit "+rep.Checkpoint,
		ucGitLine(t, dir, "for-each-ref", "--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname)", rep.Tag))
	msg := ucGit(t, dir, "cat-file", "tag", rep.Tag)
	assert.Contains(t, msg, "tagger Test Agent <agent@example.com>")
	assert.Contains(t, msg, "itr archive: Demo (demo)")
	assert.Contains(t, msg, "Units: 3/3 done")
	assert.Contains(t, msg, "Itr-Task: demo")
	assert.Contains(t, msg, "Itr-Commit: "+rep.Checkpoint)

	// The removal: every file of the folder, deleted, and nothing else.
	archived := ucLsTree(t, dir, rep.Checkpoint, ucTaskDir())
	require.NotEmpty(t, archived)
	assert.Equal(t, archived, ucLsTree(t, dir, rep.Tag, ucTaskDir()), "the tag holds the whole folder")
	removed := ucNameStatus(t, dir, "HEAD")
	want := map[string]string{}
	for _, f := range archived {
		want[f] = "D"
	}
	assert.Equal(t, want, removed)
	assert.Empty(t, ucLsTree(t, dir, "HEAD", ucTaskDir()))
	_, err = os.Stat(filepath.Join(dir, filepath.FromSlash(ucTaskDir())))
	assert.True(t, errors.Is(err, fs.ErrNotExist), "the folder left the working tree: %v", err)
	assert.Equal(t, rep.Tag, ucGitLine(t, dir, "log", "-1", "--format=%(trailers:key=Itr-Archive,valueonly)"))

	// The claims went with the task.
	assert.Empty(t, ucRefs(t, dir, store.ClaimRefPrefix))
	ucCheckGit(t, dir)
	assert.Positive(t, ucAppendOnly(t, dir, rep.Branch, ucTaskFile(store.ProgressFile)))
	v, err := ucOpen(t, dir, "alice", clock).Verify("")
	require.NoError(t, err)
	assert.Empty(t, v.Findings)

	// Archiving again finds no task and changes nothing.
	refs := ucRefs(t, dir, "refs/")
	_, err = ucOpen(t, dir, "alice", clock).Archive(ArchiveRequest{Slug: ucSlug})
	require.Error(t, err)
	assert.Equal(t, refs, ucRefs(t, dir, "refs/"))
	ucCheckGit(t, dir)
}

// An unfinished task is refused, naming its unfinished units, and nothing
// moves; Force needs a Reason (and a Reason needs Force); forced with
// Keep, the archive logs the reason and the unfinished units, and the
// removal commit adds a plain copy whose tree is the archived folder's.
func TestArchiveRefusesUnfinishedUnlessForced(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	ucDone(t, ucOpen(t, dir, "alice", clock), "T1")
	_, err := ucOpen(t, dir, "alice", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T2", Did: "half the docs"})
	require.NoError(t, err)
	refs := ucRefs(t, dir, "refs/")

	_, err = ucOpen(t, dir, "alice", clock).Archive(ArchiveRequest{Slug: ucSlug})
	var ue *UnfinishedError
	require.True(t, errors.As(err, &ue), "%v", err)
	assert.Equal(t, []string{"T2 (in_progress)", "T3 (pending)"}, ue.Units)
	assert.Contains(t, err.Error(), "task demo has 2 unfinished unit(s): T2 (in_progress), T3 (pending)")
	assert.Contains(t, err.Error(), "--force --reason")

	for _, req := range []ArchiveRequest{
		{Slug: ucSlug, Force: true},
		{Slug: ucSlug, Force: true, Reason: "  "},
		{Slug: ucSlug, Reason: "no force"},
	} {
		_, err = ucOpen(t, dir, "alice", clock).Archive(req)
		require.Error(t, err, "%+v", req)
		assert.Contains(t, err.Error(), "--reason", "%+v", req)
	}
	assert.Equal(t, refs, ucRefs(t, dir, "refs/"), "the refusals moved no ref and made no tag")
	ucCheckGit(t, dir)

	reason := "the docs move to another task"
	rep, err := ucOpen(t, dir, "alice", clock).Archive(ArchiveRequest{Slug: ucSlug, Force: true, Reason: reason, Keep: true})
	require.NoError(t, err)
	assert.Equal(t, reason, rep.Forced)
	assert.Equal(t, []string{"T2 (in_progress)", "T3 (pending)"}, rep.Unfinished)
	assert.Equal(t, 1, rep.Done)
	assert.Equal(t, store.DefaultRoot+"/"+store.ArchiveFolder+"/demo-20260114", rep.Kept)

	entry := ucGit(t, dir, "show", rep.Checkpoint+":"+ucTaskFile(store.ProgressFile))
	assert.Contains(t, entry, reason)
	assert.Contains(t, entry, "T2 (in_progress), T3 (pending)")
	assert.Contains(t, ucGit(t, dir, "log", "-1", "--format=%s", rep.Checkpoint), "(forced: "+reason+")")
	assert.Contains(t, ucGit(t, dir, "cat-file", "tag", rep.Tag), "Forced: "+reason)

	// The plain copy is the archived folder, tree for tree and on disk.
	assert.Equal(t, ucGitLine(t, dir, "rev-parse", rep.Tag+":"+ucTaskDir()), ucGitLine(t, dir, "rev-parse", "HEAD:"+rep.Kept))
	archived := ucLsTree(t, dir, rep.Tag, ucTaskDir())
	status := ucNameStatus(t, dir, "HEAD")
	assert.Len(t, status, 2*len(archived))
	for _, f := range archived {
		kept := rep.Kept + strings.TrimPrefix(f, ucTaskDir())
		assert.Equal(t, "D", status[f], f)
		assert.Equal(t, "A", status[kept], kept)
		disk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(kept)))
		require.NoError(t, err)
		assert.Equal(t, ucGit(t, dir, "show", rep.Tag+":"+f), string(disk), kept)
	}
	ucCheckGit(t, dir)
}

// By default the task's outputs/ stay in the working tree, tracked, as
// deliverables; RemoveOutputs takes them out with the rest.
func TestArchiveLeavesDeliverablesUnlessRemoveOutputs(t *testing.T) {
	for _, remove := range []bool{false, true} {
		t.Run(map[bool]string{false: "kept", true: "removed"}[remove], func(t *testing.T) {
			clock := ucNewClock(ucT0)
			dir := ucRepo(t, clock, "# Demo - Tasks\n\n## Tasks\n\n- [ ] **T1**: The report\n")
			report := ucTaskFile("outputs/report.md")
			require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.FromSlash(ucTaskFile("outputs"))), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(report)), []byte("# Report\n"), 0o644))
			ucDone(t, ucOpen(t, dir, "alice", clock), "T1")
			require.Equal(t, "# Report\n", ucGit(t, dir, "show", "HEAD:"+report), "the checkpoint committed the output")

			rep, err := ucOpen(t, dir, "alice", clock).Archive(ArchiveRequest{Slug: ucSlug, RemoveOutputs: remove})
			require.NoError(t, err)
			assert.Equal(t, "# Report\n", ucGit(t, dir, "show", rep.Tag+":"+report), "the archive holds the output")
			if remove {
				assert.Empty(t, rep.Deliverables)
				assert.Empty(t, ucLsTree(t, dir, "HEAD", ucTaskDir()))
				assert.Equal(t, "D", ucNameStatus(t, dir, "HEAD")[report])
			} else {
				assert.Equal(t, []string{ucTaskFile("outputs")}, rep.Deliverables)
				assert.Equal(t, []string{report}, ucLsTree(t, dir, "HEAD", ucTaskDir()), "only the output stays")
				assert.NotContains(t, ucNameStatus(t, dir, "HEAD"), report)
				disk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(report)))
				require.NoError(t, err)
				assert.Equal(t, "# Report\n", string(disk))
			}
			ucCheckGit(t, dir)
		})
	}
}

// Restore brings the archived folder back in one commit: every file the
// archive holds is back byte for byte (the same blobs), the log as
// archived with a Restored entry appended, the state in phase execute
// with the units as archived. The task goes on: a checkpoint after the
// restore is recorded, and the log only grew. A second restore is
// refused while the task is active.
func TestRestoreBringsArchiveBackAndTaskContinues(t *testing.T) {
	clock := ucNewClock(ucT0)
	dir := ucRepo(t, clock, ucTasks)
	ucDone(t, ucOpen(t, dir, "alice", clock), "T1")
	brief := ucTaskFile("brief.md")
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(brief)), []byte("# Brief\n\nThe docs, with ünïcödé and no final newline"), 0o644))
	_, err := ucOpen(t, dir, "alice", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T2", Did: "half the docs"})
	require.NoError(t, err)
	_, err = ucOpen(t, dir, "alice", clock).Guardrail(GuardrailRequest{Slug: ucSlug, Name: "Link the docs", When: "a page moves", Problem: "dead links", Solution: "redirect"})
	require.NoError(t, err)
	arch, err := ucOpen(t, dir, "alice", clock).Archive(ArchiveRequest{Slug: ucSlug, Force: true, Reason: "paused for the release"})
	require.NoError(t, err)
	archived := ucLsTree(t, dir, arch.Tag, ucTaskDir())
	require.Contains(t, archived, brief)

	clock.Set(time.Date(2026, 1, 16, 9, 0, 0, 0, time.UTC))
	rep, err := ucOpen(t, dir, "bob", clock).Restore(RestoreRequest{Slug: ucSlug})
	require.NoError(t, err)
	assert.Equal(t, arch.Tag, rep.From)
	assert.Equal(t, string(state.Execute), rep.Phase)
	assert.Equal(t, rep.Commit, ucGitLine(t, dir, "rev-parse", "HEAD"))
	assert.Equal(t, arch.Commit, ucGitLine(t, dir, "rev-parse", "HEAD^"), "one commit on top of the removal")
	assert.Equal(t, store.EventRestored, ucGitLine(t, dir, "log", "-1", "--format=%(trailers:key=Itr-Event,valueonly)"))

	// The folder is back: the same files, the same blobs but for the log
	// (appended to) and the view (phase execute).
	assert.Equal(t, archived, ucLsTree(t, dir, "HEAD", ucTaskDir()))
	logFile, stateFile := ucTaskFile(store.ProgressFile), ucTaskFile(store.StateFile)
	for path, status := range ucNameStatus(t, dir, "HEAD") {
		if strings.HasPrefix(path, ucTaskDir()+"/") {
			assert.Equal(t, "A", status, path)
		}
	}
	for _, f := range archived {
		disk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		require.NoError(t, err)
		assert.Equal(t, ucGit(t, dir, "show", "HEAD:"+f), string(disk), "%s on disk is as committed", f)
		if f == logFile || f == stateFile {
			continue
		}
		assert.Equal(t, ucGitLine(t, dir, "rev-parse", arch.Tag+":"+f), ucGitLine(t, dir, "rev-parse", "HEAD:"+f), "%s is the archived blob", f)
	}
	archivedLog := ucGit(t, dir, "show", arch.Tag+":"+logFile)
	restoredLog := ucGit(t, dir, "show", "HEAD:"+logFile)
	require.True(t, strings.HasPrefix(restoredLog, archivedLog), "the restored log extends the archived one")
	assert.Contains(t, restoredLog[len(archivedLog):], arch.Tag)
	s := ucStateAt(t, dir, "HEAD")
	assert.Equal(t, state.Execute, s.Phase)
	assert.Equal(t, state.Done, s.Units["T1"].Status)
	assert.Equal(t, state.InProgress, s.Units["T2"].Status)
	assert.Equal(t, state.Pending, s.Units["T3"].Status)
	ucCheckGit(t, dir)

	// The task continues.
	clock.Set(time.Date(2026, 1, 16, 10, 0, 0, 0, time.UTC))
	out, err := ucOpen(t, dir, "bob", clock).Checkpoint(CheckpointRequest{Slug: ucSlug, Unit: "T2", Did: "the rest of the docs", Signal: true})
	require.NoError(t, err)
	assert.Equal(t, out.Commit, ucGitLine(t, dir, "rev-parse", "HEAD"))
	assert.Equal(t, state.Confirming, ucStateAt(t, dir, "HEAD").Units["T2"].Status)
	assert.Equal(t, 2, state.Val(ucStateAt(t, dir, "HEAD").Units["T2"].IterationsUsed))
	assert.Contains(t, ucGit(t, dir, "show", "HEAD:"+logFile)[len(restoredLog):], "the rest of the docs")
	assert.Positive(t, ucAppendOnly(t, dir, "HEAD", logFile))
	ucCheckGit(t, dir)
	v, err := ucOpen(t, dir, "bob", clock).Verify(ucSlug)
	require.NoError(t, err)
	assert.Empty(t, v.Findings)

	// Restoring an active task is refused and changes nothing.
	refs := ucRefs(t, dir, "refs/")
	_, err = ucOpen(t, dir, "bob", clock).Restore(RestoreRequest{Slug: ucSlug})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `an active task has the slug "demo"`)
	assert.Equal(t, refs, ucRefs(t, dir, "refs/"))
	ucCheckGit(t, dir)
}
