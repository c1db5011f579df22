package archive

import (
	"errors"
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// A finished task becomes the archive branch and an annotated tag at the
// commit of its Archived entry; one more commit takes the folder out of
// the working tree and touches nothing else; git finds the repository
// clean and itr verify the archive.
func TestArchiveFinishedTask(t *testing.T) {
	eachKind(t, realKinds, func(t *testing.T, f *fixture) {
		f.finished()
		before := f.gitLine("rev-parse", "HEAD")

		f.now = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
		rep, err := f.archive(Request{Slug: slug})
		require.NoError(t, err)
		assert.Equal(t, slug, rep.Slug)
		assert.Equal(t, store.ArchiveBranchPrefix+slug, rep.Branch)
		assert.Equal(t, store.ArchiveTagPrefix+slug+"/2026-01-15", rep.Tag)
		assert.Equal(t, 3, rep.Done)
		assert.Equal(t, 3, rep.Total)
		assert.Equal(t, 9, rep.Iterations)
		assert.Empty(t, rep.Unfinished)
		assert.Empty(t, rep.Forced)
		assert.Empty(t, rep.Kept)
		assert.Empty(t, rep.ClaimWarnings)

		// The Archived entry is one commit on top of the last checkpoint; the
		// removal is one commit on top of it.
		assert.Equal(t, before, f.gitLine("rev-parse", rep.Checkpoint+"^"))
		assert.Equal(t, store.EventArchived, f.gitLine("log", "-1", "--format=%(trailers:key=Itr-Event,valueonly)", rep.Checkpoint))
		assert.Equal(t, state.Complete, f.stateAt(rep.Checkpoint).Phase)
		assert.Equal(t, progresslog.KindArchived, f.entries(rep.Checkpoint)[len(f.entries(rep.Checkpoint))-1])
		assert.Equal(t, rep.Commit, f.gitLine("rev-parse", "HEAD"))
		assert.Equal(t, rep.Checkpoint, f.gitLine("rev-parse", "HEAD^"))

		// The refs: the branch at the checkpoint, an annotated tag of it.
		assert.Equal(t, rep.Checkpoint, f.gitLine("rev-parse", rep.Branch))
		assert.Equal(t, "tag "+rep.TagObject+" commit "+rep.Checkpoint,
			f.gitLine("for-each-ref", "--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname)", rep.Tag))
		msg := f.git("cat-file", "tag", rep.Tag)
		assert.Contains(t, msg, "tagger Test Agent <agent@example.com>")
		assert.Contains(t, msg, "itr archive: Demo (demo)")
		assert.Contains(t, msg, "Units: 3/3 done")
		assert.Contains(t, msg, "Iterations: 9")
		assert.Contains(t, msg, "Itr-Task: demo")
		assert.Contains(t, msg, "Itr-Commit: "+rep.Checkpoint)
		assert.Contains(t, msg, "Itr-Folder: "+taskDir())
		assert.Equal(t, strings.TrimSpace(rep.Summary), strings.TrimSpace(f.git("tag", "-l", "--format=%(contents)", strings.TrimPrefix(rep.Tag, "refs/tags/"))))

		// The removal: every file of the folder, deleted, and nothing else.
		archived := f.lsTree(rep.Checkpoint, taskDir())
		require.NotEmpty(t, archived)
		assert.Equal(t, archived, f.lsTree(rep.Tag, taskDir()), "the tag holds the whole folder")
		want := map[string]string{}
		for _, file := range archived {
			want[file] = "D"
		}
		assert.Equal(t, want, f.nameStatus("HEAD"))
		assert.Empty(t, f.lsTree("HEAD", taskDir()))
		_, err = os.Stat(f.abs(taskDir()))
		assert.True(t, errors.Is(err, fs.ErrNotExist), "the folder left the working tree: %v", err)
		assert.Equal(t, rep.Tag, f.gitLine("log", "-1", "--format=%(trailers:key=Itr-Archive,valueonly)"))
		assert.Contains(t, f.git("log", "-1", "--format=%B"), "restore it with `itr restore demo`")

		f.checkGit()
		assert.Positive(t, f.appendOnly(rep.Branch, taskFile(store.ProgressFile)))
		v, err := verify.Task(f.store(), "")
		require.NoError(t, err)
		assert.Empty(t, v.Findings)
	})
}

// An unfinished task is refused, naming its unfinished units, and nothing
// moves; forced with Keep, the archive logs the reason and the unfinished
// units, and the removal commit adds a plain copy whose tree is the
// archived folder's.
func TestArchiveForcedKeepsAPlainCopy(t *testing.T) {
	eachKind(t, realKinds, func(t *testing.T, f *fixture) {
		f.newTask(threeUnits)
		f.done("T1")
		f.checkpoint("T2", "half the docs", false, "")
		refs := f.refs("refs/")

		_, err := f.archive(Request{Slug: slug})
		var ue *UnfinishedError
		require.True(t, errors.As(err, &ue), "%v", err)
		assert.Equal(t, []string{"T2 (in_progress)", "T3 (pending)"}, ue.Units)
		assert.Contains(t, err.Error(), "task demo has 2 unfinished unit(s): T2 (in_progress), T3 (pending)")
		assert.Equal(t, refs, f.refs("refs/"), "the refusal moved no ref and made no tag")
		f.checkGit()

		reason := "the docs move to another task"
		rep, err := f.archive(Request{Slug: slug, Force: true, Reason: reason, Keep: true})
		require.NoError(t, err)
		assert.Equal(t, reason, rep.Forced)
		assert.Equal(t, []string{"T2 (in_progress)", "T3 (pending)"}, rep.Unfinished)
		assert.Equal(t, 1, rep.Done)
		assert.Equal(t, 3, rep.Total)
		assert.Equal(t, store.DefaultRoot+"/"+store.ArchiveFolder+"/demo-20260114", rep.Kept)

		entry := f.git("show", rep.Checkpoint+":"+taskFile(store.ProgressFile))
		assert.Contains(t, entry, reason)
		assert.Contains(t, entry, "T2 (in_progress), T3 (pending)")
		assert.Contains(t, f.git("log", "-1", "--format=%s", rep.Checkpoint), "(forced: "+reason+")")
		tag := f.git("cat-file", "tag", rep.Tag)
		assert.Contains(t, tag, "Forced: "+reason)
		assert.Contains(t, tag, "Unfinished: T2 (in_progress), T3 (pending)")

		// The plain copy is the archived folder, tree for tree and on disk.
		assert.Equal(t, f.gitLine("rev-parse", rep.Tag+":"+taskDir()), f.gitLine("rev-parse", "HEAD:"+rep.Kept))
		archived := f.lsTree(rep.Tag, taskDir())
		status := f.nameStatus("HEAD")
		assert.Len(t, status, 2*len(archived))
		for _, file := range archived {
			kept := rep.Kept + strings.TrimPrefix(file, taskDir())
			assert.Equal(t, "D", status[file], file)
			assert.Equal(t, "A", status[kept], kept)
			assert.Equal(t, f.git("show", rep.Tag+":"+file), f.read(kept), kept)
		}
		assert.Contains(t, f.git("log", "-1", "--format=%B"), "A plain copy is kept in "+rep.Kept+"/.")
		f.checkGit()

		// A second archive the same day, of a task of the same slug, takes
		// the next names.
		f.newTask(oneUnit)
		f.done("T1")
		again, err := f.archive(Request{Slug: slug, Keep: true})
		require.NoError(t, err)
		assert.Equal(t, store.ArchiveTagPrefix+slug+"/2026-01-14-2", again.Tag)
		assert.Equal(t, rep.Kept+"-2", again.Kept)
		assert.Equal(t, again.Checkpoint, f.gitLine("rev-parse", again.Branch), "the branch moved to the newest archive")
		assert.Equal(t, rep.Checkpoint, f.gitLine("rev-parse", rep.Tag+"^{commit}"), "the first tag stays")
		f.checkGit()
	})
}

// By default the task's outputs/ stay in the working tree, tracked, as
// deliverables; RemoveOutputs takes them out with the rest.
func TestArchiveLeavesDeliverablesUnlessRemoveOutputs(t *testing.T) {
	for _, remove := range []bool{false, true} {
		t.Run(map[bool]string{false: "kept", true: "removed"}[remove], func(t *testing.T) {
			eachKind(t, realKinds, func(t *testing.T, f *fixture) {
				f.newTask(oneUnit)
				report := taskFile("outputs/report.md")
				f.write(report, "# Report\n")
				f.done("T1")
				require.Equal(t, "# Report\n", f.git("show", "HEAD:"+report), "the checkpoint committed the output")

				rep, err := f.archive(Request{Slug: slug, RemoveOutputs: remove})
				require.NoError(t, err)
				assert.Equal(t, "# Report\n", f.git("show", rep.Tag+":"+report), "the archive holds the output")
				if remove {
					assert.Empty(t, rep.Deliverables)
					assert.Empty(t, f.lsTree("HEAD", taskDir()))
					assert.Equal(t, "D", f.nameStatus("HEAD")[report])
					assert.NotContains(t, f.git("log", "-1", "--format=%B"), "deliverables")
				} else {
					assert.Equal(t, []string{taskFile("outputs")}, rep.Deliverables)
					assert.Equal(t, []string{report}, f.lsTree("HEAD", taskDir()), "only the output stays")
					assert.NotContains(t, f.nameStatus("HEAD"), report)
					assert.Equal(t, "# Report\n", f.read(report))
					assert.Contains(t, f.git("log", "-1", "--format=%B"), "Its deliverables stay in the working tree, tracked: "+taskFile("outputs")+"/.")
				}
				f.checkGit()
			})
		})
	}
}

// Restore brings the archived folder back in one commit: every file the
// archive holds is back byte for byte (the same blobs), the log as
// archived with a Restored entry appended, the state in phase execute
// with the units as archived. The task goes on: a checkpoint after the
// restore is recorded, and the log only grew.
func TestRestoreBringsArchiveBackAndTaskContinues(t *testing.T) {
	eachKind(t, realKinds, func(t *testing.T, f *fixture) {
		f.newTask(threeUnits)
		f.done("T1")
		brief := taskFile("brief.md")
		f.write(brief, "# Brief\n\nThe docs, with ünïcödé and no final newline")
		f.checkpoint("T2", "half the docs", false, "")
		f.guardrail("Link the docs")
		arch, err := f.archive(Request{Slug: slug, Force: true, Reason: "paused for the release"})
		require.NoError(t, err)
		archived := f.lsTree(arch.Tag, taskDir())
		require.Contains(t, archived, brief)

		f.now = time.Date(2026, 1, 16, 9, 0, 0, 0, time.UTC)
		rep, err := f.restore(RestoreRequest{Slug: slug})
		require.NoError(t, err)
		assert.Equal(t, slug, rep.Slug)
		assert.Equal(t, arch.Tag, rep.From)
		assert.Equal(t, string(state.Execute), rep.Phase)
		assert.Empty(t, rep.KeptNewer)
		assert.Equal(t, archived, sortedCopy(rep.Files))
		assert.Equal(t, rep.Commit, f.gitLine("rev-parse", "HEAD"))
		assert.Equal(t, arch.Commit, f.gitLine("rev-parse", "HEAD^"), "one commit on top of the removal")
		assert.Equal(t, store.EventRestored, f.gitLine("log", "-1", "--format=%(trailers:key=Itr-Event,valueonly)"))
		assert.Contains(t, f.git("log", "-1", "--format=%s"), "restore from "+strings.TrimPrefix(arch.Tag, "refs/tags/"))

		// The folder is back: the same files, the same blobs but for the log
		// (appended to) and the view (phase execute).
		assert.Equal(t, archived, f.lsTree("HEAD", taskDir()))
		logFile, stateFile := taskFile(store.ProgressFile), taskFile(store.StateFile)
		for path, status := range f.nameStatus("HEAD") {
			if strings.HasPrefix(path, taskDir()+"/") {
				assert.Equal(t, "A", status, path)
			}
		}
		for _, file := range archived {
			assert.Equal(t, f.git("show", "HEAD:"+file), f.read(file), "%s on disk is as committed", file)
			if file == logFile || file == stateFile {
				continue
			}
			assert.Equal(t, f.gitLine("rev-parse", arch.Tag+":"+file), f.gitLine("rev-parse", "HEAD:"+file), "%s is the archived blob", file)
		}
		archivedLog := f.git("show", arch.Tag+":"+logFile)
		restoredLog := f.git("show", "HEAD:"+logFile)
		require.True(t, strings.HasPrefix(restoredLog, archivedLog), "the restored log extends the archived one")
		assert.Contains(t, restoredLog[len(archivedLog):], arch.Tag)
		assert.Equal(t, progresslog.KindRestored, f.entries("HEAD")[len(f.entries("HEAD"))-1])
		s := f.stateAt("HEAD")
		assert.Equal(t, state.Execute, s.Phase)
		assert.Equal(t, state.Done, s.Units["T1"].Status)
		assert.Equal(t, state.InProgress, s.Units["T2"].Status)
		assert.Equal(t, state.Pending, s.Units["T3"].Status)
		f.checkGit()

		// The task continues.
		f.now = time.Date(2026, 1, 16, 10, 0, 0, 0, time.UTC)
		out := f.checkpoint("T2", "the rest of the docs", true, "")
		assert.Equal(t, out.Commit, f.gitLine("rev-parse", "HEAD"))
		assert.Equal(t, state.Confirming, f.stateAt("HEAD").Units["T2"].Status)
		assert.Equal(t, 2, state.Val(f.stateAt("HEAD").Units["T2"].IterationsUsed))
		assert.Contains(t, f.git("show", "HEAD:"+logFile)[len(restoredLog):], "the rest of the docs")
		assert.Positive(t, f.appendOnly("HEAD", logFile))
		f.checkGit()
		v, err := verify.Task(f.store(), slug)
		require.NoError(t, err)
		assert.Empty(t, v.Findings)
	})
}

// A deliverable the archive left in place that changed since is the
// user's newer work: the restore keeps it and says so; an unchanged one
// is taken as archived.
func TestRestoreKeepsNewerDeliverables(t *testing.T) {
	eachKind(t, allKinds, func(t *testing.T, f *fixture) {
		f.newTask(oneUnit)
		report, data := taskFile("outputs/report.md"), taskFile("outputs/data.csv")
		f.write(report, "# Report\n")
		f.write(data, "a,b\n")
		f.done("T1")
		arch, err := f.archive(Request{Slug: slug})
		require.NoError(t, err)
		require.Equal(t, []string{taskFile("outputs")}, arch.Deliverables)
		f.write(report, "# Report, second edition\n")

		rep, err := f.restore(RestoreRequest{Slug: slug})
		require.NoError(t, err)
		assert.Equal(t, []string{report}, rep.KeptNewer)
		assert.NotContains(t, rep.Files, report)
		assert.Contains(t, rep.Files, data)
		assert.Equal(t, "# Report, second edition\n", f.read(report), "the newer version stays on disk")
		assert.Equal(t, "# Report\n", f.show(arch.Tag, report), "the archive keeps the archived one")
		assert.Contains(t, f.show(rep.Commit, taskFile(store.ProgressFile)), "Restored")
		assert.Equal(t, state.Execute, f.stateAt(rep.Commit).Phase)
		if f.real() {
			assert.Contains(t, f.git("log", "-1", "--format=%B"), "Kept the working tree's version (changed since the archive) of: "+report+".")
			f.fsck()
			assert.Equal(t, " M "+report+"\n", f.git("status", "--porcelain", "--untracked-files=all"), "the newer version is the user's, not committed")
		}
	})
}

// The root hands Archive what drops the task's claims: it runs once, after
// the folder left the working branch, and what it returns is what the
// report warns of; a refused archive never calls it.
func TestArchiveDropsClaimsOnceTheFolderIsGone(t *testing.T) {
	eachKind(t, allKinds, func(t *testing.T, f *fixture) {
		f.newTask(threeUnits)
		f.done("T1")
		var calls []string
		var folderAtCall []string
		drop := func(s string) []string {
			calls = append(calls, s)
			folderAtCall = f.files(f.head(), taskDir())
			return []string{"claim of T2 kept: " + errBoom.Error()}
		}
		_, err := Archive(f.store(), Request{Slug: slug}, drop)
		var ue *UnfinishedError
		require.True(t, errors.As(err, &ue), "%v", err)
		assert.Empty(t, calls, "a refused archive drops no claims")

		rep, err := Archive(f.store(), Request{Slug: slug, Force: true, Reason: "dropped"}, drop)
		require.NoError(t, err)
		assert.Equal(t, []string{slug}, calls)
		assert.Empty(t, folderAtCall, "the claims go once the folder is gone")
		assert.Equal(t, rep.Commit, f.head())
		assert.Equal(t, []string{"claim of T2 kept: boom"}, rep.ClaimWarnings)
	})
}

// An archive stopped after its Archived entry (a ref that could not be
// written, a tag that did not read back) is finished by running it again:
// the entry is not recorded twice, a tag already made is taken, not made
// again, and the report is the one an uninterrupted archive gives.
func TestArchiveResumesAfterAnInterruption(t *testing.T) {
	for _, method := range []string{"SetBranch", "CreateTag", "ReadTag"} {
		t.Run(method, func(t *testing.T) {
			f := newFixture(t, fakeRepo)
			f.finished()
			f.fake.Fail(method, errBoom)
			_, err := f.archive(Request{Slug: slug})
			require.Error(t, err)
			assert.ErrorContains(t, err, "the task is still in the working tree")
			assert.ErrorContains(t, err, "`itr archive` again")
			checkpoint := f.head()
			assert.Equal(t, state.Complete, f.stateAt(checkpoint).Phase)
			assert.Equal(t, 1, count(f.entries(checkpoint), progresslog.KindArchived))
			assert.NotEmpty(t, f.files(checkpoint, taskDir()), "the folder stays")
			tagsBefore, err := f.store().Repo.RawRefs(store.ArchiveTagPrefix)
			require.NoError(t, err)

			f.fake.Fail(method, nil)
			f.tick()
			rep, err := f.archive(Request{Slug: slug})
			require.NoError(t, err)
			assert.Equal(t, checkpoint, rep.Checkpoint, "the refs point at the entry recorded before")
			assert.Equal(t, 1, count(f.entries(rep.Checkpoint), progresslog.KindArchived), "the entry is not recorded twice")
			assert.Equal(t, 3, rep.Done)
			assert.Empty(t, f.files(f.head(), taskDir()))
			tags, err := f.store().Repo.RawRefs(store.ArchiveTagPrefix)
			require.NoError(t, err)
			assert.Len(t, tags, 1, "one tag: %v", tags)
			if len(tagsBefore) > 0 {
				assert.Equal(t, tagsBefore, tags, "the tag made before is the archive's")
			}
			tag, err := f.store().Repo.ReadTag(rep.Tag)
			require.NoError(t, err)
			assert.Equal(t, checkpoint, tag.Target)
		})
	}
}

// GuardrailsFrom reads the lessons of an active task as committed, and of
// an archived one from its archive; a slug that is neither, an unsafe
// slug and a file with conflict markers are refused, naming the fix.
func TestGuardrailsFrom(t *testing.T) {
	eachKind(t, allKinds, func(t *testing.T, f *fixture) {
		f.newTask(oneUnit)
		f.guardrail("Link the docs")
		lessons, from, err := GuardrailsFrom(f.store(), slug)
		require.NoError(t, err)
		assert.Equal(t, taskDir(), from)
		require.Len(t, lessons, 1)
		assert.Equal(t, "Link the docs", lessons[0].Name)

		f.done("T1")
		rep, err := f.archive(Request{Slug: slug})
		require.NoError(t, err)
		lessons, from, err = GuardrailsFrom(f.store(), slug)
		require.NoError(t, err)
		assert.Equal(t, rep.Tag, from)
		require.Len(t, lessons, 1)
		assert.Equal(t, "Link the docs", lessons[0].Name)

		_, _, err = GuardrailsFrom(f.store(), "ghost")
		assert.ErrorIs(t, err, store.ErrNoTask)
		assert.ErrorContains(t, err, "--guardrails-from ghost")
		assert.ErrorContains(t, err, "git fetch origin")
		_, _, err = GuardrailsFrom(f.store(), "../up")
		assert.ErrorContains(t, err, "--guardrails-from: slug \"../up\" is not a safe folder name")

		// A new task of the slug, whose lessons a merge left conflicted.
		f.newTask(oneUnit)
		f.plainCommit(taskFile(store.GuardrailsFile), "# Guardrails\n\n<<<<<<< ours\n### A\n=======\n### B\n>>>>>>> theirs\n")
		_, _, err = GuardrailsFrom(f.store(), slug)
		assert.ErrorContains(t, err, "--guardrails-from demo: "+taskFile(store.GuardrailsFile)+" holds git conflict markers; resolve them first")
	})
}

// sortedCopy is list sorted, leaving list as it was.
func sortedCopy(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

// The archive refs are signed by .itr.yaml's identity when it names one,
// else by git's committer, at the clock's time; the removal commit is
// authored by the same identity.
func TestArchiveSignsAsTheConfiguredIdentity(t *testing.T) {
	for _, configured := range []bool{false, true} {
		t.Run(map[bool]string{false: "committer", true: "identity"}[configured], func(t *testing.T) {
			eachKind(t, allKinds, func(t *testing.T, f *fixture) {
				finishedOne(f)
				want := gitstate.Signature{Name: "Test Agent", Email: "agent@example.com"}
				if !f.real() {
					want = gitstate.Signature{Name: gitfake.DefaultName, Email: gitfake.DefaultEmail}
				}
				st := f.store()
				if configured {
					st.Config.Identity = store.Identity{Name: "Itr Bot", Email: "bot@example.com"}
					want = gitstate.Signature{Name: "Itr Bot", Email: "bot@example.com"}
				}
				f.now = time.Date(2026, 1, 15, 12, 30, 0, 0, time.UTC)
				rep, err := Archive(st, Request{Slug: slug}, nil)
				require.NoError(t, err)
				tag, err := f.store().Repo.ReadTag(rep.Tag)
				require.NoError(t, err)
				assert.Equal(t, want.Name, tag.Tagger.Name)
				assert.Equal(t, want.Email, tag.Tagger.Email)
				assert.True(t, f.now.Equal(tag.Tagger.When), "tagged at %v, not %v", tag.Tagger.When, f.now)
				var removal gitstate.Commit
				require.NoError(t, f.store().Repo.History(rep.Commit, func(c gitstate.Commit) bool {
					removal = c
					return false
				}))
				assert.Equal(t, want.Name, removal.Author.Name)
				assert.Equal(t, want.Email, removal.Author.Email)
			})
		})
	}
}
