// Package gitcontract is the behaviour every gitstate.Repository must
// share, as a suite of subtests in the manner of git-bug's RepoTest:
// *gitstate.Repo against a real repository and gitfake's in-memory Repo
// both pass it, so that a test of the rooms above gitstate that runs on the
// fake says something about the real thing. The suite uses only the
// interface, and os for the working tree.
package gitcontract

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
)

// When is the author time of the suite's commits (in a zone other than
// UTC, so that an implementation keeping the offset shows).
var When = time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("", 2*3600))

// Case is one subtest of the suite: it gets a new, empty repository (HEAD
// on an unborn branch, an empty working tree, an identity configured).
type Case struct {
	Name string
	Test func(t *testing.T, r Subject)
}

// Cases are the subtests Run runs, in order.
var Cases = []Case{
	{"UnbornHead", testUnbornHead},
	{"FirstCommit", testFirstCommit},
	{"ReadAtRevisions", testReadAtRevisions},
	{"ListFilesAtTheTop", testListFilesAtTheTop},
	{"History", testHistory},
	{"ResolveRev", testResolveRev},
	{"ExpectAndGuard", testExpectAndGuard},
	{"ExpectOnUnbornHead", testExpectOnUnborn},
	{"EmptyFile", testEmptyFile},
	{"Delete", testDelete},
	{"Worktree", testWorktree},
	{"SamePathTwice", testSamePathTwice},
	{"WorktreeWriteFails", testWorktreeWriteFails},
	{"InvalidChanges", testInvalidChanges},
	{"StageAndStaged", testStage},
	{"Branches", testBranches},
	{"Tags", testTags},
	{"Config", testConfig},
	{"ConfigQuotedValues", testConfigQuoted},
	{"PrivatePaths", testPrivate},
	{"Committer", testCommitter},
	{"AuthorOverride", testAuthorOverride},
	{"NoOperation", testNoOperation},
	{"ConcurrentCommits", testConcurrentCommits},
	{"CallsInsideHistory", testCallsInsideHistory},
	{"WriteBlob", testWriteBlob},
	{"UpdateRef", testUpdateRef},
	{"UpdateRefPacked", testUpdateRefPacked},
	{"ChangedFiles", testChangedFiles},
	{"TreeWithout", testTreeWithout},
}

// Options tell the suite what the repository under test does to a file's
// bytes on the way into a commit and back out to the working tree, where
// its attributes make git store or write other bytes than the ones given.
// The zero Options are a repository that stores and writes every file as
// given (every repository without such attributes).
type Options struct {
	// Stored is the blob git keeps for data committed at path: data
	// after the clean filter and line-ending conversion path's attributes
	// ask for (`git hash-object --path=path`). nil: data itself.
	Stored func(t *testing.T, r gitstate.Repository, path string, data []byte) []byte
	// CheckedOut is what git writes to the working tree for the blob at
	// path (`git checkout-index`: after smudge filters and line-ending
	// conversion). nil: the blob itself.
	CheckedOut func(t *testing.T, r gitstate.Repository, path string, blob []byte) []byte
	// Git runs the real git in r's repository (in r.Root(), with this
	// process's environment) with stdin and returns its standard output,
	// failing the test when git fails. nil (the fake): the cases that
	// judge with git judge through the interface only.
	Git func(t *testing.T, r gitstate.Repository, stdin []byte, args ...string) string
}

// Subject is the repository a case runs on, with what the suite knows of
// how it converts files.
type Subject struct {
	gitstate.Repository
	opts Options
}

// Run runs every case as a subtest of t, each on a repository open makes
// for it (open may register cleanups on the subtest's t, such as checks of
// the repository after the case).
func Run(t *testing.T, open func(t *testing.T) gitstate.Repository) {
	RunWith(t, Options{}, open)
}

// RunWith is Run on repositories that convert files as opts say.
func RunWith(t *testing.T, opts Options, open func(t *testing.T) gitstate.Repository) {
	for _, c := range Cases {
		t.Run(c.Name, func(t *testing.T) {
			c.Test(t, Subject{Repository: open(t), opts: opts})
		})
	}
}

// stored is the content r keeps for data committed at path. The suite's
// expectations of ReadFile, FileHashAt, TreeFiles and the index are the
// blob git makes of the data, not the data: where attributes convert a
// path (a clean filter, `text eol=crlf` on data with CRLF), git commits the
// converted bytes, and so must an implementation that writes what git
// writes.
func stored(t *testing.T, r Subject, path, data string) string {
	t.Helper()
	if r.opts.Stored == nil {
		return data
	}
	return string(r.opts.Stored(t, r.Repository, path, []byte(data)))
}

// blobID is the name of the blob r keeps for data committed at path, in
// r's object format.
func blobID(t *testing.T, r Subject, path, data string) string {
	t.Helper()
	return r.BlobID([]byte(stored(t, r, path, data)))
}

// assertCheckedOut checks that the working tree holds at path what git
// checks out for data committed (or staged) there: the bytes `git
// checkout-index` writes, CRLF in a CRLF clone, smudged by filters.
// Comparing with the data itself holds only where git converts nothing.
func assertCheckedOut(t *testing.T, r Subject, path, data string, msgAndArgs ...any) {
	t.Helper()
	want := stored(t, r, path, data)
	if r.opts.CheckedOut != nil {
		want = string(r.opts.CheckedOut(t, r.Repository, path, []byte(want)))
	}
	got, ok := worktree(t, r, path)
	assert.True(t, ok, "%s is in the working tree", path)
	assert.Equal(t, want, got, msgAndArgs...)
}

// missingID is a full object name in r's format that names no object.
func missingID(r gitstate.Repository) string {
	return r.BlobID([]byte("itr contract: never stored\n"))
}

// change is a FileChange writing data to path.
func change(path, data string) gitstate.FileChange {
	return gitstate.FileChange{Path: path, Data: []byte(data)}
}

// del is a FileChange deleting path.
func del(path string) gitstate.FileChange {
	return gitstate.FileChange{Path: path, Delete: true}
}

// commit commits changes with message msg at When (plus n seconds for the
// nth commit of a case, so commits differ in time) into the working tree.
func commit(t *testing.T, r gitstate.Repository, msg string, changes ...gitstate.FileChange) gitstate.Commit {
	t.Helper()
	c, err := r.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: msg, When: When, Worktree: true})
	require.NoError(t, err, "commit %q", msg)
	return c
}

// history returns the hashes History gives for rev.
func history(t *testing.T, r gitstate.Repository, rev string) []string {
	t.Helper()
	var out []string
	require.NoError(t, r.History(rev, func(c gitstate.Commit) bool {
		out = append(out, c.Hash)
		return true
	}))
	return out
}

// head returns HEAD or fails.
func head(t *testing.T, r gitstate.Repository) gitstate.Head {
	t.Helper()
	h, err := r.Head()
	require.NoError(t, err)
	return h
}

// worktree reads a file of the working tree; ok is false if it is absent.
func worktree(t *testing.T, r gitstate.Repository, rel string) (string, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.Root(), filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	require.NoError(t, err)
	return string(data), true
}

// isHash reports whether s is a full object name in r's format: 40 hex
// digits for SHA-1, 64 for SHA-256 (the suite runs on both).
func isHash(r gitstate.Repository, s string) bool {
	if len(s) != len(r.BlobID(nil)) {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func testUnbornHead(t *testing.T, r Subject) {
	h := head(t, r)
	assert.True(t, h.Unborn)
	assert.False(t, h.Detached)
	assert.Empty(t, h.Hash)
	assert.True(t, strings.HasPrefix(h.Branch, "refs/heads/"), "branch %q", h.Branch)

	for _, rev := range []string{"", "HEAD", "HEAD~1"} {
		_, err := r.ResolveRev(rev)
		assert.ErrorIs(t, err, gitstate.ErrNotFound, "ResolveRev(%q)", rev)
	}
	assert.Empty(t, history(t, r, ""))
	assert.Empty(t, history(t, r, "HEAD"))
	_, err := r.ReadFile("HEAD", "a.txt")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	_, err = r.FileHashAt("HEAD", "a.txt")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	files, err := r.ListFiles("HEAD", "d")
	require.NoError(t, err)
	assert.Empty(t, files)
	tree, err := r.TreeFiles("HEAD", "d")
	require.NoError(t, err)
	assert.NotNil(t, tree)
	assert.Empty(t, tree)
	folder, err := r.FolderHashes("HEAD", "d")
	require.NoError(t, err)
	assert.NotNil(t, folder)
	assert.Empty(t, folder)
	ref, err := r.ReadRef(h.Branch)
	require.NoError(t, err)
	assert.Empty(t, ref)
	refs, err := r.Refs("refs/heads/")
	require.NoError(t, err)
	assert.Empty(t, refs)
	staged, err := r.Staged("")
	require.NoError(t, err)
	assert.Empty(t, staged)
}

func testFirstCommit(t *testing.T, r Subject) {
	before := head(t, r)
	id, err := r.Committer(When)
	require.NoError(t, err)
	c, err := r.CommitFiles(gitstate.CommitRequest{
		Changes:  []gitstate.FileChange{change("a.txt", "alpha\n"), change("d/b.txt", "beta\n")},
		Message:  "\nFirst commit\nspanning two lines  \n\nBody.\n\nItr-Task: demo\nItr-Event: created\n\n\n",
		When:     When,
		Worktree: true,
	})
	require.NoError(t, err)
	wantMsg := "First commit\nspanning two lines\n\nBody.\n\nItr-Task: demo\nItr-Event: created\n"
	assert.True(t, isHash(r, c.Hash), "hash %q", c.Hash)
	assert.Empty(t, c.Parents)
	assert.Equal(t, wantMsg, c.Message)
	assert.Equal(t, "First commit spanning two lines", c.Subject)
	assert.Equal(t, []gitstate.Trailer{{Key: "Itr-Task", Value: "demo"}, {Key: "Itr-Event", Value: "created"}}, c.Trailers)
	task, ok := c.Trailer("itr-task")
	assert.True(t, ok)
	assert.Equal(t, "demo", task)
	assert.Equal(t, id.Name, c.Author.Name)
	assert.Equal(t, id.Email, c.Author.Email)
	assert.Equal(t, id.Name, c.Committer.Name)
	assert.True(t, c.Author.When.Equal(When))

	h := head(t, r)
	assert.Equal(t, gitstate.Head{Branch: before.Branch, Hash: c.Hash}, h)
	ref, err := r.ReadRef(h.Branch)
	require.NoError(t, err)
	assert.Equal(t, c.Hash, ref)
	got, err := r.ResolveRev("HEAD")
	require.NoError(t, err)
	assert.Equal(t, c.Hash, got)
	refs, err := r.Refs("refs/heads/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{h.Branch: c.Hash}, refs)

	var seen []gitstate.Commit
	require.NoError(t, r.History("HEAD", func(c gitstate.Commit) bool { seen = append(seen, c); return true }))
	require.Len(t, seen, 1)
	s := seen[0]
	assert.Equal(t, c.Hash, s.Hash)
	assert.Empty(t, s.Parents)
	assert.Equal(t, wantMsg, s.Message)
	assert.Equal(t, c.Subject, s.Subject)
	assert.Equal(t, c.Trailers, s.Trailers)
	assert.Equal(t, id.Name, s.Author.Name)
	assert.Equal(t, id.Email, s.Committer.Email)
	assert.True(t, s.Author.When.Equal(When), "author time %v", s.Author.When)
	_, off := s.Author.When.Zone()
	assert.Equal(t, 2*3600, off, "the author time keeps its zone offset")

	assertCheckedOut(t, r, "d/b.txt", "beta\n")
}

func testReadAtRevisions(t *testing.T, r Subject) {
	c1 := commit(t, r, "one", change("a.txt", "one\n"), change("d/b.txt", "b\n"), change("d/e/c.txt", "c\n"), change("d/e.txt", "e\n"))
	c2 := commit(t, r, "two", change("a.txt", "two\n"), change("d/f.txt", "f\n"))

	for _, tc := range []struct{ rev, path, want string }{
		{"HEAD", "a.txt", "two\n"},
		{"", "a.txt", "two\n"},
		{c1.Hash, "a.txt", "one\n"},
		{"HEAD~1", "a.txt", "one\n"},
		{c2.Hash, "d/e/c.txt", "c\n"},
		{"HEAD", "/d/f.txt", "f\n"},
	} {
		want := stored(t, r, strings.TrimPrefix(tc.path, "/"), tc.want)
		data, err := r.ReadFile(tc.rev, tc.path)
		require.NoError(t, err, "ReadFile(%q, %q)", tc.rev, tc.path)
		assert.Equal(t, want, string(data), "ReadFile(%q, %q)", tc.rev, tc.path)
		h, err := r.FileHashAt(tc.rev, tc.path)
		require.NoError(t, err)
		assert.Equal(t, r.BlobID([]byte(want)), h, "FileHashAt(%q, %q)", tc.rev, tc.path)
		blob, err := r.ReadBlob(h)
		require.NoError(t, err)
		assert.Equal(t, want, string(blob))
	}
	for _, tc := range []struct{ rev, path string }{
		{"HEAD", "d"},            // a folder
		{"HEAD", "missing.txt"},  // absent
		{"HEAD", "a.txt/x"},      // under a file
		{c1.Hash, "d/f.txt"},     // not yet
		{"nosuch", "a.txt"},      // no such revision
		{"HEAD~5", "a.txt"},      // past the first commit
		{"HEAD", "d/e/missing"},  // absent in a folder
		{"HEAD", "d/e/c.txt/.."}, // not a clean path
	} {
		_, err := r.ReadFile(tc.rev, tc.path)
		assert.ErrorIs(t, err, gitstate.ErrNotFound, "ReadFile(%q, %q)", tc.rev, tc.path)
	}
	_, err := r.FileHashAt("HEAD", "missing.txt")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	_, err = r.FileHashAt("nosuch", "a.txt")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)

	// A folder's hash is its tree's: equal where nothing below changed.
	e1, err := r.FileHashAt(c1.Hash, "d/e")
	require.NoError(t, err)
	e2, err := r.FileHashAt(c2.Hash, "d/e")
	require.NoError(t, err)
	assert.True(t, isHash(r, e1))
	assert.Equal(t, e1, e2)
	d1, err := r.FileHashAt(c1.Hash, "d")
	require.NoError(t, err)
	d2, err := r.FileHashAt(c2.Hash, "d/")
	require.NoError(t, err)
	assert.NotEqual(t, d1, d2)
	_, err = r.ReadBlob(d1)
	assert.ErrorIs(t, err, gitstate.ErrNotFound, "a tree is not a blob")
	_, err = r.ReadBlob(c2.Hash)
	assert.ErrorIs(t, err, gitstate.ErrNotFound, "a commit is not a blob")
	_, err = r.ReadBlob(missingID(r))
	assert.ErrorIs(t, err, gitstate.ErrNotFound)

	// Git order: a folder sorts as "name/", after "name.txt".
	files, err := r.ListFiles("HEAD", "d")
	require.NoError(t, err)
	assert.Equal(t, []string{"d/b.txt", "d/e.txt", "d/e/c.txt", "d/f.txt"}, files)
	files, err = r.ListFiles(c1.Hash, "d/")
	require.NoError(t, err)
	assert.Equal(t, []string{"d/b.txt", "d/e.txt", "d/e/c.txt"}, files)
	for _, tc := range []struct{ rev, dir string }{{"HEAD", "missing"}, {"HEAD", "a.txt"}, {"nosuch", "d"}} {
		files, err := r.ListFiles(tc.rev, tc.dir)
		require.NoError(t, err, "ListFiles(%q, %q)", tc.rev, tc.dir)
		assert.Empty(t, files, "ListFiles(%q, %q)", tc.rev, tc.dir)
		tree, err := r.TreeFiles(tc.rev, tc.dir)
		require.NoError(t, err)
		assert.Equal(t, map[string]string{}, tree, "TreeFiles(%q, %q)", tc.rev, tc.dir)
		folder, err := r.FolderHashes(tc.rev, tc.dir)
		require.NoError(t, err)
		assert.Equal(t, map[string]string{}, folder, "FolderHashes(%q, %q)", tc.rev, tc.dir)
	}

	tree, err := r.TreeFiles("HEAD", "d")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"d/b.txt":   blobID(t, r, "d/b.txt", "b\n"),
		"d/e.txt":   blobID(t, r, "d/e.txt", "e\n"),
		"d/e/c.txt": blobID(t, r, "d/e/c.txt", "c\n"),
		"d/f.txt":   blobID(t, r, "d/f.txt", "f\n"),
	}, tree)
	folder, err := r.FolderHashes("HEAD", "d")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"b.txt": blobID(t, r, "d/b.txt", "b\n"),
		"e.txt": blobID(t, r, "d/e.txt", "e\n"),
		"f.txt": blobID(t, r, "d/f.txt", "f\n"),
	}, folder, "only the files directly in the folder")
	folder, err = r.FolderHashes(c1.Hash, "d/e")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"c.txt": blobID(t, r, "d/e/c.txt", "c\n")}, folder)
}

// testListFilesAtTheTop lists the top folder: the paths are
// repository-relative, as everywhere else.
func testListFilesAtTheTop(t *testing.T, r Subject) {
	commit(t, r, "files", change("a.txt", "a\n"), change("d/b.txt", "b\n"))
	files, err := r.ListFiles("HEAD", "")
	require.NoError(t, err)
	tree, err := r.TreeFiles("HEAD", "")
	require.NoError(t, err)
	assert.Equal(t, []string{"a.txt", "d/b.txt"}, files)
	assert.Equal(t, map[string]string{"a.txt": blobID(t, r, "a.txt", "a\n"), "d/b.txt": blobID(t, r, "d/b.txt", "b\n")}, tree)
	folder, err := r.FolderHashes("HEAD", "")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a.txt": blobID(t, r, "a.txt", "a\n")}, folder)
}

func testHistory(t *testing.T, r Subject) {
	c1 := commit(t, r, "first", change("a.txt", "1"))
	c2 := commit(t, r, "second\n\nNo trailers: here is prose\nacross lines.", change("a.txt", "2"))
	c3msg := "third\n\nItr-Task: demo\nItr-Event: iteration\n  continued\nSigned-off-by: A U Thor <a@example.com>\n"
	c3 := commit(t, r, c3msg, change("b.txt", "3"))

	assert.Equal(t, []string{c3.Hash, c2.Hash, c1.Hash}, history(t, r, "HEAD"))
	assert.Equal(t, []string{c3.Hash, c2.Hash, c1.Hash}, history(t, r, ""))
	assert.Equal(t, []string{c2.Hash, c1.Hash}, history(t, r, c2.Hash))
	assert.Equal(t, []string{c2.Hash, c1.Hash}, history(t, r, "HEAD~1"))
	assert.Equal(t, []string{c1.Hash}, history(t, r, c1.Hash[:10]))

	var seen []gitstate.Commit
	require.NoError(t, r.History("HEAD", func(c gitstate.Commit) bool {
		seen = append(seen, c)
		return len(seen) < 2
	}))
	require.Len(t, seen, 2, "History stops when fn returns false")
	assert.Equal(t, []string{c2.Hash}, seen[0].Parents)
	assert.Equal(t, []string{c1.Hash}, seen[1].Parents)
	assert.Equal(t, gitstate.ParseTrailers(c3msg), seen[0].Trailers)
	assert.Equal(t, []gitstate.Trailer{
		{Key: "Itr-Task", Value: "demo"},
		{Key: "Itr-Event", Value: "iteration continued"},
		{Key: "Signed-off-by", Value: "A U Thor <a@example.com>"},
	}, seen[0].Trailers)
	assert.Equal(t, "third", seen[0].Subject)
	assert.Empty(t, seen[1].Trailers, "a last paragraph of prose holds no trailers")
	assert.Equal(t, "second", seen[1].Subject)
	assert.Equal(t, "second\n\nNo trailers: here is prose\nacross lines.\n", seen[1].Message)

	err := r.History("nosuch", func(gitstate.Commit) bool { return true })
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
}

func testResolveRev(t *testing.T, r Subject) {
	c1 := commit(t, r, "first", change("a.txt", "1"))
	c2 := commit(t, r, "second", change("a.txt", "2"))
	c3 := commit(t, r, "third", change("a.txt", "3"))
	who := gitstate.Signature{Name: "Someone", Email: "someone@example.com", When: When}
	require.NoError(t, r.SetBranch("refs/heads/side", c1.Hash, who, "branch: side"))
	_, err := r.CreateTag("refs/tags/v1", c2.Hash, "version one", who)
	require.NoError(t, err)
	branch := head(t, r).Branch
	short := strings.TrimPrefix(branch, "refs/heads/")

	for rev, want := range map[string]string{
		"HEAD":                       c3.Hash,
		"":                           c3.Hash,
		c3.Hash:                      c3.Hash,
		c3.Hash[:7]:                  c3.Hash,
		strings.ToUpper(c3.Hash[:9]): c3.Hash,
		"HEAD^0":                     c3.Hash,
		"HEAD~1":                     c2.Hash,
		"HEAD^":                      c2.Hash,
		"HEAD^1":                     c2.Hash,
		"HEAD~2":                     c1.Hash,
		"HEAD^^":                     c1.Hash,
		"HEAD~1^":                    c1.Hash,
		c3.Hash[:8] + "~2":           c1.Hash,
		short:                        c3.Hash,
		branch:                       c3.Hash,
		"heads/" + short:             c3.Hash,
		short + "~1":                 c2.Hash,
		"side":                       c1.Hash,
		"refs/heads/side":            c1.Hash,
		"v1":                         c2.Hash,
		"tags/v1":                    c2.Hash,
		"refs/tags/v1":               c2.Hash,
		"v1^{}":                      c2.Hash,
		"v1^{commit}":                c2.Hash,
		"v1~1":                       c1.Hash,
		"refs/tags/v1^0":             c2.Hash,
		"side^{commit}":              c1.Hash,
		"HEAD^{commit}~1":            c2.Hash,
		"HEAD~0":                     c3.Hash,
	} {
		got, err := r.ResolveRev(rev)
		if assert.NoError(t, err, "ResolveRev(%q)", rev) {
			assert.Equal(t, want, got, "ResolveRev(%q)", rev)
		}
	}
	blob, err := r.FileHashAt("HEAD", "a.txt")
	require.NoError(t, err)
	tree, err := r.FileHashAt("HEAD", "")
	require.NoError(t, err)
	for _, rev := range []string{
		"nosuch", "v2", "refs/heads/nosuch", "HEAD~3", "HEAD^2", "side~1", "~1", "^", "HEAD^{tree}",
		c3.Hash[:3], "0000000000000000000000000000000000000000",
		blob, tree, blob[:10],
	} {
		_, err := r.ResolveRev(rev)
		assert.ErrorIs(t, err, gitstate.ErrNotFound, "ResolveRev(%q)", rev)
	}
}

func testExpectAndGuard(t *testing.T, r Subject) {
	h1 := commit(t, r, "base", change("guarded/a.txt", "g1\n"), change("other/b.txt", "o1\n"))
	// Another writer moves HEAD.
	h2 := commit(t, r, "another writer", change("other/b.txt", "o2\n"))
	staged, err := r.Staged("")
	require.NoError(t, err)

	for _, guard := range [][]string{nil, {"other"}, {"other/b.txt"}, {"guarded", "other"}, {""}} {
		_, err := r.CommitFiles(gitstate.CommitRequest{
			Changes: []gitstate.FileChange{change("guarded/a.txt", "stale\n")},
			Message: "stale", When: When, Worktree: true, Expect: h1.Hash, Guard: guard,
		})
		assert.ErrorIs(t, err, gitstate.ErrHeadMoved, "guard %q", guard)
	}
	assert.Equal(t, h2.Hash, head(t, r).Hash, "a refused commit leaves HEAD")
	assertCheckedOut(t, r, "guarded/a.txt", "g1\n", "a refused commit leaves the working tree")
	after, err := r.Staged("")
	require.NoError(t, err)
	assert.Equal(t, staged, after, "a refused commit leaves the index")

	// The guarded paths did not change since h1: the commit is rebuilt on
	// the new HEAD, keeping the other writer's change. A guard absent at
	// both commits counts as unchanged.
	c, err := r.CommitFiles(gitstate.CommitRequest{
		Changes: []gitstate.FileChange{change("guarded/a.txt", "g2\n")},
		Message: "guarded", When: When, Worktree: true, Expect: h1.Hash, Guard: []string{"guarded", "never/there"},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{h2.Hash}, c.Parents)
	assert.Equal(t, []string{c.Hash, h2.Hash, h1.Hash}, history(t, r, "HEAD"))
	for path, want := range map[string]string{"guarded/a.txt": "g2\n", "other/b.txt": "o2\n"} {
		data, err := r.ReadFile("HEAD", path)
		require.NoError(t, err)
		assert.Equal(t, stored(t, r, path, want), string(data), path)
	}

	// Expect equal to HEAD commits on it.
	c2, err := r.CommitFiles(gitstate.CommitRequest{
		Changes: []gitstate.FileChange{change("other/b.txt", "o3\n")},
		Message: "expected", When: When, Expect: c.Hash, Worktree: true,
	})
	require.NoError(t, err)
	assert.Equal(t, []string{c.Hash}, c2.Parents)
}

func testExpectOnUnborn(t *testing.T, r Subject) {
	_, err := r.CommitFiles(gitstate.CommitRequest{
		Changes: []gitstate.FileChange{change("a.txt", "a")},
		Message: "x", When: When, Expect: "0123456789abcdef0123456789abcdef01234567", Guard: []string{"a.txt"},
	})
	assert.ErrorIs(t, err, gitstate.ErrHeadMoved)
	assert.True(t, head(t, r).Unborn)
}

// testEmptyFile: an empty file is there and empty, never nil (no file).
func testEmptyFile(t *testing.T, r Subject) {
	commit(t, r, "empty", gitstate.FileChange{Path: "e.txt", Data: nil}, change("f.txt", ""))
	for _, p := range []string{"e.txt", "f.txt"} {
		data, err := r.ReadFile("HEAD", p)
		require.NoError(t, err)
		assert.NotNil(t, data, p)
		assert.Empty(t, data, p)
		h, err := r.FileHashAt("HEAD", p)
		require.NoError(t, err)
		assert.Equal(t, blobID(t, r, p, ""), h)
		blob, err := r.ReadBlob(h)
		require.NoError(t, err)
		assert.NotNil(t, blob, p)
	}
}

func testDelete(t *testing.T, r Subject) {
	commit(t, r, "files", change("a.txt", "a"), change("d/x.txt", "x"), change("d/y/z.txt", "z"),
		change("keep/k.txt", "k"), change("n/m/o.txt", "o"))

	// A file.
	commit(t, r, "delete a file", del("a.txt"))
	_, err := r.ReadFile("HEAD", "a.txt")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	old, err := r.ReadFile("HEAD~1", "a.txt")
	require.NoError(t, err)
	assert.Equal(t, stored(t, r, "a.txt", "a"), string(old))
	_, ok := worktree(t, r, "a.txt")
	assert.False(t, ok, "deleted from the working tree")

	// A folder, with everything below it.
	commit(t, r, "delete a folder", del("d"))
	files, err := r.ListFiles("HEAD", "d")
	require.NoError(t, err)
	assert.Empty(t, files)
	_, err = r.FileHashAt("HEAD", "d")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	_, err = os.Stat(filepath.Join(r.Root(), "d"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the folder is gone from the working tree")
	staged, err := r.Staged("d")
	require.NoError(t, err)
	assert.Empty(t, staged, "the folder is gone from the index")
	assertCheckedOut(t, r, "keep/k.txt", "k")

	// The last file of nested folders takes the folders with it.
	commit(t, r, "delete the last file", del("n/m/o.txt"))
	_, err = r.FileHashAt("HEAD", "n")
	assert.ErrorIs(t, err, gitstate.ErrNotFound, "an empty folder is not in a tree")
	_, err = os.Stat(filepath.Join(r.Root(), "n"))
	assert.ErrorIs(t, err, os.ErrNotExist, "empty folders are removed from the working tree")

	// Deleting what is not there (or is under a file) changes nothing.
	before, err := r.FileHashAt("HEAD", "")
	require.NoError(t, err)
	commit(t, r, "delete nothing", del("nosuch.txt"), del("no/such/folder"))
	after, err := r.FileHashAt("HEAD", "")
	require.NoError(t, err)
	assert.Equal(t, before, after, "the same top tree")
	_, err = r.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{del("keep/k.txt/x")}, Message: "under a file", When: When})
	require.NoError(t, err)
	after, err = r.FileHashAt("HEAD", "")
	require.NoError(t, err)
	assert.Equal(t, before, after, "a path under a file is not there to delete")

	// A file replaces a folder once the folder is deleted in the same commit.
	commit(t, r, "folder to file", del("keep"), change("keep.txt", "file"))
	files, err = r.ListFiles("HEAD", "keep")
	require.NoError(t, err)
	assert.Empty(t, files)
}

func testWorktree(t *testing.T, r Subject) {
	require.NoError(t, os.WriteFile(filepath.Join(r.Root(), "untracked.txt"), []byte("mine"), 0o644))
	commit(t, r, "write", change("w/a.txt", "A1\n"))
	assertCheckedOut(t, r, "w/a.txt", "A1\n")
	commit(t, r, "overwrite", change("w/a.txt", "A2\n"))
	assertCheckedOut(t, r, "w/a.txt", "A2\n")

	_, err := r.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{change("w/b.txt", "B\n")}, Message: "no worktree", When: When})
	require.NoError(t, err)
	_, ok := worktree(t, r, "w/b.txt")
	assert.False(t, ok, "without Worktree the working tree is left alone")
	got, err := r.ReadFile("HEAD", "w/b.txt")
	require.NoError(t, err)
	assert.Equal(t, stored(t, r, "w/b.txt", "B\n"), string(got))

	data, ok := worktree(t, r, "untracked.txt")
	assert.True(t, ok)
	assert.Equal(t, "mine", data, "other files are left alone")
	abs, err := filepath.Abs(r.Root())
	require.NoError(t, err)
	assert.Equal(t, abs, r.Root(), "Root is absolute")
}

// testSamePathTwice: of several changes of one path, the last counts.
func testSamePathTwice(t *testing.T, r Subject) {
	commit(t, r, "twice", change("a.txt", "1"), change("b.txt", "b"), change("a.txt", "2"), del("b.txt"))
	data, err := r.ReadFile("HEAD", "a.txt")
	require.NoError(t, err)
	assert.Equal(t, stored(t, r, "a.txt", "2"), string(data))
	_, err = r.ReadFile("HEAD", "b.txt")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	_, ok := worktree(t, r, "b.txt")
	assert.False(t, ok)
	commit(t, r, "delete then write", del("a.txt"), change("a.txt", "3"))
	data, err = r.ReadFile("HEAD", "a.txt")
	require.NoError(t, err)
	assert.Equal(t, stored(t, r, "a.txt", "3"), string(data))
}

// testWorktreeWriteFails: when a file cannot be written into the working
// tree (an untracked file stands where its folder must go), the commit
// fails and the branch and the index stay.
func testWorktreeWriteFails(t *testing.T, r Subject) {
	c := commit(t, r, "base", change("a.txt", "a"))
	require.NoError(t, os.WriteFile(filepath.Join(r.Root(), "blocker"), []byte("untracked"), 0o644))
	staged, err := r.Staged("")
	require.NoError(t, err)
	_, err = r.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{change("blocker/x.txt", "x")}, Message: "blocked", When: When, Worktree: true})
	assert.Error(t, err)
	assert.Equal(t, c.Hash, head(t, r).Hash)
	after, err := r.Staged("")
	require.NoError(t, err)
	assert.Equal(t, staged, after)
	assert.Error(t, r.Stage([]gitstate.FileChange{change("blocker/y.txt", "y")}))
	data, _ := worktree(t, r, "blocker")
	assert.Equal(t, "untracked", data)
}

func testInvalidChanges(t *testing.T, r Subject) {
	first := commit(t, r, "base", change("f.txt", "f"), change("dir/x.txt", "x"))
	for name, changes := range map[string][]gitstate.FileChange{
		"no changes":        nil,
		"empty path":        {change("", "x")},
		"absolute":          {change("/abs.txt", "x")},
		"trailing slash":    {change("dir/", "x")},
		"dot-dot":           {change("../out.txt", "x")},
		"dot":               {change("a/./b.txt", "x")},
		"double slash":      {change("a//b.txt", "x")},
		"backslash":         {change(`a\b.txt`, "x")},
		"git dir":           {change(".Git/config", "x")},
		"file and folder":   {change("p", "x"), change("p/q", "y")},
		"folder at HEAD":    {change("dir", "x")},
		"file at HEAD":      {change("f.txt/sub.txt", "x")},
		"nul":               {change("a\x00b", "x")},
		"deep under a file": {change("f.txt/a/b.txt", "x")},
		"second is invalid": {change("ok.txt", "x"), change("..", "y")},
		"then a folder":     {change("other.txt", "y"), change("dir", "x")},
	} {
		_, err := r.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: name, When: When, Worktree: true})
		assert.Error(t, err, name)
	}
	assert.Equal(t, first.Hash, head(t, r).Hash, "refused commits leave HEAD")
	_, ok := worktree(t, r, "ok.txt")
	assert.False(t, ok, "refused commits leave the working tree")
}

func testStage(t *testing.T, r Subject) {
	c := commit(t, r, "base", change("s/a.txt", "a"), change("t.txt", "t"))
	staged, err := r.Staged("")
	require.NoError(t, err)
	assert.Equal(t, []gitstate.IndexEntry{
		{Path: "s/a.txt", Hash: blobID(t, r, "s/a.txt", "a")},
		{Path: "t.txt", Hash: blobID(t, r, "t.txt", "t")},
	}, staged, "a commit records its paths in the index")

	require.NoError(t, r.Stage([]gitstate.FileChange{change("s/b.txt", "b"), change("s/a.txt", "a2")}))
	assert.Equal(t, c.Hash, head(t, r).Hash, "Stage commits nothing")
	assertCheckedOut(t, r, "s/b.txt", "b")
	_, err = r.ReadFile("HEAD", "s/b.txt")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	want := []gitstate.IndexEntry{
		{Path: "s/a.txt", Hash: blobID(t, r, "s/a.txt", "a2")},
		{Path: "s/b.txt", Hash: blobID(t, r, "s/b.txt", "b")},
	}
	for _, dir := range []string{"s", "s/"} {
		staged, err = r.Staged(dir)
		require.NoError(t, err)
		assert.Equal(t, want, staged, "Staged(%q)", dir)
	}
	staged, err = r.Staged("s/b.txt")
	require.NoError(t, err)
	assert.Equal(t, want[1:], staged, "a file's own entry")
	staged, err = r.Staged("s/b")
	require.NoError(t, err)
	assert.Empty(t, staged, "a prefix of a name is not a folder")
	blob, err := r.ReadBlob(want[1].Hash)
	require.NoError(t, err)
	assert.Equal(t, stored(t, r, "s/b.txt", "b"), string(blob), "a staged blob can be read")

	require.NoError(t, r.Stage([]gitstate.FileChange{del("s/b.txt")}))
	staged, err = r.Staged("s")
	require.NoError(t, err)
	assert.Equal(t, want[:1], staged)
	_, ok := worktree(t, r, "s/b.txt")
	assert.False(t, ok)
	assert.Error(t, r.Stage(nil), "nothing to stage")
	assert.Error(t, r.Stage([]gitstate.FileChange{change("../x", "x")}))

	commit(t, r, "add more", change("s/a.txt", "a2"), change("s/c.txt", "c"))
	commit(t, r, "drop the folder", del("s"))
	staged, err = r.Staged("")
	require.NoError(t, err)
	assert.Equal(t, []gitstate.IndexEntry{{Path: "t.txt", Hash: blobID(t, r, "t.txt", "t")}}, staged)
}

func testBranches(t *testing.T, r Subject) {
	c1 := commit(t, r, "one", change("a.txt", "1"))
	c2 := commit(t, r, "two", change("a.txt", "2"))
	branch := head(t, r).Branch
	who := gitstate.Signature{Name: "Someone", Email: "someone@example.com", When: When}

	require.NoError(t, r.SetBranch("refs/heads/feature", c1.Hash, who, "create feature"))
	got, err := r.ReadRef("refs/heads/feature")
	require.NoError(t, err)
	assert.Equal(t, c1.Hash, got)
	refs, err := r.Refs("refs/heads/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{branch: c2.Hash, "refs/heads/feature": c1.Hash}, refs)
	raw, err := r.RawRefs("refs/heads/")
	require.NoError(t, err)
	assert.Equal(t, refs, raw)
	refs, err = r.Refs("refs/heads/feat")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"refs/heads/feature": c1.Hash}, refs, "a prefix need not end in a slash")
	refs, err = r.Refs("refs/tags/", "refs/remotes/")
	require.NoError(t, err)
	assert.Empty(t, refs)

	require.NoError(t, r.SetBranch("refs/heads/feature", c2.Hash, who, "move feature"))
	got, err = r.ReadRef("refs/heads/feature")
	require.NoError(t, err)
	assert.Equal(t, c2.Hash, got)
	resolved, err := r.ResolveRev("feature")
	require.NoError(t, err)
	assert.Equal(t, c2.Hash, resolved)

	got, err = r.ReadRef("refs/heads/missing")
	require.NoError(t, err)
	assert.Empty(t, got, "a missing ref reads as \"\" without an error")
	got, err = r.ReadRef("HEAD")
	require.NoError(t, err)
	assert.Equal(t, c2.Hash, got, "HEAD is followed to its branch")

	assert.Error(t, r.SetBranch("feature", c1.Hash, who, "short name"))
	assert.Error(t, r.SetBranch("refs/tags/x", c1.Hash, who, "not a branch"))
	assert.Error(t, r.SetBranch("refs/heads/x", c1.Hash[:10], who, "short hash"))
	// A full name in the repository's format that names nothing (a
	// SHA-1-long name in a SHA-256 repository is short, refused but not
	// missing).
	assert.ErrorIs(t, r.SetBranch("refs/heads/x", missingID(r), who, "missing"), gitstate.ErrNotFound)
	blob, err := r.FileHashAt("HEAD", "a.txt")
	require.NoError(t, err)
	assert.ErrorIs(t, r.SetBranch("refs/heads/x", blob, who, "a blob"), gitstate.ErrNotFound)
	assert.Error(t, r.SetBranch("refs/heads/feature/sub", c1.Hash, who, "under a branch"))
	assert.Error(t, r.SetBranch("refs/heads", c1.Hash, who, "above branches"))
	assert.Error(t, r.SetBranch("refs/heads/bad..name", c1.Hash, who, "invalid"))
	assert.Error(t, r.SetBranch("refs/heads/bad name", c1.Hash, who, "invalid"))
	assert.Error(t, r.SetBranch("refs/heads/x.lock", c1.Hash, who, "invalid"))
	got, err = r.ReadRef("refs/heads/x")
	require.NoError(t, err)
	assert.Empty(t, got, "refused branches are not created")

	// Moving the current branch moves HEAD.
	require.NoError(t, r.SetBranch(branch, c1.Hash, who, "reset"))
	assert.Equal(t, gitstate.Head{Branch: branch, Hash: c1.Hash}, head(t, r))
	assert.Equal(t, []string{c1.Hash}, history(t, r, "HEAD"))
}

func testTags(t *testing.T, r Subject) {
	c1 := commit(t, r, "one", change("a.txt", "1"))
	c2 := commit(t, r, "two", change("a.txt", "2"))
	tagger := gitstate.Signature{Name: "Tag Ger", Email: "tagger@example.com", When: When}

	h, err := r.CreateTag("refs/tags/v1", c1.Hash, "release one", tagger)
	require.NoError(t, err)
	assert.True(t, isHash(r, h))
	assert.NotEqual(t, c1.Hash, h, "an annotated tag is an object of its own")
	tag, err := r.ReadTag("refs/tags/v1")
	require.NoError(t, err)
	assert.Equal(t, "refs/tags/v1", tag.Ref)
	assert.Equal(t, h, tag.Hash)
	assert.Equal(t, "v1", tag.Name)
	assert.Equal(t, c1.Hash, tag.Target)
	assert.Equal(t, "release one\n", tag.Message)
	assert.Equal(t, "Tag Ger", tag.Tagger.Name)
	assert.Equal(t, "tagger@example.com", tag.Tagger.Email)
	assert.True(t, tag.Tagger.When.Equal(When))

	got, err := r.ReadRef("refs/tags/v1")
	require.NoError(t, err)
	assert.Equal(t, h, got, "ReadRef gives the tag object")
	raw, err := r.RawRefs("refs/tags/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"refs/tags/v1": h}, raw)
	refs, err := r.Refs("refs/tags/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"refs/tags/v1": c1.Hash}, refs, "Refs peels tags")
	for obj, want := range map[string]string{h: c1.Hash, c1.Hash: c1.Hash, c2.Hash: c2.Hash} {
		peeled, err := r.PeelCommit(obj)
		require.NoError(t, err)
		assert.Equal(t, want, peeled)
	}
	blob, err := r.FileHashAt("HEAD", "a.txt")
	require.NoError(t, err)
	for _, obj := range []string{blob, c1.Hash[:12], "0123456789abcdef0123456789abcdef01234567", missingID(r), "", "HEAD"} {
		_, err := r.PeelCommit(obj)
		assert.ErrorIs(t, err, gitstate.ErrNotFound, "PeelCommit(%q)", obj)
	}

	_, err = r.CreateTag("refs/tags/v1", c2.Hash, "again", tagger)
	assert.ErrorIs(t, err, gitstate.ErrRefExists)
	got, err = r.ReadRef("refs/tags/v1")
	require.NoError(t, err)
	assert.Equal(t, h, got, "a refused tag leaves the ref")

	deep := "refs/tags/itr/archive/demo/2026-03-04"
	h2, err := r.CreateTag(deep, c2.Hash, "archived\n", tagger)
	require.NoError(t, err)
	raw, err = r.RawRefs("refs/tags/itr/archive/demo/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{deep: h2}, raw)
	tag, err = r.ReadTag(deep)
	require.NoError(t, err)
	assert.Equal(t, "itr/archive/demo/2026-03-04", tag.Name)
	assert.Equal(t, "archived\n", tag.Message)

	_, err = r.ReadTag("refs/tags/missing")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	_, err = r.ReadTag(head(t, r).Branch)
	assert.ErrorIs(t, err, gitstate.ErrNotFound, "a ref to a commit is no annotated tag")
	_, err = r.CreateTag("refs/tags/v2", c1.Hash, "x", gitstate.Signature{Name: "No Email"})
	assert.ErrorIs(t, err, gitstate.ErrNoIdentity)
	_, err = r.CreateTag("v2", c1.Hash, "x", tagger)
	assert.Error(t, err, "a short name")
	_, err = r.CreateTag("refs/tags/v2", missingID(r), "x", tagger)
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	_, err = r.CreateTag("refs/tags/v1/sub", c1.Hash, "x", tagger)
	assert.Error(t, err, "under an existing tag")
	_, err = r.CreateTag("refs/tags/bad..name", c1.Hash, "x", tagger)
	assert.Error(t, err)
	raw, err = r.RawRefs("refs/tags/")
	require.NoError(t, err)
	assert.Len(t, raw, 2, "refused tags create no refs")
}

func testConfig(t *testing.T, r Subject) {
	assert.NotEmpty(t, r.ConfigFile())
	sec, err := r.ConfigSection("itrcontract", "one")
	require.NoError(t, err)
	assert.Nil(t, sec)

	keys := [][2]string{{"name", "itr: union of log entries"}, {"driver", "itr merge-driver %O %A %B %P"}}
	changed, err := r.SetConfigSection("itrcontract", "one", keys)
	require.NoError(t, err)
	assert.True(t, changed)
	sec, err = r.ConfigSection("itrcontract", "one")
	require.NoError(t, err)
	assert.Equal(t, keys, sec)
	changed, err = r.SetConfigSection("itrcontract", "one", keys)
	require.NoError(t, err)
	assert.False(t, changed, "the same keys again change nothing")

	other := [][2]string{{"driver", "other"}}
	changed, err = r.SetConfigSection("itrcontract", "two", other)
	require.NoError(t, err)
	assert.True(t, changed)
	keys2 := [][2]string{{"driver", "itr merge-driver %A"}}
	changed, err = r.SetConfigSection("itrcontract", "one", keys2)
	require.NoError(t, err)
	assert.True(t, changed)
	sec, err = r.ConfigSection("itrcontract", "one")
	require.NoError(t, err)
	assert.Equal(t, keys2, sec, "the section holds exactly the given keys")
	sec, err = r.ConfigSection("itrcontract", "two")
	require.NoError(t, err)
	assert.Equal(t, other, sec, "other sections stay")
	sec, err = r.ConfigSection("itrcontract", "One")
	require.NoError(t, err)
	assert.Nil(t, sec, "the subsection's case matters")

	_, err = r.SetConfigSection("itrcontract", "one", [][2]string{{"k", "two\nlines"}})
	assert.Error(t, err)
	sec, err = r.ConfigSection("itrcontract", "one")
	require.NoError(t, err)
	assert.Equal(t, keys2, sec, "a refused value changes nothing")
}

// testConfigQuoted round-trips values that the config file must quote.
func testConfigQuoted(t *testing.T, r Subject) {
	keys := [][2]string{{"semi", "a;b"}, {"hash", "x # y"}, {"quote", `say "hi"`}, {"back", `c:\dir`}, {"pad", " padded "}, {"empty", ""}}
	changed, err := r.SetConfigSection("itrcontract", "quoted", keys)
	require.NoError(t, err)
	assert.True(t, changed)
	sec, err := r.ConfigSection("itrcontract", "quoted")
	require.NoError(t, err)
	require.Len(t, sec, len(keys))
	assert.Equal(t, keys, sec)
}

func testPrivate(t *testing.T, r Subject) {
	a, b := r.ItrPath("a"), r.ItrPath("b")
	assert.NotEqual(t, a, b)
	assert.True(t, filepath.IsAbs(a), "ItrPath is absolute: %s", a)
	assert.Equal(t, filepath.Join(a, "b"), r.ItrPath("a", "b"))
	assert.Equal(t, "itr-run", filepath.Base(r.ItrPath("itr-run")))
	assert.NotEqual(t, r.WorktreeItrPath("a"), r.WorktreeItrPath("b"))
	assert.True(t, filepath.IsAbs(r.WorktreeItrPath("log")))

	p := r.ItrPath("itr", "recovered", "demo", "progress.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("kept"), 0o644))
	c := commit(t, r, "after a private write", change("a.txt", "a"))
	files, err := r.TreeFiles(c.Hash, "itr")
	require.NoError(t, err)
	assert.Empty(t, files, "private files are not committed")
	staged, err := r.Staged("")
	require.NoError(t, err)
	assert.Len(t, staged, 1, "nor staged")

	hooks, err := r.HooksDir()
	require.NoError(t, err)
	assert.True(t, filepath.IsAbs(hooks), "HooksDir is absolute: %s", hooks)
}

func testCommitter(t *testing.T, r Subject) {
	id, err := r.Committer(When)
	require.NoError(t, err)
	assert.NotEmpty(t, id.Name)
	assert.NotEmpty(t, id.Email)
	assert.True(t, id.When.Equal(When))
	now, err := r.Committer(time.Time{})
	require.NoError(t, err)
	assert.False(t, now.When.IsZero(), "a zero time means now")

	c, err := r.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{change("a.txt", "a")}, Message: "x"})
	require.NoError(t, err)
	assert.Equal(t, id.Name, c.Author.Name)
	assert.Equal(t, id.Email, c.Committer.Email)
	assert.False(t, c.Author.When.IsZero(), "a zero When means now")
}

func testAuthorOverride(t *testing.T, r Subject) {
	c, err := r.CommitFiles(gitstate.CommitRequest{
		Changes: []gitstate.FileChange{change("a.txt", "a")},
		Message: "by an agent", When: When,
		Author: &gitstate.Signature{Name: "Build Agent", Email: "agent@example.com", When: When.Add(time.Hour)},
	})
	require.NoError(t, err)
	var got gitstate.Commit
	require.NoError(t, r.History("HEAD", func(c gitstate.Commit) bool { got = c; return false }))
	for _, s := range []gitstate.Signature{c.Author, c.Committer, got.Author, got.Committer} {
		assert.Equal(t, "Build Agent", s.Name)
		assert.Equal(t, "agent@example.com", s.Email)
		assert.True(t, s.When.Equal(When), "the request's When, not the Author's: %v", s.When)
	}
}

func testNoOperation(t *testing.T, r Subject) {
	assert.Empty(t, r.Operation())
	assert.Empty(t, r.OperationHeads())
	commit(t, r, "one", change("a.txt", "a"))
	assert.Empty(t, r.Operation())
	assert.Empty(t, r.OperationHeads())
}

func testConcurrentCommits(t *testing.T, r Subject) {
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.CommitFiles(gitstate.CommitRequest{
				Changes: []gitstate.FileChange{change(fmt.Sprintf("c/%d.txt", i), fmt.Sprint(i))},
				Message: fmt.Sprintf("commit %d", i), When: When, Worktree: true,
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "commit %d", i)
	}
	assert.Len(t, history(t, r, "HEAD"), n, "every commit is on the branch")
	files, err := r.ListFiles("HEAD", "c")
	require.NoError(t, err)
	assert.Len(t, files, n, "no commit lost another's file")
}

// testCallsInsideHistory: History's fn may call the methods that read no
// objects, refs or index: the working tree top, the private paths, the
// config and the operation in progress. (The others must wait: an
// implementation may hold a lock while fn runs.)
func testCallsInsideHistory(t *testing.T, r Subject) {
	commit(t, r, "one", change("a.txt", "a"))
	commit(t, r, "two", change("a.txt", "b"))
	done := make(chan error, 1)
	calls := 0
	go func() {
		done <- r.History("HEAD", func(gitstate.Commit) bool {
			_ = r.Root()
			_ = r.ItrPath("x")
			_ = r.WorktreeItrPath("x")
			_ = r.ConfigFile()
			_ = r.Operation()
			_ = r.OperationHeads()
			_, _ = r.ConfigSection("itrcontract", "x")
			_, _ = r.HooksDir()
			calls++
			return true
		})
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
		assert.Equal(t, 2, calls)
	case <-time.After(30 * time.Second):
		t.Fatal("History's fn is stuck calling back into the repository")
	}
}

// testChangedFiles: the files each commit added, changed or removed
// against its first parent, sorted, the root commit's all of them; what
// git's own diff-tree says of the same commits where git judges.
func testChangedFiles(t *testing.T, r Subject) {
	first := commit(t, r, "files", change("a.txt", "a"), change("d/x.txt", "x"), change("d/y/z.txt", "z"), change("keep/k.txt", "k"))
	second := commit(t, r, "work", change("a.txt", "a2"), change("d/y/new.txt", "n"), del("d/x.txt"), change("top.md", "t"))
	third := commit(t, r, "folder to file", del("keep"), change("keep.txt", "file"))
	fourth := commit(t, r, "nothing under d", change("d/y/z.txt", "z"))
	for _, c := range []struct {
		commit gitstate.Commit
		want   []string
	}{
		{first, []string{"a.txt", "d/x.txt", "d/y/z.txt", "keep/k.txt"}},
		{second, []string{"a.txt", "d/x.txt", "d/y/new.txt", "top.md"}},
		{third, []string{"keep.txt", "keep/k.txt"}},
		{fourth, nil},
	} {
		got, err := r.ChangedFiles(c.commit.Hash)
		require.NoError(t, err, c.commit.Subject)
		assert.Equal(t, c.want, got, c.commit.Subject)
		if r.opts.Git != nil {
			out := strings.Fields(r.opts.Git(t, r, nil, "diff-tree", "-r", "--no-commit-id", "--name-only", "--root", c.commit.Hash))
			if len(out) == 0 {
				out = nil
			}
			assert.Equal(t, out, got, "as git diff-tree says of %s", c.commit.Subject)
		}
	}
	got, err := r.ChangedFiles("HEAD~1")
	require.NoError(t, err)
	assert.Equal(t, []string{"keep.txt", "keep/k.txt"}, got, "a revision expression")
	_, err = r.ChangedFiles(missingID(r.Repository))
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
}
