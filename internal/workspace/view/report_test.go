package view

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/testrepo"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/state"
)

// hostilePlan names its units with text that would be markup if a page
// pasted it unescaped.
const hostilePlan = `# Hostile - Tasks

## Tasks

- [ ] **T1**: <script>alert(1)</script>
  - Max iterations: 6
- [ ] **T2**: "><img src=x onerror=alert(1)>
  - Depends: T1
- [ ] **T3**: Docs at <a href="https://evil.example/">here</a>
  - Depends: T1
- [ ] **T4**: Ship it
  - Depends: T2, T3
`

// runEntry is an iteration entry recording a verification run, as
// checkpoint --verify -- CMD writes it.
func (b *task) runEntry(unit, did, cmd, result string, signal bool) *task {
	b.f.t.Helper()
	var extra []string
	if signal {
		extra = append(extra, "Signal", unit+"_DONE")
	}
	e := testrepo.Iteration(b.state, unit, b.f.tick(), did, append(extra, "Run", "`"+cmd+"`", "Run result", result)...)
	return b.record(e, store.EventIteration, unit+" iteration "+strconv.Itoa(e.Iteration)+": "+did)
}

// srcHref finds src= and href= attributes that name a web address.
var srcHref = regexp.MustCompile(`(?i)\b(?:src|href|xlink:href)\s*=\s*["']?\s*(?:https?:|//)`)

func TestReportEscapesAndIsSelfContained(t *testing.T) {
	f := newFixture(t)
	b := f.newTask("hostile", `Evil <script>alert(1)</script> task`, state.Development).planned(hostilePlan)
	b.runEntry("T1", "tried <b>bold</b> things", "false", "failed: exit 1 after 4ms; started 2026-01-14T10:03:00Z at abc1234; tree clean", false)
	b.runEntry("T1", "fixed it", "go test ./...", "passed: exit 0 after 1.2s; started 2026-01-14T10:04:00Z at abc1234; tree clean", true)
	b.checkpoint("T1", "re-checked", iterOpts{signal: true})
	b.checkpoint("T1", "reviewed", iterOpts{verification: "passed"})
	b.block("T3", `waiting for "legal" <approval>`)
	b.guardrail("Never <script> in titles", "T1 iteration 2")
	e := progresslog.Entry{Kind: progresslog.KindReconciled, Stamp: f.tick(), Fields: []progresslog.Field{
		{Name: "Found", Value: "T2.status: recorded \"done\", derived \"pending\" (from progress.md)\nT2.iterations_used: recorded 3, derived 0"}}}
	b.record(e, store.EventReconciled, "reconcile")

	page, err := Report(f.st, "hostile", f.now)
	require.NoError(t, err)
	html := string(page)

	low := strings.ToLower(html)
	assert.NotContains(t, low, "<script", "no script element, even from a title")
	assert.NotContains(t, low, "<img", "no element from a title")
	assert.NotContains(t, low, "<a href=\"https", "no link from a title")
	assert.NotContains(t, low, "<b>bold", "no markup from a Did")
	assert.Empty(t, srcHref.FindAllString(html, -1), "no web address in src or href")
	assert.NotContains(t, low, "@import")
	assert.NotContains(t, low, "url(http")
	assert.Contains(t, html, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`)
	assert.Contains(t, html, `<meta name="viewport" content="width=device-width, initial-scale=1">`)
	assert.Contains(t, html, "@media print")
	assert.Contains(t, html, "@media (max-width")

	// The hostile texts are there, as text.
	assert.Contains(t, html, "&lt;script&gt;alert(1)&lt;/script&gt;")
	assert.Contains(t, html, "&lt;img src=x onerror=alert(1)&gt;")
	assert.Contains(t, html, "&lt;approval&gt;")

	// The header.
	assert.Contains(t, html, `id="report-header"`)
	assert.Contains(t, html, "Evil &lt;script&gt;alert(1)&lt;/script&gt; task")
	assert.Contains(t, html, "1/4 units")
	assert.Contains(t, html, b.lastCommit.Hash[:12])

	// The graph: a box per unit, an edge per dependency, the critical path.
	assert.Equal(t, 1, strings.Count(html, `<svg id="graph-svg"`))
	for _, id := range []string{"T1", "T2", "T3", "T4"} {
		assert.Contains(t, html, `id="node-`+id+`"`)
		assert.Contains(t, html, `id="unit-`+id+`"`)
	}
	assert.Equal(t, 4, strings.Count(html, `<path class="edge`))
	assert.Contains(t, html, `class="edge critical"`)
	assert.Contains(t, html, `class="node done"`)
	assert.Contains(t, html, `class="node blocked"`)

	// The timeline: every entry of T1, newest first, the run and its result.
	i1 := strings.Index(html, "Iteration 1")
	i4 := strings.Index(html, "Iteration 4")
	require.True(t, i4 > 0 && i1 > i4, "iterations newest first")
	assert.Contains(t, html, "tried &lt;b&gt;bold&lt;/b&gt; things")
	assert.Contains(t, html, "<code>false</code>: failed: exit 1 after 4ms")
	assert.Contains(t, html, "<code>go test ./...</code>: passed")
	assert.Contains(t, html, "run failed")
	assert.Contains(t, html, "run passed")
	assert.Contains(t, html, "signal T1_DONE")
	assert.Contains(t, html, "verification passed")
	assert.Contains(t, html, "pending → in_progress")
	assert.Contains(t, html, "verifying → done")
	assert.Contains(t, html, `class="entry kind-blocked"`)
	assert.Contains(t, html, "waiting for &#34;legal&#34; &lt;approval&gt;")

	// Guardrails and what reconcile fixed.
	assert.Contains(t, html, "Never &lt;script&gt; in titles")
	rec := html[strings.Index(html, `<section id="reconcile">`):]
	assert.Contains(t, rec, "T2.status: recorded &#34;done&#34;, derived &#34;pending&#34;")
	assert.Contains(t, rec, "T2.iterations_used: recorded 3, derived 0")
}

func TestReportFreshTask(t *testing.T) {
	f := newFixture(t)
	freshTask(f)
	page, err := Report(f.st, "login", f.now)
	require.NoError(t, err)
	html := string(page)
	assert.Contains(t, html, "no units yet")
	assert.Contains(t, html, "No guardrails yet.")
	assert.Contains(t, html, "Nothing: state.json has always agreed with the log.")
}

func TestReportLargePlanStaysUsable(t *testing.T) {
	const n = 500
	var p strings.Builder
	p.WriteString("# Big - Tasks\n\n## Tasks\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&p, "- [ ] **T%d**: Unit number %d with a rather long title that is clipped\n", i, i)
		if i%10 != 1 {
			fmt.Fprintf(&p, "  - Depends: T%d\n", i-1)
		}
	}
	f := newFixture(t)
	b := f.newTask("big", "Big", state.Development).planned(p.String())
	b.checkpoint("T1", "started", iterOpts{})
	page, err := Report(f.st, "big", f.now)
	require.NoError(t, err)
	html := string(page)
	assert.Equal(t, svgMaxDraw, strings.Count(html, `<g class="node `), "the drawing is capped")
	assert.Contains(t, html, `id="not-drawn"`)
	assert.Contains(t, html, fmt.Sprintf("the other %d are listed here", n-svgMaxDraw))
	assert.Contains(t, html, "<td class=\"mono\">T500</td>")
	assert.Less(t, len(page), 2<<20, "the page stays small")
	m := regexp.MustCompile(`<svg id="graph-svg" class="graph" role="img" width="(\d+)" height="(\d+)"`).FindStringSubmatch(html)
	require.NotNil(t, m)
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	assert.LessOrEqual(t, w, 10*(svgBoxW+svgColGap)+2*svgPad)
	assert.LessOrEqual(t, h, 2*svgPad+svgMaxDraw*(svgBoxH+svgRowGap))
}

func TestGraphSVGEscapes(t *testing.T) {
	g := &GraphModel{Task: `a<b>"c"`, Nodes: []GraphNode{{ID: "T1", Title: `<x y="1">&amp;`, Class: ClassReady}}}
	svg, left := GraphSVG(g)
	assert.Empty(t, left)
	assert.NotContains(t, svg, "<x ")
	assert.Contains(t, svg, "&lt;x y=&#34;1&#34;&gt;&amp;amp;")
	assert.Contains(t, svg, "a&lt;b&gt;&#34;c&#34;")
}

func TestReportFoldsLongHistories(t *testing.T) {
	f := newFixture(t)
	b := f.newTask("long", "Long", state.Development).planned("# Long - Tasks\n\n## Tasks\n\n- [ ] **T1**: Many steps\n  - Max iterations: 50\n- [ ] **T2**: Other\n")
	for i := 1; i <= 40; i++ {
		b.checkpoint("T1", fmt.Sprintf("step number %d", i), iterOpts{})
	}
	b.checkpoint("T2", "the newest work", iterOpts{})

	page, err := Report(f.st, "long", f.now)
	require.NoError(t, err)
	html := string(page)
	assert.Contains(t, html, "and 30 older entries of T1, not shown")
	assert.Contains(t, html, "step number 40")
	assert.Contains(t, html, "step number 31")
	assert.NotContains(t, html, "step number 30<")
	assert.Less(t, strings.Index(html, "step number 40"), strings.Index(html, "step number 31"), "newest first")
	assert.Less(t, strings.Index(html, `id="unit-T2"`), strings.Index(html, `id="unit-T1"`), "the unit with the newest entry first")

	all, err := ReportWith(f.st, "long", f.now, ReportOptions{History: 0})
	require.NoError(t, err)
	assert.Contains(t, string(all), "step number 1<")
	assert.NotContains(t, string(all), "older entries")
	assert.Greater(t, len(all), len(page))
}

func TestTextBlocks(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []TextBlock
	}{
		{"plain", []TextBlock{{Text: "plain"}}},
		{"runs/T4-2.log; the last 2 lines:\n  ```\n  FAIL x\n    at y\n  ```", []TextBlock{{Text: "runs/T4-2.log; the last 2 lines:"}, {Code: true, Text: "FAIL x\n  at y"}}},
		{"```go\nfmt.Println()\n```\nafter", []TextBlock{{Code: true, Text: "fmt.Println()"}, {Text: "after"}}},
		{"open\n```\nno end", []TextBlock{{Text: "open"}, {Code: true, Text: "no end"}}},
	} {
		assert.Equal(t, c.want, textBlocks(c.in), "%q", c.in)
	}
}
