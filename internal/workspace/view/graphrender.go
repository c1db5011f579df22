package view

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// styleOf is the palette entry of a class (PaletteOf).
func styleOf(class string) PaletteEntry { return PaletteOf(class) }

// lineBreaks makes each line break a space (a Replacer is built once and
// safe to share).
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ")

// graphText is collaborator text made one line of visible characters:
// valid UTF-8, line breaks (and the Unicode line and paragraph
// separators) and tabs spaces, control characters, C1 controls
// and bidirectional overrides visible escapes (\x1b, \u202e), so that an
// escape sequence in a title can drive neither a terminal nor a renderer.
func graphText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = lineBreaks.Replace(s)
	return strings.TrimSpace(visible(s))
}

// cut is s cut to n characters, the last one "…" when it is cut; n <= 0
// leaves s whole.
func cut(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// graphIDs gives each unit of g a name that is a safe identifier in
// Mermaid and DOT: "u_" and the ID with every character other than an
// ASCII letter, digit or underscore made "_", and a number after it when
// two IDs come out the same. The prefix keeps names clear of the words
// the grammars reserve ("end", "graph", "subgraph") and of the legend's.
func (g *GraphModel) graphIDs() map[string]string {
	names := make(map[string]string, len(g.Nodes))
	used := map[string]bool{}
	for _, n := range g.Nodes {
		if _, ok := names[n.ID]; ok {
			continue
		}
		var b strings.Builder
		b.WriteString("u_")
		for _, r := range n.ID {
			if r < utf8.RuneSelf && (r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
		name := b.String()
		for i := 2; used[name]; i++ {
			name = b.String() + "_" + strconv.Itoa(i)
		}
		used[name] = true
		names[n.ID] = name
	}
	return names
}

// statusLine is the second line of a unit's box: its status, its
// iterations and who holds it.
func statusLine(n GraphNode) string {
	s := n.Status
	if s == "" {
		s = n.Class
	}
	if n.ReasonKind != "" {
		s += " (" + n.ReasonKind + ")"
	}
	if len(n.ReplacedBy) > 0 && n.Status == ClassFailed {
		s += " · replaced by " + strings.Join(n.ReplacedBy, ", ")
	}
	if n.Max > 0 {
		s += fmt.Sprintf(" · %d/%d iterations", n.Iterations, n.Max)
	} else if n.Iterations > 0 {
		s += fmt.Sprintf(" · %d iteration%s", n.Iterations, plural(n.Iterations))
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// classesUsed are the classes of GraphClasses some node of g is in, in
// the legend's order.
func (g *GraphModel) classesUsed() []string {
	in := map[string]bool{}
	for _, n := range g.Nodes {
		in[n.Class] = true
	}
	var used []string
	for _, c := range GraphClasses {
		if in[c] {
			used = append(used, c)
		}
	}
	return used
}

// mermaidText is text written inside a quoted Mermaid label: every
// character that is not a letter, a digit, a space or harmless punctuation
// is written as a Mermaid entity code (#34; for ", #60; for <), which the
// flowchart grammar reads as text and the renderer shows as the character
// itself, so no title can close the label, open a tag or a Markdown
// string, or start a comment.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range graphText(s) {
		switch {
		case r == ' ' || r == '.' || r == ',' || r == ':' || r == '!' || r == '?' || r == '-' || r == '_' || r == '/' || r == '+' || r == '=' || r == '@' || r == '\'':
			b.WriteRune(r)
		case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r < utf8.RuneSelf:
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Mermaid is g as a Mermaid flowchart, left to right, as GitHub and many
// editors render it: a box per unit ("ID: title", then its status,
// iterations and claim) coloured by class, an arrow from each dependency
// to the unit that needs it, the critical path drawn thick with its
// units' borders too, and a legend of the classes drawn. Titles are
// collaborator text: they are written with entity codes, never raw. A
// graph without units is one note.
func (g *GraphModel) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	if len(g.Nodes) == 0 {
		fmt.Fprintf(&b, "  empty[\"%s\"]\n", mermaidText(emptyNote(g)))
		return b.String()
	}
	ids := g.graphIDs()
	for _, n := range g.Nodes {
		label := mermaidText(marked(n.Class, n.ID))
		if t := graphText(n.Title); t != "" {
			label += ": " + mermaidText(t)
		}
		label += "<br/>" + mermaidText(statusLine(n))
		if n.Claim != "" {
			label += "<br/>" + mermaidText("held by "+n.Claim)
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", ids[n.ID], label)
	}
	for _, e := range g.Edges {
		from, okf := ids[e.From]
		to, okt := ids[e.To]
		if !okf || !okt {
			continue
		}
		arrow := "-->"
		if e.Critical {
			arrow = "==>"
		}
		fmt.Fprintf(&b, "  %s %s %s\n", from, arrow, to)
	}
	// The legend: one small box per class drawn, in one narrow column,
	// marks and words in the box so no colour is needed.
	used := g.classesUsed()
	b.WriteString("  subgraph legend [\"Legend\"]\n")
	for _, c := range used {
		fmt.Fprintf(&b, "    legend_%s[\"%s\"]\n", c, mermaidText(legendWords(c)))
	}
	if len(g.Critical) > 0 {
		fmt.Fprintf(&b, "    legend_critical[\"%s\"]\n", mermaidText("critical: thick"))
	}
	b.WriteString("  end\n")
	for _, c := range GraphClasses {
		s := styleOf(c)
		border := "1px"
		switch {
		case c == ClassReady:
			border = "2px" // a white box needs a solid border to be seen
		case s.Heavy:
			border = "3px"
		case s.Double:
			border = "2px"
		}
		fmt.Fprintf(&b, "  classDef %s fill:%s,stroke:%s,color:#000000,stroke-width:%s", c, s.Fill, s.Stroke, border)
		switch {
		case s.Dash != "":
			b.WriteString(",stroke-dasharray:" + s.Dash)
		case s.Double:
			b.WriteString(",stroke-dasharray:9 3 2 3") // Mermaid draws no double border: dash-dot
		}
		b.WriteString("\n")
	}
	b.WriteString("  classDef critical stroke-width:4px\n")
	b.WriteString("  classDef legendnote fill:#ffffff,stroke:#ffffff,color:#000000\n")
	byClass := map[string][]string{}
	var critical []string
	for _, n := range g.Nodes {
		c := n.Class
		if !known(c) {
			c = ClassWaiting
		}
		byClass[c] = append(byClass[c], ids[n.ID])
		if n.Critical {
			critical = append(critical, ids[n.ID])
		}
	}
	for _, c := range GraphClasses {
		if len(byClass[c]) > 0 {
			fmt.Fprintf(&b, "  class %s %s\n", strings.Join(byClass[c], ","), c)
		}
	}
	for _, c := range used {
		fmt.Fprintf(&b, "  class legend_%s %s\n", c, c)
	}
	if len(critical) > 0 {
		fmt.Fprintf(&b, "  class %s critical\n", strings.Join(critical, ","))
		b.WriteString("  class legend_critical legendnote\n")
	}
	return b.String()
}

// emptyNote is what a graph without units says.
func emptyNote(g *GraphModel) string {
	if g.Task == "" {
		return "No units planned yet"
	}
	return g.Task + ": no units planned yet"
}

// dotEscapes doubles a backslash and escapes a quote, for DOT strings.
var dotEscapes = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// dotString is s as a quoted DOT string: a backslash doubled (so no
// escape such as \N or \l is read from a title), a quote escaped, and
// nothing that is not visible.
func dotString(s string) string {
	s = graphText(s)
	s = dotEscapes.Replace(s)
	return `"` + s + `"`
}

// dotLabel is the lines of a label as one quoted DOT string, each line
// escaped and the lines joined by \n.
func dotLabel(lines ...string) string {
	for i, l := range lines {
		q := dotString(l)
		lines[i] = q[1 : len(q)-1]
	}
	return `"` + strings.Join(lines, `\n`) + `"`
}

// Dot is g in Graphviz's DOT language, left to right (itr graph --format
// dot | dot -Tsvg > plan.svg): a rounded box per unit ("ID: title", its
// status and iterations, its claim) filled by class, waiting units
// dashed, the critical path's arrows and borders thick, and a legend of
// the classes drawn. A graph without units is one note.
func (g *GraphModel) Dot() string {
	var b strings.Builder
	b.WriteString("digraph \"itr\" {\n")
	b.WriteString("  rankdir=LR;\n")
	b.WriteString("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", color=\"#222222\", fillcolor=\"#ffffff\"];\n")
	b.WriteString("  edge [color=\"#444444\"];\n")
	if len(g.Nodes) == 0 {
		fmt.Fprintf(&b, "  empty [label=%s, shape=note, style=filled];\n", dotLabel(emptyNote(g)))
		b.WriteString("}\n")
		return b.String()
	}
	ids := g.graphIDs()
	for _, n := range g.Nodes {
		s := styleOf(n.Class)
		first := marked(n.Class, n.ID)
		if t := graphText(n.Title); t != "" {
			first += ": " + t
		}
		lines := []string{first, statusLine(n)}
		if n.Claim != "" {
			lines = append(lines, "held by "+n.Claim)
		}
		fmt.Fprintf(&b, "  %s [label=%s, fillcolor=\"%s\", color=\"%s\"%s", ids[n.ID], dotLabel(lines...), s.Fill, s.Stroke, dotLook(s, n.Critical))
		b.WriteString("];\n")
	}
	for _, e := range g.Edges {
		from, okf := ids[e.From]
		to, okt := ids[e.To]
		if !okf || !okt {
			continue
		}
		fmt.Fprintf(&b, "  %s -> %s", from, to)
		if e.Critical {
			b.WriteString(" [penwidth=3, color=\"#000000\"]")
		}
		b.WriteString(";\n")
	}
	b.WriteString(dotLegend(g))
	b.WriteString("}\n")
	return b.String()
}

// dotLook is the DOT attributes that tell a class apart without colour
// (its border's pattern, a double border, a heavy one) and mark the
// critical path (the heaviest border).
func dotLook(s PaletteEntry, critical bool) string {
	var b strings.Builder
	if s.DotStyle != "" {
		b.WriteString(", style=\"rounded,filled," + s.DotStyle + "\"")
	}
	if s.Double {
		b.WriteString(", peripheries=2")
	}
	switch {
	case critical:
		b.WriteString(", penwidth=3")
	case s.Heavy:
		b.WriteString(", penwidth=2.5")
	}
	return b.String()
}

// dotLegend is the legend of a DOT graph: one row of small cells under
// the drawing (the graph's label, an HTML-like table), each class drawn
// in its fill and border with its mark and words, then the critical
// path; a row under the graph takes no width from it.
func dotLegend(g *GraphModel) string {
	var b strings.Builder
	b.WriteString("  labelloc=b;\n  labeljust=l;\n  label=<<table border=\"0\" cellspacing=\"4\" cellpadding=\"3\"><tr>")
	fmt.Fprintf(&b, "<td border=\"0\"><b>%s</b></td>", html.EscapeString(graphText(g.Task)))
	for _, c := range g.classesUsed() {
		s := styleOf(c)
		border := "1"
		if s.Double || s.Heavy {
			border = "2"
		}
		fmt.Fprintf(&b, "<td border=\"%s\" bgcolor=\"%s\" color=\"%s\"><font point-size=\"10\">%s</font></td>", border, s.Fill, s.Stroke, html.EscapeString(legendWords(c)))
	}
	if len(g.Critical) > 0 {
		b.WriteString("<td border=\"0\"><font point-size=\"10\">critical path: thick</font></td>")
	}
	b.WriteString("</tr></table>>;\n")
	return b.String()
}

// legendWords is a class as a legend shows it: its mark and its words.
func legendWords(class string) string {
	s := styleOf(class)
	if s.Mark != "" {
		return s.Mark + " " + s.Words
	}
	return s.Words
}

// marked is a unit's ID with its class's mark before it ("! T5").
func marked(class, id string) string {
	if m := styleOf(class).Mark; m != "" {
		return m + " " + id
	}
	return id
}

// depsByNode are the units each node depends on, by the node's position,
// as ASCII writes them. GraphOf lists the edges by the unit that depends,
// in the nodes' order, so one walk along both finds them; edges in
// another order are gathered by ID.
func (g *GraphModel) depsByNode() [][]string {
	out := make([][]string, len(g.Nodes))
	k := 0
	for i, n := range g.Nodes {
		for k < len(g.Edges) && g.Edges[k].To == n.ID {
			out[i] = append(out[i], graphText(g.Edges[k].From))
			k++
		}
	}
	if k == len(g.Edges) {
		return out
	}
	byID := map[string][]string{}
	for _, e := range g.Edges {
		byID[e.To] = append(byID[e.To], graphText(e.From))
	}
	for i, n := range g.Nodes {
		out[i] = byID[n.ID]
	}
	return out
}

// ASCII is g for a terminal: a line with the critical path, a legend,
// then the units layer by layer (those depending on nothing first), each
// a line such as "[>] T2  Add the form  ← T1 *  (held by bob until …)":
// its class's marker, ID, title, dependencies, a star on the critical
// path and its claim. Titles are made visible text and, when width > 0,
// cut to width-20 characters; lines are never wrapped.
func (g *GraphModel) ASCII(width int) string {
	var b strings.Builder
	if len(g.Nodes) == 0 {
		b.WriteString(graphText(emptyNote(g)) + "\n")
		return b.String()
	}
	if len(g.Critical) == 0 {
		b.WriteString("Critical path: none (every unit is done)\n")
	} else {
		path := make([]string, len(g.Critical))
		for i, id := range g.Critical {
			path[i] = graphText(id)
		}
		fmt.Fprintf(&b, "Critical path: %s (%s)\n", strings.Join(path, " → "), graphText(g.Weight))
	}
	legend := make([]string, 0, len(GraphClasses)+1)
	used := map[string]bool{} // of the classes listed only when drawn
	for _, n := range g.Nodes {
		if n.Class == ClassFailed || n.Class == ClassSkipped {
			used[n.Class] = true
		}
	}
	for _, c := range GraphClasses {
		if (c == ClassFailed || c == ClassSkipped) && !used[c] {
			continue // listed only when drawn: most plans have neither
		}
		s := styleOf(c)
		legend = append(legend, s.Marker+" "+s.Words)
	}
	legend = append(legend, "* critical path")
	b.WriteString("Legend: " + strings.Join(legend, "  ") + "\n")

	deps := g.depsByNode()
	idWidth, top := 0, 0
	for _, n := range g.Nodes {
		idWidth = max(idWidth, utf8.RuneCountInString(graphText(n.ID)))
		top = max(top, n.Layer)
	}
	titleWidth := 0
	if width > 0 {
		titleWidth = max(width-20, 1)
	}
	// The nodes of each layer in plan order, found in one pass.
	byLayer := make([][]int, top+1)
	for i, n := range g.Nodes {
		if n.Layer >= 0 {
			byLayer[n.Layer] = append(byLayer[n.Layer], i)
		}
	}
	for layer := 0; layer <= top; layer++ {
		var lines []string
		for _, i := range byLayer[layer] {
			n := g.Nodes[i]
			id := graphText(n.ID)
			line := styleOf(n.Class).Marker + " " + id + strings.Repeat(" ", idWidth-utf8.RuneCountInString(id))
			if t := graphText(n.Title); t != "" {
				line += "  " + cut(t, titleWidth)
			}
			if d := deps[i]; len(d) > 0 {
				line += "  ← " + strings.Join(d, ", ")
			}
			if n.Critical {
				line += " *"
			}
			if n.Claim != "" {
				line += "  (held by " + graphText(n.Claim) + ")"
			}
			if n.Class == ClassFailed || n.Class == ClassSkipped || (n.Class == ClassBlocked && n.ReasonKind != "") {
				line += "  (" + graphText(statusLine(n)) + ")"
			}
			lines = append(lines, line)
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nLayer %d\n", layer)
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	return b.String()
}
