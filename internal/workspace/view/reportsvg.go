package view

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// The geometry of the graph a report draws, in SVG user units (pixels).
const (
	svgBoxW    = 200 // a unit's box
	svgBoxH    = 46
	svgColGap  = 64 // between two columns (layers), where the edges run
	svgRowGap  = 14
	svgPad     = 16
	svgTitleN  = 28  // runes of a title a box shows (the tooltip has all)
	svgMaxDraw = 150 // units drawn at most; the rest are listed under the drawing
)

// svgColor is how a class of units is drawn: fill and stroke.
type svgColor struct{ Fill, Stroke string }

// classColors are the colours of GraphClasses (the legend uses them too).
var classColors = map[string]svgColor{
	ClassDone:       {"#d3f3dc", "#2f855a"},
	ClassInProgress: {"#dbeafe", "#2563eb"},
	ClassConfirming: {"#e0e7ff", "#4f46e5"},
	ClassVerifying:  {"#f3e8ff", "#9333ea"},
	ClassBlocked:    {"#fee2e2", "#dc2626"},
	ClassTimeout:    {"#ffedd5", "#ea580c"},
	ClassReady:      {"#fef9c3", "#ca8a04"},
	ClassWaiting:    {"#f3f4f6", "#9ca3af"},
	ClassFailed:     {"#fecaca", "#991b1b"},
	ClassSkipped:    {"#ffffff", "#9ca3af"},
}

// colorOf is the colour of a class, grey for one it does not know.
func colorOf(class string) svgColor {
	if c, ok := classColors[class]; ok {
		return c
	}
	return classColors[ClassWaiting]
}

// GraphSVG lays a graph out and draws it as an inline SVG element: one
// column per layer (a unit's dependencies are to its left), the units of a
// column in plan order, a rounded box per unit filled by its class, an
// edge from each dependency to its dependant, and the critical path
// thicker. At most svgMaxDraw units are drawn, the first in plan order;
// left are the units not drawn. Every text is escaped.
func GraphSVG(g *GraphModel) (svg string, left []GraphNode) {
	nodes := g.Nodes
	if len(nodes) > svgMaxDraw {
		nodes, left = nodes[:svgMaxDraw], nodes[svgMaxDraw:]
	}
	// Columns: the layers present, in order, packed (a capped drawing may
	// skip some).
	seen := map[int]bool{}
	maxLayer := 0
	for _, n := range nodes {
		seen[n.Layer] = true
		maxLayer = max(maxLayer, n.Layer)
	}
	col := map[int]int{}
	for l, c := 0, 0; l <= maxLayer; l++ {
		if seen[l] {
			col[l] = c
			c++
		}
	}
	type pos struct{ x, y int }
	at := map[string]pos{}
	rows := map[int]int{}
	cols, maxRows := 0, 0
	for _, n := range nodes {
		c := col[n.Layer]
		r := rows[c]
		rows[c]++
		at[n.ID] = pos{svgPad + c*(svgBoxW+svgColGap), svgPad + r*(svgBoxH+svgRowGap)}
		cols, maxRows = max(cols, c+1), max(maxRows, r+1)
	}
	width := 2*svgPad + cols*svgBoxW + max(cols-1, 0)*svgColGap
	height := 2*svgPad + maxRows*svgBoxH + max(maxRows-1, 0)*svgRowGap
	if len(nodes) == 0 {
		width, height = 2*svgPad+svgBoxW, 2*svgPad+svgBoxH
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="graph-svg" class="graph" role="img" width="%d" height="%d" viewBox="0 0 %d %d" aria-labelledby="graph-svg-title">`, width, height, width, height)
	b.WriteString(`<title id="graph-svg-title">`)
	esc(&b, fmt.Sprintf("The plan of %s: %d units, %d dependencies", g.Task, len(g.Nodes), len(g.Edges)))
	b.WriteString(`</title>`)
	b.WriteString(`<defs>` +
		`<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6b7280"/></marker>` +
		`<marker id="arrow-crit" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b91c1c"/></marker>` +
		`</defs>`)
	if len(nodes) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="empty">no units yet</text>`, svgPad+8, svgPad+svgBoxH/2+4)
	}
	// Edges first, under the boxes.
	b.WriteString(`<g class="edges">`)
	for _, e := range g.Edges {
		from, ok1 := at[e.From]
		to, ok2 := at[e.To]
		if !ok1 || !ok2 {
			continue
		}
		x1, y1 := from.x+svgBoxW, from.y+svgBoxH/2
		x2, y2 := to.x-2, to.y+svgBoxH/2
		var d string
		if x2 > x1 {
			mid := (x2 - x1) / 2
			d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, x1+mid, y1, x2-mid, y2, x2, y2)
		} else {
			// Same column or backwards (a cycle cut in a hand-edited
			// plan): loop round the right of the boxes.
			x1, x2 = from.x+svgBoxW, to.x+svgBoxW+2
			d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, x1+40, y1, x2+40, y2, x2, y2)
		}
		class, stroke, w, marker := "edge", "#6b7280", "1.5", "arrow"
		if e.Critical {
			class, stroke, w, marker = "edge critical", "#b91c1c", "3.5", "arrow-crit"
		}
		fmt.Fprintf(&b, `<path class="%s" d="%s" fill="none" stroke="%s" stroke-width="%s" marker-end="url(#%s)" data-from="`, class, d, stroke, w, marker)
		esc(&b, e.From)
		b.WriteString(`" data-to="`)
		esc(&b, e.To)
		b.WriteString(`"/>`)
	}
	b.WriteString(`</g><g class="nodes">`)
	for _, n := range nodes {
		p := at[n.ID]
		c := colorOf(n.Class)
		sw, class := "1.5", "node "+n.Class
		if n.Critical {
			sw, class = "3.5", class+" critical"
		}
		b.WriteString(`<g class="`)
		esc(&b, class)
		b.WriteString(`" id="node-`)
		esc(&b, n.ID)
		b.WriteString(`" data-unit="`)
		esc(&b, n.ID)
		b.WriteString(`"><title>`)
		tip := n.ID + ": " + n.Title + " (" + n.Status + svgIters(n.Iterations, n.Max, ", ") + ")"
		if n.Claim != "" {
			tip += "; claimed by " + n.Claim
		}
		esc(&b, tip)
		b.WriteString(`</title>`)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="9" ry="9" fill="%s" stroke="%s" stroke-width="%s"/>`,
			p.x, p.y, svgBoxW, svgBoxH, c.Fill, c.Stroke, sw)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="nid">`, p.x+10, p.y+18)
		esc(&b, n.ID)
		b.WriteString(`</text>`)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="nmeta" text-anchor="end">`, p.x+svgBoxW-10, p.y+18)
		esc(&b, strings.ReplaceAll(n.Class, "_", " ")+svgIters(n.Iterations, n.Max, " · "))
		b.WriteString(`</text>`)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="ntitle">`, p.x+10, p.y+36)
		esc(&b, clip(n.Title, svgTitleN))
		b.WriteString(`</text></g>`)
	}
	b.WriteString(`</g></svg>`)
	return b.String(), left
}

// svgIters is " · 2/5" (iterations of the limit), "" before the first.
func svgIters(n, limit int, sep string) string {
	switch {
	case n == 0:
		return ""
	case limit > 0:
		return fmt.Sprintf("%s%d/%d", sep, n, limit)
	}
	return fmt.Sprintf("%s%d it.", sep, n)
}

// clip cuts s to n runes, with an ellipsis when it cut, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// esc writes s escaped for XML text and attribute values.
func esc(b *strings.Builder, s string) {
	_ = xml.EscapeText(b, []byte(s))
}
