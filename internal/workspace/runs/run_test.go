//go:build unix

package runs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watcher is a tee that tells when the output so far contains a string.
type watcher struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func newWatcher(want string) *watcher {
	return &watcher{want: want, seen: make(chan struct{})}
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || !bytes.HasPrefix(stat[i+1:], []byte(" Z"))
}

// eventuallyGone waits a little for pid to go away.
func eventuallyGone(t *testing.T, pid int) {
	t.Helper()
	assert.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 20*time.Millisecond,
		"process %d is still alive", pid)
}

// firstPid reads the pid a command echoed on its first line.
func firstPid(t *testing.T, out []byte) int {
	t.Helper()
	line, _, _ := strings.Cut(string(out), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, "output %q", out)
	return pid
}

func TestRunPasses(t *testing.T) {
	res := Run(context.Background(), Spec{Argv: []string{"true"}}, nil)
	assert.Equal(t, Passed, res.Outcome)
	assert.Equal(t, 0, res.ExitCode)
	assert.Empty(t, res.Signal)
	assert.Empty(t, res.Err)
	assert.Equal(t, []string{"true"}, res.Argv)
	assert.Positive(t, res.Duration)
	assert.False(t, res.Started.IsZero())
	assert.Empty(t, res.Output)
	assert.Zero(t, res.Lines)
	assert.Empty(t, res.Tail)
}

func TestRunFails(t *testing.T) {
	var tee bytes.Buffer
	res := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo hi; exit 3"}}, &tee)
	assert.Equal(t, Failed, res.Outcome)
	assert.Equal(t, 3, res.ExitCode)
	assert.Equal(t, "hi", res.Tail)
	assert.Equal(t, "hi\n", string(res.Output))
	assert.Equal(t, "hi\n", tee.String())
	assert.EqualValues(t, 3, res.Bytes)
	assert.Equal(t, 1, res.Lines)
	assert.False(t, res.Truncated)
}

func TestRunStdoutAndStderrInterleaved(t *testing.T) {
	res := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo 1; echo 2 >&2; echo 3; printf '4\\033[31m red\\r\\n' >&2"}}, nil)
	assert.Equal(t, Passed, res.Outcome)
	assert.Equal(t, "1\n2\n3\n4 red\n", string(res.Output))
	assert.Equal(t, 4, res.Lines)
}

func TestRunDirEnvAndStdin(t *testing.T) {
	dir := t.TempDir()
	res := Run(context.Background(), Spec{
		Argv: []string{"sh", "-c", `pwd; echo "$ITR_X"; cat; echo end`},
		Dir:  dir,
		Env:  []string{"PATH=" + os.Getenv("PATH"), "ITR_X=hello"},
	}, nil)
	require.Equal(t, Passed, res.Outcome, res.Err)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, real+"\nhello\nend\n", string(res.Output))
}

func TestRunRelativeProgram(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "check"), []byte("#!/bin/sh\necho checked \"$@\"\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "plain"), []byte("echo\n"), 0o644))

	res := Run(context.Background(), Spec{Argv: []string{"./bin/check", "a b"}, Dir: dir}, nil)
	require.Equal(t, Passed, res.Outcome, res.Err)
	assert.Equal(t, "checked a b", res.Tail)

	res = Run(context.Background(), Spec{Argv: []string{"./bin/plain"}, Dir: dir}, nil)
	assert.Equal(t, Error, res.Outcome)
	assert.Equal(t, -1, res.ExitCode)
	assert.Contains(t, res.Err, "./bin/plain: permission denied")

	res = Run(context.Background(), Spec{Argv: []string{"./bin"}, Dir: dir}, nil)
	assert.Equal(t, Error, res.Outcome)
	assert.Equal(t, "./bin: is a directory", res.Err)

	// A program found through Env's PATH, not the process's.
	res = Run(context.Background(), Spec{Argv: []string{"check"}, Dir: dir, Env: []string{"PATH=" + filepath.Join(dir, "bin")}}, nil)
	require.Equal(t, Passed, res.Outcome, res.Err)
	assert.Equal(t, "checked", res.Tail)
}

func TestRunCannotStart(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		err  string
	}{
		{"not found", Spec{Argv: []string{"itr-no-such-command-xyz"}}, `itr-no-such-command-xyz: executable file not found in $PATH`},
		{"missing path", Spec{Argv: []string{"./nope"}, Dir: t.TempDir()}, "./nope: no such file"},
		{"empty argv", Spec{}, "empty command"},
		{"empty name", Spec{Argv: []string{""}}, "empty command"},
		{"no PATH", Spec{Argv: []string{"true"}, Env: []string{"A=b"}}, "true: not found: PATH is not set"},
		{"bad dir", Spec{Argv: []string{"true"}, Dir: "/nonexistent/itr/dir"}, "work tree: stat /nonexistent/itr/dir: no such file or directory"},
		{"dir is a file", Spec{Argv: []string{"true"}, Dir: "/etc/passwd"}, "work tree /etc/passwd: not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Run(context.Background(), tt.spec, nil)
			assert.Equal(t, Error, res.Outcome)
			assert.Equal(t, -1, res.ExitCode)
			assert.Equal(t, tt.err, res.Err)
		})
	}
}

func TestRunTimeoutStopsGrandchildren(t *testing.T) {
	start := time.Now()
	res := Run(context.Background(), Spec{
		Argv:    []string{"sh", "-c", "sleep 60 & echo $!; sleep 60"},
		Timeout: 300 * time.Millisecond,
		Grace:   200 * time.Millisecond,
	}, nil)
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Equal(t, TimedOut, res.Outcome)
	assert.Equal(t, "no exit after 300ms", res.Err)
	assert.Equal(t, -1, res.ExitCode)
	assert.Equal(t, "terminated", res.Signal)
	eventuallyGone(t, firstPid(t, res.Output))
}

func TestRunTimeoutKillsAfterGrace(t *testing.T) {
	start := time.Now()
	res := Run(context.Background(), Spec{
		Argv:    []string{"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"},
		Timeout: 300 * time.Millisecond,
		Grace:   200 * time.Millisecond,
	}, nil)
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Equal(t, TimedOut, res.Outcome)
	assert.Equal(t, "killed", res.Signal)
	assert.Equal(t, "ready", res.Tail)
}

func TestRunInterrupt(t *testing.T) {
	w := newWatcher("ready")
	done := make(chan Result, 1)
	go func() {
		done <- Run(context.Background(), Spec{
			Argv:  []string{"sh", "-c", "sleep 60 & echo $!; echo ready; wait"},
			Grace: 200 * time.Millisecond,
		}, w)
	}()
	select {
	case <-w.seen:
	case <-time.After(20 * time.Second):
		t.Fatal("the command never got ready")
	}
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
	var res Result
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after SIGINT")
	}
	assert.Equal(t, Interrupted, res.Outcome)
	assert.Equal(t, "stopped on interrupt", res.Err)
	eventuallyGone(t, firstPid(t, res.Output))
	// This process survived the SIGINT: the test is still running.
}

func TestRunContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w := newWatcher("ready")
	done := make(chan Result, 1)
	go func() {
		done <- Run(ctx, Spec{Argv: []string{"sh", "-c", "echo ready; sleep 60"}, Grace: 200 * time.Millisecond}, w)
	}()
	select {
	case <-w.seen:
	case <-time.After(20 * time.Second):
		t.Fatal("the command never got ready")
	}
	cancel()
	res := <-done
	assert.Equal(t, Interrupted, res.Outcome)
	assert.Equal(t, "stopped: context canceled", res.Err)

	res = Run(ctx, Spec{Argv: []string{"true"}}, nil)
	assert.Equal(t, Interrupted, res.Outcome)
	assert.Equal(t, "not started: context canceled", res.Err)
}

func TestRunGrandchildHoldsOutput(t *testing.T) {
	start := time.Now()
	res := Run(context.Background(), Spec{
		Argv:  []string{"sh", "-c", "sleep 30 & echo $!; exit 0"},
		Grace: 200 * time.Millisecond,
	}, nil)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, Passed, res.Outcome)
	assert.Equal(t, 0, res.ExitCode)
	eventuallyGone(t, firstPid(t, res.Output))
}

func TestRunOutputEscapesGroup(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid")
	}
	start := time.Now()
	res := Run(context.Background(), Spec{
		Argv:  []string{"sh", "-c", "setsid sleep 3 & echo started"},
		Grace: 200 * time.Millisecond,
	}, nil)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.Equal(t, Passed, res.Outcome)
	assert.Equal(t, "started", res.Tail)
}

func TestRunTruncates(t *testing.T) {
	res := Run(context.Background(), Spec{
		Argv: []string{"sh", "-c", `i=0; while [ $i -lt 20 ]; do echo "first $i"; i=$((i+1)); done; yes line | head -n 200000; echo last`},
	}, nil)
	require.Equal(t, Passed, res.Outcome, res.Err)
	assert.True(t, res.Truncated)
	assert.LessOrEqual(t, len(res.Output), MaxOutput+100)
	assert.True(t, bytes.HasPrefix(res.Output, []byte("first 0\nfirst 1\n")))
	assert.True(t, bytes.HasSuffix(res.Output, []byte("line\nline\nlast\n")))
	assert.Regexp(t, `\nline\n\[itr: \d+ bytes of output left out\]\nline\n`, string(res.Output))
	assert.Equal(t, 1, bytes.Count(res.Output, []byte("[itr:")))
	want := int64(20*len("first 0\n") + 10 + 200000*len("line\n") + len("last\n"))
	assert.Equal(t, want, res.Bytes)
	assert.Equal(t, 20+200000+1, res.Lines)

	lines := strings.Split(res.Tail, "\n")
	assert.Len(t, lines, TailLines)
	assert.LessOrEqual(t, len(res.Tail), TailBytes)
	assert.Equal(t, "last", lines[len(lines)-1])
	assert.Equal(t, "line", lines[0])

	// Every line was either kept or counted by the marker.
	m := regexpMarker.FindSubmatch(res.Output)
	require.NotNil(t, m)
	left, err := strconv.ParseInt(string(m[1]), 10, 64)
	require.NoError(t, err)
	kept := int64(len(res.Output) - len(m[0]))
	assert.Equal(t, res.Bytes, kept+left)
}

// badTee fails or panics on its second write.
type badTee struct {
	n     int
	panic bool
}

func (b *badTee) Write(p []byte) (int, error) {
	b.n++
	if b.n > 1 {
		if b.panic {
			panic("tee broke")
		}
		return 0, os.ErrClosed
	}
	return len(p), nil
}

func TestRunBrokenTee(t *testing.T) {
	for _, panics := range []bool{false, true} {
		tee := &badTee{panic: panics}
		res := Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo a; sleep 0.1; echo b; sleep 0.1; echo c"}}, tee)
		assert.Equal(t, Passed, res.Outcome)
		assert.Equal(t, "a\nb\nc\n", string(res.Output))
		assert.Equal(t, 2, tee.n, "the tee is dropped after it fails")
	}
}
