package verify_test

// Helpers that build a task's history in the in-memory fake of git the way
// itr writes it: every itr write is one commit holding the task's files,
// with the message "itr(<slug>): subject" and the trailers Itr-Task,
// Itr-Event (and Itr-Unit, Itr-Iteration, Itr-Status for unit events, Itr-Log
// when progress.md is written); state.json is always the fold of the log.
// Commits made with plain git carry no trailers.

import (
	"bytes"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitfake"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/internal/workspace/verify"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
)

const slug = "demo"

// t0 is the clock of every history: each commit is one minute later.
var t0 = time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)

// guardTitle is guardrails.md as a new task has it.
const guardTitle = "# Guardrails\n\nRead before starting any iteration. Append when issues discovered.\n"

// hist is one repository with one task, and what itr last committed of it.
type hist struct {
	t    *testing.T
	repo *gitfake.Repo
	st   *store.Store
	// log and guard are progress.md and guardrails.md as itr's last write
	// of the task left them.
	log   []byte
	guard []byte
	tick  int
	// created is the task's Created commit.
	created gitstate.Commit
}

// newRepo is an empty fake repository and its store (root .claude/iterative).
func newRepo(t *testing.T) (*gitfake.Repo, *store.Store) {
	t.Helper()
	repo := gitfake.New(filepath.Join(t.TempDir(), "repo"))
	st, err := store.New(repo, store.DefaultRoot, store.Config{}, "", func() time.Time { return t0 })
	require.NoError(t, err)
	return repo, st
}

// newHist is a repository with a first commit made with git and the task
// "demo" created by itr.
func newHist(t *testing.T) *hist {
	t.Helper()
	repo, st := newRepo(t)
	h := &hist{t: t, repo: repo, st: st}
	h.git("init", true, map[string][]byte{"README.md": []byte("hello\n")})
	h.guard = []byte(guardTitle)
	h.created = h.itr(store.EventCreated, "start task Demo", &progresslog.Entry{Kind: progresslog.KindCreated, Stamp: h.stamp(),
		Fields: []progresslog.Field{{Name: "Name", Value: "Demo"}, {Name: "Mode", Value: "development"}}}, nil)
	return h
}

func (h *hist) rel(name string) string { return h.st.Rel(slug, name) }

// when is the time of the next commit.
func (h *hist) when() time.Time {
	h.tick++
	return t0.Add(time.Duration(h.tick) * time.Minute)
}

// stamp is an entry timestamp, distinct for every call.
func (h *hist) stamp() string {
	h.tick++
	return t0.Add(time.Duration(h.tick) * time.Minute).Format(time.RFC3339)
}

// fold is state.json as itr writes it for a log: the fold of its entries.
func fold(t *testing.T, log []byte) []byte {
	t.Helper()
	s, problems := reconcile.Fold(reconcile.Input{Slug: slug, Entries: progresslog.Parse(log).Entries})
	for _, p := range problems {
		require.True(t, p.Note, "the test's log does not fold: %v", p)
	}
	return s.Encode()
}

// itrMessage is the message itr writes: "itr(<slug>): subject", a blank
// line, the trailers.
func itrMessage(subject string, tr []gitstate.Trailer) string {
	return "itr(" + slug + "): " + subject + "\n\n" + gitstate.FormatTrailers(tr)
}

// trailers are the trailers itr writes for an event: Itr-Task, Itr-Event,
// the unit's, and Itr-Log of the log when it is written.
func trailers(event string, e *progresslog.Entry, status string, log []byte) []gitstate.Trailer {
	tr := []gitstate.Trailer{{Key: store.TrailerTask, Value: slug}, {Key: store.TrailerEvent, Value: event}}
	if e != nil && e.Unit != "" {
		tr = append(tr, gitstate.Trailer{Key: store.TrailerUnit, Value: e.Unit})
		if e.Kind == progresslog.KindIteration {
			tr = append(tr, gitstate.Trailer{Key: store.TrailerIteration, Value: strconv.Itoa(e.Iteration)})
		}
		if status != "" {
			tr = append(tr, gitstate.Trailer{Key: store.TrailerStatus, Value: status})
		}
	}
	if log != nil {
		tr = append(tr, gitstate.Trailer{Key: store.TrailerLog, Value: store.LogDigest(log)})
	}
	return tr
}

// itr records one event as itr does: e appended to progress.md and g to
// guardrails.md (each when not nil), state.json refolded, one commit of
// the task's files with itr's message and trailers.
func (h *hist) itr(event, subject string, e *progresslog.Entry, g *progresslog.Guardrail) gitstate.Commit {
	h.t.Helper()
	var err error
	files := map[string][]byte{}
	var written []byte
	if e != nil {
		h.log, err = progresslog.Append(h.log, *e)
		require.NoError(h.t, err)
		files[store.ProgressFile], written = h.log, h.log
	}
	if g != nil {
		h.guard, err = progresslog.AppendGuardrail(h.guard, *g)
		require.NoError(h.t, err)
		files[store.GuardrailsFile] = h.guard
	} else if event == store.EventCreated || event == store.EventReconciled || event == store.EventRestored {
		// These write the whole folder back (a new task, logs put back
		// from history, an archive brought back).
		files[store.GuardrailsFile] = h.guard
	}
	files[store.StateFile] = fold(h.t, h.log)
	status := ""
	if e != nil && e.Unit != "" {
		s, _ := reconcile.Fold(reconcile.Input{Slug: slug, Entries: progresslog.Parse(h.log).Entries})
		if u := s.Units[e.Unit]; u != nil {
			status = string(u.Status)
		}
	}
	return h.commitTask(itrMessage(subject, trailers(event, e, status, written)), true, files)
}

// iteration records "itr checkpoint <unit> --did <did>".
func (h *hist) iteration(unit string, n int, did string) gitstate.Commit {
	h.t.Helper()
	e := &progresslog.Entry{Kind: progresslog.KindIteration, Unit: unit, Iteration: n, Stamp: h.stamp(),
		Fields: []progresslog.Field{{Name: "Did", Value: did}}}
	return h.itr(store.EventIteration, unit+" iteration "+strconv.Itoa(n)+": "+did, e, nil)
}

// lesson records "itr guardrail <name>": guardrails.md only.
func (h *hist) lesson(name string) gitstate.Commit {
	h.t.Helper()
	return h.itr(store.EventGuardrail, "guardrail "+name, nil, &progresslog.Guardrail{
		Name: name, When: "running the suite", Problem: "it failed", Solution: "fix it", Learned: "T1 iteration 1"})
}

// reconciled records what itr reconcile commits after an undo: the log with
// the entries put back, then a Reconciled entry.
func (h *hist) reconciled() gitstate.Commit {
	h.t.Helper()
	return h.itr(store.EventReconciled, "reconcile", &progresslog.Entry{Kind: progresslog.KindReconciled, Stamp: h.stamp(),
		Fields: []progresslog.Field{{Name: "Found", Value: "entries taken out by a commit made without itr"}}}, nil)
}

// commitTask commits files of the task folder (by name; nil data deletes).
func (h *hist) commitTask(msg string, worktree bool, files map[string][]byte) gitstate.Commit {
	h.t.Helper()
	paths := map[string][]byte{}
	for name, data := range files {
		paths[h.rel(name)] = data
	}
	return h.git(msg, worktree, paths)
}

// branch makes the branch name point at the commit hash and checks it
// out.
func (h *hist) branch(name, hash string) {
	h.t.Helper()
	require.NoError(h.t, h.repo.SetBranch("refs/heads/"+name, hash, gitstate.Signature{}, ""))
	h.checkout(name)
}

// checkout makes the branch name HEAD.
func (h *hist) checkout(name string) {
	h.t.Helper()
	require.NoError(h.t, h.repo.SetHead("refs/heads/"+name))
}

// mergeLog merges the branch name with msg, the merge commit holding h.log
// as progress.md and its fold as state.json, in the working tree too.
func (h *hist) mergeLog(name, msg string) gitstate.Commit {
	h.t.Helper()
	m, err := h.repo.Merge("refs/heads/"+name, gitstate.CommitRequest{Message: msg, When: h.when(), Worktree: true,
		Changes: []gitstate.FileChange{{Path: h.rel(store.ProgressFile), Data: h.log}, {Path: h.rel(store.StateFile), Data: fold(h.t, h.log)}}})
	require.NoError(h.t, err)
	return m
}

// merge merges the branch name with msg, the merge commit holding HEAD's
// tree.
func (h *hist) merge(name, msg string) gitstate.Commit {
	h.t.Helper()
	m, err := h.repo.Merge("refs/heads/"+name, gitstate.CommitRequest{Message: msg, When: h.when()})
	require.NoError(h.t, err)
	return m
}

// git commits as plain git would: the files (repository paths; nil data
// deletes) with msg. worktree says whether the working tree gets them too
// (a commit of edits made on disk) or keeps what it holds (a commit of an
// index read before itr's last write).
func (h *hist) git(msg string, worktree bool, files map[string][]byte) gitstate.Commit {
	h.t.Helper()
	var changes []gitstate.FileChange
	for p, data := range files {
		changes = append(changes, gitstate.FileChange{Path: p, Data: data, Delete: data == nil})
	}
	c, err := h.repo.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: h.when(), Worktree: worktree})
	require.NoError(h.t, err)
	return c
}

// at is the task file name as committed at rev.
func (h *hist) at(rev, name string) []byte {
	h.t.Helper()
	data, err := h.repo.ReadFile(rev, h.rel(name))
	require.NoError(h.t, err)
	return data
}

// edit returns data with old replaced by new, once; old must be there.
func edit(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	require.Equal(t, 1, bytes.Count(data, []byte(old)), "%q in\n%s", old, data)
	return bytes.Replace(bytes.Clone(data), []byte(old), []byte(new), 1)
}

// verify runs verify.Task for the task.
func (h *hist) verify() *verify.Report {
	h.t.Helper()
	rep, err := verify.Task(h.st, slug)
	require.NoError(h.t, err)
	return rep
}

// built is a history newHist starts and build goes on with, what build
// says verify must find in it, and what verify finds.
func built[W any](t *testing.T, build func(*testing.T, *hist) W) (*hist, W, *verify.Report) {
	t.Helper()
	h := newHist(t)
	want := build(t, h)
	return h, want, h.verify()
}

// undos runs verify.FindUndos on the task as committed at HEAD.
func (h *hist) undos() []*verify.Undo {
	h.t.Helper()
	task, err := h.st.Load(slug)
	require.NoError(h.t, err)
	out, err := verify.FindUndos(h.st, task)
	require.NoError(h.t, err)
	return out
}

// problems lists the Problem of each finding.
func problems(fs []verify.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Problem)
	}
	return out
}

// short is the 7-character hash verify prints.
func short(h string) string { return h[:7] }

// lastTitle is the title of the last entry of a log.
func lastTitle(t *testing.T, log []byte) string {
	t.Helper()
	es := progresslog.Parse(log).Entries
	require.NotEmpty(t, es)
	return es[len(es)-1].Title()
}

// foldLoose is state.json for a log some of whose entries the fold cannot
// apply (it skips them, as reconcile would).
func foldLoose(log []byte) []byte {
	s, _ := reconcile.Fold(reconcile.Input{Slug: slug, Entries: progresslog.Parse(log).Entries})
	return s.Encode()
}

// unitEvent records a block or an unblock of a unit.
func (h *hist) unitEvent(kind progresslog.Kind, unit string, fields ...progresslog.Field) gitstate.Commit {
	h.t.Helper()
	event := map[progresslog.Kind]string{progresslog.KindBlocked: store.EventBlocked, progresslog.KindUnblocked: store.EventUnblocked}[kind]
	require.NotEmpty(h.t, event)
	return h.itr(event, event+" "+unit, &progresslog.Entry{Kind: kind, Unit: unit, Stamp: h.stamp(), Fields: fields}, nil)
}

// revertMessage is the message `git revert --no-edit` writes for c.
func revertMessage(c gitstate.Commit) string {
	return "Revert \"" + c.Subject + "\"\n\nThis reverts commit " + c.Hash + ".\n"
}

// appendEntry is log with e appended, as a person would write it.
func appendEntry(t *testing.T, log []byte, e progresslog.Entry) []byte {
	t.Helper()
	out, err := progresslog.Append(log, e)
	require.NoError(t, err)
	return out
}
