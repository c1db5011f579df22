package cdppipe

import (
	"bytes"
	"image/png"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/reportdemo"
)

// TestPage opens a page of a local server: Eval reads the DOM, WaitFor
// sees a change the page makes, Requests lists what it loaded (a blocked
// name is not resolved), Problems its console message and failed load,
// and Screenshot is a PNG of the page's size.
func TestPage(t *testing.T) {
	chromium := reportdemo.FindChromium()
	if chromium == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the DevTools pipe needs file descriptors 3 and 4, which Windows does not pass")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!DOCTYPE html><html><body><p id="p">one</p><img src="http://elsewhere.example/x.png"><script src="/s.js"></script></body></html>`))
	})
	mux.HandleFunc("/s.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write([]byte(`console.error("boom"); setTimeout(function(){ document.getElementById("p").textContent = "two"; }, 200);`))
	})
	hs := httptest.NewServer(mux)
	defer hs.Close()

	b, err := Start(chromium, t.TempDir())
	require.NoError(t, err)
	defer b.Close()
	p, err := b.Open(hs.URL+"/", 400, 300)
	require.NoError(t, err, b.Log())
	require.NoError(t, p.WaitFor(`document.getElementById("p").textContent === "two"`, 10*time.Second))
	var n int
	require.NoError(t, p.Eval(`document.querySelectorAll("p").length`, &n))
	assert.Equal(t, 1, n)
	assert.Error(t, p.Eval(`nosuchname()`, nil), "an exception is an error")

	reqs := p.Requests()
	assert.Contains(t, reqs, hs.URL+"/")
	assert.Contains(t, reqs, hs.URL+"/s.js")
	problems := strings.Join(p.Problems(), "\n")
	assert.Contains(t, problems, "boom", "the console message")
	assert.Contains(t, problems, "ERR_NAME_NOT_RESOLVED", "the load from elsewhere failed")

	shot, err := p.Screenshot()
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	assert.Equal(t, 400, img.Bounds().Dx())
}
