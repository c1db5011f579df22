package gitfake

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/internal/gitsyntax"
)

var when = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func write(path, data string) gitstate.FileChange {
	return gitstate.FileChange{Path: path, Data: []byte(data)}
}

func mustCommit(t *testing.T, f *Repo, changes ...gitstate.FileChange) gitstate.Commit {
	t.Helper()
	c, err := f.CommitFiles(gitstate.CommitRequest{Changes: changes, Message: "commit", When: when, Worktree: true})
	require.NoError(t, err)
	return c
}

// TestFailEveryMethod makes each method that returns an error fail, calls
// it with zero arguments, and expects the very error back and the call
// counted.
func TestFailEveryMethod(t *testing.T) {
	boom := errors.New("boom")
	typ := reflect.TypeOf((*gitstate.Repository)(nil)).Elem()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	tested := 0
	for i := 0; i < typ.NumMethod(); i++ {
		m := typ.Method(i)
		if m.Type.NumOut() == 0 || m.Type.Out(m.Type.NumOut()-1) != errType {
			assert.True(t, noError[m.Name], "%s returns no error but is not in noError", m.Name)
			continue
		}
		assert.False(t, noError[m.Name], "%s returns an error but is in noError", m.Name)
		t.Run(m.Name, func(t *testing.T) {
			f := New(t.TempDir())
			f.Fail(m.Name, boom)
			call := func() error {
				fn := reflect.ValueOf(f).MethodByName(m.Name)
				args := make([]reflect.Value, fn.Type().NumIn())
				for j := range args {
					args[j] = reflect.Zero(fn.Type().In(j))
				}
				if fn.Type().IsVariadic() {
					out := fn.CallSlice(args)
					return asError(out[len(out)-1])
				}
				out := fn.Call(args)
				return asError(out[len(out)-1])
			}
			assert.Same(t, boom, call(), "the injected error, unchanged")
			assert.Same(t, boom, call(), "until cleared")
			assert.Equal(t, 2, f.Calls(m.Name), "failed calls are counted")
			f.Fail(m.Name, nil)
			assert.NotErrorIs(t, call(), boom, "cleared")
			assert.Equal(t, 3, f.Calls(m.Name))
		})
		tested++
	}
	assert.Greater(t, tested, 20)
}

func asError(v reflect.Value) error {
	if v.IsNil() {
		return nil
	}
	return v.Interface().(error)
}

func TestFailDoesNothing(t *testing.T) {
	f := New(t.TempDir())
	c := mustCommit(t, f, write("a.txt", "a"))
	f.Fail("CommitFiles", gitstate.ErrLocked)
	_, err := f.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{write("b.txt", "b")}, Message: "x", Worktree: true})
	assert.ErrorIs(t, err, gitstate.ErrLocked)
	h, err := f.Head()
	require.NoError(t, err)
	assert.Equal(t, c.Hash, h.Hash, "a failed commit moves nothing")
	_, err = os.Stat(filepath.Join(f.Root(), "b.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nor writes the working tree")

	// Other methods are unaffected.
	data, err := f.ReadFile("HEAD", "a.txt")
	require.NoError(t, err)
	assert.Equal(t, "a", string(data))
}

func TestFailAndCallsRefuseUnknownMethods(t *testing.T) {
	f := New(t.TempDir())
	assert.Panics(t, func() { f.Fail("Commit", errors.New("x")) }, "not a method")
	assert.Panics(t, func() { f.Fail("Root", errors.New("x")) }, "returns no error")
	assert.Panics(t, func() { f.Fail("Operation", nil) }, "returns no error")
	assert.Panics(t, func() { f.Calls("commitFiles") })
	assert.NotPanics(t, func() { f.Fail("Close", nil) })
}

func TestCalls(t *testing.T) {
	f := New(t.TempDir())
	assert.Zero(t, f.Calls("Head"))
	for i := 0; i < 3; i++ {
		_, _ = f.Head()
	}
	_ = f.Root()
	_ = f.ItrPath("x")
	_ = f.Operation()
	f.JournalLocks("/tmp/j")
	_ = f.History("HEAD", func(gitstate.Commit) bool { return true })
	assert.Equal(t, 3, f.Calls("Head"))
	assert.Equal(t, 1, f.Calls("Root"))
	assert.Equal(t, 1, f.Calls("ItrPath"))
	assert.Equal(t, 1, f.Calls("Operation"))
	assert.Equal(t, 1, f.Calls("JournalLocks"))
	assert.Equal(t, 1, f.Calls("History"))
	assert.Zero(t, f.Calls("ResolveRev"), "internal use is not counted")
	assert.Equal(t, "/tmp/j", f.Journal())

	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = f.Refs("refs/")
		}()
	}
	wg.Wait()
	assert.Equal(t, 10, f.Calls("Refs"))
}

func TestSetOperation(t *testing.T) {
	f := New(t.TempDir())
	assert.Empty(t, f.Operation())
	assert.Empty(t, f.OperationHeads())
	c := mustCommit(t, f, write("a.txt", "a"))
	f.SetOperation("merge", c.Hash, "abc")
	assert.Equal(t, "merge", f.Operation())
	heads := f.OperationHeads()
	assert.Equal(t, []string{c.Hash, "abc"}, heads)
	heads[0] = "changed"
	assert.Equal(t, []string{c.Hash, "abc"}, f.OperationHeads(), "a copy")
	f.SetOperation("rebase")
	assert.Equal(t, "rebase", f.Operation())
	assert.Empty(t, f.OperationHeads())
	f.SetOperation("")
	assert.Empty(t, f.Operation())
}

func TestSetIdentity(t *testing.T) {
	f := New(t.TempDir())
	id, err := f.Committer(when)
	require.NoError(t, err)
	assert.Equal(t, gitstate.Signature{Name: DefaultName, Email: DefaultEmail, When: when}, id)

	f.SetIdentity("Other Person", "other@example.com")
	c := mustCommit(t, f, write("a.txt", "a"))
	assert.Equal(t, "Other Person", c.Author.Name)
	assert.Equal(t, "other@example.com", c.Committer.Email)

	for _, who := range [][2]string{{"", ""}, {"Name Only", ""}, {"", "email@only"}} {
		f.SetIdentity(who[0], who[1])
		_, err = f.Committer(when)
		assert.ErrorIs(t, err, gitstate.ErrNoIdentity, "%q", who)
		_, err = f.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{write("b.txt", "b")}, Message: "x"})
		assert.ErrorIs(t, err, gitstate.ErrNoIdentity, "%q", who)
	}
	// An explicit author needs no configured identity.
	_, err = f.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{write("b.txt", "b")}, Message: "x",
		Author: &gitstate.Signature{Name: "Agent", Email: "agent@example.com"}})
	require.NoError(t, err)
}

func TestSetHead(t *testing.T) {
	f := New(t.TempDir())
	c1 := mustCommit(t, f, write("a.txt", "1"))
	c2 := mustCommit(t, f, write("a.txt", "2"))

	require.NoError(t, f.SetHead("HEAD~1"))
	h, err := f.Head()
	require.NoError(t, err)
	assert.Equal(t, gitstate.Head{Hash: c1.Hash, Detached: true}, h)
	_, err = f.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{write("b.txt", "b")}, Message: "x"})
	assert.ErrorIs(t, err, gitstate.ErrDetachedHead)

	require.NoError(t, f.SetHead("refs/heads/new"))
	h, err = f.Head()
	require.NoError(t, err)
	assert.Equal(t, gitstate.Head{Branch: "refs/heads/new", Unborn: true}, h)
	orphan := mustCommit(t, f, write("o.txt", "o"))
	assert.Empty(t, orphan.Parents, "the first commit of an unborn branch")
	_, err = f.ReadFile("HEAD", "a.txt")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)

	require.NoError(t, f.SetHead("refs/heads/main"))
	got, err := f.ResolveRev("HEAD")
	require.NoError(t, err)
	assert.Equal(t, c2.Hash, got)

	assert.ErrorIs(t, f.SetHead("nosuch"), gitstate.ErrNotFound)
	assert.Error(t, f.SetHead("refs/heads/bad..name"))
}

func TestMerge(t *testing.T) {
	f := New(t.TempDir())
	base := mustCommit(t, f, write("a.txt", "a"))
	who := gitstate.Signature{Name: "x", Email: "x@example.com"}
	require.NoError(t, f.SetBranch("refs/heads/side", base.Hash, who, "side"))
	require.NoError(t, f.SetHead("refs/heads/side"))
	side := mustCommit(t, f, write("b.txt", "b"))
	require.NoError(t, f.SetHead("refs/heads/main"))
	main := mustCommit(t, f, write("c.txt", "c"))

	m, err := f.Merge("side", gitstate.CommitRequest{Message: "Merge branch 'side'", When: when})
	require.NoError(t, err)
	assert.Equal(t, []string{main.Hash, side.Hash}, m.Parents)
	tree, err := f.FileHashAt(m.Hash, "")
	require.NoError(t, err)
	mainTree, err := f.FileHashAt(main.Hash, "")
	require.NoError(t, err)
	assert.Equal(t, mainTree, tree, "no changes: HEAD's tree")
	got, err := f.ResolveRev("HEAD^2")
	require.NoError(t, err)
	assert.Equal(t, side.Hash, got)
	assert.Equal(t, 3, f.Calls("CommitFiles"), "Merge is no call of CommitFiles")

	_, err = f.Merge("nosuch", gitstate.CommitRequest{Message: "x"})
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
}

func TestSetConflictAndWriteBlob(t *testing.T) {
	f := New(t.TempDir())
	mustCommit(t, f, write("f.txt", "base"), write("g.txt", "g"))
	f.SetConflict("f.txt", nil, []byte("ours"), []byte("theirs"))
	staged, err := f.Staged("")
	require.NoError(t, err)
	assert.Equal(t, []gitstate.IndexEntry{
		{Path: "f.txt", Stage: 2, Hash: gitstate.BlobHash([]byte("ours"))},
		{Path: "f.txt", Stage: 3, Hash: gitstate.BlobHash([]byte("theirs"))},
		{Path: "g.txt", Hash: gitstate.BlobHash([]byte("g"))},
	}, staged, "added on both sides: no base")
	data, err := f.ReadBlob(staged[1].Hash)
	require.NoError(t, err)
	assert.Equal(t, "theirs", string(data))

	h := f.Blob([]byte("loose"))
	assert.Equal(t, gitstate.BlobHash([]byte("loose")), h)
	data, err = f.ReadBlob(strings.ToUpper(h))
	require.NoError(t, err)
	assert.Equal(t, "loose", string(data))
}

func TestHistoryReentryPanics(t *testing.T) {
	f := New(t.TempDir())
	mustCommit(t, f, write("a.txt", "a"))
	assert.PanicsWithValue(t,
		"gitfake: ReadFile called from inside History's fn: *gitstate.Repo holds its lock there and would deadlock",
		func() {
			_ = f.History("HEAD", func(c gitstate.Commit) bool {
				_, _ = f.ReadFile(c.Hash, "a.txt")
				return true
			})
		})
	// The fake is usable again, from other goroutines meanwhile too.
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.History("HEAD", func(gitstate.Commit) bool { time.Sleep(10 * time.Millisecond); return true })
	}()
	_, err := f.ReadFile("HEAD", "a.txt")
	require.NoError(t, err)
	<-done
}

func TestPrivateFolder(t *testing.T) {
	root := filepath.Join(t.TempDir(), "work")
	f := New(root)
	assert.Equal(t, root, f.Root())
	for _, p := range []string{f.ItrPath("x"), f.WorktreeItrPath("x"), f.ConfigFile()} {
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(rel, ".."), "%s is outside the working tree", p)
	}
	hooks, err := f.HooksDir()
	require.NoError(t, err)
	fi, err := os.Stat(hooks)
	require.NoError(t, err)
	assert.True(t, fi.IsDir(), "the hooks folder exists, as after git init")

	changed, err := f.SetConfigSection("merge", "itr", [][2]string{{"driver", "itr merge-driver %O %A %B %P"}, {"name", "a;b"}})
	require.NoError(t, err)
	assert.True(t, changed)
	data, err := os.ReadFile(f.ConfigFile())
	require.NoError(t, err)
	assert.Equal(t, "[merge \"itr\"]\n\tdriver = itr merge-driver %O %A %B %P\n\tname = \"a;b\"\n", string(data))
	changed, err = f.SetConfigSection("merge", "itr", nil)
	require.NoError(t, err)
	assert.True(t, changed, "nil keys remove the section")
	sec, err := f.ConfigSection("merge", "itr")
	require.NoError(t, err)
	assert.Nil(t, sec)

	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing of the fake's own in the working tree")

	own := t.TempDir()
	g := New(t.TempDir(), WithPrivateDir(own), WithBranch("trunk"))
	assert.Equal(t, filepath.Join(own, "a"), g.ItrPath("a"))
	h, err := g.Head()
	require.NoError(t, err)
	assert.Equal(t, "refs/heads/trunk", h.Branch)
	assert.NoError(t, g.Close())
}

func TestUnquoteConfig(t *testing.T) {
	for in, want := range map[string]string{
		" plain ":             "plain",
		`"a;b"`:               "a;b",
		`x  y`:                "x  y",
		`x # comment`:         "x",
		`x ; comment`:         "x",
		`"say \"hi\""`:        `say "hi"`,
		`"c:\\dir"`:           `c:\dir`,
		`" padded "`:          " padded ",
		`""`:                  "",
		`a\tb`:                "a\tb",
		`"in # quotes" # out`: "in # quotes",
	} {
		assert.Equal(t, want, unquoteConfig(in), "%s", in)
	}
	for _, v := range []string{"", "a;b", "x # y", ` padded `, `say "hi"`, `c:\dir`, "plain"} {
		assert.Equal(t, v, unquoteConfig(gitsyntax.QuoteConfig(v)), "round trip of %q", v)
	}
}

func TestSetRef(t *testing.T) {
	f := New(t.TempDir())
	c := mustCommit(t, f, write("a.txt", "a"))
	require.NoError(t, f.SetRef("refs/remotes/origin/main", c.Hash))
	got, err := f.ResolveRev("origin/main")
	require.NoError(t, err)
	assert.Equal(t, c.Hash, got)
	refs, err := f.Refs("refs/remotes/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"refs/remotes/origin/main": c.Hash}, refs)

	gone := "0123456789abcdef0123456789abcdef01234567"
	require.NoError(t, f.SetRef("refs/tags/gone", gone))
	raw, err := f.RawRefs("refs/tags/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"refs/tags/gone": gone}, raw, "a dangling ref is listed raw")
	refs, err = f.Refs("refs/tags/")
	require.NoError(t, err)
	assert.Empty(t, refs, "but not peeled")
	_, err = f.PeelCommit(gone)
	assert.ErrorIs(t, err, gitstate.ErrNotFound)
	_, err = f.ReadTag("refs/tags/gone")
	assert.ErrorIs(t, err, gitstate.ErrNotFound)

	require.NoError(t, f.SetRef("refs/tags/gone", ""))
	got, err = f.ReadRef("refs/tags/gone")
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Error(t, f.SetRef("refs/tags/bad..name", c.Hash))
	assert.Error(t, f.SetRef("refs/tags/short", c.Hash[:7]))
	assert.Error(t, f.SetRef("refs/remotes/origin/main/x", c.Hash), "clashes with a ref")
}

// TestUpdateRef: the compare-and-swap of refs under refs/itr/, step by
// step from one state to the next.
func TestUpdateRef(t *testing.T) {
	f := New(t.TempDir())
	a := f.Blob([]byte("a"))
	b := f.Blob([]byte("b"))
	missing := gitstate.BlobHash([]byte("never stored"))
	const name = "refs/itr/claims/auth/T1"
	steps := []struct {
		what          string
		name, nw, old string
		err           error  // nil: succeeds
		have          string // the value a RefChangedError names
		after         string // the ref's value after the step
	}{
		{"delete an absent ref expecting nothing", name, "", "", nil, "", ""},
		{"delete an absent ref expecting a value", name, "", a, gitstate.ErrRefChanged, "", ""},
		{"move an absent ref", name, b, a, gitstate.ErrRefChanged, "", ""},
		{"create", name, a, "", nil, "", a},
		{"create again", name, b, "", gitstate.ErrRefChanged, a, a},
		{"move with a wrong old value", name, b, b, gitstate.ErrRefChanged, a, a},
		{"move", name, b, a, nil, "", b},
		{"move to what it holds", name, b, b, nil, "", b},
		{"delete with a wrong old value", name, "", a, gitstate.ErrRefChanged, b, b},
		{"delete expecting nothing", name, "", "", gitstate.ErrRefChanged, b, b},
		{"to a missing object", name, missing, b, gitstate.ErrNotFound, "", b},
		{"a branch", "refs/heads/main", a, "", gitstate.ErrBadRef, "", b},
		{"a tag", "refs/tags/v1", a, "", gitstate.ErrBadRef, "", b},
		{"HEAD", "HEAD", a, "", gitstate.ErrBadRef, "", b},
		{"a bad name", "refs/itr/a..b", a, "", gitstate.ErrBadRef, "", b},
		{"delete", name, "", b, nil, "", ""},
		{"delete again", name, "", b, gitstate.ErrRefChanged, "", ""},
	}
	for _, s := range steps {
		err := f.UpdateRef(s.name, s.nw, s.old)
		if s.err == nil {
			require.NoError(t, err, s.what)
		} else {
			require.ErrorIs(t, err, s.err, s.what)
		}
		if errors.Is(s.err, gitstate.ErrRefChanged) {
			var rc *gitstate.RefChangedError
			require.ErrorAs(t, err, &rc, s.what)
			assert.Equal(t, gitstate.RefChangedError{Ref: s.name, Want: s.old, Have: s.have}, *rc, s.what)
		}
		cur, err := f.ReadRef(name)
		require.NoError(t, err)
		assert.Equal(t, s.after, cur, "%s: the ref after", s.what)
	}
	refs, err := f.RawRefs("refs/")
	require.NoError(t, err)
	assert.Empty(t, refs, "no other ref was made")
	assert.Error(t, f.UpdateRef("refs/itr/x", "abc", ""), "an abbreviated id")

	id, err := f.WriteBlob([]byte("x\r\n\x00\xff"))
	require.NoError(t, err)
	assert.Equal(t, gitstate.BlobHash([]byte("x\r\n\x00\xff")), id)
	data, err := f.ReadBlob(id)
	require.NoError(t, err)
	assert.Equal(t, "x\r\n\x00\xff", string(data))
}

// TestFoldersAndSuffixes reads a folder's files every way the interface
// offers, and resolves revisions with each suffix the fake reads.
func TestFoldersAndSuffixes(t *testing.T) {
	f := New(t.TempDir())
	first := mustCommit(t, f, write("d/a.txt", "a\n"), write("d/e/b.txt", "b\n"), write("top.txt", "t\n"))
	second := mustCommit(t, f, write("d/a.txt", "a2\n"), gitstate.FileChange{Path: "top.txt", Delete: true})
	a2, b := gitstate.BlobHash([]byte("a2\n")), gitstate.BlobHash([]byte("b\n"))

	tree, err := f.TreeFiles("HEAD", "d/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"d/a.txt": a2, "d/e/b.txt": b}, tree)
	folder, err := f.FolderHashes("HEAD", "d")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a.txt": a2}, folder)
	list, err := f.ListFiles(first.Hash, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"d/a.txt", "d/e/b.txt", "top.txt"}, list)
	for _, dir := range []string{"none", "d/a.txt"} {
		tree, err = f.TreeFiles("HEAD", dir)
		require.NoError(t, err)
		assert.Empty(t, tree, dir)
		folder, err = f.FolderHashes("HEAD", dir)
		require.NoError(t, err)
		assert.Empty(t, folder, dir)
		list, err = f.ListFiles("HEAD", dir)
		require.NoError(t, err)
		assert.Empty(t, list, dir)
	}

	for rev, want := range map[string]string{
		"HEAD~1": first.Hash, "HEAD^": first.Hash, "HEAD^1": first.Hash, "HEAD^0": second.Hash,
		"HEAD^{commit}": second.Hash, "HEAD^{}~": first.Hash, second.Hash[:8] + "~0": second.Hash,
	} {
		got, err := f.ResolveRev(rev)
		require.NoError(t, err, rev)
		assert.Equal(t, want, got, rev)
	}
	for _, rev := range []string{"HEAD~2", "HEAD^2", "HEAD~99999999999999999999", "~1"} {
		_, err := f.ResolveRev(rev)
		assert.ErrorIs(t, err, gitstate.ErrNotFound, rev)
	}
}
