package gitstate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// genRepo builds a repository with git fast-import: files files spread over
// folders of about 100, and commits commits (the first adds every file, each
// later one changes one file), then checks it out.
func genRepo(tb testing.TB, files, commits int) string {
	tb.Helper()
	dir := tb.TempDir()
	gitRun(tb, dir, "init", "-q")
	var in bytes.Buffer
	data := func(s string) { fmt.Fprintf(&in, "data %d\n%s\n", len(s), s) }
	for c := 0; c < commits; c++ {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter Gen <gen@example.com> %d +0000\n", 1700000000+c)
		data(fmt.Sprintf("commit %d", c))
		if c == 0 {
			for i := 0; i < files; i++ {
				fmt.Fprintf(&in, "M 100644 inline src/d%03d/e%02d/f%05d.txt\n", i/100, (i/10)%10, i)
				data(fmt.Sprintf("file %d\n", i))
			}
		} else {
			i := (c * 7919) % files
			fmt.Fprintf(&in, "M 100644 inline src/d%03d/e%02d/f%05d.txt\n", i/100, (i/10)%10, i)
			data(fmt.Sprintf("file %d v%d\n", i, c))
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = &in
	out, err := cmd.CombinedOutput()
	require.NoError(tb, err, string(out))
	gitRun(tb, dir, "checkout", "-q", "-f", "main")
	gitRun(tb, dir, "gc", "-q")
	gitRun(tb, dir, "status", "--porcelain") // let git refresh the index and cache-tree
	return dir
}

func benchSize(b *testing.B) (files, commits int) {
	if os.Getenv("ITR_BENCH_LARGE") == "1" {
		return 100000, 2000
	}
	return 100, 50
}

// BenchmarkCommitFiles commits two small files of one task folder.
func BenchmarkCommitFiles(b *testing.B) {
	isolate(b)
	files, commits := benchSize(b)
	dir := genRepo(b, files, commits)
	r, err := Open(dir)
	require.NoError(b, err)
	defer r.Close()
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		_, err := r.CommitFiles(CommitRequest{
			Changes: []FileChange{
				{Path: ".claude/iterative/slug/state.json", Data: []byte(fmt.Sprintf("{\"i\":%d}\n", i))},
				{Path: ".claude/iterative/slug/progress.md", Data: []byte(fmt.Sprintf("# progress\n\n%d\n", i))},
			},
			Message:  fmt.Sprintf("itr: checkpoint %d\n\nItr-Iteration: %d\n", i, i),
			Worktree: true,
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportMaxRSS(b)
	if st := gitRun(b, dir, "status", "--porcelain"); st != "" {
		b.Fatalf("status not clean: %s", st)
	}
}

// BenchmarkGitCLICommit is the reference: `git add DIR && git commit` of the
// same two files in the same kind of repository.
func BenchmarkGitCLICommit(b *testing.B) {
	isolate(b)
	files, commits := benchSize(b)
	dir := genRepo(b, files, commits)
	task := filepath.Join(dir, ".claude", "iterative", "slug")
	require.NoError(b, os.MkdirAll(task, 0o755))
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		require.NoError(b, os.WriteFile(filepath.Join(task, "state.json"), []byte(fmt.Sprintf("{\"i\":%d}\n", i)), 0o644))
		require.NoError(b, os.WriteFile(filepath.Join(task, "progress.md"), []byte(fmt.Sprintf("# progress\n\n%d\n", i)), 0o644))
		gitRun(b, dir, "add", ".claude/iterative/slug")
		gitRun(b, dir, "commit", "-q", "--no-verify", "-m", fmt.Sprintf("itr: checkpoint %d\n\nItr-Iteration: %d\n", i, i))
	}
}
