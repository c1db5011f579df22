// Package gitserver serves bare git repositories over smart HTTP on the
// loopback interface, for tests and benchmarks: `git http-backend` runs as
// a CGI program behind HTTP Basic authentication, so credential helpers,
// the smart protocol and the pushes a server refuses are the real ones.
package gitserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi" //nolint:gosec // G504 warns of httpoxy in Go < 1.6.3; this test server runs git http-backend on loopback
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures a Server.
type Options struct {
	// User and Password, when User != "", are the only Basic credentials
	// the server accepts; every other request is answered 401 with
	// WWW-Authenticate: Basic realm="itr-test". With User == "" anyone may
	// fetch and push.
	User, Password string
}

// Server is a running smart-HTTP git server; Close stops it.
type Server struct {
	// URL is http://127.0.0.1:PORT, without credentials; a repository
	// root/NAME.git is at URL+"/NAME.git".
	URL string

	opt      Options
	root     string
	cgi      cgi.Handler
	http     *http.Server
	served   chan error
	closing  sync.Once
	closeErr error

	requests, unauthorized, uploadPack, receivePack, infoRefs atomic.Int64
	bytesIn, bytesOut                                         atomic.Int64
	// chunked and gzipped count request bodies that came chunked (and
	// were buffered to give the CGI a length) or gzip-encoded; the tests
	// read them to show both paths were taken.
	chunked, gzipped atomic.Int64
}

// Stats are a Server's counts so far.
type Stats struct {
	Requests     int   // every request, authorized or not
	Unauthorized int   // requests answered 401
	UploadPack   int   // POSTs to .../git-upload-pack
	ReceivePack  int   // POSTs to .../git-receive-pack
	InfoRefs     int   // GETs of .../info/refs
	BytesIn      int64 // request body bytes as they came over the wire
	BytesOut     int64 // response body bytes written
}

// shutdownWait bounds how long Close waits for requests in flight before
// it cuts their connections.
const shutdownWait = 30 * time.Second

// Start serves every bare repository under root (e.g. root/remote.git) at
// URL+"/remote.git" through `git http-backend` (GIT_PROJECT_ROOT=root,
// GIT_HTTP_EXPORT_ALL=1, http.receivepack=true) on 127.0.0.1 at a free
// port.
func Start(root string, opt Options) (*Server, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("gitserver: root %s: %w", root, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("gitserver: root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("gitserver: root %s is not a directory", abs)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("gitserver: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("gitserver: listen: %w", err)
	}
	s := &Server{
		URL:    "http://" + ln.Addr().String(),
		opt:    opt,
		root:   abs,
		served: make(chan error, 1),
	}
	s.cgi = cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Dir:  abs,
		Env: []string{
			"PATH=" + os.Getenv("PATH"),
			"HOME=" + os.Getenv("HOME"),
			// The server's git reads no system-wide configuration, so a
			// machine's /etc/gitconfig cannot change what it serves.
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_PROJECT_ROOT=" + abs,
			"GIT_HTTP_EXPORT_ALL=1",
			// receive-pack is on whether or not REMOTE_USER is set.
			"GIT_CONFIG_COUNT=1",
			"GIT_CONFIG_KEY_0=http.receivepack",
			"GIT_CONFIG_VALUE_0=true",
		},
	}
	s.http = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ReadHeaderTimeout: time.Minute}
	go func() { s.served <- s.http.Serve(ln) }()
	return s, nil
}

// Close stops listening and waits for the requests in flight to finish
// (at most 30 seconds, then their connections are cut).
func (s *Server) Close() error {
	s.closing.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		defer cancel()
		err := s.http.Shutdown(ctx)
		if err != nil {
			err = errors.Join(err, s.http.Close())
		}
		if serr := <-s.served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		if err != nil {
			s.closeErr = fmt.Errorf("gitserver: close: %w", err)
		}
	})
	return s.closeErr
}

// CredentialURL is http://user:password@127.0.0.1:PORT (user and password
// escaped), the line a `git credential-store` file holds; without a user it
// is URL.
func (s *Server) CredentialURL() string {
	if s.opt.User == "" {
		return s.URL
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return s.URL
	}
	u.User = url.UserPassword(s.opt.User, s.opt.Password)
	return u.String()
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	return Stats{
		Requests:     int(s.requests.Load()),
		Unauthorized: int(s.unauthorized.Load()),
		UploadPack:   int(s.uploadPack.Load()),
		ReceivePack:  int(s.receivePack.Load()),
		InfoRefs:     int(s.infoRefs.Load()),
		BytesIn:      s.bytesIn.Load(),
		BytesOut:     s.bytesOut.Load(),
	}
}

// serveHTTP authenticates a request, counts it and hands it to
// git http-backend.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	cw := &countingWriter{ResponseWriter: w, n: &s.bytesOut}
	h := s.cgi
	if s.opt.User != "" {
		user, pass, ok := r.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(user), []byte(s.opt.User)) != 1 ||
			subtle.ConstantTimeCompare([]byte(pass), []byte(s.opt.Password)) != 1 {
			s.unauthorized.Add(1)
			// The client may be sending a body it wants to resend with
			// credentials; drain it so the connection can be reused.
			n, _ := io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
			s.bytesIn.Add(n)
			cw.Header().Set("WWW-Authenticate", `Basic realm="itr-test"`)
			http.Error(cw, "authentication required", http.StatusUnauthorized)
			return
		}
		h.Env = append(append([]string(nil), s.cgi.Env...), "REMOTE_USER="+user)
	}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
		s.uploadPack.Add(1)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack"):
		s.receivePack.Add(1)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs"):
		s.infoRefs.Add(1)
	}
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		// Passed on as HTTP_CONTENT_ENCODING: http-backend inflates it.
		s.gzipped.Add(1)
	}
	r.Body = &countingReader{r: r.Body, n: &s.bytesIn}
	if len(r.TransferEncoding) > 0 && r.TransferEncoding[0] == "chunked" {
		// git sends bodies larger than http.postBuffer chunked, and
		// net/http/cgi refuses chunked bodies (a CGI program learns the
		// length from CONTENT_LENGTH): spool it to a file first.
		s.chunked.Add(1)
		f, n, err := spool(r.Body)
		if err != nil {
			http.Error(cw, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		defer func() {
			f.Close()
			os.Remove(f.Name())
		}()
		r.Body = f
		r.ContentLength = n
		r.TransferEncoding = nil
	}
	h.ServeHTTP(cw, r)
}

// spool copies body into a new temporary file and returns it rewound,
// with its length.
func spool(body io.Reader) (*os.File, int64, error) {
	f, err := os.CreateTemp("", "itr-gitserver-body-*")
	if err != nil {
		return nil, 0, fmt.Errorf("spool: %w", err)
	}
	n, err := io.Copy(f, body)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, 0, fmt.Errorf("spool: %w", err)
	}
	return f, n, nil
}

// countingReader counts the bytes read through it into n.
type countingReader struct {
	r io.ReadCloser
	n *atomic.Int64
}

// Read reads from the underlying body and counts what it got.
func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// Close closes the underlying body.
func (c *countingReader) Close() error { return c.r.Close() }

// countingWriter counts the body bytes written through it into n.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

// Write writes to the underlying ResponseWriter and counts what it took.
func (c *countingWriter) Write(p []byte) (int, error) {
	k, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(k))
	return k, err
}

// Flush flushes the underlying ResponseWriter when it can.
func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying ResponseWriter.
func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
