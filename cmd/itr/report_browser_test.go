package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/reportdemo"
)

// reportRepo is the demo task (internal/reportdemo) built with the itr
// that TestMain puts on PATH, with a hostile unit title, and TMPDIR inside
// the test's folder.
func reportRepo(t *testing.T) *reportdemo.Repo {
	t.Helper()
	bin := itrBinary(t)
	base := t.TempDir()
	r, err := reportdemo.Build(bin, base, true)
	require.NoError(t, err)
	tmp := filepath.Join(base, "tmp")
	require.NoError(t, os.MkdirAll(tmp, 0o755))
	r.Env = append(r.Env, "TMPDIR="+tmp)
	return r
}

func TestReportCommand(t *testing.T) {
	r := reportRepo(t)

	out, err := r.Run([]string{"itr", "report", "--out", "report.html"})
	require.NoError(t, err)
	assert.Regexp(t, `^Wrote report\.html \(\d+ KB\)\n$`, out)
	page, err := os.ReadFile(filepath.Join(r.Dir, "report.html"))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(page, []byte("<!DOCTYPE html>")))
	entries, err := os.ReadDir(r.Dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.Contains(e.Name(), ".itr-"), "no temporary file left: %s", e.Name())
	}

	// stdout is a pipe: the page goes there.
	cmd := exec.Command(r.Itr, "report")
	cmd.Dir, cmd.Env = r.Dir, r.Env
	piped, err := cmd.Output()
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(piped, []byte("<!DOCTYPE html>")))
	assert.Contains(t, string(piped), `id="graph-svg"`)

	// --json says where it went.
	out, err = r.Run([]string{"itr", "report", "--json", "--out", "r2.html"})
	require.NoError(t, err)
	var v struct {
		Task  string `json:"task"`
		Out   string `json:"out"`
		Bytes int    `json:"bytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	assert.Equal(t, reportdemo.Slug, v.Task)
	assert.Equal(t, "r2.html", v.Out)
	fi, err := os.Stat(filepath.Join(r.Dir, "r2.html"))
	require.NoError(t, err)
	assert.EqualValues(t, fi.Size(), v.Bytes)

	// --json without --out: the temporary folder.
	out, err = r.Run([]string{"itr", "report", "--json"})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	assert.Equal(t, "itr-report-"+reportdemo.Slug+".html", filepath.Base(v.Out))
	_, err = os.Stat(v.Out)
	assert.NoError(t, err)
}

// TestReportInBrowser opens the report of the demo task in a headless
// Chromium: the DOM it builds holds the header, a box per unit in the
// graph, the timeline, the guardrails and the reconcile fix, the hostile
// title as text; the screenshot decodes at the window's size; and the
// browser logs no console message (no script error, no load the
// Content-Security-Policy blocked) and no failed request.
func TestReportInBrowser(t *testing.T) {
	chromium := reportdemo.FindChromium()
	if chromium == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the browser test of itr report is skipped")
	}
	r := reportRepo(t)
	_, err := r.Run([]string{"itr", "report", "--out", "report.html"})
	require.NoError(t, err)
	page := filepath.Join(r.Dir, "report.html")
	url := "file://" + filepath.ToSlash(page)
	dir := t.TempDir()

	// The detector sees what it must: a page that breaks the rules logs
	// its blocked loads.
	bad := filepath.Join(dir, "bad.html")
	require.NoError(t, os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"></head>`+
		`<body><img src="http://example.com/x.png"><script>console.error("boom")</script></body></html>`), 0o644))
	_, stderr, err := reportdemo.Chromium(chromium, filepath.Join(dir, "profile-bad"), 60*time.Second, []string{"--dump-dom"}, "file://"+filepath.ToSlash(bad))
	require.NoError(t, err, stderr)
	require.NotEmpty(t, reportdemo.Problems(stderr), "chromium logs a blocked load on stderr; the check below would see nothing otherwise:\n%s", stderr)

	// a) The DOM.
	dom, stderr, err := reportdemo.Chromium(chromium, filepath.Join(dir, "profile-dom"), 60*time.Second, []string{"--dump-dom"}, url)
	require.NoError(t, err, stderr)
	assert.Empty(t, reportdemo.Problems(stderr), "console messages or failed loads")
	require.Contains(t, dom, `id="report-header"`)
	assert.Contains(t, dom, `<h1 id="task-name">User authentication</h1>`)
	assert.Contains(t, dom, `id="goal"`)
	assert.Regexp(t, `<svg id="graph-svg"[^>]*>`, dom)
	nodes := regexp.MustCompile(`<g class="node [^"]*" id="node-(T\d+)"`).FindAllStringSubmatch(dom, -1)
	var ids []string
	for _, m := range nodes {
		ids = append(ids, m[1])
	}
	assert.Equal(t, append(append([]string{}, reportdemo.Units...), "T7"), ids, "a box per unit in the graph")
	assert.Equal(t, 6, strings.Count(dom, `<path class="edge`), "an edge per dependency")
	assert.Contains(t, dom, `class="edge critical"`)
	for _, id := range []string{"timeline", "task-log", "guardrails", "reconcile"} {
		assert.Contains(t, dom, `<section id="`+id+`">`)
	}
	timeline := section(dom, "timeline")
	for _, want := range []string{`id="unit-T1"`, "Iteration 1", "Iteration 5", "<code>false</code>: failed: exit 1", "<code>true</code>: passed: exit 0",
		"run failed", "run passed", "signal T1_DONE", "verified by Ana (code review)", "Waiting for the product team's wording", `class="entry kind-blocked"`} {
		assert.Contains(t, timeline, want)
	}
	assert.Contains(t, section(dom, "guardrails"), "Run tests before signalling")
	assert.Contains(t, section(dom, "reconcile"), "T5.status: recorded \"done\", derived \"pending\"")
	assert.Contains(t, section(dom, "task-log"), "Sessions use a fake clock in tests from now on")
	// The hostile title is text: escaped in the serialised DOM, no element.
	assert.Contains(t, dom, "&lt;script&gt;alert(1)&lt;/script&gt; \"&gt;&lt;img src=x onerror=alert(1)&gt;")
	assert.NotContains(t, strings.ToLower(dom), "<script")
	assert.NotContains(t, strings.ToLower(dom), "<img")
	assert.NotRegexp(t, `(?i)\b(src|href)="(https?:)?//`, dom)

	// b) The screenshot.
	shot := filepath.Join(dir, "out.png")
	_, stderr, err = reportdemo.Chromium(chromium, filepath.Join(dir, "profile-shot"), 60*time.Second,
		[]string{"--screenshot=" + shot, "--window-size=1280,1800", "--force-device-scale-factor=1"}, url)
	require.NoError(t, err, stderr)
	// c) Nothing logged.
	assert.Empty(t, reportdemo.Problems(stderr), "console messages or failed loads")
	data, err := os.ReadFile(shot)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, 1280, img.Bounds().Dx())
	assert.Equal(t, 1800, img.Bounds().Dy())
}

// section is the text of <section id="id"> in a serialised DOM.
func section(dom, id string) string {
	i := strings.Index(dom, `<section id="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := dom[i:]
	if j := strings.Index(rest, "</section>"); j >= 0 {
		return rest[:j]
	}
	return rest
}
