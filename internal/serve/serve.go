// Package serve is the HTTP front end of `itr serve`: a live, read-only
// board of every task of a repository (package workspace's Board) and each
// task's report (the page `itr report` writes), pushed to the browser by
// Server-Sent Events when the repository changes. It answers GET and HEAD
// only, loads nothing from elsewhere (its Content-Security-Policy allows
// its own origin only) and, unless told otherwise, answers only requests
// addressed to a loopback host.
package serve

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/itr-dev/itr/internal/workspace"
)

//go:embed assets
var assets embed.FS

// The Content-Security-Policy of the board: its own origin only, no inline
// script or style, no form, no frame, no base.
const boardCSP = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// The Content-Security-Policy of a report page: the report's own (it loads
// nothing and runs no script; its CSS is inline), with no frame, form or
// base either.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// DefaultPoll is how often the server looks for a change.
const DefaultPoll = 250 * time.Millisecond

// keepAlive is how often an idle event stream gets a comment, so that
// proxies and browsers keep it open.
const keepAlive = 15 * time.Second

// Options configure a Server.
type Options struct {
	// Open opens the workspace afresh; each read (a stamp, the board, a
	// report) opens its own and closes it.
	Open func() (*workspace.Workspace, error)
	// Poll is how often Watch takes the stamp; 0 is DefaultPoll.
	Poll time.Duration
	// AllowRemote answers requests addressed to any host; without it
	// only a loopback host (127.0.0.1, ::1, localhost) is answered, which
	// keeps a web page elsewhere from reading the board through DNS
	// rebinding.
	AllowRemote bool
	// Logf, when set, is told of a stamp that cannot be taken (once per
	// different message).
	Logf func(format string, args ...any)
}

// Server serves the board. Its zero value is not usable: call New.
type Server struct {
	opts Options
	page *template.Template

	mu    sync.Mutex
	stamp string
	subs  map[chan string]struct{}
}

// New makes a server.
func New(opts Options) *Server {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	page := template.Must(template.New("board.tmpl.html").Funcs(template.FuncMap{
		"statusWord": func(s string) string { return strings.ReplaceAll(s, "_", " ") },
		"code":       CodeSpans,
	}).ParseFS(assets, "assets/board.tmpl.html"))
	return &Server{opts: opts, page: page, subs: map[chan string]struct{}{}}
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.board)
	mux.HandleFunc("GET /board.json", s.boardJSON)
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /task/{slug}", s.report)
	for name, typ := range map[string]string{"board.css": "text/css; charset=utf-8", "board.js": "text/javascript; charset=utf-8", "favicon.svg": "image/svg+xml"} {
		data, err := assets.ReadFile("assets/" + name)
		if err != nil {
			panic(err) // embedded: cannot happen
		}
		mux.HandleFunc("GET /"+name, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", typ)
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(data)
		})
	}
	return s.guard(mux)
}

// guard answers what the board never does: a method other than GET or
// HEAD (405), a request addressed to a host that is not loopback (421);
// and sets the headers every answer carries.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", boardCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "itr serve is read-only: it answers GET and HEAD only", http.StatusMethodNotAllowed)
			return
		}
		if !s.opts.AllowRemote && !LoopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("itr serve answers requests to 127.0.0.1, ::1 or localhost only, not to %q (start it with --allow-remote to serve other hosts)", r.Host), http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// LoopbackHost reports whether host (a Host header or an address, with or
// without a port) names this machine's loopback: localhost, or an IP
// address in 127.0.0.0/8 or ::1.
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CodeSpans is text escaped for HTML, with each span between backticks
// (a command line in the advisor's words: `itr unblock T6`) as <code>;
// text with an odd number of backticks is only escaped.
func CodeSpans(text string) template.HTML {
	parts := strings.Split(text, "`")
	if len(parts)%2 == 0 {
		return template.HTML(template.HTMLEscapeString(text)) //nolint:gosec // G203: escaped just now
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
			continue
		}
		b.WriteString(template.HTMLEscapeString(p))
	}
	return template.HTML(b.String()) //nolint:gosec // G203: every part escaped above
}

// read opens the workspace, calls fn with it and closes it.
func (s *Server) read(fn func(ws *workspace.Workspace) error) error {
	ws, err := s.opts.Open()
	if err != nil {
		return err
	}
	defer ws.Close()
	return fn(ws)
}

// readBoard reads the board afresh.
func (s *Server) readBoard() (*workspace.Board, error) {
	var b *workspace.Board
	err := s.read(func(ws *workspace.Workspace) error {
		var err error
		b, err = ws.Board()
		return err
	})
	return b, err
}

func (s *Server) board(w http.ResponseWriter, r *http.Request) {
	b, err := s.readBoard()
	if err != nil {
		http.Error(w, "itr serve: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.page.Execute(w, b); err != nil {
		http.Error(w, "itr serve: "+err.Error(), http.StatusInternalServerError)
	}
}

func (s *Server) boardJSON(w http.ResponseWriter, r *http.Request) {
	b, err := s.readBoard()
	if err != nil {
		http.Error(w, "itr serve: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(b)
}

// report is a task's report page, rendered on each request.
func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	var page []byte
	err := s.read(func(ws *workspace.Workspace) error {
		var err error
		page, err = ws.Report(slug)
		return err
	})
	if err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, workspace.ErrNoTask) {
			code = http.StatusNotFound
		}
		http.Error(w, "itr serve: "+err.Error(), code)
		return
	}
	w.Header().Set("Content-Security-Policy", reportCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(page)
}

// events is the stream of stamps: the current one at once, then each new
// one as Watch sees it, until the client goes or the server stops.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "itr serve: streaming is not supported here", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return // the headers only: a stream has no end to wait for
	}
	ch, current := s.subscribe()
	defer s.unsubscribe(ch)
	if _, err := fmt.Fprintf(w, "retry: 1000\n\n"); err != nil {
		return
	}
	send := func(stamp string) error {
		if stamp == "" {
			return nil
		}
		_, err := fmt.Fprintf(w, "event: stamp\ndata: %s\n\n", stamp)
		fl.Flush()
		return err
	}
	if err := send(current); err != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case stamp := <-ch:
			if send(stamp) != nil {
				return
			}
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// subscribe adds a listener of new stamps and gives the current one.
func (s *Server) subscribe() (chan string, string) {
	ch := make(chan string, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs[ch] = struct{}{}
	return ch, s.stamp
}

func (s *Server) unsubscribe(ch chan string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.subs, ch)
}

// Stamp is the newest stamp Watch took ("" before the first).
func (s *Server) Stamp() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stamp
}

// publish records a new stamp and tells every listener; a listener that
// has not taken the previous one gets only the newest.
func (s *Server) publish(stamp string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if stamp == s.stamp {
		return
	}
	s.stamp = stamp
	for ch := range s.subs {
		select {
		case <-ch:
		default:
		}
		ch <- stamp
	}
}

// Check takes the stamp once and publishes it when it is new. A stamp
// that cannot be taken publishes one of its error, so that browsers read
// the board again and show it.
func (s *Server) Check() error {
	var stamp string
	err := s.read(func(ws *workspace.Workspace) error {
		var err error
		stamp, err = ws.BoardStamp()
		return err
	})
	if err != nil {
		s.publish("error")
		return err
	}
	s.publish(stamp)
	return nil
}

// Watch takes the stamp every Poll until ctx ends.
func (s *Server) Watch(ctx context.Context) {
	last := ""
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	for {
		if err := s.Check(); err != nil && err.Error() != last && s.opts.Logf != nil {
			last = err.Error()
			s.opts.Logf("itr serve: %v", err)
		} else if err == nil {
			last = ""
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Run serves s on ln and watches the repository until ctx ends (a signal,
// for itr serve), then shuts down: the event streams end, requests under
// way get up to five seconds, and the listener closes. ready is called
// once the board can be served, before the first request is taken. An
// error of serving itself (not the shutdown ctx asked for) is returned.
func (s *Server) Run(ctx context.Context, ln net.Listener, ready func() error) error {
	if err := s.Check(); err != nil {
		ln.Close()
		return err
	}
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	srv.RegisterOnShutdown(cancel) // ends the event streams
	go s.Watch(base)
	if err := ready(); err != nil {
		ln.Close()
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shut, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	err := srv.Shutdown(shut)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	return err
}
