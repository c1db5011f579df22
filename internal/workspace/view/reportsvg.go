package view

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// The geometry of the graph a report draws, in SVG user units (pixels).
const (
	svgBoxW    = 184 // a unit's box
	svgBoxH    = 62
	svgColGap  = 56 // between two columns (layers), where the edges run
	svgRowGap  = 14
	svgLaneH   = 10 // the slot an edge passing through a column takes
	svgPad     = 16
	svgTitleN  = 26  // runes of a title line in a box (two lines; the tooltip has all)
	svgMaxDraw = 150 // units drawn at most; the rest are listed under the drawing
	// svgWide is the width above which the drawing keeps its size and
	// scrolls rather than shrink to the panel (its text would be too
	// small); print scales it anyway.
	svgWide = 2400
)

// GraphSVG lays a graph out and draws it as an inline SVG element: one
// column per layer (a unit's dependencies are to its left), the units of
// a column ordered to cross as few edges as it can (graphLayout), a
// rounded box per unit filled and bordered by its class (Palette: blocked
// double-bordered with "!", failed heavy with "×", waiting dashed, skipped
// dotted), an edge from each dependency to its dependant that runs only
// in the gaps between columns and in lanes kept free for it (never
// through a box), and the critical path thicker. The element scales to
// its panel's width (CSS) unless it is wider than svgWide. At most
// svgMaxDraw units are drawn, the first in plan order; left are the units
// not drawn. Every text is escaped.
func GraphSVG(g *GraphModel) (svg string, left []GraphNode) {
	nodes := g.Nodes
	if len(nodes) > svgMaxDraw {
		nodes, left = nodes[:svgMaxDraw], nodes[svgMaxDraw:]
	}
	lay := graphLayout(nodes, g.Edges)
	width, height := lay.width, lay.height
	if len(nodes) == 0 {
		width, height = 2*svgPad+svgBoxW, 2*svgPad+svgBoxH
	}
	class := "graph"
	if width > svgWide {
		class = "graph wide"
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="graph-svg" class="%s" role="img" width="%d" height="%d" viewBox="0 0 %d %d" aria-labelledby="graph-svg-title">`, class, width, height, width, height)
	b.WriteString(`<title id="graph-svg-title">`)
	esc(&b, fmt.Sprintf("The plan of %s: %d units, %d dependencies", g.Task, len(g.Nodes), len(g.Edges)))
	b.WriteString(`</title>`)
	b.WriteString(`<defs>` +
		`<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6b7280"/></marker>` +
		`<marker id="arrow-crit" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#111827"/></marker>` +
		`</defs>`)
	if len(nodes) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="empty">no units yet</text>`, svgPad+8, svgPad+svgBoxH/2+4)
	}
	// Edges first, under the boxes.
	b.WriteString(`<g class="edges">`)
	for _, e := range g.Edges {
		d, ok := lay.path(e)
		if !ok {
			continue
		}
		class, stroke, w, marker := "edge", "#6b7280", "1.5", "arrow"
		if e.Critical {
			class, stroke, w, marker = "edge critical", "#111827", "3.5", "arrow-crit"
		}
		fmt.Fprintf(&b, `<path class="%s" d="%s" fill="none" stroke="%s" stroke-width="%s" marker-end="url(#%s)" data-from="`, class, d, stroke, w, marker)
		esc(&b, e.From)
		b.WriteString(`" data-to="`)
		esc(&b, e.To)
		b.WriteString(`"/>`)
	}
	b.WriteString(`</g><g class="nodes">`)
	for _, n := range nodes {
		svgNode(&b, n, lay.at[n.ID])
	}
	b.WriteString(`</g></svg>`)
	return b.String(), left
}

// svgNode draws unit n's box at p: its border as its class wants it, the
// mark and ID, its class and iterations, its title on two lines, and the
// whole title, status and claim as its tooltip.
func svgNode(b *strings.Builder, n GraphNode, p svgPoint) {
	c := PaletteOf(n.Class)
	sw, class := "1.5", "node "+n.Class
	if c.Heavy {
		sw = "3"
	}
	if n.Critical {
		sw, class = "3.5", class+" critical"
	}
	b.WriteString(`<g class="`)
	esc(b, class)
	b.WriteString(`" id="node-`)
	esc(b, n.ID)
	b.WriteString(`" data-unit="`)
	esc(b, n.ID)
	b.WriteString(`"><title>`)
	tip := n.ID + ": " + graphText(n.Title) + " (" + statusLine(n) + ")"
	if n.Claim != "" {
		tip += "; claimed by " + n.Claim
	}
	esc(b, tip)
	b.WriteString(`</title>`)
	dash := ""
	if c.Dash != "" {
		dash = ` stroke-dasharray="` + c.Dash + `"`
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" rx="9" ry="9" fill="%s" stroke="%s" stroke-width="%s"%s/>`,
		p.x, p.y, svgBoxW, svgBoxH, c.Fill, c.Stroke, sw, dash)
	if c.Double {
		fmt.Fprintf(b, `<rect class="inner" x="%d" y="%d" width="%d" height="%d" rx="6" ry="6" fill="none" stroke="%s" stroke-width="1"/>`,
			p.x+4, p.y+4, svgBoxW-8, svgBoxH-8, c.Stroke)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" class="nid">`, p.x+10, p.y+19)
	esc(b, marked(n.Class, n.ID))
	b.WriteString(`</text>`)
	fmt.Fprintf(b, `<text x="%d" y="%d" class="nmeta" text-anchor="end">`, p.x+svgBoxW-10, p.y+19)
	esc(b, strings.ReplaceAll(n.Class, "_", " ")+svgIters(n.Iterations, n.Max, " · "))
	b.WriteString(`</text>`)
	for i, line := range titleLines(n.Title, svgTitleN, 2) {
		fmt.Fprintf(b, `<text x="%d" y="%d" class="ntitle">`, p.x+10, p.y+37+i*15)
		esc(b, line)
		b.WriteString(`</text>`)
	}
	b.WriteString(`</g>`)
}

// titleLines breaks a title into at most lines lines of at most n runes,
// at a space where it can, the last cut with an ellipsis when the title
// is longer.
func titleLines(title string, n, lines int) []string {
	rest := []rune(strings.Join(strings.Fields(graphText(title)), " "))
	var out []string
	for len(rest) > 0 {
		if len(out) == lines-1 || len(rest) <= n {
			return append(out, cut(string(rest), n))
		}
		br := n
		for i := n; i > n/2; i-- {
			if rest[i] == ' ' {
				br = i
				break
			}
		}
		out = append(out, strings.TrimSpace(string(rest[:br])))
		rest = []rune(strings.TrimSpace(string(rest[br:])))
	}
	return out
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

// esc writes s escaped for XML text and attribute values.
func esc(b *strings.Builder, s string) {
	_ = xml.EscapeText(b, []byte(s))
}
