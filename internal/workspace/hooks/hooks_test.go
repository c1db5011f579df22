package hooks

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

const foreignHook = "#!/bin/sh\necho foreign\n"

// olderHook is the hook an older itr installed: it started itr on every
// commit.
const olderHook = "#!/bin/sh\n" + hookMarker + "\nif ! command -v itr >/dev/null 2>&1; then\n  exit 0\nfi\nexec itr hooks pre-commit\n"

// hookPaths are the pre-commit hook and the chained original of f's fake.
func hookPaths(t *testing.T, f *fixture) (hook, chained string) {
	t.Helper()
	dir, err := f.fake.HooksDir()
	require.NoError(t, err)
	hook = filepath.Join(dir, "pre-commit")
	return hook, hook + ".itr-chained"
}

// assertReport checks what Install or Uninstall reports: the hook, whether
// it changed it, and the chained original when there is one.
func assertReport(t *testing.T, rep *Report, hook, chained string, changed, hasChained bool) {
	t.Helper()
	assert.Equal(t, hook, rep.Hook)
	assert.Equal(t, changed, rep.Changed)
	if hasChained {
		assert.Equal(t, chained, rep.Chained)
	} else {
		assert.Empty(t, rep.Chained)
	}
}

// hookWith is hookPaths with body written to the hook first (none when
// body is "").
func hookWith(t *testing.T, f *fixture, body string) (hook, chained string) {
	t.Helper()
	hook, chained = hookPaths(t, f)
	if body != "" {
		require.NoError(t, os.WriteFile(hook, []byte(body), 0o755))
	}
	return hook, chained
}

// readOrEmpty is the content of p, "" when it does not exist.
func readOrEmpty(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(data)
}

func TestInstall(t *testing.T) {
	tests := []struct {
		name        string
		hook        string // pre-commit before, "" for none
		chained     string // pre-commit.itr-chained before, "" for none
		twice       bool   // install once before the call under test
		wantChanged bool
		wantChained bool   // the report names the chained hook
		wantErr     string // substring; the files must then be unchanged
		wantKept    string // pre-commit.itr-chained after
	}{
		{name: "no hook: installs", wantChanged: true},
		{name: "a foreign hook is chained", hook: foreignHook, wantChanged: true, wantChained: true, wantKept: foreignHook},
		{name: "twice changes nothing", twice: true},
		{name: "twice over a foreign hook still names the chained one", hook: foreignHook, twice: true, wantChained: true, wantKept: foreignHook},
		{name: "a chained file already there refuses", hook: foreignHook, chained: "#!/bin/sh\necho older\n",
			wantErr: "already exists; move it away", wantKept: "#!/bin/sh\necho older\n"},
		{name: "ours with a stale chained file is left as is", hook: hookScript, chained: foreignHook, wantChained: true, wantKept: foreignHook},
		{name: "an older version of ours is brought up to date", hook: olderHook, wantChanged: true},
		{name: "an older version of ours over a chained hook keeps it", hook: olderHook, chained: foreignHook, wantChanged: true, wantChained: true, wantKept: foreignHook},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			hook, chained := hookWith(t, f, tc.hook)
			if tc.chained != "" {
				require.NoError(t, os.WriteFile(chained, []byte(tc.chained), 0o755))
			}
			if tc.twice {
				rep, err := Install(f.st, InstallOptions{Script: true})
				require.NoError(t, err)
				require.True(t, rep.Changed)
			}
			rep, err := Install(f.st, InstallOptions{Script: true})
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				assert.Contains(t, err.Error(), chained)
				assert.Nil(t, rep)
				assert.Equal(t, tc.hook, readOrEmpty(t, hook), "the existing hook is left alone")
				assert.Equal(t, tc.wantKept, readOrEmpty(t, chained))
				return
			}
			require.NoError(t, err)
			assertReport(t, rep, hook, chained, tc.wantChanged, tc.wantChained)
			assert.Equal(t, hookScript, readOrEmpty(t, hook))
			fi, err := os.Stat(hook)
			require.NoError(t, err)
			assert.Equal(t, fs.FileMode(0o755), fi.Mode().Perm(), "the hook is executable")
			assert.Equal(t, tc.wantKept, readOrEmpty(t, chained))
			// No temporary file (".pre-commit.itr-*") is left in the hooks folder.
			entries, err := os.ReadDir(filepath.Dir(hook))
			require.NoError(t, err)
			for _, e := range entries {
				assert.False(t, strings.HasPrefix(e.Name(), "."), "left behind: %s", e.Name())
			}
		})
	}
}

func TestInstallMakesTheHooksFolder(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(t.TempDir(), "a", "hooks")
	st := f.wrap(&wrapped{hooksDir: dir})
	rep, err := Install(st, InstallOptions{Script: true})
	require.NoError(t, err)
	assert.True(t, rep.Changed)
	assert.Equal(t, hookScript, readOrEmpty(t, filepath.Join(dir, "pre-commit")))
}

func TestInstallAndUninstallErrors(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, f *fixture) *store.Store
		wantErr string
	}{
		{name: "HooksDir fails", wantErr: "boom", setup: func(t *testing.T, f *fixture) *store.Store {
			f.fake.Fail("HooksDir", errBoom)
			return f.st
		}},
		{name: "the hook cannot be read", wantErr: "pre-commit", setup: func(t *testing.T, f *fixture) *store.Store {
			hook, _ := hookPaths(t, f)
			require.NoError(t, os.Mkdir(hook, 0o755)) // reading a folder fails
			return f.st
		}},
		{name: "the hooks folder cannot be made", wantErr: "hooks", setup: func(t *testing.T, f *fixture) *store.Store {
			dir := filepath.Join(t.TempDir(), "hooks")
			require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "gone"), dir)) // dangling
			return f.wrap(&wrapped{hooksDir: dir})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			st := tc.setup(t, f)
			rep, err := Install(st, InstallOptions{Script: true})
			require.ErrorContains(t, err, tc.wantErr)
			assert.Nil(t, rep)
		})
	}
	t.Run("uninstall: HooksDir fails", func(t *testing.T) {
		f := newFixture(t)
		f.fake.Fail("HooksDir", errBoom)
		rep, err := Uninstall(f.st)
		require.ErrorIs(t, err, errBoom)
		assert.Nil(t, rep)
	})
	t.Run("uninstall: the hook cannot be read", func(t *testing.T) {
		f := newFixture(t)
		hook, _ := hookPaths(t, f)
		require.NoError(t, os.Mkdir(hook, 0o755))
		rep, err := Uninstall(f.st)
		require.Error(t, err)
		assert.Nil(t, rep)
		fi, err := os.Stat(hook)
		require.NoError(t, err)
		assert.True(t, fi.IsDir(), "left alone")
	})
}

func TestUninstall(t *testing.T) {
	tests := []struct {
		name        string
		install     bool   // run Install first
		hook        string // pre-commit before (before Install when install)
		chained     string // pre-commit.itr-chained written after Install
		wantChanged bool
		wantChained bool
		wantHook    string // pre-commit after, "" for none
	}{
		{name: "nothing installed: no change"},
		{name: "a foreign hook is untouched", hook: foreignHook, wantHook: foreignHook},
		{name: "a hook mentioning itr but not ours is untouched", hook: "#!/bin/sh\nexec itr hooks pre-commit\n", wantHook: "#!/bin/sh\nexec itr hooks pre-commit\n"},
		{name: "ours alone is removed", install: true, wantChanged: true},
		{name: "ours puts the chained one back", install: true, hook: foreignHook, wantChanged: true, wantChained: true, wantHook: foreignHook},
		{name: "a chained file made after install is put back", install: true, chained: "#!/bin/sh\necho late\n", wantChanged: true, wantChained: true, wantHook: "#!/bin/sh\necho late\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			hook, chained := hookWith(t, f, tc.hook)
			if tc.install {
				_, err := Install(f.st, InstallOptions{Script: true})
				require.NoError(t, err)
			}
			if tc.chained != "" {
				require.NoError(t, os.WriteFile(chained, []byte(tc.chained), 0o755))
			}
			rep, err := Uninstall(f.st)
			require.NoError(t, err)
			assertReport(t, rep, hook, chained, tc.wantChanged, tc.wantChained)
			assert.Equal(t, tc.wantHook, readOrEmpty(t, hook))
			_, err = os.Lstat(chained)
			assert.True(t, os.IsNotExist(err), "no chained file is left")

			// A second uninstall changes nothing.
			rep, err = Uninstall(f.st)
			require.NoError(t, err)
			assert.False(t, rep.Changed)
			assert.Equal(t, tc.wantHook, readOrEmpty(t, hook))
		})
	}
}

// TestHookScriptRuns runs the installed hook with a real sh: it is
// executable, runs the chained hook first (and stops on its failure), then
// hands over to `itr hooks pre-commit`, or skips the check without itr.
func TestHookScriptRuns(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the hook's #! line")
	}
	dirname, err := exec.LookPath("dirname")
	if err != nil {
		t.Skip("no dirname")
	}
	tests := []struct {
		name       string
		chained    string // "" for no foreign hook
		withItr    bool
		itrExit    string
		wantCode   int
		wantOut    []string // lines of the trace file, in order
		wantStderr string
	}{
		{name: "no chained hook, no itr: skipped with a note", wantStderr: "itr: not on PATH"},
		{name: "no chained hook, itr runs", withItr: true, itrExit: "0", wantOut: []string{"itr hooks pre-commit"}},
		{name: "itr refusing fails the hook", withItr: true, itrExit: "1", wantCode: 1, wantOut: []string{"itr hooks pre-commit"}},
		{name: "chained runs first with the arguments", chained: "echo chained \"$@\" >> \"$TRACE\"\n", withItr: true, itrExit: "0",
			wantOut: []string{"chained a b", "itr hooks pre-commit"}},
		{name: "a failing chained hook stops the commit", chained: "echo chained >> \"$TRACE\"\nexit 3\n", withItr: true, itrExit: "0",
			wantCode: 3, wantOut: []string{"chained"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			hook, chained := hookPaths(t, f)
			if tc.chained != "" {
				require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\n"+tc.chained), 0o755))
			}
			_, err := Install(f.st, InstallOptions{Script: true})
			require.NoError(t, err)
			if tc.chained != "" {
				fi, err := os.Stat(chained)
				require.NoError(t, err)
				require.NotZero(t, fi.Mode()&0o111, "the chained hook stays executable")
			}
			bin := t.TempDir()
			require.NoError(t, os.Symlink(dirname, filepath.Join(bin, "dirname")))
			if tc.withItr {
				itr := "#!/bin/sh\necho itr \"$@\" >> \"$TRACE\"\nexit " + tc.itrExit + "\n"
				require.NoError(t, os.WriteFile(filepath.Join(bin, "itr"), []byte(itr), 0o755))
			}
			trace := filepath.Join(t.TempDir(), "trace")
			cmd := exec.Command(hook, "a", "b") // run directly: the hook must be executable
			cmd.Env = []string{"PATH=" + bin, "TRACE=" + trace}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err = cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.wantCode, code, "stderr: %s", stderr.String())
			var got []string
			if out := strings.TrimRight(readOrEmpty(t, trace), "\n"); out != "" {
				got = strings.Split(out, "\n")
			}
			assert.Equal(t, tc.wantOut, got)
			if tc.wantStderr != "" {
				assert.Contains(t, stderr.String(), tc.wantStderr)
			}
		})
	}
}

// loggedTask is a task with a plan, two iterations and a lesson committed.
func loggedTask(f *fixture) *task {
	f.t.Helper()
	return f.newTask("auth").planned().
		checkpoint("T1", "wrote the model", false, "").
		checkpoint("T1", "wrote the tests", false, "").
		guardrail("Run the tests first")
}

func TestCheckStaged(t *testing.T) {
	type setup func(t *testing.T, f *fixture, b *task)
	appendEntry := func(t *testing.T, f *fixture, b *task) {
		data, err := progresslog.Append(b.progress, iteration("T1", 3, "more work", f.tick()))
		require.NoError(t, err)
		f.stage(b.rel(store.ProgressFile), data)
	}
	tests := []struct {
		name      string
		unborn    bool // no task committed
		setup     setup
		wantFile  string // rel name of the finding's file under the task, "" for none
		wantProb  []string
		wantFix   []string
		wantDiff  bool
		wantCount int
	}{
		{name: "index as HEAD: nothing", setup: func(t *testing.T, f *fixture, b *task) {}},
		{name: "clean append to progress.md", setup: appendEntry},
		{name: "clean append to guardrails.md", setup: func(t *testing.T, f *fixture, b *task) {
			data, err := progresslog.AppendGuardrail(b.guards, lesson("Second lesson"))
			require.NoError(t, err)
			f.stage(b.rel(store.GuardrailsFile), data)
		}},
		{name: "rewritten entry of progress.md", wantCount: 1, wantFile: store.ProgressFile, wantDiff: true,
			wantProb: []string{"the commit would rewrite earlier entries: ", "T1 - Iteration 1"},
			wantFix:  []string{"`git checkout HEAD -- .claude/iterative/auth/progress.md`", "--no-verify"},
			setup: func(t *testing.T, f *fixture, b *task) {
				data := strings.Replace(string(b.progress), "wrote the model", "wrote a better model", 1)
				require.NotEqual(t, string(b.progress), data)
				f.stage(b.rel(store.ProgressFile), []byte(data))
			}},
		{name: "rewritten lesson of guardrails.md", wantCount: 1, wantFile: store.GuardrailsFile, wantDiff: true,
			wantProb: []string{"the commit would rewrite earlier entries: ", "Run the tests first"},
			wantFix:  []string{"`git checkout HEAD -- .claude/iterative/auth/guardrails.md`"},
			setup: func(t *testing.T, f *fixture, b *task) {
				data := strings.Replace(string(b.guards), "it broke", "it went wrong", 1)
				require.NotEqual(t, string(b.guards), data)
				f.stage(b.rel(store.GuardrailsFile), []byte(data))
			}},
		{name: "an older index takes out one committed entry", wantCount: 1, wantFile: store.ProgressFile,
			wantProb: []string{"the index holds an older progress.md than HEAD: this commit would take out 1 entry itr committed (T1 - Iteration 2",
				"a git command wrote back an index"},
			wantFix: []string{"`git reset -q -- .claude/iterative/auth`", "your working tree is untouched"},
			setup: func(t *testing.T, f *fixture, b *task) {
				older, err := f.st.ReadAt("HEAD~2", b.rel(store.ProgressFile)) // before iteration 2
				require.NoError(t, err)
				f.stage(b.rel(store.ProgressFile), older)
			}},
		{name: "an older index takes out two entries", wantCount: 1, wantFile: store.ProgressFile,
			wantProb: []string{"would take out 2 entries itr committed (T1 - Iteration 1", "; T1 - Iteration 2"},
			wantFix:  []string{"`git reset -q -- .claude/iterative/auth`"},
			setup: func(t *testing.T, f *fixture, b *task) {
				older, err := f.st.ReadAt("HEAD~3", b.rel(store.ProgressFile)) // before iteration 1
				require.NoError(t, err)
				f.stage(b.rel(store.ProgressFile), older)
			}},
		{name: "an older guardrails.md is a rewrite, not a reset", wantCount: 1, wantFile: store.GuardrailsFile, wantDiff: true,
			wantProb: []string{"the commit would rewrite earlier entries: "},
			wantFix:  []string{"`git checkout HEAD -- .claude/iterative/auth/guardrails.md`"},
			setup: func(t *testing.T, f *fixture, b *task) {
				older, err := f.st.ReadAt("HEAD~1", b.rel(store.GuardrailsFile))
				require.NoError(t, err)
				f.stage(b.rel(store.GuardrailsFile), older)
			}},
		{name: "both logs rewritten: two findings", wantCount: 2,
			setup: func(t *testing.T, f *fixture, b *task) {
				f.stage(b.rel(store.ProgressFile), []byte(strings.Replace(string(b.progress), "wrote the tests", "x", 1)))
				f.stage(b.rel(store.GuardrailsFile), []byte(strings.Replace(string(b.guards), "do not", "y", 1)))
			}},
		{name: "conflict stages are ignored", setup: func(t *testing.T, f *fixture, b *task) {
			f.fake.SetConflict(b.rel(store.ProgressFile), []byte("base\n"), []byte("ours\n"), []byte("theirs\n"))
			f.fake.SetConflict(b.rel(store.GuardrailsFile), nil, []byte("ours\n"), []byte("theirs\n"))
		}},
		{name: "other files of the task are ignored", setup: func(t *testing.T, f *fixture, b *task) {
			f.stage(b.rel(store.StateFile), []byte("{}\n"))
			f.stage(b.rel("brief.md"), []byte("rewritten\n"))
			f.stage(b.rel("notes/progress.md.bak"), []byte("x\n"))
		}},
		{name: "a log outside the root is ignored", setup: func(t *testing.T, f *fixture, b *task) {
			_, err := f.fake.CommitFiles(gitstate.CommitRequest{Changes: []gitstate.FileChange{{Path: "docs/progress.md", Data: b.progress}},
				Message: "docs\n", When: f.now})
			require.NoError(t, err)
			f.stage("docs/progress.md", []byte("rewritten\n"))
		}},
		{name: "a log not in HEAD is new: nothing", setup: func(t *testing.T, f *fixture, b *task) {
			f.stage(taskRoot+"/other/progress.md", []byte("# anything\n"))
			f.stage(taskRoot+"/other/guardrails.md", []byte("# anything\n"))
		}},
		{name: "unborn HEAD: nothing", unborn: true, setup: func(t *testing.T, f *fixture, b *task) {
			f.stage(taskRoot+"/auth/progress.md", []byte("# anything\n"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var b *task
			if !tc.unborn {
				b = loggedTask(f)
			}
			tc.setup(t, f, b)
			got, err := CheckStaged(f.st)
			require.NoError(t, err)
			if tc.unborn {
				assert.Zero(t, f.fake.Calls("ReadFile"), "nothing to read in an unborn HEAD")
			}
			require.Len(t, got, tc.wantCount, "findings: %+v", got)
			if tc.wantCount != 1 {
				return
			}
			fd := got[0]
			assert.Equal(t, b.rel(tc.wantFile), fd.File)
			for _, s := range tc.wantProb {
				assert.Contains(t, fd.Problem, s)
			}
			for _, s := range tc.wantFix {
				assert.Contains(t, fd.Fix, s)
			}
			if tc.wantDiff {
				assert.NotEmpty(t, fd.Diff)
			} else {
				assert.Empty(t, fd.Diff)
			}
		})
	}
}

func TestCheckStagedErrors(t *testing.T) {
	// The index holds the committed logs, so every call is reached.
	for _, method := range []string{"Staged", "Head", "ReadFile", "ReadBlob"} {
		t.Run(method, func(t *testing.T) {
			f := newFixture(t)
			loggedTask(f)
			f.fake.Fail(method, errBoom)
			got, err := CheckStaged(f.st)
			require.ErrorIs(t, err, errBoom)
			assert.Nil(t, got)
			assert.Equal(t, 1, f.fake.Calls(method))
		})
	}
}

// TestHookFastPath commits with real git through the hook script, a fake
// itr on PATH recording each start: a commit staging no progress.md or
// guardrails.md never starts itr (git answers in the hook itself); one
// staging either does, wherever the task root is, and itr refusing stops
// the commit.
func TestHookFastPath(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the hook's #! line")
	}
	repo := t.TempDir()
	bin := t.TempDir()
	trace := filepath.Join(t.TempDir(), "trace")
	require.NoError(t, os.Symlink(gitPath, filepath.Join(bin, "git")))
	// The fake itr refuses while $REFUSE names a file that exists.
	itr := "#!/bin/sh\necho itr \"$@\" >> \"$TRACE\"\nif [ -e \"$REFUSE\" ]; then echo refused >&2; exit 1; fi\nexit 0\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "itr"), []byte(itr), 0o755))
	refuse := filepath.Join(t.TempDir(), "refuse")
	env := []string{"PATH=" + bin, "TRACE=" + trace, "REFUSE=" + refuse, "HOME=" + t.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com"}
	git := func(args ...string) error {
		cmd := exec.Command(gitPath, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return &gitError{err: err, out: string(out)}
		}
		return nil
	}
	write := func(rel, text string) {
		p := filepath.Join(repo, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		_, err = f.WriteString(text)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	calls := func() int {
		return strings.Count(readOrEmpty(t, trace), "itr hooks pre-commit\n")
	}
	require.NoError(t, git("init", "-q"))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".git", "hooks", "pre-commit"), []byte(hookScript), 0o755))

	// The first commit, HEAD unborn, staging a progress.md: checked.
	write(".claude/iterative/a/progress.md", "# Progress Log\n")
	write("README", "hi\n")
	require.NoError(t, git("add", "-A"))
	require.NoError(t, git("commit", "-q", "-m", "first"))
	assert.Equal(t, 1, calls(), "a commit staging progress.md starts itr")

	steps := []struct {
		name  string
		edit  string // the file appended to
		args  []string
		calls int // itr's starts after the step
	}{
		{name: "a file that is not itr's: itr never starts", edit: "README", args: []string{"commit", "-q", "-am", "readme"}, calls: 1},
		{name: "a file named like a log but not staged", edit: "notes/progress.md.bak", args: []string{"commit", "-q", "--allow-empty", "-m", "empty"}, calls: 1},
		{name: "progress.md appended: checked", edit: ".claude/iterative/a/progress.md", args: []string{"commit", "-q", "-am", "log"}, calls: 2},
		{name: "guardrails.md under another root: checked", edit: "docs/tasks/b/guardrails.md", calls: 3},
		{name: "git commit PATH (a temporary index): checked", edit: ".claude/iterative/a/progress.md", args: []string{"commit", "-q", "-m", "only", "--", ".claude/iterative/a/progress.md"}, calls: 4},
		{name: "several files, one of them itr's: checked", edit: "README", calls: 5},
	}
	for _, s := range steps {
		write(s.edit, "more\n")
		switch s.name {
		case "guardrails.md under another root: checked":
			require.NoError(t, git("add", s.edit), s.name)
			require.NoError(t, git("commit", "-q", "-m", "guard"), s.name)
		case "several files, one of them itr's: checked":
			write(".claude/iterative/a/progress.md", "and more\n")
			require.NoError(t, git("commit", "-q", "-am", "both"), s.name)
		default:
			require.NoError(t, git(s.args...), s.name)
		}
		assert.Equal(t, s.calls, calls(), s.name)
	}

	// itr refusing (a rewrite of an earlier entry) still stops the commit.
	require.NoError(t, os.WriteFile(refuse, nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".claude", "iterative", "a", "progress.md"), []byte("# Rewritten\n"), 0o644))
	err = git("commit", "-q", "-am", "rewrite")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refused")
	assert.Equal(t, 6, calls())
	// While a commit touching no log goes through without itr.
	require.NoError(t, git("checkout", "-q", "HEAD", "--", ".claude/iterative/a/progress.md"))
	write("README", "last\n")
	require.NoError(t, git("commit", "-q", "-am", "fine"))
	assert.Equal(t, 6, calls())
}

type gitError struct {
	err error
	out string
}

func (e *gitError) Error() string { return e.err.Error() + ": " + e.out }

// fakeProgram writes a stand-in for itr-hook: what install copies is only
// judged by the marker it carries (cmd/itr's scenarios run the real one).
func fakeProgram(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ProgramName)
	require.NoError(t, os.WriteFile(p, []byte("\x7fELF fake "+body+" "+hookMarker+"\n"), 0o755))
	return p
}

func TestInstallProgram(t *testing.T) {
	f := newFixture(t)
	hook, chained := hookPaths(t, f)
	require.NoError(t, os.WriteFile(hook, []byte(foreignHook), 0o755))
	prog := fakeProgram(t, "v1")

	rep, err := Install(f.st, InstallOptions{Program: prog})
	require.NoError(t, err)
	assert.True(t, rep.Changed)
	assert.Equal(t, "program", rep.Kind)
	assert.Equal(t, prog, rep.Program)
	assert.Equal(t, chained, rep.Chained)
	assert.Equal(t, readOrEmpty(t, prog), readOrEmpty(t, hook), "a byte-for-byte copy")
	fi, err := os.Stat(hook)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	assert.Equal(t, foreignHook, readOrEmpty(t, chained))

	rep, err = Install(f.st, InstallOptions{Program: prog})
	require.NoError(t, err)
	assert.False(t, rep.Changed, "the same program again changes nothing")

	// An upgraded itr ships a newer itr-hook: installing again replaces the
	// copy, keeping the chained hook.
	newer := fakeProgram(t, "v2")
	rep, err = Install(f.st, InstallOptions{Program: newer})
	require.NoError(t, err)
	assert.True(t, rep.Changed)
	assert.Equal(t, readOrEmpty(t, newer), readOrEmpty(t, hook))
	assert.Equal(t, foreignHook, readOrEmpty(t, chained))

	// The script replaces the program and back, in place.
	rep, err = Install(f.st, InstallOptions{Script: true})
	require.NoError(t, err)
	assert.True(t, rep.Changed)
	assert.Equal(t, "script", rep.Kind)
	assert.Contains(t, rep.Why, "--script")
	assert.Equal(t, hookScript, readOrEmpty(t, hook))
	rep, err = Install(f.st, InstallOptions{Program: newer})
	require.NoError(t, err)
	assert.True(t, rep.Changed)

	// Uninstall knows the program by its marker and puts the old hook back.
	rep, err = Uninstall(f.st)
	require.NoError(t, err)
	assert.True(t, rep.Changed)
	assert.Equal(t, foreignHook, readOrEmpty(t, hook))
}

func TestInstallProgramRefusals(t *testing.T) {
	f := newFixture(t)
	hook, _ := hookPaths(t, f)
	other := filepath.Join(t.TempDir(), ProgramName)
	require.NoError(t, os.WriteFile(other, []byte("#!/bin/sh\necho something else\n"), 0o755))
	_, err := Install(f.st, InstallOptions{Program: other})
	require.ErrorContains(t, err, "is not itr's hook program")
	require.ErrorContains(t, err, "--script")
	_, err = Install(f.st, InstallOptions{Program: filepath.Join(t.TempDir(), "missing")})
	require.ErrorContains(t, err, "read the hook program")
	assert.Equal(t, "", readOrEmpty(t, hook), "nothing installed")

	// With no itr-hook beside the test binary nor on PATH, the script.
	t.Setenv("PATH", t.TempDir())
	rep, err := Install(f.st, InstallOptions{})
	require.NoError(t, err)
	assert.Equal(t, "script", rep.Kind)
	assert.Contains(t, rep.Why, "neither beside itr nor on PATH")
	assert.Equal(t, hookScript, readOrEmpty(t, hook))
	// …and on PATH, the program.
	dir := filepath.Dir(fakeProgram(t, "v3"))
	t.Setenv("PATH", dir)
	rep, err = Install(f.st, InstallOptions{})
	require.NoError(t, err)
	assert.Equal(t, "program", rep.Kind)
	assert.Equal(t, filepath.Join(dir, ProgramName), rep.Program)
}

func TestStatus(t *testing.T) {
	f := newFixture(t)
	hook, _ := hookPaths(t, f)
	st, err := Status(f.st)
	require.NoError(t, err)
	assert.Equal(t, State{Hook: hook, Kind: "none", Fix: "`itr hooks install` guards commits made with plain git"}, *st)

	require.NoError(t, os.WriteFile(hook, []byte(foreignHook), 0o755))
	st, err = Status(f.st)
	require.NoError(t, err)
	assert.Equal(t, "other", st.Kind)
	assert.Contains(t, st.Fix, "pre-commit.itr-chained")
	require.NoError(t, os.Remove(hook))

	_, err = Install(f.st, InstallOptions{Script: true})
	require.NoError(t, err)
	st, err = Status(f.st)
	require.NoError(t, err)
	assert.Equal(t, State{Hook: hook, Kind: "script", Current: true}, *st)

	require.NoError(t, os.WriteFile(hook, []byte(olderHook), 0o755))
	st, err = Status(f.st)
	require.NoError(t, err)
	assert.Equal(t, "script", st.Kind)
	assert.False(t, st.Current)
	assert.Contains(t, st.Fix, "itr hooks install --script")

	// A program that is not the itr-hook install would copy now (none is
	// beside the test binary or on PATH here): not current.
	t.Setenv("PATH", t.TempDir())
	_, err = Install(f.st, InstallOptions{Program: fakeProgram(t, "old")})
	require.NoError(t, err)
	st, err = Status(f.st)
	require.NoError(t, err)
	assert.Equal(t, "program", st.Kind)
	assert.False(t, st.Current)
	assert.Contains(t, st.Fix, "`itr hooks install` brings it up to date")
	t.Setenv("PATH", filepath.Dir(fakeProgram(t, "old")))
	st, err = Status(f.st)
	require.NoError(t, err)
	assert.True(t, st.Current, "the same program is on PATH now")
}
