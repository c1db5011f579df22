// Package servedemo runs `itr serve` on a demo repository
// (internal/reportdemo) and drives a headless Chromium on its board
// (internal/cdppipe): the browser test of itr serve and `make
// serve-screenshots` (internal/serveshot) share it.
package servedemo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/itr-dev/itr/internal/reportdemo"
)

// Server is a running `itr serve`.
type Server struct {
	URL  string
	cmd  *exec.Cmd
	mu   sync.Mutex
	errb bytes.Buffer
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Serve starts `itr serve --addr 127.0.0.1:0 --json` in the demo
// repository and waits for the URL it prints.
func Serve(r *reportdemo.Repo) (*Server, error) {
	s := &Server{cmd: exec.Command(r.Itr, "serve", "--addr", "127.0.0.1:0", "--json")}
	s.cmd.Dir, s.cmd.Env = r.Dir, r.Env
	s.cmd.Stderr = lockedWriter{&s.mu, &s.errb}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	got := make(chan error, 1)
	go func() {
		var v struct{ URL string }
		err := json.NewDecoder(out).Decode(&v)
		s.URL = v.URL
		got <- err
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case err := <-got:
		if err == nil && !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
			err = fmt.Errorf("the URL %q is not on 127.0.0.1", s.URL)
		}
		if err != nil {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
			return nil, fmt.Errorf("itr serve printed no URL: %w: %s", err, s.Stderr())
		}
		return s, nil
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		return nil, fmt.Errorf("itr serve printed no URL in 30s: %s", s.Stderr())
	}
}

// Stderr is what itr serve wrote on stderr so far.
func (s *Server) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errb.String()
}

// Stop sends SIGINT and waits for the exit; it gives the exit code, or an
// error when itr serve did not stop within timeout (it is killed then).
func (s *Server) Stop(timeout time.Duration) (int, error) {
	return s.StopWith(syscall.SIGINT, timeout)
}

// StopWith is Stop with another signal.
func (s *Server) StopWith(sig os.Signal, timeout time.Duration) (int, error) {
	if err := s.cmd.Process.Signal(sig); err != nil {
		return -1, err
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		if err != nil {
			return -1, err
		}
		return 0, nil
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		err := <-done
		return -1, fmt.Errorf("itr serve did not stop within %s of %s (killed: %v)", timeout, sig, err) //nolint:errorlint // the kill's own error, for the message

	}
}

// Close kills a server that is still running.
func (s *Server) Close() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_, _ = s.cmd.Process.Wait()
	}
}

// Claim is what the demo does before the board opens: agent-2 holds T3.
var Claim = []string{"itr", "claim", "T3", "--agent", "agent-2"}

// Checkpoint is the change the demo makes while the board is open: T3's
// cleanup goroutine, by agent-2, from another process.
var Checkpoint = []string{"itr", "checkpoint", "T3", "--agent", "agent-2", "--did", "Cleanup goroutine added; expiry tested with a fake clock", "--signal"}

// StampJS reads the board's stamp in the page.
const StampJS = `document.getElementById("board").getAttribute("data-stamp")`
