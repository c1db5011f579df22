package view

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// svgPoint is a position in the drawing: a box's top left corner.
type svgPoint struct{ x, y int }

// layItem is what a column of the drawing holds: a unit's box, or a lane
// kept free for an edge that passes the column on its way to a unit
// further right.
type layItem struct {
	node  int // index of the unit in the drawn nodes; -1 for a lane
	col   int
	y, h  int
	preds []int // the items of the column before linked to this one
	succs []int // the items of the column after
}

// svgLayout is where GraphSVG draws each unit and runs each edge.
type svgLayout struct {
	at     map[string]svgPoint
	items  []layItem
	chains map[[2]string][]int // an edge's items, its unit, lanes, its dependant
	width  int
	height int
}

// colX is the left edge of column c.
func colX(c int) int { return svgPad + c*(svgBoxW+svgColGap) }

// graphLayout places the drawn nodes in columns by layer (the layers
// present, packed) and orders each column to cross few edges: an edge
// that spans several columns gets a lane in each column it passes
// (so it runs through no box), then alternating sweeps sort each column
// by the mean position of its neighbours in the column before (or after),
// keeping the order with the fewest crossings seen; each item then sits
// level with its neighbours on the left where the column leaves room, so
// chains run straight.
func graphLayout(nodes []GraphNode, edges []GraphEdge) *svgLayout {
	lay := &svgLayout{at: make(map[string]svgPoint, len(nodes)), chains: map[[2]string][]int{}}
	if len(nodes) == 0 {
		return lay
	}
	// Columns: the layers present, in order, packed (a capped drawing may
	// skip some).
	layers := make([]int, 0, len(nodes))
	for _, n := range nodes {
		layers = append(layers, n.Layer)
	}
	slices.Sort(layers)
	layers = slices.Compact(layers)
	col := make(map[int]int, len(layers))
	for c, l := range layers {
		col[l] = c
	}
	cols := make([][]int, len(layers))
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		c := col[n.Layer]
		index[n.ID] = len(lay.items)
		lay.items = append(lay.items, layItem{node: i, col: c, h: svgBoxH})
		cols[c] = append(cols[c], index[n.ID])
	}
	link := func(a, b int) {
		lay.items[a].succs = append(lay.items[a].succs, b)
		lay.items[b].preds = append(lay.items[b].preds, a)
	}
	for _, e := range edges {
		from, ok1 := index[e.From]
		to, ok2 := index[e.To]
		if !ok1 || !ok2 || lay.items[from].col >= lay.items[to].col {
			continue
		}
		chain := []int{from}
		for c := lay.items[from].col + 1; c < lay.items[to].col; c++ {
			lane := len(lay.items)
			lay.items = append(lay.items, layItem{node: -1, col: c, h: svgLaneH})
			cols[c] = append(cols[c], lane)
			chain = append(chain, lane)
		}
		chain = append(chain, to)
		for i := 1; i < len(chain); i++ {
			link(chain[i-1], chain[i])
		}
		lay.chains[[2]string{e.From, e.To}] = chain
	}
	lay.order(cols)
	lay.place(cols, nodes)
	return lay
}

// order sorts the columns by barycentre sweeps, keeping the best order.
func (lay *svgLayout) order(cols [][]int) {
	pos := make([]float64, len(lay.items))
	setPos := func() {
		for _, c := range cols {
			for i, it := range c {
				pos[it] = float64(i)
			}
		}
	}
	setPos()
	best, bestX := cloneCols(cols), lay.crossings(cols, pos)
	for round := 0; round < 8 && bestX > 0; round++ {
		down := round%2 == 0
		for k := 1; k < len(cols); k++ {
			c := k
			if !down {
				c = len(cols) - 1 - k
			}
			key := make(map[int]float64, len(cols[c]))
			for _, it := range cols[c] {
				near := lay.items[it].preds
				if !down {
					near = lay.items[it].succs
				}
				key[it] = pos[it]
				if len(near) > 0 {
					sum := 0.0
					for _, o := range near {
						sum += pos[o]
					}
					key[it] = sum / float64(len(near))
				}
			}
			sort.SliceStable(cols[c], func(i, j int) bool { return key[cols[c][i]] < key[cols[c][j]] })
			for i, it := range cols[c] {
				pos[it] = float64(i)
			}
		}
		if x := lay.crossings(cols, pos); x < bestX {
			best, bestX = cloneCols(cols), x
		}
	}
	for c := range cols {
		copy(cols[c], best[c])
	}
}

func cloneCols(cols [][]int) [][]int {
	out := make([][]int, len(cols))
	for i, c := range cols {
		out[i] = slices.Clone(c)
	}
	return out
}

// crossings counts the pairs of links between neighbouring columns that
// cross, with the items at positions pos.
func (lay *svgLayout) crossings(cols [][]int, pos []float64) int {
	n := 0
	for c := 0; c+1 < len(cols); c++ {
		var links [][2]float64
		for _, it := range cols[c] {
			for _, s := range lay.items[it].succs {
				links = append(links, [2]float64{pos[it], pos[s]})
			}
		}
		for i := range links {
			for j := i + 1; j < len(links); j++ {
				a, b := links[i], links[j]
				if (a[0]-b[0])*(a[1]-b[1]) < 0 {
					n++
				}
			}
		}
	}
	return n
}

// place gives every item its y, column by column from the left: at the
// median height of the items it comes from where the column leaves room,
// else right under the item above; then the drawing's size.
func (lay *svgLayout) place(cols [][]int, nodes []GraphNode) {
	bottom := 0
	for c, items := range cols {
		cursor := svgPad
		for _, it := range items {
			item := &lay.items[it]
			y := cursor
			if len(item.preds) > 0 {
				centres := make([]int, 0, len(item.preds))
				for _, p := range item.preds {
					centres = append(centres, lay.items[p].y+lay.items[p].h/2)
				}
				slices.Sort(centres)
				y = max(cursor, centres[(len(centres)-1)/2]-item.h/2)
			}
			item.y = y
			gap := svgRowGap
			if item.node < 0 {
				gap = 4
			}
			cursor = y + item.h + gap
			bottom = max(bottom, y+item.h)
			if item.node >= 0 {
				lay.at[nodes[item.node].ID] = svgPoint{colX(c), y}
			}
		}
	}
	lay.width = 2*svgPad + len(cols)*svgBoxW + max(len(cols)-1, 0)*svgColGap
	lay.height = bottom + svgPad
}

// path is the SVG path of edge e: from the right of its unit's box,
// through its lanes, to the left of its dependant's box, curving only in
// the gaps between columns; false when an end is not drawn.
func (lay *svgLayout) path(e GraphEdge) (string, bool) {
	from, ok1 := lay.at[e.From]
	to, ok2 := lay.at[e.To]
	if !ok1 || !ok2 {
		return "", false
	}
	chain, ok := lay.chains[[2]string{e.From, e.To}]
	if !ok {
		// Same column or backwards (a cycle cut in a hand-edited plan):
		// loop round the right of the boxes.
		x1, y1 := from.x+svgBoxW, from.y+svgBoxH/2
		x2, y2 := to.x+svgBoxW+2, to.y+svgBoxH/2
		return fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, x1+40, y1, x2+40, y2, x2, y2), true
	}
	var b strings.Builder
	x, y := from.x+svgBoxW, from.y+svgBoxH/2
	fmt.Fprintf(&b, "M%d,%d", x, y)
	curve := func(x2, y2 int) {
		mid := (x2 - x) / 2
		if y2 == y {
			fmt.Fprintf(&b, " L%d,%d", x2, y2)
		} else {
			fmt.Fprintf(&b, " C%d,%d %d,%d %d,%d", x+mid, y, x2-mid, y2, x2, y2)
		}
		x, y = x2, y2
	}
	for _, it := range chain[1 : len(chain)-1] {
		lane := lay.items[it]
		curve(colX(lane.col), lane.y+lane.h/2)
		fmt.Fprintf(&b, " L%d,%d", x+svgBoxW, y)
		x += svgBoxW
	}
	curve(to.x-2, to.y+svgBoxH/2)
	return b.String(), true
}
