package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/reportdemo"
)

// fitProbe is a script added to a copy of the report (the report holds
// none, and its Content-Security-Policy forbids one: the copy's allows
// inline script) that measures the page as laid out and writes the
// numbers into the DOM for --dump-dom to carry out.
const fitProbe = `<script>
addEventListener("load", () => {
  const r = e => { const b = e.getBoundingClientRect(); return {l: b.left, r: b.right, t: b.top, b: b.bottom, w: b.width, h: b.height}; };
  const wrap = document.querySelector(".graph-wrap"), svg = document.getElementById("graph-svg");
  const boxes = {};
  for (const g of document.querySelectorAll("g.node")) boxes[g.dataset.unit] = r(g.querySelector("rect"));
  const out = {window: innerWidth, docScroll: document.documentElement.scrollWidth,
    panel: r(wrap), panelScroll: wrap.scrollWidth, panelClient: wrap.clientWidth, svg: r(svg), boxes};
  const pre = document.createElement("pre");
  pre.id = "fit-probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

type fitRect struct{ L, R, T, B, W, H float64 }

type fitResult struct {
	Window      float64            `json:"window"`
	DocScroll   float64            `json:"docScroll"`
	Panel       fitRect            `json:"panel"`
	PanelScroll float64            `json:"panelScroll"`
	PanelClient float64            `json:"panelClient"`
	SVG         fitRect            `json:"svg"`
	Boxes       map[string]fitRect `json:"boxes"`
}

// TestReportGraphFitsInBrowser lays the report of the checkout demo (a
// six-layer plan of twelve units) out in a headless Chromium at 1,280 and
// 1,920 pixels: the graph is no wider than its panel, neither the panel
// nor the page scrolls sideways, and every unit's box is on screen,
// inside the panel, at a readable size, overlapping no other box.
func TestReportGraphFitsInBrowser(t *testing.T) {
	chromium := reportdemo.FindChromium()
	if chromium == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the browser test of the report's layout is skipped")
	}
	base := t.TempDir()
	r, err := reportdemo.BuildCheckout(itrBinary(t), base)
	require.NoError(t, err)
	page := filepath.Join(base, "report.html")
	_, err = r.Run([]string{"itr", "report", "--out", page})
	require.NoError(t, err)
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	text := strings.Replace(string(data), `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`,
		`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'unsafe-inline'"`, 1)
	require.NotEqual(t, string(data), text, "the report's Content-Security-Policy is where the probe expects it")
	probe := filepath.Join(base, "probe.html")
	require.NoError(t, os.WriteFile(probe, []byte(strings.Replace(text, "</body>", fitProbe+"</body>", 1)), 0o644))

	for _, width := range []int{1280, 1920} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			dom, stderr, err := reportdemo.Chromium(chromium, filepath.Join(base, fmt.Sprint("profile-", width)), 90*time.Second,
				[]string{"--dump-dom", "--virtual-time-budget=5000", fmt.Sprintf("--window-size=%d,1600", width), "--force-device-scale-factor=1"},
				"file://"+filepath.ToSlash(probe))
			require.NoError(t, err, stderr)
			m := regexp.MustCompile(`<pre id="fit-probe">([^<]*)</pre>`).FindStringSubmatch(dom)
			require.NotNil(t, m, "the probe wrote no numbers:\n%s", stderr)
			var got fitResult
			require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &got))
			t.Logf("window %.0f: panel %.0f wide (scrolls to %.0f), graph %.0f wide", got.Window, got.Panel.W, got.PanelScroll, got.SVG.W)
			assert.InDelta(t, width, got.Window, 1, "the window is %d pixels wide", width)
			assert.LessOrEqual(t, got.DocScroll, got.Window, "the page does not scroll sideways")
			assert.LessOrEqual(t, got.PanelScroll, got.PanelClient, "the graph's panel does not scroll sideways")
			assert.LessOrEqual(t, got.SVG.W, got.Panel.W, "the graph is no wider than its panel")
			assert.GreaterOrEqual(t, got.SVG.L, got.Panel.L-0.5)
			assert.LessOrEqual(t, got.SVG.R, got.Panel.R+0.5)
			require.Len(t, got.Boxes, len(reportdemo.CheckoutUnits), "a box per unit")
			for _, id := range reportdemo.CheckoutUnits {
				b, ok := got.Boxes[id]
				if !assert.True(t, ok, "%s has a box", id) {
					continue
				}
				assert.GreaterOrEqual(t, b.L, got.Panel.L-0.5, "%s starts inside the panel", id)
				assert.LessOrEqual(t, b.R, got.Panel.R+0.5, "%s ends inside the panel", id)
				assert.GreaterOrEqual(t, b.L, 0.0, "%s is on screen", id)
				assert.LessOrEqual(t, b.R, got.Window, "%s is on screen", id)
				assert.GreaterOrEqual(t, b.W, 120.0, "%s's box is readable (at least 120 pixels wide)", id)
				for other, o := range got.Boxes {
					if other != id {
						assert.False(t, b.L < o.R && o.L < b.R && b.T < o.B && o.T < b.B, "%s and %s overlap", id, other)
					}
				}
			}
		})
	}
}
