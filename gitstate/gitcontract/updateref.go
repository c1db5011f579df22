package gitcontract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
)

// gitOut is r.opts.Git, or "" and false without an oracle.
func gitOut(t *testing.T, r Subject, stdin []byte, args ...string) (string, bool) {
	t.Helper()
	if r.opts.Git == nil {
		return "", false
	}
	return r.opts.Git(t, r.Repository, stdin, args...), true
}

// refByGit is the object git says the ref name holds ("" when absent).
func refByGit(t *testing.T, r Subject, name string) (string, bool) {
	t.Helper()
	out, ok := gitOut(t, r, nil, "for-each-ref", "--format=%(refname) %(objectname)", name)
	if !ok {
		return "", false
	}
	for _, line := range strings.Split(out, "\n") {
		if ref, id, ok := strings.Cut(line, " "); ok && ref == name {
			return id, true
		}
	}
	return "", true
}

// assertRef checks that name holds want ("": absent), as r reads it and as
// git does.
func assertRef(t *testing.T, r Subject, name, want string, msg string) {
	t.Helper()
	got, err := r.ReadRef(name)
	require.NoError(t, err)
	assert.Equal(t, want, got, "ReadRef(%s): %s", name, msg)
	if id, ok := refByGit(t, r, name); ok {
		assert.Equal(t, want, id, "git for-each-ref %s: %s", name, msg)
	}
}

// assertChanged checks that err is a refused compare-and-swap of name
// that names have, the value the ref holds.
func assertChanged(t *testing.T, err error, name, have string, msg string) {
	t.Helper()
	require.Error(t, err, msg)
	assert.ErrorIs(t, err, gitstate.ErrRefChanged, msg)
	var rc *gitstate.RefChangedError
	if assert.True(t, errors.As(err, &rc), "%s: a *gitstate.RefChangedError: %v", msg, err) {
		assert.Equal(t, name, rc.Ref, msg)
		assert.Equal(t, have, rc.Have, "%s: the error names the value the ref holds", msg)
	}
}

// testWriteBlob: WriteBlob stores the bytes as given (CRLF, NUL, bytes
// that are not UTF-8, nothing at all) under the name git gives them, with
// no filter or conversion, whatever the repository's attributes say.
func testWriteBlob(t *testing.T, r Subject) {
	for _, data := range []string{
		"",
		"plain\n",
		"crlf\r\nlines\r\n",
		"nul\x00inside\x00",
		"not utf-8: \xff\xfe\x80\xc3\x28 and a lone \r",
		strings.Repeat("big\r\n", 50000),
	} {
		id, err := r.WriteBlob([]byte(data))
		require.NoError(t, err)
		assert.Equal(t, r.BlobID([]byte(data)), id, "the id is BlobID's")
		got, err := r.ReadBlob(id)
		require.NoError(t, err)
		assert.Equal(t, data, string(got), "ReadBlob gives the bytes back")
		again, err := r.WriteBlob([]byte(data))
		require.NoError(t, err)
		assert.Equal(t, id, again, "writing the same bytes again is the same blob")
		if out, ok := gitOut(t, r, nil, "cat-file", "blob", id); ok {
			assert.Equal(t, data, out, "git cat-file blob %s", id)
			assert.Equal(t, "blob\n", r.opts.Git(t, r.Repository, nil, "cat-file", "-t", id))
			assert.Equal(t, id+"\n", r.opts.Git(t, r.Repository, []byte(data), "hash-object", "--no-filters", "--stdin"),
				"the id is git hash-object --no-filters")
		}
	}
	// Nothing but the objects changes: no ref, no index entry.
	refs, err := r.RawRefs("refs/")
	require.NoError(t, err)
	assert.Empty(t, refs)
	staged, err := r.Staged("")
	require.NoError(t, err)
	assert.Empty(t, staged)
}

// testUpdateRef: UpdateRef is a compare-and-swap of refs under refs/itr/:
// create, move and delete with the value expected, and nothing changes
// when the ref holds another.
func testUpdateRef(t *testing.T, r Subject) {
	const name = "refs/itr/claims/auth/T1"
	a, err := r.WriteBlob([]byte("claim by a\n"))
	require.NoError(t, err)
	b, err := r.WriteBlob([]byte("claim by b\n"))
	require.NoError(t, err)
	c := commit(t, r, "first", change("f.txt", "f\n")).Hash

	require.NoError(t, r.UpdateRef(name, a, ""), "create")
	assertRef(t, r, name, a, "created")
	assertChanged(t, r.UpdateRef(name, b, ""), name, a, "create when it exists")
	assertRef(t, r, name, a, "a refused create changes nothing")
	assertChanged(t, r.UpdateRef(name, b, c), name, a, "move with a wrong old value")
	assertRef(t, r, name, a, "a refused move changes nothing")
	require.NoError(t, r.UpdateRef(name, b, a), "move")
	assertRef(t, r, name, b, "moved")
	assertChanged(t, r.UpdateRef(name, c, a), name, b, "move with a stale old value")
	require.NoError(t, r.UpdateRef(name, c, b), "move to a commit")
	assertRef(t, r, name, c, "moved to a commit")
	require.NoError(t, r.UpdateRef(name, c, c), "move to the value it holds")
	assertRef(t, r, name, c, "unchanged")

	assertChanged(t, r.UpdateRef(name, "", a), name, c, "delete with a wrong old value")
	assertChanged(t, r.UpdateRef(name, "", ""), name, c, "delete expecting nothing")
	assertRef(t, r, name, c, "a refused delete changes nothing")
	require.NoError(t, r.UpdateRef(name, "", c), "delete")
	assertRef(t, r, name, "", "deleted")
	assertChanged(t, r.UpdateRef(name, "", c), name, "", "delete of a deleted ref")
	require.NoError(t, r.UpdateRef(name, "", ""), "delete of an absent ref expecting nothing")
	require.NoError(t, r.UpdateRef(name, a, ""), "create again after a delete")
	assertRef(t, r, name, a, "created again")

	// A name that clashes as file and folder, and an object that is not
	// there.
	assert.Error(t, r.UpdateRef("refs/itr/claims/auth", a, ""), "a ref where a folder of refs is")
	assert.Error(t, r.UpdateRef(name+"/below", a, ""), "a ref below a ref")
	assertRef(t, r, "refs/itr/claims/auth", "", "the clash made nothing")
	assert.ErrorIs(t, r.UpdateRef("refs/itr/missing", missingID(r), ""), gitstate.ErrNotFound)
	assertRef(t, r, "refs/itr/missing", "", "no ref to a missing object")
	assert.Error(t, r.UpdateRef("refs/itr/short", a[:12], ""), "an abbreviated id")

	// Only refs/itr/: never branches, tags, HEAD, or a name git refuses.
	for _, bad := range []string{"refs/heads/main", "refs/tags/v1", "HEAD", "refs/itrx/a", "itr/a",
		"refs/itr/a..b", "refs/itr/a.lock", "refs/itr/", "refs/itr/sp ace"} {
		err := r.UpdateRef(bad, a, "")
		assert.ErrorIs(t, err, gitstate.ErrBadRef, "%q is refused", bad)
	}
	h := head(t, r)
	assert.Equal(t, c, h.Hash, "HEAD's branch is where the commit left it")
	refs, err := r.RawRefs("refs/")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{h.Branch: c, name: a}, refs, "no other ref was made")
}

// testUpdateRefPacked: a ref that lives in packed-refs (after `git
// pack-refs --all`) is moved and deleted as a loose one is, and a deleted
// one leaves packed-refs.
func testUpdateRefPacked(t *testing.T, r Subject) {
	const moved, deleted, kept = "refs/itr/p/moved", "refs/itr/p/deleted", "refs/itr/p/kept"
	a, err := r.WriteBlob([]byte("a\n"))
	require.NoError(t, err)
	b, err := r.WriteBlob([]byte("b\n"))
	require.NoError(t, err)
	for _, name := range []string{moved, deleted, kept} {
		require.NoError(t, r.UpdateRef(name, a, ""))
	}
	packedRefs := ""
	if _, ok := gitOut(t, r, nil, "pack-refs", "--all"); ok {
		common := strings.TrimSpace(r.opts.Git(t, r.Repository, nil, "rev-parse", "--path-format=absolute", "--git-common-dir"))
		packedRefs = filepath.Join(common, "packed-refs")
		if _, err := os.Stat(packedRefs); err == nil {
			data, err := os.ReadFile(packedRefs)
			require.NoError(t, err)
			require.Contains(t, string(data), " "+deleted+"\n", "git packed the ref")
		} else {
			packedRefs = "" // reftable: no packed-refs
		}
	}
	assertRef(t, r, moved, a, "packed")
	assertChanged(t, r.UpdateRef(moved, b, b), moved, a, "a packed ref with a wrong old value")
	assertChanged(t, r.UpdateRef(moved, b, ""), moved, a, "a packed ref created again")
	require.NoError(t, r.UpdateRef(moved, b, a), "move a packed ref")
	assertRef(t, r, moved, b, "a packed ref moved")
	assertChanged(t, r.UpdateRef(deleted, "", b), deleted, a, "delete a packed ref with a wrong old value")
	require.NoError(t, r.UpdateRef(deleted, "", a), "delete a packed ref")
	assertRef(t, r, deleted, "", "a packed ref deleted")
	assertRef(t, r, kept, a, "the other packed ref is kept")
	if packedRefs != "" {
		data, err := os.ReadFile(packedRefs)
		require.NoError(t, err)
		assert.NotContains(t, string(data), deleted, "packed-refs no longer lists the deleted ref")
		assert.Contains(t, string(data), " "+kept+"\n", "packed-refs keeps the others")
	}
	if out, ok := gitOut(t, r, nil, "show-ref"); ok {
		assert.Contains(t, out, b+" "+moved+"\n")
		assert.Contains(t, out, a+" "+kept+"\n")
		assert.NotContains(t, out, deleted)
	}
	require.NoError(t, r.UpdateRef(moved, "", b), "delete a moved packed ref")
	assertRef(t, r, moved, "", "deleted after the move")
}
