package gitstate

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// configOut builds the output of git config -z --get-regexp from key,
// value pairs; a value of "\x00" stands for a key written without one.
func configOut(kv ...string) []byte {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(kv[i])
		if kv[i+1] != "\x00" {
			b.WriteString("\n" + kv[i+1])
		}
		b.WriteByte(0)
	}
	return []byte(b.String())
}

func TestParseRemoteConfig(t *testing.T) {
	const originFetch = "+refs/heads/*:refs/remotes/origin/*"
	tests := []struct {
		name   string
		branch string
		out    []byte
		want   Upstream
	}{
		{name: "nothing configured", branch: "main", out: nil, want: Upstream{}},
		{name: "only separators", branch: "main", out: []byte("\x00\x00"), want: Upstream{}},
		{
			name: "no upstream, one remote chosen", branch: "main",
			out:  configOut("remote.upstream.url", "/srv/x.git", "remote.upstream.fetch", "+refs/heads/*:refs/remotes/upstream/*"),
			want: Upstream{Remote: "upstream", PushRemote: "upstream", Remotes: []string{"upstream"}, Fetch: []string{"+refs/heads/*:refs/remotes/upstream/*"}},
		},
		{
			name: "no upstream, origin chosen among several", branch: "main",
			out: configOut("remote.fork.url", "/srv/fork.git", "remote.fork.fetch", "+refs/heads/*:refs/remotes/fork/*",
				"remote.origin.url", "/srv/x.git", "remote.origin.fetch", originFetch),
			want: Upstream{Remote: "origin", PushRemote: "origin", Remotes: []string{"fork", "origin"}, Fetch: []string{originFetch}},
		},
		{
			name: "no upstream, several remotes without origin: none", branch: "main",
			out:  configOut("remote.a.url", "/a", "remote.b.url", "/b", "remote.b.fetch", "+refs/heads/*:refs/remotes/b/*"),
			want: Upstream{Remotes: []string{"a", "b"}},
		},
		{
			name: "upstream, rebase from pull.rebase", branch: "main",
			out: configOut("pull.rebase", "true", "remote.origin.url", "/x", "remote.origin.fetch", originFetch,
				"branch.main.remote", "origin", "branch.main.merge", "refs/heads/main"),
			want: Upstream{Remote: "origin", MergeRef: "refs/heads/main", PushRemote: "origin", Rebase: "true", Remotes: []string{"origin"}, Fetch: []string{originFetch}},
		},
		{
			name: "branch.<b>.rebase overrides pull.rebase", branch: "main",
			out: configOut("pull.rebase", "true", "remote.origin.url", "/x",
				"branch.main.remote", "origin", "branch.main.merge", "refs/heads/main", "branch.main.rebase", "false"),
			want: Upstream{Remote: "origin", MergeRef: "refs/heads/main", PushRemote: "origin", Rebase: "false", Remotes: []string{"origin"}},
		},
		{
			name: "branch.<b>.rebase overrides a later pull.rebase", branch: "main",
			out:  configOut("branch.main.rebase", "merges", "pull.rebase", "false", "remote.origin.url", "/x"),
			want: Upstream{Remote: "origin", PushRemote: "origin", Rebase: "merges", Remotes: []string{"origin"}},
		},
		{
			name: "the last value wins", branch: "main",
			out:  configOut("pull.rebase", "true", "pull.rebase", "false"),
			want: Upstream{Rebase: "false"},
		},
		{
			name: "pull.rebase without a value is true", branch: "main",
			out:  configOut("pull.rebase", "\x00", "remote.origin.url", "/x"),
			want: Upstream{Remote: "origin", PushRemote: "origin", Rebase: "true", Remotes: []string{"origin"}},
		},
		{
			name: "branch.<b>.pushremote beats remote.pushdefault", branch: "main",
			out: configOut("remote.pushdefault", "mine", "remote.origin.url", "/x", "remote.mine.url", "/m", "remote.fork.url", "/f",
				"branch.main.remote", "origin", "branch.main.merge", "refs/heads/main", "branch.main.pushremote", "fork"),
			want: Upstream{Remote: "origin", MergeRef: "refs/heads/main", PushRemote: "fork", Remotes: []string{"origin", "mine", "fork"}},
		},
		{
			name: "remote.pushdefault pushes, the branch's remote fetches", branch: "main",
			out: configOut("remote.pushdefault", "mine", "remote.origin.url", "/x", "remote.mine.url", "/m",
				"branch.main.remote", "origin", "branch.main.merge", "refs/heads/main"),
			want: Upstream{Remote: "origin", MergeRef: "refs/heads/main", PushRemote: "mine", Remotes: []string{"origin", "mine"}},
		},
		{
			name: "remote.pushdefault is the default remote without upstream", branch: "main",
			out:  configOut("remote.pushdefault", "mine", "remote.origin.url", "/x", "remote.mine.url", "/m", "remote.mine.fetch", "+refs/heads/*:refs/remotes/mine/*"),
			want: Upstream{Remote: "mine", PushRemote: "mine", Remotes: []string{"origin", "mine"}, Fetch: []string{"+refs/heads/*:refs/remotes/mine/*"}},
		},
		{
			name: "dotted branch name split at the last dot", branch: "release.v1.2",
			out: configOut("remote.origin.url", "/x", "remote.up.url", "/u",
				"branch.release.remote", "up", "branch.release.v1.remote", "up",
				"branch.release.v1.2.remote", "origin", "branch.release.v1.2.merge", "refs/heads/release.v1.2",
				"branch.release.v1.2.rebase", "true"),
			want: Upstream{Remote: "origin", MergeRef: "refs/heads/release.v1.2", PushRemote: "origin", Rebase: "true", Remotes: []string{"origin", "up"}},
		},
		{
			name: "branch subsection keeps its case", branch: "Feature/X",
			out: configOut("remote.origin.url", "/x", "remote.up.url", "/u",
				"branch.feature/x.remote", "up", "branch.Feature/X.remote", "origin", "branch.Feature/X.merge", "refs/heads/Feature/X"),
			want: Upstream{Remote: "origin", MergeRef: "refs/heads/Feature/X", PushRemote: "origin", Remotes: []string{"origin", "up"}},
		},
		{
			name: "another branch's settings are ignored", branch: "main",
			out:  configOut("remote.origin.url", "/x", "branch.topic.remote", "up", "branch.topic.merge", "refs/heads/topic", "branch.topic.rebase", "true"),
			want: Upstream{Remote: "origin", PushRemote: "origin", Remotes: []string{"origin"}},
		},
		{
			name: "detached HEAD ignores every branch", branch: "",
			out:  configOut("remote.origin.url", "/x", "remote.origin.fetch", originFetch, "branch.main.remote", "origin", "branch.main.merge", "refs/heads/main"),
			want: Upstream{Remote: "origin", PushRemote: "origin", Remotes: []string{"origin"}, Fetch: []string{originFetch}},
		},
		{
			name: "remote with dots, several urls and fetch refspecs", branch: "main",
			out: configOut("remote.my.fork.url", "/a", "remote.my.fork.url", "/b",
				"remote.my.fork.fetch", "+refs/heads/*:refs/remotes/my.fork/*", "remote.my.fork.fetch", "+refs/itr/*:refs/itr/*"),
			want: Upstream{Remote: "my.fork", PushRemote: "my.fork", Remotes: []string{"my.fork"}, Fetch: []string{"+refs/heads/*:refs/remotes/my.fork/*", "+refs/itr/*:refs/itr/*"}},
		},
		{
			name: "garbage records are ignored", branch: "main",
			out:  []byte("nokey\x00\nvalue\x00remote\x00remote.url\n/x\x00remote..url\n/y\x00remote..fetch\nf\x00branch\nmain\x00..\n\x00"),
			want: Upstream{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseRemoteConfig(tt.out, tt.branch)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParsePushPorcelain(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want []PushStatus
	}{
		{name: "empty", out: "", want: nil},
		{
			name: "new branches",
			out:  "To /tmp/r.git\n*\tHEAD:refs/heads/main\t[new branch]\n*\tHEAD:refs/heads/x\t[new branch]\nDone\n",
			want: []PushStatus{{Ref: "refs/heads/main", Flag: '*', Summary: "[new branch]"}, {Ref: "refs/heads/x", Flag: '*', Summary: "[new branch]"}},
		},
		{
			name: "new reference from an object id",
			out:  "To /tmp/r.git\n*\tf2ad6c76f0115a6ba5b00456a849810e7ec0af20:refs/itr/a\t[new reference]\nDone\n",
			want: []PushStatus{{Ref: "refs/itr/a", Flag: '*', Summary: "[new reference]"}},
		},
		{
			name: "fast-forward",
			out:  "To /tmp/r.git\n \tHEAD:refs/heads/main\t23702d4..75283a1\nDone\n",
			want: []PushStatus{{Ref: "refs/heads/main", Flag: ' ', Summary: "23702d4..75283a1"}},
		},
		{
			name: "up to date",
			out:  "To /tmp/r.git\n=\tHEAD:refs/heads/main\t[up to date]\nDone\n",
			want: []PushStatus{{Ref: "refs/heads/main", Flag: '=', Summary: "[up to date]"}},
		},
		{
			name: "deleted",
			out:  "To /tmp/r.git\n-\t:refs/heads/x\t[deleted]\nDone\n",
			want: []PushStatus{{Ref: "refs/heads/x", Flag: '-', Summary: "[deleted]"}},
		},
		{
			name: "forced",
			out:  "To /tmp/r.git\n+\tHEAD~1:refs/heads/main\t75283a1...23702d4 (forced update)\nDone\n",
			want: []PushStatus{{Ref: "refs/heads/main", Flag: '+', Summary: "75283a1...23702d4 (forced update)"}},
		},
		{
			name: "rejected, not a fast-forward",
			out:  "To /tmp/r.git\n!\tHEAD~1:refs/heads/main\t[rejected] (non-fast-forward)\nDone\n",
			want: []PushStatus{{Ref: "refs/heads/main", Flag: '!', Summary: "[rejected] (non-fast-forward)"}},
		},
		{
			name: "rejected, stale info with an atomic push",
			out: "To /tmp/r.git\n!\tf2ad6c76f0115a6ba5b00456a849810e7ec0af20:refs/itr/a\t[rejected] (stale info)\n" +
				"!\tf2ad6c76f0115a6ba5b00456a849810e7ec0af20:refs/itr/c\t[rejected] (atomic push failed)\nDone\n",
			want: []PushStatus{
				{Ref: "refs/itr/a", Flag: '!', Summary: "[rejected] (stale info)"},
				{Ref: "refs/itr/c", Flag: '!', Summary: "[rejected] (atomic push failed)"},
			},
		},
		{
			name: "remote rejected",
			out:  "To /tmp/r.git\n!\tf2ad6c76f0115a6ba5b00456a849810e7ec0af20:refs/itr/c\t[remote rejected] (pre-receive hook declined)\nDone\n",
			want: []PushStatus{{Ref: "refs/itr/c", Flag: '!', Summary: "[remote rejected] (pre-receive hook declined)"}},
		},
		{
			name: "CRLF line ends and no summary",
			out:  "To x\r\n*\ta:refs/heads/a\r\n=\tb:refs/heads/b\t[up to date]\r\nDone\r\n",
			want: []PushStatus{{Ref: "refs/heads/a", Flag: '*'}, {Ref: "refs/heads/b", Flag: '=', Summary: "[up to date]"}},
		},
		{
			name: "garbage",
			out:  "Done\nTo /tmp/r.git\n!\n!\t\n*\tnocolon\t[new branch]\nxx\ta:b\n\x00\x01\x02\nerror: failed to push some refs\n",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parsePushPorcelain([]byte(tt.out))
			assert.Equal(t, tt.want, got)
			for _, s := range got {
				assert.Equal(t, s.Flag == '!', s.Rejected())
			}
		})
	}
}

func TestLeaseLost(t *testing.T) {
	for summary, want := range map[string]bool{
		"[rejected] (stale info)":                        true,
		"[rejected] (atomic push failed)":                true,
		"[remote rejected] (failed to lock)":             true,
		"[remote rejected] (failed to update ref)":       true,
		"[remote rejected] (atomic transaction failed)":  true,
		"[remote rejected] (pre-receive hook declined)":  false,
		"[remote rejected] (prohibited by Gerrit)":       false,
		"[remote rejected] (deny deleting current head)": false,
	} {
		assert.Equal(t, want, leaseLost(summary), summary)
	}
}

// netFixture is a bare remote with two clones, a and b, of its main
// branch (one commit holding shared.txt).
type netFixture struct {
	base, remote, a, b string
}

func newNetFixture(t *testing.T) netFixture {
	t.Helper()
	isolate(t)
	base := t.TempDir()
	f := netFixture{base: base, remote: filepath.Join(base, "remote.git"), a: filepath.Join(base, "a"), b: filepath.Join(base, "b")}
	gitRun(t, base, "init", "-q", "--bare", "-b", "main", f.remote)
	gitRun(t, base, "init", "-q", "-b", "main", f.a)
	commitFile(t, f.a, "shared.txt", "one\ntwo\nthree\n", "initial")
	gitRun(t, f.a, "remote", "add", "origin", f.remote)
	gitRun(t, f.a, "push", "-q", "-u", "origin", "main")
	gitRun(t, base, "clone", "-q", f.remote, f.b)
	return f
}

// commitFile writes path in the work tree of dir and commits it.
func commitFile(t *testing.T, dir, path, content, msg string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, filepath.FromSlash(path)), content)
	gitRun(t, dir, "add", "--", path)
	gitRun(t, dir, "commit", "-q", "-m", msg)
}

// network opens the repository at dir as gitstate does and returns its
// network.
func network(t *testing.T, dir string) (*Repo, *Network) {
	t.Helper()
	r := openRepo(t, dir)
	n, err := NetworkOf(r)
	require.NoError(t, err)
	return r, n
}

// remoteRef is the value of ref in the bare repository gitDir, "" when
// absent.
func remoteRef(t *testing.T, gitDir, ref string) string {
	t.Helper()
	out, err := gitTry(filepath.Dir(gitDir), "--git-dir", gitDir, "rev-parse", "-q", "--verify", ref)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

func head(t *testing.T, dir, rev string) string {
	t.Helper()
	return strings.TrimSpace(gitRun(t, dir, "rev-parse", rev))
}

func TestNetworkPushCAS(t *testing.T) {
	f := newNetFixture(t)
	r, n := network(t, f.a)
	const ref = "refs/itr/claims/u1"
	one, err := r.WriteBlob([]byte("one\n"))
	require.NoError(t, err)
	two, err := r.WriteBlob([]byte("two\n"))
	require.NoError(t, err)

	require.NoError(t, n.PushCAS("origin", []RefUpdate{{Ref: ref, New: one}}))
	assert.Equal(t, one, remoteRef(t, f.remote, ref))

	// It exists now: creating it again fails and leaves it alone.
	err = n.PushCAS("origin", []RefUpdate{{Ref: ref, New: two}})
	require.ErrorIs(t, err, ErrRefChanged)
	var rc *RefChangedError
	require.ErrorAs(t, err, &rc)
	assert.Equal(t, ref, rc.Ref)
	assert.Equal(t, "", rc.Want)
	assert.Equal(t, one, remoteRef(t, f.remote, ref))

	// A wrong old value fails too.
	err = n.PushCAS("origin", []RefUpdate{{Ref: ref, New: two, Old: two}})
	require.ErrorIs(t, err, ErrRefChanged)
	assert.Equal(t, one, remoteRef(t, f.remote, ref))

	require.NoError(t, n.PushCAS("origin", []RefUpdate{{Ref: ref, New: two, Old: one}}))
	assert.Equal(t, two, remoteRef(t, f.remote, ref))

	// All or none: the stale lease on ref keeps the new ref from being made,
	// and the error names the stale ref, not the one that failed with it.
	const other = "refs/itr/claims/u2"
	err = n.PushCAS("origin", []RefUpdate{{Ref: other, New: one}, {Ref: ref, New: one, Old: one}})
	require.ErrorAs(t, err, &rc)
	assert.Equal(t, ref, rc.Ref)
	assert.Equal(t, one, rc.Want)
	assert.Equal(t, "", remoteRef(t, f.remote, other))
	assert.Equal(t, two, remoteRef(t, f.remote, ref))

	// Another clone moves it with the value it fetched.
	rb, nb := network(t, f.b)
	three, err := rb.WriteBlob([]byte("three\n"))
	require.NoError(t, err)
	require.NoError(t, nb.PushCAS("origin", []RefUpdate{{Ref: ref, New: three, Old: two}}))
	assert.Equal(t, three, remoteRef(t, f.remote, ref))
	err = n.PushCAS("origin", []RefUpdate{{Ref: ref, New: one, Old: two}})
	require.ErrorIs(t, err, ErrRefChanged)

	// Delete with the wrong old value, then the right one.
	require.ErrorIs(t, n.PushCAS("origin", []RefUpdate{{Ref: ref, Old: two}}), ErrRefChanged)
	assert.Equal(t, three, remoteRef(t, f.remote, ref))
	require.NoError(t, n.PushCAS("origin", []RefUpdate{{Ref: ref, Old: three}}))
	assert.Equal(t, "", remoteRef(t, f.remote, ref))
}

func TestNetworkPushCASUnreachable(t *testing.T) {
	f := newNetFixture(t)
	r, n := network(t, f.a)
	one, err := r.WriteBlob([]byte("one\n"))
	require.NoError(t, err)
	missing := filepath.Join(t.TempDir(), "missing.git")
	err = n.PushCAS(missing, []RefUpdate{{Ref: "refs/itr/x", New: one}})
	require.Error(t, err)
	var re *RemoteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, missing, re.Remote)
	assert.Equal(t, "push", re.Op)
	assert.NotErrorIs(t, err, ErrRefChanged)
	assert.Contains(t, err.Error(), "push "+missing+": ")
	assert.NotContains(t, err.Error(), "hint:")
}

func TestNetworkPushCASHookDeclined(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hook scripts need a POSIX shell")
	}
	f := newNetFixture(t)
	r, n := network(t, f.a)
	one, err := r.WriteBlob([]byte("one\n"))
	require.NoError(t, err)
	hook := filepath.Join(f.remote, "hooks", "pre-receive")
	require.NoError(t, os.MkdirAll(filepath.Dir(hook), 0o755))
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho not here >&2\nexit 1\n"), 0o755))
	err = n.PushCAS("origin", []RefUpdate{{Ref: "refs/itr/x", New: one}})
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrRefChanged, "a declined push is not a moved ref: retrying cannot help")
	var re *RemoteError
	require.ErrorAs(t, err, &re)
	assert.Contains(t, err.Error(), "hook declined")
	assert.Equal(t, "", remoteRef(t, f.remote, "refs/itr/x"))
}

func TestNetworkPush(t *testing.T) {
	f := newNetFixture(t)
	_, na := network(t, f.a)
	_, nb := network(t, f.b)

	commitFile(t, f.a, "a.txt", "a\n", "from a")
	st, err := na.Push("origin", []string{"HEAD:refs/heads/main"})
	require.NoError(t, err)
	require.Len(t, st, 1)
	assert.Equal(t, PushStatus{Ref: "refs/heads/main", Flag: ' ', Summary: st[0].Summary}, st[0])
	tip := head(t, f.a, "HEAD")
	assert.Equal(t, tip, remoteRef(t, f.remote, "refs/heads/main"))

	// b has not fetched a's commit: not a fast-forward.
	commitFile(t, f.b, "b.txt", "b\n", "from b")
	st, err = nb.Push("origin", []string{"refs/heads/main:refs/heads/main"})
	require.ErrorIs(t, err, ErrPushRejected)
	require.Len(t, st, 1)
	assert.True(t, st[0].Rejected())
	assert.Equal(t, "refs/heads/main", st[0].Ref)
	assert.Contains(t, err.Error(), "refs/heads/main")
	assert.Equal(t, tip, remoteRef(t, f.remote, "refs/heads/main"))

	// Forcing is refused before git runs.
	st, err = nb.Push("origin", []string{"refs/heads/topic:refs/heads/topic", "+refs/heads/main:refs/heads/main"})
	require.Error(t, err)
	assert.Nil(t, st)
	assert.NotErrorIs(t, err, ErrPushRejected)
	assert.Contains(t, err.Error(), "never force-pushes")
	assert.Equal(t, tip, remoteRef(t, f.remote, "refs/heads/main"))

	// An unreachable remote is a *RemoteError.
	_, err = nb.Push(filepath.Join(t.TempDir(), "missing.git"), []string{"HEAD:refs/heads/main"})
	var re *RemoteError
	require.ErrorAs(t, err, &re)
	assert.NotErrorIs(t, err, ErrPushRejected)
}

func TestNetworkFetchPrune(t *testing.T) {
	f := newNetFixture(t)
	ra, na := network(t, f.a)
	_, nb := network(t, f.b)
	inB := func(ref string) string { return remoteRef(t, filepath.Join(f.b, ".git"), ref) }

	gitRun(t, f.a, "push", "-q", "origin", "HEAD:refs/heads/topic")
	one, err := ra.WriteBlob([]byte("one\n"))
	require.NoError(t, err)
	require.NoError(t, na.PushCAS("origin", []RefUpdate{{Ref: "refs/itr/claims/u1", New: one}, {Ref: "refs/itr/claims/u2", New: one}}))

	require.NoError(t, nb.Fetch("origin", nil, false))
	require.NoError(t, nb.Fetch("origin", []string{"+refs/itr/*:refs/itr/*"}, false))
	assert.NotEmpty(t, inB("refs/remotes/origin/topic"))
	assert.Equal(t, one, inB("refs/itr/claims/u1"))

	gitRun(t, f.a, "push", "-q", "origin", ":refs/heads/topic", ":refs/itr/claims/u1")

	// Without prune, the local copies stay.
	require.NoError(t, nb.Fetch("origin", nil, false))
	require.NoError(t, nb.Fetch("origin", []string{"+refs/itr/*:refs/itr/*"}, false))
	assert.NotEmpty(t, inB("refs/remotes/origin/topic"))
	assert.Equal(t, one, inB("refs/itr/claims/u1"))

	// With prune, each goes, and only under the fetched destinations.
	require.NoError(t, nb.Fetch("origin", []string{"+refs/itr/*:refs/itr/*"}, true))
	assert.Equal(t, "", inB("refs/itr/claims/u1"))
	assert.Equal(t, one, inB("refs/itr/claims/u2"))
	assert.NotEmpty(t, inB("refs/remotes/origin/topic"))
	require.NoError(t, nb.Fetch("origin", nil, true))
	assert.Equal(t, "", inB("refs/remotes/origin/topic"))
	assert.NotEmpty(t, inB("refs/remotes/origin/main"))
	assert.NotEmpty(t, inB("refs/heads/main"))

	missing := filepath.Join(t.TempDir(), "missing.git")
	err = nb.Fetch(missing, nil, true)
	var re *RemoteError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "fetch", re.Op)
	assert.Equal(t, missing, re.Remote)
}

// diverge has a commit pathA as fromA and push it, and b commit pathB as
// fromB and fetch: b is then one ahead and one behind. It returns b's
// network.
func (f netFixture) diverge(t *testing.T, pathA, fromA, pathB, fromB string) *Network {
	t.Helper()
	_, nb := network(t, f.b)
	commitFile(t, f.a, pathA, fromA, "from a")
	gitRun(t, f.a, "push", "-q", "origin", "main")
	commitFile(t, f.b, pathB, fromB, "from b")
	require.NoError(t, nb.Fetch("origin", nil, false))
	return nb
}

func parents(t *testing.T, dir string) int {
	t.Helper()
	return len(strings.Fields(gitRun(t, dir, "rev-list", "--parents", "-n", "1", "HEAD"))) - 1
}

func TestNetworkIntegrate(t *testing.T) {
	const tracking = "refs/remotes/origin/main"

	t.Run("up to date", func(t *testing.T) {
		f := newNetFixture(t)
		_, nb := network(t, f.b)
		require.NoError(t, nb.Fetch("origin", nil, false))
		got, err := nb.Integrate(tracking, false, "unused")
		require.NoError(t, err)
		assert.Equal(t, UpToDate, got)

		// Ahead only is up to date too.
		commitFile(t, f.b, "b.txt", "b\n", "from b")
		got, err = nb.Integrate(tracking, true, "unused")
		require.NoError(t, err)
		assert.Equal(t, UpToDate, got)
	})

	t.Run("fast-forward", func(t *testing.T) {
		f := newNetFixture(t)
		_, nb := network(t, f.b)
		commitFile(t, f.a, "a.txt", "a\n", "from a")
		gitRun(t, f.a, "push", "-q", "origin", "main")
		require.NoError(t, nb.Fetch("origin", nil, false))
		got, err := nb.Integrate(tracking, false, "unused")
		require.NoError(t, err)
		assert.Equal(t, FastForward, got)
		assert.Equal(t, head(t, f.a, "HEAD"), head(t, f.b, "HEAD"))
		assert.Equal(t, "", checkRepo(t, f.b))
	})

	t.Run("merge", func(t *testing.T) {
		f := newNetFixture(t)
		nb := f.diverge(t, "a.txt", "a\n", "b.txt", "b\n")
		got, err := nb.Integrate(tracking, false, "itr: merge origin/main")
		require.NoError(t, err)
		assert.Equal(t, Merged, got)
		assert.Equal(t, "itr: merge origin/main\n", gitRun(t, f.b, "log", "-1", "--format=%s"))
		assert.Equal(t, 2, parents(t, f.b))
		assert.Equal(t, "", checkRepo(t, f.b))
		ahead, behind, err := nb.Counts("HEAD", tracking)
		require.NoError(t, err)
		assert.Equal(t, 2, ahead)
		assert.Equal(t, 0, behind)
	})

	t.Run("rebase", func(t *testing.T) {
		f := newNetFixture(t)
		nb := f.diverge(t, "a.txt", "a\n", "b.txt", "b\n")
		got, err := nb.Integrate(tracking, true, "unused")
		require.NoError(t, err)
		assert.Equal(t, Rebased, got)
		assert.Equal(t, 1, parents(t, f.b))
		assert.Equal(t, "from b\n", gitRun(t, f.b, "log", "-1", "--format=%s"))
		assert.Equal(t, head(t, f.b, tracking), head(t, f.b, "HEAD~1"))
		assert.Equal(t, "", checkRepo(t, f.b))
	})

	t.Run("merge conflict then continue", func(t *testing.T) {
		f := newNetFixture(t)
		nb := f.diverge(t, "shared.txt", "one\nTWO from a\nthree\n", "shared.txt", "one\ntwo from b\nthree\n")

		got, err := nb.Integrate(tracking, false, "itr: merge")
		assert.Equal(t, Merged, got)
		var ce *ConflictError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, Merged, ce.Op)
		assert.Equal(t, []string{"shared.txt"}, ce.Unmerged)
		assert.Contains(t, err.Error(), "shared.txt")
		assert.Contains(t, gitRun(t, f.b, "status", "--porcelain"), "UU shared.txt")
		assert.NotEmpty(t, head(t, f.b, "MERGE_HEAD"))
		unmerged, err := nb.Unmerged()
		require.NoError(t, err)
		assert.Equal(t, []string{"shared.txt"}, unmerged)

		// Continuing before the conflict is resolved stops again.
		require.ErrorAs(t, nb.Continue(Merged), &ce)

		writeFile(t, filepath.Join(f.b, "shared.txt"), "one\nboth\nthree\n")
		gitRun(t, f.b, "add", "shared.txt")
		require.NoError(t, nb.Continue(Merged))
		assert.Equal(t, 2, parents(t, f.b))
		assert.Equal(t, "itr: merge\n", gitRun(t, f.b, "log", "-1", "--format=%s"))
		assert.Equal(t, "", checkRepo(t, f.b))
		_, err = gitTry(f.b, "rev-parse", "-q", "--verify", "MERGE_HEAD")
		assert.Error(t, err, "the merge is concluded")
	})

	t.Run("rebase conflict then continue", func(t *testing.T) {
		f := newNetFixture(t)
		nb := f.diverge(t, "shared.txt", "one\nTWO from a\nthree\n", "shared.txt", "one\ntwo from b\nthree\n")

		got, err := nb.Integrate(tracking, true, "unused")
		assert.Equal(t, Rebased, got)
		var ce *ConflictError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, Rebased, ce.Op)
		assert.Equal(t, []string{"shared.txt"}, ce.Unmerged)

		writeFile(t, filepath.Join(f.b, "shared.txt"), "one\nboth\nthree\n")
		gitRun(t, f.b, "add", "shared.txt")
		require.NoError(t, nb.Continue(Rebased))
		assert.Equal(t, 1, parents(t, f.b))
		assert.Equal(t, head(t, f.b, tracking), head(t, f.b, "HEAD~1"))
		assert.Equal(t, "from b\n", gitRun(t, f.b, "log", "-1", "--format=%s"))
		assert.Equal(t, "", checkRepo(t, f.b))
	})

	t.Run("unknown upstream", func(t *testing.T) {
		f := newNetFixture(t)
		_, nb := network(t, f.b)
		_, err := nb.Integrate("refs/remotes/origin/nothing", false, "m")
		require.Error(t, err)
		var ce *ConflictError
		assert.False(t, errors.As(err, &ce))
	})
}

func TestNetworkUpstream(t *testing.T) {
	f := newNetFixture(t)
	_, nb := network(t, f.b)

	u, err := nb.Upstream()
	require.NoError(t, err)
	assert.Equal(t, Upstream{
		Branch: "main", Remote: "origin", MergeRef: "refs/heads/main", PushRemote: "origin",
		Remotes: []string{"origin"}, Fetch: []string{"+refs/heads/*:refs/remotes/origin/*"},
	}, u)
	assert.Equal(t, "refs/remotes/origin/main", u.Tracking())
	assert.False(t, u.Rebases())

	gitRun(t, f.b, "config", "pull.rebase", "true")
	u, err = nb.Upstream()
	require.NoError(t, err)
	assert.True(t, u.Rebases())

	gitRun(t, f.b, "config", "branch.main.rebase", "false")
	u, err = nb.Upstream()
	require.NoError(t, err)
	assert.False(t, u.Rebases())
	assert.Equal(t, "false", u.Rebase)

	gitRun(t, f.b, "remote", "add", "fork", filepath.Join(f.base, "fork.git"))
	gitRun(t, f.b, "config", "remote.pushDefault", "fork")
	u, err = nb.Upstream()
	require.NoError(t, err)
	assert.Equal(t, "origin", u.Remote)
	assert.Equal(t, "fork", u.PushRemote)
	assert.Equal(t, []string{"origin", "fork"}, u.Remotes)

	// A branch with dots and capitals, tracking another.
	gitRun(t, f.b, "switch", "-q", "-c", "Release.v1.2", "--track", "origin/main")
	u, err = nb.Upstream()
	require.NoError(t, err)
	assert.Equal(t, "Release.v1.2", u.Branch)
	assert.Equal(t, "origin", u.Remote)
	assert.Equal(t, "refs/heads/main", u.MergeRef)
	assert.Equal(t, "refs/remotes/origin/main", u.Tracking())
	assert.True(t, u.Rebases(), "pull.rebase applies, branch.main.rebase does not")

	gitRun(t, f.b, "switch", "-q", "--detach", "HEAD")
	u, err = nb.Upstream()
	require.NoError(t, err)
	assert.Equal(t, "", u.Branch)
	assert.Equal(t, "", u.MergeRef)
	assert.Equal(t, "", u.Tracking())
	assert.Equal(t, "fork", u.Remote, "remote.pushDefault is the default remote")

	// Without any remote.
	dir := newRepo(t, map[string]string{"f": "x"})
	_, n := network(t, dir)
	u, err = n.Upstream()
	require.NoError(t, err)
	assert.Equal(t, Upstream{Branch: "main"}, u)
	assert.Equal(t, "", u.Tracking())
}

func TestUpstreamRebases(t *testing.T) {
	for v, want := range map[string]bool{"": false, "false": false, "No": false, "off": false, "0": false,
		"true": true, "merges": true, "interactive": true, "1": true, "yes": true} {
		assert.Equal(t, want, Upstream{Rebase: v}.Rebases(), v)
	}
}

// TestUpstreamNativeMatchesGit: the native engine reads the remotes'
// configuration without a process; it must read what git config reads,
// includes and GIT_CONFIG_COUNT among them.
func TestUpstreamNativeMatchesGit(t *testing.T) {
	f := newNetFixture(t)
	_, nb := network(t, f.b)
	inc := filepath.Join(f.base, "extra.config")
	require.NoError(t, os.WriteFile(inc, []byte("[remote \"fork\"]\n\turl = /nowhere/fork.git\n\tfetch = +refs/heads/*:refs/remotes/fork/*\n[pull]\n\trebase = merges\n"), 0o644))
	gitRun(t, f.b, "config", "include.path", inc)
	gitRun(t, f.b, "config", "branch.main.pushRemote", "fork")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "remote.env.url")
	t.Setenv("GIT_CONFIG_VALUE_0", "/nowhere/env.git")
	native, err := nb.Upstream()
	require.NoError(t, err)
	out := gitRun(t, f.b, "config", "-z", "--get-regexp", `^(pull\.rebase|push\.default|remote\.pushdefault|branch\..*\.(remote|merge|rebase|pushremote)|remote\..*\.(url|fetch))$`)
	viaGit := parseRemoteConfig([]byte(out), "main")
	viaGit.Branch = "main"
	assert.Equal(t, viaGit, native)
	assert.Equal(t, []string{"origin", "fork", "env"}, native.Remotes)
	assert.Equal(t, "fork", native.PushRemote)
	assert.Equal(t, "merges", native.Rebase)
}

// TestPushTarget: the branch git push would update under push.default.
func TestPushTarget(t *testing.T) {
	same := Upstream{Branch: "main", Remote: "origin", PushRemote: "origin", MergeRef: "refs/heads/main"}
	other := Upstream{Branch: "agent", Remote: "origin", PushRemote: "origin", MergeRef: "refs/heads/main"}
	triangle := Upstream{Branch: "agent", Remote: "origin", PushRemote: "fork", MergeRef: "refs/heads/main"}
	tests := []struct {
		name string
		u    Upstream
		mode string
		want string
		err  string
	}{
		{"simple, same name", same, "", "refs/heads/main", ""},
		{"simple, other name", other, "", "", "push.default=simple"},
		{"simple, to another remote", triangle, "simple", "refs/heads/agent", ""},
		{"upstream, other name", other, "upstream", "refs/heads/main", ""},
		{"upstream, to another remote", triangle, "upstream", "refs/heads/agent", ""},
		{"current", other, "current", "refs/heads/agent", ""},
		{"matching", other, "matching", "refs/heads/agent", ""},
		{"nothing", same, "nothing", "", "push.default is nothing"},
		{"no upstream", Upstream{Branch: "x", Remote: "origin", PushRemote: "origin"}, "", "refs/heads/x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := tt.u
			u.PushDefault = tt.mode
			got, err := u.PushTarget()
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
