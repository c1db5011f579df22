package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/cdppipe"
	"github.com/itr-dev/itr/internal/reportdemo"
	"github.com/itr-dev/itr/internal/servedemo"
)

// TestServeInBrowser opens itr serve's board of the demo task in a
// headless Chromium (over the DevTools pipe): every unit's card is on
// the page, a checkpoint made by another itr process shows on the page
// within a few seconds without a reload, the page requested nothing but
// its own origin and logged no problem (no script error, no load the
// Content-Security-Policy blocked), and SIGINT stops the server while the
// page's event stream is open.
func TestServeInBrowser(t *testing.T) {
	chromium := reportdemo.FindChromium()
	if chromium == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the browser test of itr serve is skipped")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the DevTools pipe needs file descriptors 3 and 4, which Windows does not pass")
	}
	r := reportRepo(t)
	_, err := r.Run(servedemo.Claim)
	require.NoError(t, err)
	srv, err := servedemo.Serve(r)
	require.NoError(t, err)
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", resp.Header.Get("Content-Security-Policy"))

	b, err := cdppipe.Start(chromium, filepath.Join(t.TempDir(), "profile"))
	require.NoError(t, err)
	defer b.Close()
	page, err := b.Open(srv.URL, 1280, 900)
	require.NoError(t, err, b.Log())
	if err := page.WaitFor(`document.getElementById("live") && document.getElementById("live").className === "live"`, 20*time.Second); err != nil {
		var where string
		_ = page.Eval(`location.href + " " + document.readyState + " " + document.documentElement.outerHTML.slice(0, 400)`, &where)
		t.Fatalf("the event stream did not open: %v\n%s\nrequests %v\nproblems %v", err, where, page.Requests(), page.Problems())
	}

	// Every unit's card, laid out with a size.
	for _, id := range append(append([]string{}, reportdemo.Units...), "T7") {
		var box struct{ W, H float64 }
		require.NoError(t, page.Eval(fmt.Sprintf(`(function(){var e=document.getElementById("unit-%s-%s"); if(!e) return {W:0,H:0}; var r=e.getBoundingClientRect(); return {W:r.width,H:r.height};})()`, reportdemo.Slug, id), &box))
		assert.Positive(t, box.W*box.H, "the card of %s is on the page", id)
	}
	var hostile string
	require.NoError(t, page.Eval(`document.getElementById("unit-user-auth-T7").textContent`, &hostile))
	assert.Contains(t, hostile, reportdemo.HostileTitle, "the hostile title is text")
	var scripts int
	require.NoError(t, page.Eval(`document.scripts.length`, &scripts))
	assert.Equal(t, 1, scripts, "only board.js: the hostile title made no element")

	var before string
	require.NoError(t, page.Eval(servedemo.StampJS, &before))
	var t3 string
	require.NoError(t, page.Eval(`document.getElementById("unit-user-auth-T3").closest(".column").dataset.status`, &t3))
	var holder string
	require.NoError(t, page.Eval(`document.querySelector("#unit-user-auth-T3 .holder").textContent`, &holder))
	assert.Equal(t, "held by agent-2", holder, "who holds what")

	// A checkpoint from another process.
	_, err = r.Run(servedemo.Checkpoint)
	require.NoError(t, err)
	committed := time.Now()
	assert.NoError(t, page.WaitFor(fmt.Sprintf(`%s !== %q`, servedemo.StampJS, before), 10*time.Second), "the board follows the checkpoint")
	t.Logf("the page changed %s after the checkpoint's process ended", time.Since(committed).Round(time.Millisecond))
	require.NoError(t, page.WaitFor(`document.getElementById("unit-user-auth-T3").closest(".column").dataset.status !== `+fmt.Sprintf("%q", t3), 10*time.Second))
	var reloads int
	require.NoError(t, page.Eval(`performance.getEntriesByType("navigation").length`, &reloads))
	assert.Equal(t, 1, reloads, "one navigation: the board changed in place")

	// Nothing from elsewhere.
	for _, u := range page.Requests() {
		assert.True(t, strings.HasPrefix(u, srv.URL), "a request to another origin: %s", u)
	}
	var urls []string
	require.NoError(t, page.Eval(`Array.from(document.querySelectorAll("[src],[href]")).map(function(e){return e.src||e.href})`, &urls))
	for _, u := range urls {
		assert.True(t, strings.HasPrefix(u, srv.URL), "the DOM references %s", u)
	}
	assert.Empty(t, page.Problems(), "console messages, exceptions or failed loads")

	// The report of the task, from the board's link.
	report, err := b.Open(srv.URL+"task/"+reportdemo.Slug, 1280, 900)
	require.NoError(t, err)
	var title string
	require.NoError(t, report.Eval(`document.getElementById("task-name").textContent`, &title))
	assert.Equal(t, "User authentication", title)
	assert.Empty(t, report.Problems(), "console messages, exceptions or failed loads on the report")

	// SIGINT while the page's stream is open: a graceful stop.
	code, err := srv.Stop(15 * time.Second)
	require.NoError(t, err, srv.Stderr())
	assert.Equal(t, 0, code, srv.Stderr())
	assert.Contains(t, srv.Stderr(), "itr serve: stopped")
}

// TestServeStopsOnSignal: itr serve answers, keeps an event stream open,
// and SIGTERM stops it at once with exit 0 (no browser needed).
func TestServeStopsOnSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows sends no SIGTERM to another process")
	}
	r := reportRepo(t)
	srv, err := servedemo.Serve(r)
	require.NoError(t, err)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "events")
	require.NoError(t, err)
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "retry: 1000\n", line)

	code, err := srv.StopWith(syscall.SIGTERM, 15*time.Second)
	require.NoError(t, err, srv.Stderr())
	assert.Equal(t, 0, code, srv.Stderr())
	_, err = io.ReadAll(resp.Body)
	assert.NoError(t, err, "the stream ended cleanly")
}
