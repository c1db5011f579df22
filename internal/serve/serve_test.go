package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testgit"
	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/internal/workspace/store"
)

// serveRepo is a repository with the task demo planned (T1, T2, T3).
func serveRepo(t *testing.T) (string, *testrepo.Clock) {
	t.Helper()
	testgit.Isolate(t)
	clock := testrepo.NewClock(testrepo.T0)
	dir := t.TempDir()
	testgit.Git(t, dir, "init", "-q")
	testgit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial commit")
	ws := open(t, dir, clock)
	_, err := ws.Init(workspace.InitRequest{Name: "Demo <b>task</b>", Slug: testrepo.Slug})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(testrepo.TaskFile(testrepo.Slug, store.TasksFile))), []byte(testrepo.ThreeUnits), 0o644))
	_, err = ws.Plan(workspace.PlanRequest{Slug: testrepo.Slug})
	require.NoError(t, err)
	testgit.Check(t, dir)
	return dir, clock
}

func open(t *testing.T, dir string, clock *testrepo.Clock) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(workspace.Options{Dir: dir, Agent: "tester", Now: clock.Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	return ws
}

// start serves the board of dir on a loopback httptest server, watching
// every 20 ms until the test ends.
func start(t *testing.T, dir string, clock *testrepo.Clock, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	opts.Open = func() (*workspace.Workspace, error) {
		return workspace.Open(workspace.Options{Dir: dir, Agent: "tester", Now: clock.Now})
	}
	opts.Poll = 20 * time.Millisecond
	s := New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.BaseContext = func(_ net.Listener) context.Context { return ctx }
	hs.Start()
	go s.Watch(ctx)
	t.Cleanup(func() { cancel(); hs.Close() })
	return s, hs
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url) //nolint:gosec // the test's own server
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func TestBoardPage(t *testing.T) {
	dir, clock := serveRepo(t)
	before := testgit.Snap(t, dir)
	_, hs := start(t, dir, clock, Options{})

	resp, page := get(t, hs.URL+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	assert.Equal(t, boardCSP, resp.Header.Get("Content-Security-Policy"))
	assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, page, `<section class="task" id="task-demo">`)
	assert.Contains(t, page, "Demo &lt;b&gt;task&lt;/b&gt;", "a task's name is text")
	for _, id := range []string{"T1", "T2", "T3"} {
		assert.Contains(t, page, `id="unit-demo-`+id+`"`)
	}
	assert.Contains(t, page, `class="next-action"`)
	assert.Contains(t, page, `<a href="/task/demo">`)

	// Nothing from elsewhere: every src and href is a path of this
	// origin or a fragment, and no script or style is inline.
	for _, m := range regexp.MustCompile(`(?i)\b(src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		assert.Regexp(t, `^(/[^/]|#)`, m[2], "a same-origin URL")
	}
	assert.Equal(t, 1, strings.Count(page, "<script"), "one script")
	assert.Contains(t, page, `<script src="/board.js" defer></script>`)
	assert.NotContains(t, page, "<style")
	assert.NotContains(t, page, "style=")

	for path, typ := range map[string]string{"/board.css": "text/css", "/board.js": "text/javascript", "/favicon.svg": "image/svg+xml"} {
		resp, body := get(t, hs.URL+path)
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), typ), path)
		assert.NotRegexp(t, `https?://`, strings.ReplaceAll(body, "http://www.w3.org/2000/svg", ""), "%s names no other origin", path)
	}

	resp, body := get(t, hs.URL+"/board.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var b workspace.Board
	require.NoError(t, json.Unmarshal([]byte(body), &b))
	require.Len(t, b.Tasks, 1)
	assert.Equal(t, "demo", b.Tasks[0].Slug)
	assert.Equal(t, 3, b.Tasks[0].Total)

	resp, _ = get(t, hs.URL+"/nothing-here")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	testgit.Unchanged(t, dir, before)
	testgit.Check(t, dir)
}

func TestReportPage(t *testing.T) {
	dir, clock := serveRepo(t)
	_, hs := start(t, dir, clock, Options{})
	want, err := open(t, dir, clock).Report("demo")
	require.NoError(t, err)

	resp, page := get(t, hs.URL+"/task/demo")
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	assert.Equal(t, string(want), page, "the page itr report writes")
	assert.Equal(t, reportCSP, resp.Header.Get("Content-Security-Policy"))

	for _, bad := range []string{"nope", "..%2f..%2fetc", "ARCHIVE"} {
		resp, body := get(t, hs.URL+"/task/"+bad)
		assert.GreaterOrEqual(t, resp.StatusCode, 400, bad)
		assert.NotEqual(t, http.StatusOK, resp.StatusCode, bad)
		assert.Contains(t, body, "itr serve: ", bad)
	}
	resp, _ = get(t, hs.URL+"/task/nope")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestReadOnly: every method but GET and HEAD is refused with 405 and
// changes nothing.
func TestReadOnly(t *testing.T) {
	dir, clock := serveRepo(t)
	before := testgit.Snap(t, dir)
	_, hs := start(t, dir, clock, Options{})
	for _, path := range []string{"/", "/events", "/task/demo", "/board.json", "/anything"} {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions, "PROPFIND"} {
			req, err := http.NewRequest(m, hs.URL+path, strings.NewReader("x=1"))
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "%s %s", m, path)
			assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
		}
	}
	for _, path := range []string{"/", "/events", "/task/demo"} {
		req, err := http.NewRequest(http.MethodHead, hs.URL+path, nil)
		require.NoError(t, err)
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		require.NoError(t, err, "HEAD %s answers and ends", path)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "HEAD %s", path)
	}
	testgit.Unchanged(t, dir, before)
}

// TestHostGuard: a request addressed to another host (DNS rebinding) is
// refused unless AllowRemote.
func TestHostGuard(t *testing.T) {
	dir, clock := serveRepo(t)
	for _, allow := range []bool{false, true} {
		_, hs := start(t, dir, clock, Options{AllowRemote: allow})
		for host, loop := range map[string]bool{"evil.example:80": false, "localhost:1": true, "[::1]:8": true, "127.0.0.9": true, "10.0.0.1:7420": false} {
			req, err := http.NewRequest(http.MethodGet, hs.URL+"/board.css", nil)
			require.NoError(t, err)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			want := http.StatusOK
			if !loop && !allow {
				want = http.StatusMisdirectedRequest
			}
			assert.Equal(t, want, resp.StatusCode, "host %s, allow remote %v", host, allow)
		}
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:7420": true, "127.1.2.3": true, "[::1]:80": true, "::1": true, "localhost": true, "LOCALHOST:9": true,
		"": false, "0.0.0.0": false, "[::]:80": false, "10.0.0.1": false, "example.com": false, "localhost.example.com": false, "127.0.0.1.nip.io": false,
	} {
		assert.Equal(t, want, LoopbackHost(host), host)
	}
}

// events reads the stamps of an event stream into a channel.
func events(t *testing.T, url string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/events", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	out := make(chan string, 16)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- d
			}
		}
	}()
	return out
}

// next waits for a stamp other than old.
func next(t *testing.T, ch <-chan string, old, what string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case s, ok := <-ch:
			require.True(t, ok, "the stream ended before %s", what)
			if s != old {
				return s
			}
		case <-deadline:
			t.Fatalf("no new stamp after %s", what)
		}
	}
}

// TestEventsFollowTheRepository: the stream sends the stamp at once, and
// a new one after an itr checkpoint, a plain git commit, a fetch (a
// remote-tracking branch moves) and a hand edit of a task file; the board
// read after the checkpoint shows it.
func TestEventsFollowTheRepository(t *testing.T) {
	dir, clock := serveRepo(t)
	s, hs := start(t, dir, clock, Options{})
	require.NoError(t, s.Check())
	ch := events(t, hs.URL)
	s0 := next(t, ch, "", "connecting")
	assert.Equal(t, s.Stamp(), s0)

	_, err := open(t, dir, clock).Checkpoint(workspace.CheckpointRequest{Slug: "demo", Unit: "T1", Did: "first pass", Remaining: "the rest"})
	require.NoError(t, err)
	s1 := next(t, ch, s0, "a checkpoint")
	_, page := get(t, hs.URL+"/")
	assert.Contains(t, page, `data-stamp="`+s1+`"`)
	assert.Regexp(t, `<div class="column st-in_progress"[^>]*>\s*<h3>.*</h3>\s*<ul>\s*<li class="card" id="unit-demo-T1"`, page)

	testgit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "plain git commit")
	s2 := next(t, ch, s1, "a git commit")

	testgit.Git(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD")
	s3 := next(t, ch, s2, "a fetch")

	f := filepath.Join(dir, filepath.FromSlash(testrepo.TaskFile("demo", "context.md")))
	require.NoError(t, os.WriteFile(f, []byte("# Context\nedited by hand while the board was open\n"), 0o644))
	next(t, ch, s3, "a hand edit")
}

// TestEventsEndOnShutdown: cancelling the server's base context ends an
// open stream, so that a graceful shutdown does not wait on it.
func TestEventsEndOnShutdown(t *testing.T) {
	dir, clock := serveRepo(t)
	s := New(Options{Open: func() (*workspace.Workspace, error) {
		return workspace.Open(workspace.Options{Dir: dir, Now: clock.Now})
	}})
	require.NoError(t, s.Check())
	ctx, cancel := context.WithCancel(context.Background())
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.BaseContext = func(_ net.Listener) context.Context { return ctx }
	hs.Start()
	defer hs.Close()
	ch := events(t, hs.URL)
	next(t, ch, "", "connecting")
	cancel()
	select {
	case _, ok := <-ch:
		for ok {
			_, ok = <-ch
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream stayed open after the server's context ended")
	}
}

// TestBoardTemplate fills the page with every part a board can have: a
// hold, claims, a failed check with its exit code, warnings, a task that
// cannot be read and an archived one; every text is escaped.
func TestBoardTemplate(t *testing.T) {
	exit := 3
	b := &workspace.Board{Repo: "app", Root: ".claude/iterative", Stamp: "abc", Read: "2026-01-14T09:00:00Z",
		Tasks: []workspace.BoardTask{{
			Slug: "one", Name: "One <i>", Done: 1, Total: 2, Percent: 50, Next: "resolve the block",
			Hold:     &workspace.Hold{Code: "none-ready", Reason: "T2 is blocked", Clear: "unblock it"},
			Actions:  []workspace.Action{{Op: "unblock", Unit: "T2", Command: `itr unblock T2`}},
			Claims:   []store.Claim{{Unit: "T1", Agent: "ana", Until: "2026-01-14T11:00:00Z", StolenFrom: "bo"}},
			Checks:   []workspace.BoardCheck{{Unit: "T1", Command: "go test ./...", Outcome: "failed", ExitCode: &exit}},
			Warnings: []string{"state.json was edited <by hand>", "run `itr reconcile`"},
		}, {Slug: "two", Name: "two", Error: "state.json: line 1: <bad>"}},
		Archived: []workspace.BoardArchive{{Slug: "old", Name: "Old", Done: 3, Total: 3, Outcome: "complete"}},
	}
	var out strings.Builder
	require.NoError(t, New(Options{}).page.Execute(&out, b))
	page := out.String()
	for _, want := range []string{
		"One &lt;i&gt;", "<b>Held (none-ready):</b> T2 is blocked — unblock it", "<code>itr unblock T2</code>",
		"<b>T1</b> held by ana until", "(taken over from bo)", "<code>go test ./...</code> failed (exit 3)",
		"state.json was edited &lt;by hand&gt;", "<li>run <code>itr reconcile</code></li>", `<p class="error">Cannot be read: state.json: line 1: &lt;bad&gt;</p>`,
		`<a href="/task/old">Old</a>`, "3/3 done · complete",
	} {
		assert.Contains(t, page, want)
	}
}

func TestCodeSpans(t *testing.T) {
	for in, want := range map[string]string{
		"run `itr unblock T6` now": "run <code>itr unblock T6</code> now",
		"`a<b>` and `c&d`":         "<code>a&lt;b&gt;</code> and <code>c&amp;d</code>",
		"one ` tick <i>":           "one ` tick &lt;i&gt;",
		"plain":                    "plain",
		"``":                       "<code></code>",
	} {
		assert.Equal(t, want, string(CodeSpans(in)), in)
	}
}
