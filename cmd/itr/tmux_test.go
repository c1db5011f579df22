package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// tmuxCommands are the commands TestTmux80Columns runs in the pane.
var tmuxCommands = []string{"status", "next", "log", "prime", "list"}

// TestTmux80Columns runs itr status, next, log, prime and list in a real
// tmux pane of 80 columns on a task with long titles and --did texts and
// reads the pane's visual lines back (capture-pane without -J: a line the
// terminal itself wrapped shows as two rows). No row is wider than the
// pane, no word of what the commands print to a pipe is broken across
// rows (each is whole on some row), the text is the piped text with only
// line breaks and indents changed, and wrapped lines hang: a status
// label's continuation starts at the label's column, a table row's under
// its title. Skipped, saying so, without tmux.
func TestTmux80Columns(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): the 80-column terminal test is skipped")
	}
	itr, err := exec.LookPath("itr") // the test binary, put on PATH by testscript.Main
	require.NoError(t, err)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	env := append(os.Environ(),
		"HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Test Agent", "GIT_COMMITTER_EMAIL=agent@example.com",
		"ITR_NO_MAINTENANCE=1", "ITR_AGENT=tester", "NO_COLOR=", "COLUMNS=")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %s: %s", name, strings.Join(args, " "), out)
		return string(out)
	}
	require.NoError(t, os.MkdirAll(repo, 0o755))
	run("git", "init", "-q")
	run("git", "commit", "-q", "--allow-empty", "-m", "init")
	run(itr, "init", "Terminal layout at eighty columns with a name long enough to wrap", "--slug", "layout")
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".claude/iterative/layout/tasks.md"), []byte(`# Terminal - Tasks

## Tasks

- [ ] **T1**: Measure the load test that was done by the SRE team and write down every figure that failed or was blocked
- [ ] **T2**: Draft the report for the stakeholders with the figures, the open questions and the decisions that are still pending (depends: T1)
- [ ] **T3**: A short one
`), 0o644))
	run(itr, "plan")
	run(itr, "checkpoint", "T1", "--did", "Read the load test the SRE team had done last week, collected the figures of every run that failed and the two that were blocked by the proxy, and wrote them into the notes",
		"--remaining", "Compare the figures with the targets of the brief and say for each one whether it is done, failed or still pending on the proxy team",
		"--blockers", "The proxy team has not answered about the two blocked runs; their logs are needed before the figures of those runs can be trusted at all")

	// What a pipe gets: the text the pane must show, line breaks aside.
	script := "set -e\n"
	want := map[string]string{}
	for _, c := range tmuxCommands {
		want[c] = run(itr, c)
		script += fmt.Sprintf("echo '=== %s'\n%s %s\n", c, itr, c)
	}
	script += "echo '=== end'\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tmux.conf"), []byte("set -g history-limit 50000\nset -g remain-on-exit on\n"), 0o644))

	sock := filepath.Join(dir, "tmux.sock")
	tm := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(tmux, append([]string{"-S", sock, "-f", filepath.Join(dir, "tmux.conf")}, args...)...)
		cmd.Dir, cmd.Env = repo, append(env, "TERM=xterm-256color")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "tmux %s: %s", strings.Join(args, " "), out)
		return string(out)
	}
	tm("new-session", "-d", "-x", "80", "-y", "24", "sh "+filepath.Join(dir, "run.sh"))
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", sock, "kill-server").Run() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if strings.TrimSpace(tm("list-panes", "-F", "#{pane_dead}")) == "1" {
			break
		}
		require.True(t, time.Now().Before(deadline), "the commands did not finish in the pane")
	}
	require.Equal(t, "80", strings.TrimSpace(tm("display-message", "-p", "#{pane_width}")))
	pane := tm("capture-pane", "-p", "-S", "-", "-E", "-")

	t.Logf("the pane:\n%s", pane)
	got := splitPane(t, pane)
	for _, c := range tmuxCommands {
		rows := got[c]
		require.NotEmpty(t, rows, "no output of itr %s in the pane:\n%s", c, pane)
		checkNoBrokenWord(t, c, want[c], rows)
	}
	checkHang(t, got["status"], "Blockers:", 10)
	checkHang(t, got["status"], "T1 ", strings.Index(firstWith(got["status"], "UNIT"), "TITLE"))
	checkHang(t, got["next"], "T1 (in_progress) ", len("T1 (in_progress) "))
}

// splitPane cuts the pane's rows into each command's, by the === lines.
func splitPane(t *testing.T, pane string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	cur := ""
	for _, row := range strings.Split(pane, "\n") {
		row = strings.TrimRight(row, " ")
		if name, ok := strings.CutPrefix(row, "=== "); ok {
			cur = name
			continue
		}
		if cur != "" && cur != "end" {
			require.LessOrEqual(t, len([]rune(row)), 80, "a row wider than the pane: %q", row)
			out[cur] = append(out[cur], row)
		}
	}
	return out
}

// checkNoBrokenWord checks that every word of want (as a pipe gets it)
// is whole on some row of the pane, and that the rows hold the same words
// in the same order: only line breaks and indents differ.
func checkNoBrokenWord(t *testing.T, cmd, want string, rows []string) {
	t.Helper()
	want = ageRe.ReplaceAllString(want, "(Ns ago)")
	onRow := map[string]bool{}
	var seen []string
	for _, r := range rows {
		for _, f := range strings.Fields(ageRe.ReplaceAllString(r, "(Ns ago)")) {
			onRow[f] = true
			seen = append(seen, f)
		}
	}
	words := strings.Fields(want)
	for _, w := range words {
		if len([]rune(w)) < 80 && !onRow[w] {
			t.Errorf("itr %s: the word %q is broken across rows of the pane:\n%s", cmd, w, strings.Join(rows, "\n"))
		}
	}
	if strings.Join(seen, " ") != strings.Join(words, " ") {
		t.Errorf("itr %s: the pane's words differ from the piped text's:\npane: %s\npipe: %s", cmd, strings.Join(seen, " "), strings.Join(words, " "))
	}
}

// ageRe is how long ago the last checkpoint was, which may have grown by a
// second between the piped run and the pane's.
var ageRe = regexp.MustCompile(`\(\d+s ago\)`)

// checkHang checks that the row starting with prefix wrapped and that its
// continuation rows start at column hang.
func checkHang(t *testing.T, rows []string, prefix string, hang int) {
	t.Helper()
	require.Positive(t, hang)
	for i, r := range rows {
		if !strings.HasPrefix(r, prefix) {
			continue
		}
		require.Less(t, i+1, len(rows), "the row %q is the last", r)
		next := rows[i+1]
		require.Equal(t, strings.Repeat(" ", hang), next[:min(hang, len(next))], "the row after %q does not hang at column %d: %q", r, hang, next)
		require.NotEqual(t, byte(' '), next[hang], "the row after %q is indented past column %d: %q", r, hang, next)
		return
	}
	t.Errorf("no row starts with %q:\n%s", prefix, strings.Join(rows, "\n"))
}

// firstWith is the first row holding s.
func firstWith(rows []string, s string) string {
	for _, r := range rows {
		if strings.Contains(r, s) {
			return r
		}
	}
	return ""
}
