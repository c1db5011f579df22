package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Outcome is how a run ended.
type Outcome string

// The outcomes of a run.
const (
	Passed      Outcome = "passed"      // exit 0
	Failed      Outcome = "failed"      // non-zero exit
	TimedOut    Outcome = "timeout"     // killed at the timeout
	Interrupted Outcome = "interrupted" // stopped by Ctrl-C / SIGTERM to itr, or ctx cancelled
	Error       Outcome = "error"       // could not start (not found, not executable, bad dir)
)

// DefaultGrace is the Grace used when Spec.Grace is 0.
const DefaultGrace = 5 * time.Second

// drainWait is how long Run waits, after the command exits, for the rest of
// its output before it stops what is left of its process group; and, after
// that, for processes outside the group that still hold the output open.
const drainWait = 250 * time.Millisecond

// Spec says what to run.
type Spec struct {
	Argv    []string      // argv[0] is looked up in PATH (Env's PATH when Env is not nil; entries that are not absolute are skipped), or taken relative to Dir when it contains a slash; no shell
	Dir     string        // working directory (the work tree); "" is the current directory
	Timeout time.Duration // 0: none
	Env     []string      // nil: the process's environment
	Grace   time.Duration // after SIGTERM/SIGINT to the process group, wait this long before SIGKILL; 0 means DefaultGrace
}

// Result is what came of a run.
type Result struct {
	Argv     []string
	Outcome  Outcome
	ExitCode int           // the exit status; -1 when there is none (killed by a signal, never started)
	Signal   string        // e.g. "killed", "interrupt" when the process died of a signal
	Started  time.Time     // when Run was called
	Duration time.Duration // from Started until Run returned
	// Output is stdout and stderr interleaved as written, sanitized (see
	// Sanitize). Past MaxOutput bytes it keeps the first HeadKeep bytes and
	// the last MaxOutput-HeadKeep bytes, cut at line boundaries, with one
	// line "[itr: N bytes of output left out]" between.
	Output    []byte
	Truncated bool   // Output was capped
	Bytes     int64  // how many bytes the command wrote in all (before sanitizing)
	Lines     int    // lines in the whole (sanitized) output
	Tail      string // the last TailLines lines, at most TailBytes bytes, of the sanitized output (no trailing newline)
	Err       string // for Error: why it could not start; for TimedOut: "no exit after 10m0s" style text; for Interrupted: what stopped it
}

// Run runs spec and always returns a Result; it does not panic and does not
// leave the command's process group alive.
//
// Output is also copied, as written, to tee when tee is not nil (the CLI
// passes os.Stderr so the user sees progress). Stdin is /dev/null. The
// command runs in its own process group so that its children (go test
// binaries, sh -c pipelines) are stopped with it.
//
// While the command runs, Run catches SIGINT and SIGTERM sent to this
// process (undone before it returns): on the first one it sends SIGINT to the
// command's process group, then SIGKILL after Grace if it is still alive, and
// returns Outcome Interrupted, so that Ctrl-C stops the command and not the
// caller's bookkeeping; a second one sends SIGKILL at once. Cancelling ctx is
// treated like an interrupt. At the timeout Run sends SIGTERM to the group
// and SIGKILL after Grace, and returns Outcome TimedOut.
//
// When the command exits while others in its group still run, Run sends them
// SIGTERM and then SIGKILL after Grace. Run does not wait for longer than
// about a quarter of a second for processes outside the group that keep the
// output open.
//
// On Windows the group is a job object the command starts in, the polite
// stop (for SIGINT and SIGTERM alike) a CTRL_BREAK_EVENT to its process
// group, and SIGKILL terminating the job (proc_windows.go).
func Run(ctx context.Context, spec Spec, tee io.Writer) (res Result) {
	res = Result{
		Argv:     append([]string(nil), spec.Argv...),
		ExitCode: -1,
		Started:  time.Now(),
	}
	defer func() {
		res.Duration = time.Since(res.Started)
	}()
	var r *runner
	defer func() {
		if p := recover(); p != nil {
			if r != nil && r.cmd != nil && r.cmd.Process != nil {
				r.kill()
			}
			res.Outcome = Error
			res.Err = fmt.Sprintf("internal error: %v", p)
		}
	}()

	path, err := resolve(spec)
	if err != nil {
		res.Outcome = Error
		res.Err = err.Error()
		return res
	}
	if err := ctx.Err(); err != nil {
		res.Outcome = Interrupted
		res.Err = fmt.Sprintf("not started: %v", err)
		return res
	}
	r = &runner{spec: spec, grace: spec.Grace, capture: &capture{tee: tee}}
	if r.grace <= 0 {
		r.grace = DefaultGrace
	}
	r.run(ctx, path, &res)
	return res
}

// resolve checks spec.Dir and finds the executable spec.Argv[0] names.
func resolve(spec Spec) (string, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return "", errors.New("empty command")
	}
	if spec.Dir != "" {
		fi, err := os.Stat(spec.Dir)
		if err != nil {
			return "", fmt.Errorf("work tree: %w", err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("work tree %s: not a directory", spec.Dir)
		}
	}
	name := spec.Argv[0]
	if hasDir(name) {
		path := name
		if !filepath.IsAbs(path) && spec.Dir != "" {
			path = filepath.Join(spec.Dir, path)
		}
		path, err := findExecutable(path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		return abs, nil
	}
	pathEnv, ok := lookupEnv(spec.Env, "PATH")
	if !ok {
		return "", fmt.Errorf("%s: not found: PATH is not set", name)
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue // as exec.LookPath does, never run programs found relative to the directory
		}
		if path, err := findExecutable(filepath.Join(d, name)); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

// checkExecutable reports why path is not a file this process may execute.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errors.New("no such file")
		}
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	return executable(path, fi)
}

// lookupEnv finds key in env, or in the process's environment when env is
// nil.
func lookupEnv(env []string, key string) (string, bool) {
	if env == nil {
		return os.LookupEnv(key)
	}
	val, ok := "", false
	for _, kv := range env {
		if k, v, found := strings.Cut(kv, "="); found && sameEnvKey(k, key) {
			val, ok = v, true // the last one wins, as in exec.Cmd
		}
	}
	return val, ok
}

// runner holds the state of one Run.
type runner struct {
	spec    Spec
	grace   time.Duration
	capture *capture
	cmd     *exec.Cmd
	group   procGroup //nolint:unused // what holds the command's processes beyond its group id: a job object on Windows, nothing elsewhere
}

// run starts the command at path and fills res.
func (r *runner) run(ctx context.Context, path string, res *Result) {
	pr, pw, err := os.Pipe()
	if err != nil {
		res.Outcome = Error
		res.Err = fmt.Sprintf("output pipe: %v", err)
		return
	}
	cmd := &exec.Cmd{
		Path:   path,
		Args:   append([]string(nil), r.spec.Argv...),
		Env:    r.spec.Env,
		Dir:    r.spec.Dir,
		Stdout: pw,
		Stderr: pw,
	}
	setGroup(cmd)
	r.cmd = cmd

	sigs := make(chan os.Signal, 4)
	notifySignals(sigs)
	defer stopSignals(sigs)

	if !r.start(pr, pw, res) {
		return
	}
	defer r.release()
	pw.Close()

	readDone := r.copyOutput(pr)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	w := &watch{r: r, sigs: sigs, ctxDone: ctx.Done()}
	if r.spec.Timeout > 0 {
		w.timer = time.NewTimer(r.spec.Timeout)
		w.timeout = w.timer.C
	}
	defer w.stopTimers()
	waitErr := w.wait(ctx, exited)
	w.reap(readDone)
	closeOutput(pr, readDone)

	r.capture.fill(res)
	w.result(cmd.ProcessState, waitErr, res)
}

// start starts r.cmd, whose output goes to the pipe pw (read from pr),
// and lets the platform take hold of its processes. When either fails it
// closes both ends of the pipe, fills res with why and reports false.
func (r *runner) start(pr, pw *os.File, res *Result) bool {
	if err := r.cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		res.Outcome = Error
		res.Err = startError(r.spec.Argv[0], err)
		return false
	}
	if err := r.started(); err != nil {
		r.kill()
		_ = r.cmd.Wait()
		r.release()
		pw.Close()
		pr.Close()
		res.Outcome = Error
		res.Err = fmt.Sprintf("%s: %v", r.spec.Argv[0], err)
		return false
	}
	return true
}

// copyOutput copies the command's output from pr into r.capture until
// the pipe ends, in a goroutine; the channel it returns is closed then.
func (r *runner) copyOutput(pr *os.File) <-chan struct{} {
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				_, _ = r.capture.Write(buf[:n]) // keeps what fits, never fails
			}
			if err != nil {
				return
			}
		}
	}()
	return readDone
}

// closeOutput waits a little for the rest of the output (readDone is
// closed when it has all been read), then closes the pipe's read end,
// which ends the reading when processes outside the group still hold the
// pipe open.
func closeOutput(pr *os.File, readDone <-chan struct{}) {
	select {
	case <-readDone:
	case <-time.After(drainWait):
		pr.Close()
		<-readDone
	}
	pr.Close()
}

// watch follows a started command until it exits. At the timeout, on a
// signal to this process or when the context ends it stops the command:
// a polite signal to its group, then SIGKILL after the grace, or at once
// when asked again.
type watch struct {
	r       *runner
	sigs    <-chan os.Signal
	ctxDone <-chan struct{}  // nil once the context has ended
	timer   *time.Timer      // the timeout, nil without one
	timeout <-chan time.Time // nil without a timeout or once it passed
	stopped Outcome          // why Run stopped the command, if it did
	stopWhy string           // what stopped it, for Result.Err
	killAt  *time.Timer      // when the grace ends, once a polite signal went
	killC   <-chan time.Time // killAt's channel, nil once it fired
	killed  bool             // SIGKILL was sent
}

// wait waits for the command to exit (its Wait's error comes on exited),
// stopping it on the way when asked to; it returns that error.
func (w *watch) wait(ctx context.Context, exited <-chan error) error {
	r := w.r
	for {
		select {
		case err := <-exited:
			return err
		case <-w.timeout:
			w.timeout = nil
			w.stop(TimedOut, fmt.Sprintf("no exit after %v", r.spec.Timeout), sigTerm)
		case s := <-w.sigs:
			w.stop(Interrupted, fmt.Sprintf("stopped on %v", s), sigInt)
		case <-w.ctxDone:
			w.ctxDone = nil
			w.stop(Interrupted, fmt.Sprintf("stopped: %v", context.Cause(ctx)), sigInt)
		case <-w.killC:
			w.killC = nil
			r.kill()
			w.killed = true
		}
	}
}

// stop stops the command for reason o (what why says): a polite sig to
// its group, SIGKILL after the grace; when it was already stopped, SIGKILL
// at once.
func (w *watch) stop(o Outcome, why string, sig stopSignal) {
	if w.stopped != "" {
		w.r.kill()
		w.killed = true
		return
	}
	w.stopped, w.stopWhy = o, why
	w.r.signal(sig)
	w.graceKill()
}

// graceKill starts the grace after which the group gets SIGKILL.
func (w *watch) graceKill() {
	w.killAt = time.NewTimer(w.r.grace)
	w.killC = w.killAt.C
}

// reap stops what is left of the command's group once the command has
// exited. When Run did not stop the command it waits a little for the
// output to end (readDone is closed then) and sends SIGTERM to the
// processes left in the group; then, unless SIGKILL was sent, it waits
// for the group to end until the grace ends or this process is asked to
// stop, and kills the group then.
func (w *watch) reap(readDone <-chan struct{}) {
	r := w.r
	if w.stopped == "" {
		select {
		case <-readDone:
		case <-time.After(drainWait):
		}
		if r.groupAlive() {
			r.signal(sigTerm)
			w.graceKill()
		}
	}
	if w.killed || w.killC == nil {
		return
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if !r.groupAlive() {
				return
			}
		case <-w.killC:
			r.kill()
			return
		case <-w.sigs:
			r.kill()
			return
		case <-w.ctxDone:
			r.kill()
			return
		}
	}
}

// stopTimers stops the grace's timer and the timeout's.
func (w *watch) stopTimers() {
	if w.killAt != nil {
		w.killAt.Stop()
	}
	if w.timer != nil {
		w.timer.Stop()
	}
}

// result fills res's outcome from how the command ended: st is its state
// (nil when Wait failed with waitErr).
func (w *watch) result(st *os.ProcessState, waitErr error, res *Result) {
	if st == nil {
		res.Outcome = Error
		res.Err = fmt.Sprintf("wait: %v", waitErr)
		return
	}
	res.ExitCode = st.ExitCode()
	res.Signal = signalOf(st)
	switch {
	case w.stopped != "":
		res.Outcome = w.stopped
		res.Err = w.stopWhy
	case res.ExitCode == 0:
		res.Outcome = Passed
	default:
		res.Outcome = Failed
	}
}

// startError explains why the command named name could not start.
func startError(name string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", name, pe.Err)
	}
	return err.Error()
}
