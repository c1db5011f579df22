package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitWith runs git in dir with extra environment variables and stdin.
func gitWith(t *testing.T, dir string, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	require.NoError(t, err, "git %s", strings.Join(args, " "))
	return strings.TrimSpace(string(out))
}

// TestEncodeCommitMatchesGit writes the same commit with git commit-tree
// and with encodeCommit: the object names agree.
func TestEncodeCommitMatchesGit(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	tree := gitRun(t, dir, "rev-parse", "HEAD^{tree}")
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	env := []string{
		"GIT_AUTHOR_NAME=Ann Author", "GIT_AUTHOR_EMAIL=ann@example.com", "GIT_AUTHOR_DATE=1700000000 +0530",
		"GIT_COMMITTER_NAME=Carl Committer", "GIT_COMMITTER_EMAIL=carl@example.com", "GIT_COMMITTER_DATE=1700000100 -0030",
	}
	msg := "subject\n\nbody\n\nItr-Task: x\n"
	want := gitWith(t, dir, env, msg, "commit-tree", strings.TrimSpace(tree), "-p", head)

	author := Signature{Name: "Ann Author", Email: "ann@example.com", When: time.Unix(1700000000, 0).In(time.FixedZone("", 5*3600+30*60))}
	committer := Signature{Name: "Carl Committer", Email: "carl@example.com", When: time.Unix(1700000100, 0).In(time.FixedZone("", -30*60))}
	data := encodeCommit(plumbing.NewHash(strings.TrimSpace(tree)), []plumbing.Hash{plumbing.NewHash(head)}, author, committer, msg)
	assert.Equal(t, want, hashObject(plumbing.CommitObject, data).String())

	c, err := decodeCommit(plumbing.NewHash(want), data)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSpace(tree), c.Tree.String())
	assert.Equal(t, []plumbing.Hash{plumbing.NewHash(head)}, c.Parents)
	assert.Equal(t, "Ann Author", c.Author.Name)
	assert.Equal(t, "carl@example.com", c.Committer.Email)
	assert.True(t, c.Author.When.Equal(author.When))
	assert.Equal(t, "+0530", c.Author.When.Format("-0700"))
	assert.Equal(t, "-0030", c.Committer.When.Format("-0700"))
	assert.Equal(t, msg, c.Message)
}

// TestDecodeCommitSkipsOtherHeaders reads a commit with an encoding, a
// multi-line signature and a merge tag: the message and the fields come out
// whole, and History reads the same through the repository.
func TestDecodeCommitSkipsOtherHeaders(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	tree := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD^{tree}"))
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	raw := "tree " + tree + "\n" +
		"parent " + head + "\n" +
		"author A U Thor <a@example.com> 1700000000 +0000\n" +
		"committer C O Mitter <c@example.com> 1700000001 +0100\n" +
		"mergetag object " + head + "\n type commit\n tag v1\n tagger T <t@example.com> 1700000000 +0000\n \n msg\n" +
		"encoding ISO-8859-1\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n" +
		"\n" +
		"the subject\n\nItr-Unit: T1\n"
	h := gitWith(t, dir, nil, raw, "hash-object", "-t", "commit", "-w", "--stdin", "--literally")
	c, err := decodeCommit(plumbing.NewHash(h), []byte(raw))
	require.NoError(t, err)
	assert.Equal(t, tree, c.Tree.String())
	assert.Equal(t, "A U Thor", c.Author.Name)
	assert.Equal(t, "C O Mitter", c.Committer.Name)
	assert.Equal(t, "+0100", c.Committer.When.Format("-0700"))
	assert.Equal(t, "the subject\n\nItr-Unit: T1\n", c.Message)

	r := openRepo(t, dir)
	var got []Commit
	require.NoError(t, r.History(h, func(c Commit) bool { got = append(got, c); return true }))
	require.Len(t, got, 2)
	assert.Equal(t, "the subject", got[0].Subject)
	v, ok := got[0].Trailer("Itr-Unit")
	assert.True(t, ok)
	assert.Equal(t, "T1", v)
	assert.Equal(t, []string{head}, got[0].Parents)
	assert.Equal(t, "initial", got[1].Subject)

	_, err = decodeCommit(plumbing.ZeroHash, []byte("author x <y> 1 +0000\n\nmsg\n"))
	assert.ErrorIs(t, err, errMalformed)
}

// TestTagRoundTrip writes a tag with CreateTag, reads it with git and with
// ReadTag; a signed tag made by hand loses its signature block in Message.
func TestTagRoundTrip(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	r := openRepo(t, dir)
	who := Signature{Name: "Tag Ger", Email: "t@example.com", When: fixedTime}
	h, err := r.CreateTag("refs/tags/v1", head, "archive\n\nItr-Archive: x", who)
	require.NoError(t, err)
	assert.Equal(t, "tag", strings.TrimSpace(gitRun(t, dir, "cat-file", "-t", h)))
	assert.Equal(t, head, strings.TrimSpace(gitRun(t, dir, "rev-parse", "v1^{commit}")))
	gitRun(t, dir, "fsck", "--strict", "--no-progress")
	tag, err := r.ReadTag("refs/tags/v1")
	require.NoError(t, err)
	assert.Equal(t, "v1", tag.Name)
	assert.Equal(t, head, tag.Target)
	assert.Equal(t, "archive\n\nItr-Archive: x\n", tag.Message)
	assert.Equal(t, "Tag Ger", tag.Tagger.Name)
	assert.True(t, tag.Tagger.When.Equal(fixedTime))

	signed := "object " + head + "\ntype commit\ntag v2\ntagger T <t@example.com> 1700000000 +0000\n\nsigned\n" +
		"-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n"
	sh := gitWith(t, dir, nil, signed, "hash-object", "-t", "tag", "-w", "--stdin")
	gitRun(t, dir, "update-ref", "refs/tags/v2", sh)
	tag, err = r.ReadTag("refs/tags/v2")
	require.NoError(t, err)
	assert.Equal(t, "signed\n", tag.Message)
	peeled, err := r.PeelCommit(sh)
	require.NoError(t, err)
	assert.Equal(t, head, peeled)
}

// TestParseSignatureLenient reads what git tolerates.
func TestParseSignatureLenient(t *testing.T) {
	s := parseSignature([]byte("Name With <Angle> <n@example.com> 1700000000 -0130"))
	assert.Equal(t, "Name With <Angle>", s.Name)
	assert.Equal(t, "n@example.com", s.Email)
	assert.Equal(t, "-0130", s.When.Format("-0700"))
	s = parseSignature([]byte("No Time <n@example.com>"))
	assert.Equal(t, "No Time", s.Name)
	assert.True(t, s.When.IsZero())
	s = parseSignature([]byte("Bad Zone <n@example.com> 1700000000 +xx"))
	assert.Equal(t, int64(1700000000), s.When.Unix())
}

// TestReadObjectFromAlternates reads objects from the object store a
// shared clone borrows (objects/info/alternates), named by an absolute and
// by a relative path.
func TestReadObjectFromAlternates(t *testing.T) {
	src := newRepo(t, map[string]string{"a.txt": "from the alternate\n"})
	dst := t.TempDir()
	gitRun(t, dst, "clone", "-q", "--shared", src, ".")
	head := strings.TrimSpace(gitRun(t, dst, "rev-parse", "HEAD"))
	entries, _ := os.ReadDir(filepath.Join(dst, ".git", "objects"))
	for _, e := range entries {
		assert.Contains(t, []string{"info", "pack"}, e.Name(), "the clone has its own loose objects")
	}
	for _, relative := range []bool{false, true} {
		if relative {
			rel, err := filepath.Rel(filepath.Join(dst, ".git", "objects"), filepath.Join(src, ".git", "objects"))
			require.NoError(t, err)
			writeFile(t, filepath.Join(dst, ".git", "objects", "info", "alternates"), "# comment\n"+rel+"\n")
		}
		r := openRepo(t, dst)
		data, err := r.ReadFile(head, "a.txt")
		require.NoError(t, err)
		assert.Equal(t, "from the alternate\n", string(data))
		var n int
		require.NoError(t, r.History("", func(Commit) bool { n++; return true }))
		assert.Equal(t, 1, n)
	}
}
