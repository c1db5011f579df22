package gitserver

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// kit is one test's git environment: a served root, a HOME and the server.
type kit struct {
	t    *testing.T
	dir  string // a scratch folder for client repositories
	root string // the served folder of bare repositories
	env  []string
	srv  *Server
}

// newKit makes root/remote.git, starts a server for root with opt and
// an isolated environment for the git client.
func newKit(t *testing.T, opt Options) *kit {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
		"GIT_AUTHOR_NAME=Test Agent",
		"GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Test Agent",
		"GIT_COMMITTER_EMAIL=agent@example.com",
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=init.defaultBranch",
		"GIT_CONFIG_VALUE_0=main",
	)
	k := &kit{t: t, dir: dir, root: filepath.Join(dir, "srv"), env: env}
	k.git("", "init", "-q", "--bare", filepath.Join(k.root, "remote.git"))
	srv, err := Start(k.root, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	k.srv = srv
	return k
}

// run runs git in dir (the kit's folder when empty) and returns its
// stdout, its stderr and its error.
func (k *kit) run(dir string, args ...string) (string, string, error) {
	if dir == "" {
		dir = k.dir
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = k.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// git runs git in dir, fails the test if it fails and returns its
// trimmed stdout.
func (k *kit) git(dir string, args ...string) string {
	k.t.Helper()
	out, errs, err := k.run(dir, args...)
	if err != nil {
		k.t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out, errs)
	}
	return strings.TrimSpace(out)
}

// remote is the URL of root/remote.git.
func (k *kit) remote() string { return k.srv.URL + "/remote.git" }

// bare is the path of root/remote.git, for git --git-dir.
func (k *kit) bare() string { return filepath.Join(k.root, "remote.git") }

// client makes a repository NAME with one commit whose credential helper
// is a store file holding line.
func (k *kit) client(name, line string) string {
	k.t.Helper()
	repo := filepath.Join(k.dir, name)
	k.git("", "init", "-q", repo)
	k.credentials(repo, name+".cred", line)
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte(name+"\n"), 0o644); err != nil {
		k.t.Fatal(err)
	}
	k.git(repo, "add", "a.txt")
	k.git(repo, "commit", "-q", "-m", "first from "+name)
	return repo
}

// credentials points repo's credential helper at a new store file FILE
// holding line.
func (k *kit) credentials(repo, file, line string) {
	k.t.Helper()
	cred := filepath.Join(k.dir, file)
	if err := os.WriteFile(cred, []byte(line+"\n"), 0o600); err != nil {
		k.t.Fatal(err)
	}
	k.git(repo, "config", "credential.helper", "store --file="+cred)
}

// wrongURL is the server's credential line with another password.
func (k *kit) wrongURL() string {
	return strings.Replace(k.srv.CredentialURL(), ":s3cret@", ":wrong@", 1)
}

var alice = Options{User: "alice", Password: "s3cret"}

func TestPushCloneLsRemote(t *testing.T) {
	k := newKit(t, alice)
	if got, want := k.srv.CredentialURL(), "http://alice:s3cret@"+strings.TrimPrefix(k.srv.URL, "http://"); got != want {
		t.Errorf("CredentialURL() = %q, want %q", got, want)
	}
	repo := k.client("client", k.srv.CredentialURL())
	head := k.git(repo, "rev-parse", "HEAD")
	k.git(repo, "push", "-q", k.remote(), "main")
	if got := k.git("", "--git-dir", k.bare(), "rev-parse", "refs/heads/main"); got != head {
		t.Fatalf("remote main = %s, want %s", got, head)
	}

	cred := filepath.Join(k.dir, "client.cred")
	k.git("", "-c", "credential.helper=store --file="+cred, "clone", "-q", k.remote(), "clone")
	if got := k.git(filepath.Join(k.dir, "clone"), "rev-parse", "HEAD"); got != head {
		t.Fatalf("the clone's HEAD = %s, want %s", got, head)
	}
	if got := k.git(filepath.Join(k.dir, "clone"), "log", "-1", "--format=%s"); got != "first from client" {
		t.Errorf("the clone's commit is %q", got)
	}
	ls := k.git(repo, "ls-remote", k.remote())
	if !strings.Contains(ls, head+"\trefs/heads/main") {
		t.Errorf("ls-remote does not list main at %s:\n%s", head, ls)
	}

	st := k.srv.Stats()
	if st.ReceivePack < 1 || st.UploadPack < 1 || st.InfoRefs < 3 || st.BytesIn == 0 || st.BytesOut == 0 {
		t.Errorf("Stats() = %+v", st)
	}
	// Every git run starts unauthenticated and is challenged once.
	if st.Unauthorized == 0 || st.Requests <= st.Unauthorized {
		t.Errorf("Stats() = %+v: want some challenges and more requests", st)
	}
}

func TestWrongPasswordChangesNothing(t *testing.T) {
	k := newKit(t, alice)
	good := k.client("good", k.srv.CredentialURL())
	k.git(good, "push", "-q", k.remote(), "main")
	before := k.git("", "--git-dir", k.bare(), "rev-parse", "refs/heads/main")

	bad := k.client("bad", k.wrongURL())
	unauth := k.srv.Stats().Unauthorized
	out, errs, err := k.run(bad, "push", k.remote(), "main:main", "main:refs/heads/other")
	if err == nil {
		t.Fatalf("a push with a wrong password succeeded:\n%s%s", out, errs)
	}
	if !strings.Contains(errs, "Authentication failed") {
		t.Errorf("the push failed, but not for its credentials:\n%s", errs)
	}
	if got := k.git("", "--git-dir", k.bare(), "rev-parse", "refs/heads/main"); got != before {
		t.Errorf("remote main moved from %s to %s", before, got)
	}
	if _, _, err := k.run("", "--git-dir", k.bare(), "rev-parse", "--verify", "-q", "refs/heads/other"); err == nil {
		t.Error("the rejected push created refs/heads/other")
	}
	if got := k.srv.Stats().Unauthorized; got <= unauth {
		t.Errorf("Unauthorized = %d after the bad push, was %d", got, unauth)
	}

	// No credentials at all: the same.
	none := k.client("none", "")
	k.git(none, "config", "--unset", "credential.helper")
	if _, errs, err := k.run(none, "ls-remote", k.remote()); err == nil {
		t.Error("ls-remote without credentials succeeded")
	} else if !strings.Contains(errs, "could not read Username") && !strings.Contains(errs, "Authentication failed") {
		t.Errorf("ls-remote without credentials: %s", errs)
	}
}

func TestNoUserServesAnyone(t *testing.T) {
	k := newKit(t, Options{})
	if k.srv.CredentialURL() != k.srv.URL {
		t.Errorf("CredentialURL() = %q without a user", k.srv.CredentialURL())
	}
	repo := k.client("client", "")
	k.git(repo, "push", "-q", k.remote(), "main")
	k.git(repo, "ls-remote", k.remote())
	if st := k.srv.Stats(); st.Unauthorized != 0 || st.ReceivePack != 1 {
		t.Errorf("Stats() = %+v", st)
	}
}

// lease pushes blob to ref with an empty lease (ref must not exist yet)
// and reports whether the push went through, with its porcelain output.
func (k *kit) lease(repo, ref, blob string) (bool, string, error) {
	out, errs, err := k.run(repo, "push", "--porcelain", "--atomic", k.remote(),
		"--force-with-lease="+ref+":", blob+":"+ref)
	if err == nil {
		return true, out, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false, out, err
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "!") {
			return false, out, nil
		}
	}
	return false, out, fmt.Errorf("push of %s failed without a rejected line: %w\n%s%s", ref, err, out, errs)
}

// blob writes content as a blob into repo and returns its id.
func (k *kit) blob(repo, content string) string {
	k.t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = repo, k.env, strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		k.t.Fatalf("hash-object: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func TestCompareAndSwap(t *testing.T) {
	k := newKit(t, alice)
	repo := k.client("client", k.srv.CredentialURL())
	const ref = "refs/itr/claims/s/T1"
	first, second := k.blob(repo, "claimed by one\n"), k.blob(repo, "claimed by two\n")

	ok, out, err := k.lease(repo, ref, first)
	if err != nil || !ok {
		t.Fatalf("the first claim: ok=%v err=%v\n%s", ok, err, out)
	}
	ok, out, err = k.lease(repo, ref, second)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Fatalf("the second claim with an empty lease went through:\n%s", out)
	}
	if got := k.git("", "--git-dir", k.bare(), "rev-parse", ref); got != first {
		t.Errorf("the remote %s = %s, want the first claim %s", ref, got, first)
	}
}

func TestRacingClaims(t *testing.T) {
	k := newKit(t, alice)
	repos := []string{
		k.client("one", k.srv.CredentialURL()),
		k.client("two", k.srv.CredentialURL()),
	}
	remote, stale := 0, 0
	for round := 0; round < 20; round++ {
		ref := fmt.Sprintf("refs/itr/claims/s/R%02d", round)
		var blobs [2]string
		for g := range repos {
			blobs[g] = k.blob(repos[g], fmt.Sprintf("round %d claimant %d\n", round, g))
		}
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			won   [2]bool
			outs  [2]string
			errs  [2]error
		)
		for g := range repos {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				won[g], outs[g], errs[g] = k.lease(repos[g], ref, blobs[g])
			}()
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won[0] == won[1] {
			t.Fatalf("round %d: winners %v, want exactly one", round, won)
		}
		winner, loser := blobs[0], outs[1]
		if won[1] {
			winner, loser = blobs[1], outs[0]
		}
		// The loser saw the ref in the advertisement (the client refuses,
		// "stale info") or lost the race on the server ("remote rejected").
		switch {
		case strings.Contains(loser, "[remote rejected]"):
			remote++
		case strings.Contains(loser, "(stale info)"):
			stale++
		default:
			t.Errorf("round %d: the loser's push:\n%s", round, loser)
		}
		if got := k.git("", "--git-dir", k.bare(), "rev-parse", ref); got != winner {
			t.Fatalf("round %d: the remote %s = %s, want the winner's %s", round, ref, got, winner)
		}
	}
	t.Logf("losers refused by the server: %d, by their own client (stale info): %d", remote, stale)
}

func TestNonFastForwardRejected(t *testing.T) {
	k := newKit(t, alice)
	one := k.client("one", k.srv.CredentialURL())
	k.git(one, "push", "-q", k.remote(), "main")
	two := filepath.Join(k.dir, "two")
	k.git("", "-c", "credential.helper=store --file="+filepath.Join(k.dir, "one.cred"), "clone", "-q", k.remote(), two)
	k.credentials(two, "two.cred", k.srv.CredentialURL())
	k.git(two, "commit", "-q", "--allow-empty", "-m", "second from two")
	k.git(two, "push", "-q", "origin", "main")
	tip := k.git(two, "rev-parse", "HEAD")

	k.git(one, "commit", "-q", "--allow-empty", "-m", "second from one")
	if out, errs, err := k.run(one, "push", "--porcelain", k.remote(), "main"); err == nil {
		t.Fatalf("a non-fast-forward push went through:\n%s%s", out, errs)
	} else if !strings.Contains(out, "!\trefs/heads/main:refs/heads/main\t[rejected]") {
		t.Errorf("the push failed, but not as rejected:\n%s%s", out, errs)
	}
	if got := k.git("", "--git-dir", k.bare(), "rev-parse", "refs/heads/main"); got != tip {
		t.Errorf("remote main = %s, want %s", got, tip)
	}

	// Forced, it is the server that refuses when it denies rewrites.
	k.git("", "--git-dir", k.bare(), "config", "receive.denyNonFastForwards", "true")
	if out, errs, err := k.run(one, "push", "--porcelain", "--force", k.remote(), "main"); err == nil {
		t.Fatalf("a forced non-fast-forward push went through:\n%s%s", out, errs)
	} else if !strings.Contains(out, "[remote rejected]") {
		t.Errorf("the forced push failed, but not on the server:\n%s%s", out, errs)
	}
	if got := k.git("", "--git-dir", k.bare(), "rev-parse", "refs/heads/main"); got != tip {
		t.Errorf("remote main = %s after the forced push, want %s", got, tip)
	}
}

// TestBigRequests: git gzips upload-pack requests over 1 KiB and sends
// bodies larger than http.postBuffer chunked; both reach http-backend.
func TestBigRequests(t *testing.T) {
	k := newKit(t, alice)
	const n = 1500
	big := filepath.Join(k.root, "big.git")
	k.git("", "init", "-q", "--bare", big)
	var script strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&script, "commit refs/heads/b%04d\ncommitter T <t@example.com> %d +0000\ndata 3\nc%d\nM 100644 inline f\ndata %d\n%d\n\n",
			i, 1700000000+i, i%10, len(fmt.Sprint(i))+1, i)
	}
	cmd := exec.Command("git", "--git-dir", big, "fast-import", "--quiet")
	cmd.Env, cmd.Stdin = k.env, strings.NewReader(script.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	helper := "credential.helper=store --file=" + filepath.Join(k.dir, "c.cred")
	repo := k.client("c", k.srv.CredentialURL())

	// 1500 wants are about 75 KB: gzipped, in one body.
	gz := k.srv.gzipped.Load()
	k.git("", "-c", helper, "clone", "-q", "--mirror", k.srv.URL+"/big.git", "mirror1")
	if got := k.git(filepath.Join(k.dir, "mirror1"), "for-each-ref", "--count=2000", "--format=x"); strings.Count(got, "x") != n {
		t.Errorf("the mirror has %d refs, want %d", strings.Count(got, "x"), n)
	}
	if k.srv.gzipped.Load() == gz {
		t.Error("no gzip-encoded request reached the server")
	}

	// With a small http.postBuffer the same wants go chunked.
	ch := k.srv.chunked.Load()
	k.git("", "-c", helper, "-c", "http.postBuffer=65536", "clone", "-q", "--mirror", k.srv.URL+"/big.git", "mirror2")
	if got := k.git(filepath.Join(k.dir, "mirror2"), "rev-parse", "b1499"); got != k.git("", "--git-dir", big, "rev-parse", "b1499") {
		t.Errorf("mirror2 b1499 = %s", got)
	}
	if k.srv.chunked.Load() == ch {
		t.Error("no chunked upload-pack request reached the server")
	}

	// A pack over 1 MiB is pushed chunked.
	data := make([]byte, 3<<20)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "random.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	k.git(repo, "add", "random.bin")
	k.git(repo, "commit", "-q", "-m", "big")
	ch = k.srv.chunked.Load()
	in := k.srv.Stats().BytesIn
	k.git(repo, "push", "-q", k.remote(), "main")
	if got, want := k.git("", "--git-dir", k.bare(), "rev-parse", "main"), k.git(repo, "rev-parse", "HEAD"); got != want {
		t.Errorf("remote main = %s, want %s", got, want)
	}
	if k.srv.chunked.Load() == ch {
		t.Error("the big push was not chunked")
	}
	if got := k.srv.Stats().BytesIn - in; got < int64(len(data)) {
		t.Errorf("BytesIn grew by %d for a %d-byte push", got, len(data))
	}
}

func TestUnauthorizedResponse(t *testing.T) {
	k := newKit(t, alice)
	resp, err := http.Get(k.remote() + "/info/refs?service=git-upload-pack")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Basic realm="itr-test"` {
		t.Errorf("got %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	req, _ := http.NewRequest(http.MethodGet, k.remote()+"/info/refs?service=git-upload-pack", nil)
	req.SetBasicAuth("alice", "s3cret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-git-upload-pack-advertisement" {
		t.Errorf("got %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	if st := k.srv.Stats(); st.Requests != 2 || st.Unauthorized != 1 || st.InfoRefs != 1 {
		t.Errorf("Stats() = %+v", st)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Error("Start on a missing root succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(f, Options{}); err == nil {
		t.Error("Start on a file succeeded")
	}
}

func TestCloseTwice(t *testing.T) {
	srv, err := Start(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(srv.URL + "/remote.git/info/refs"); err == nil {
		t.Error("the closed server still answers")
	}
}
