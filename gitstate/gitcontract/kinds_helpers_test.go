package gitcontract_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/gitstate/gitcontract"
)

// kind is one form of repository the whole contract runs on with the
// engine gitstate.OpenRepository chooses for it.
type kind struct {
	// setup makes the repository of one case (an unborn branch, an
	// identity in its config) and returns the folder to open it from and
	// the top of its working tree, where the checks run git.
	setup func(t *testing.T) (open, top string)
	// engine is the engine OpenRepository must choose, and reason the
	// setting one of its reasons must name (a prefix of Reason.Setting).
	engine gitstate.Engine
	reason string
	// opts say how the repository converts files (see gitcontract.Options).
	opts gitcontract.Options
	// check judges the repository after each case, before checkKind.
	check func(t *testing.T, r gitstate.Repository, top string)
}

// scope is the task root OpenRepository is told about, as itr's commands
// tell it.
const scope = ".claude/iterative"

// runKind runs the contract on repositories of kind k, opened as itr opens
// them, and judges every case with git.
func runKind(t *testing.T, k kind) {
	t.Helper()
	if k.opts.Git == nil {
		k.opts.Git = gitOracle
	}
	gitcontract.RunWith(t, k.opts, func(t *testing.T) gitstate.Repository {
		open, top := k.setup(t)
		r := openChosen(t, open, k.engine, k.reason)
		t.Cleanup(func() {
			// The kind's own check first: checkKind runs git status,
			// which rewrites the index (a split index is split again).
			if k.check != nil {
				k.check(t, r, top)
			}
			checkKind(t, r, top)
			_ = r.Close()
		})
		return r
	})
}

// openChosen opens dir with gitstate.OpenRepository and checks the engine
// it chose and that one of its reasons names the setting.
func openChosen(t *testing.T, dir string, engine gitstate.Engine, reason string) gitstate.Repository {
	t.Helper()
	r, choice, err := gitstate.OpenRepository(dir, gitstate.OpenOptions{Scope: scope})
	require.NoError(t, err)
	require.Equal(t, engine, choice.Engine, "the engine chosen; reasons: %v", choice.Reasons)
	switch engine {
	case gitstate.EngineNative:
		assert.Empty(t, choice.Reasons, "the native engine is chosen without reasons")
		_, ok := r.(*gitstate.Repo)
		assert.True(t, ok, "the native engine is *gitstate.Repo, got %T", r)
	case gitstate.EngineGit:
		_, ok := r.(*gitstate.GitRepo)
		assert.True(t, ok, "the git engine is *gitstate.GitRepo, got %T", r)
		found := false
		for _, rs := range choice.Reasons {
			found = found || strings.HasPrefix(rs.Setting, reason)
		}
		assert.True(t, found, "a reason names %s: %v", reason, choice.Reasons)
	}
	return r
}

// newRepo makes a repository with `git init ARGS` in a new folder, with
// the tester's identity in its config.
func newRepo(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, append([]string{"init", "-q"}, args...)...)
	git(t, dir, "config", "user.name", testerName)
	git(t, dir, "config", "user.email", testerEmail)
	return dir
}

// gitOracle is gitcontract.Options.Git: the git on PATH in r's working
// tree, with this process's environment.
func gitOracle(t *testing.T, r gitstate.Repository, stdin []byte, args ...string) string {
	t.Helper()
	return string(gitIn(t, r.Root(), nil, stdin, args...))
}

// gitIn runs git in dir with extra environment and stdin; it returns
// stdout.
func gitIn(t *testing.T, dir string, env []string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), stderr.String())
	return out
}

// scratchEnv keeps the objects the oracle writes out of the repository
// under test: they go to a folder of their own, and the repository's are
// read through it as an alternate, so a blob the engine failed to write is
// not written for it by the check.
func scratchEnv(t *testing.T, top string) []string {
	t.Helper()
	objects := strings.TrimSpace(string(gitIn(t, top, nil, nil, "rev-parse", "--path-format=absolute", "--git-path", "objects")))
	return []string{"GIT_OBJECT_DIRECTORY=" + t.TempDir(), "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + objects}
}

// storedByGit is gitcontract.Options.Stored answered by git: the blob `git
// hash-object --path` makes of the data, read back.
func storedByGit(t *testing.T, r gitstate.Repository, path string, data []byte) []byte {
	t.Helper()
	env := scratchEnv(t, r.Root())
	id := strings.TrimSpace(string(gitIn(t, r.Root(), env, data, "hash-object", "-w", "--stdin", "--path="+path)))
	return gitIn(t, r.Root(), env, nil, "cat-file", "blob", id)
}

// checkedOutByGit is gitcontract.Options.CheckedOut answered by git: the
// blob as `git cat-file --filters` converts it for the working tree at
// path (smudge filter, line endings), as checkout-index writes it.
func checkedOutByGit(t *testing.T, r gitstate.Repository, path string, blob []byte) []byte {
	t.Helper()
	env := scratchEnv(t, r.Root())
	id := strings.TrimSpace(string(gitIn(t, r.Root(), env, blob, "hash-object", "-w", "--stdin", "--no-filters")))
	return gitIn(t, r.Root(), env, nil, "cat-file", "--filters", "--path="+path, id)
}

// byGit are the Options of a repository whose attributes convert files:
// git says what it stores and what it checks out.
var byGit = gitcontract.Options{Stored: storedByGit, CheckedOut: checkedOutByGit}

// indexEntry is one line of `git ls-files -s -t`.
type indexEntry struct {
	tag, mode, id, path string
	stage               int
}

// readIndex lists the index as git reads it (expanded when sparse).
func readIndex(t *testing.T, top string) []indexEntry {
	t.Helper()
	var out []indexEntry
	for _, rec := range strings.Split(string(gitIn(t, top, nil, nil, "ls-files", "-s", "-t", "-z")), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		require.Len(t, f, 4, "ls-files -s -t: %q", rec)
		st, _ := strconv.Atoi(f[3])
		out = append(out, indexEntry{tag: f[0], mode: f[1], id: f[2], stage: st, path: p})
	}
	return out
}

// checkKind is checkWithGit and what git says of the files the engine
// wrote: the index holds HEAD's tree for every path, and every file of the
// working tree that has an index entry holds the bytes `git
// checkout-index` writes for it (CRLF where git puts CRLF, smudged where
// a filter smudges) and hashes, through the path's attributes, to its
// entry.
func checkKind(t *testing.T, r gitstate.Repository, top string) {
	t.Helper()
	checkWithGit(t, r, top)
	h, err := r.Head()
	require.NoError(t, err)
	if h.Unborn {
		return
	}
	// The index holds the tree of the last commit itr made (a later
	// SetBranch of the current branch moves the branch only, as `git
	// update-ref` does): the contract leaves nothing staged that it did
	// not commit.
	last := lastCommit(t, top)
	if out, err := gitTry(top, "diff-index", "--cached", "--name-status", last); assert.NoError(t, err, out) {
		assert.Empty(t, out, "the index holds the tree of the last commit, %s", last)
	}
	checkout := t.TempDir()
	gitIn(t, top, nil, nil, "checkout-index", "-a", "-f", "--prefix="+checkout+"/")
	var present []string
	for _, e := range readIndex(t, top) {
		if e.stage != 0 || e.mode == "160000" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(top, filepath.FromSlash(e.path)))
		if os.IsNotExist(err) {
			continue // committed without Worktree, or skip-worktree
		}
		require.NoError(t, err)
		if e.tag == "S" {
			t.Errorf("%s is skip-worktree but in the working tree", e.path)
			continue
		}
		want, err := os.ReadFile(filepath.Join(checkout, filepath.FromSlash(e.path)))
		require.NoError(t, err, "git checkout-index wrote %s", e.path)
		assert.Equal(t, string(want), string(data), "%s holds what git checks out", e.path)
		present = append(present, e.path)
	}
	if len(present) == 0 {
		return
	}
	ids := strings.Fields(string(gitIn(t, top, nil, []byte(strings.Join(present, "\n")+"\n"), "hash-object", "--stdin-paths")))
	require.Len(t, ids, len(present))
	want := map[string]string{}
	for _, e := range readIndex(t, top) {
		want[e.path] = e.id
	}
	for i, p := range present {
		assert.Equal(t, want[p], ids[i], "git hash-object --path=%s %s is its index entry", p, p)
		assert.Equal(t, strings.TrimSpace(git(t, top, "rev-parse", last+":"+p)), want[p], "the index entry of %s is the last commit's", p)
	}
}

// lastCommit is the newest commit HEAD's reflog records as made by a
// commit (HEAD when no entry says so).
func lastCommit(t *testing.T, top string) string {
	t.Helper()
	for _, line := range strings.Split(git(t, top, "reflog", "show", "--format=%H %gs", "HEAD"), "\n") {
		if id, msg, ok := strings.Cut(line, " "); ok && strings.HasPrefix(msg, "commit") {
			return id
		}
	}
	return "HEAD"
}

// crlfCheck asserts that some file of the working tree that git checks out
// with CRLF holds CRLF: the repository does convert, so checkKind's
// comparison with checkout-index compares something.
func crlfCheck(t *testing.T, r gitstate.Repository, top string) {
	t.Helper()
	for _, e := range readIndex(t, top) {
		data, err := os.ReadFile(filepath.Join(top, filepath.FromSlash(e.path)))
		if err != nil || !bytes.Contains(data, []byte("\n")) {
			continue
		}
		if strings.HasSuffix(e.path, ".txt") {
			assert.Contains(t, string(data), "\r\n", "%s is checked out with CRLF", e.path)
			assert.NotContains(t, strings.ReplaceAll(string(data), "\r\n", ""), "\n", "%s has no bare LF", e.path)
		}
	}
}

// snapshot is every file and folder below dir: path, mode, size, time and a
// digest of the content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %d %v", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += " " + hex.EncodeToString(sum[:])
		}
		out[p] = desc
		return nil
	}))
	return out
}

// newerGitCache is where a newer git is kept between test runs: taken at
// start-up, before tests point HOME elsewhere.
var newerGitCache = func() string {
	if d := os.Getenv("ITR_NEWER_GIT"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "itr-newer-git")
}()

var newerGit struct {
	once sync.Once
	path string // the folder of the newer git program
	why  string // why there is none
}

// newerGitVersion matches `git version 2.NN`.
var newerGitVersion = regexp.MustCompile(`git version (\d+)\.(\d+)`)

// needNewerGit puts a git >= 2.45 first on PATH for this test (reftable
// needs it) or skips the test saying why there is none. The newer git is
// set up at most once per test process, by shared/tools/newer-git, and
// cached in $ITR_NEWER_GIT or the user's cache folder.
func needNewerGit(t *testing.T) {
	t.Helper()
	newerGit.once.Do(func() {
		newerGit.path, newerGit.why = setUpNewerGit()
	})
	if newerGit.path == "" {
		t.Skip("reftable needs git >= 2.45 (this machine has " + gitstate.GitVersion() + "): " + newerGit.why)
	}
	t.Setenv("PATH", newerGit.path+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := gitTry(t.TempDir(), "version")
	require.NoError(t, err, out)
	require.True(t, strings.HasPrefix(out, "git version 2.4"), "the newer git is first on PATH: %s", out)
}

// setUpNewerGit runs the newer-git tool into the cache, and returns the
// folder of the git it made or why there is none.
func setUpNewerGit() (string, string) {
	if newerGitCache == "" {
		return "", "no cache folder for it: set ITR_NEWER_GIT to a folder"
	}
	tool, err := exec.LookPath("newer-git")
	if err != nil {
		_, file, _, _ := runtime.Caller(0)
		// The tool lives in the shared folder beside the repository:
		// <shared>/tools/newer-git, <repo>/gitstate/gitcontract/this file.
		tool = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "tools", "newer-git")
		if _, err := os.Stat(tool); err != nil {
			return "", "the newer-git tool is neither on PATH nor at " + tool
		}
	}
	cmd := exec.Command(tool, newerGitCache)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Sprintf("%s %s failed (%v): %s", tool, newerGitCache, err, lastLines(stderr.String(), 5))
	}
	prog := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(prog, '\n'); i >= 0 {
		prog = prog[i+1:]
	}
	ver, err := exec.Command(prog, "version").Output()
	if err != nil {
		return "", fmt.Sprintf("%s does not run: %v", prog, err)
	}
	m := newerGitVersion.FindStringSubmatch(string(ver))
	if m == nil {
		return "", fmt.Sprintf("%s says %q", prog, ver)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < 2 || major == 2 && minor < 45 {
		return "", fmt.Sprintf("%s is %s, older than 2.45", prog, strings.TrimSpace(string(ver)))
	}
	return filepath.Dir(prog), ""
}

// lastLines is the end of a tool's output.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
