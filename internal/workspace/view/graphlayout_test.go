package view

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pathPoints samples an SVG path of the commands graphLayout writes (M,
// L, C with absolute coordinates).
func pathPoints(t *testing.T, d string) [][2]float64 {
	t.Helper()
	var pts [][2]float64
	var cur [2]float64
	tok := regexp.MustCompile(`([MLC])([-0-9., ]+)`).FindAllStringSubmatch(d, -1)
	require.NotEmpty(t, tok, d)
	for _, m := range tok {
		var nums []float64
		for _, f := range strings.FieldsFunc(m[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := strconv.ParseFloat(f, 64)
			require.NoError(t, err, d)
			nums = append(nums, v)
		}
		switch m[1] {
		case "M":
			cur = [2]float64{nums[0], nums[1]}
			pts = append(pts, cur)
		case "L":
			end := [2]float64{nums[0], nums[1]}
			for s := 1; s <= 20; s++ {
				f := float64(s) / 20
				pts = append(pts, [2]float64{cur[0] + f*(end[0]-cur[0]), cur[1] + f*(end[1]-cur[1])})
			}
			cur = end
		case "C":
			p1, p2, p3 := [2]float64{nums[0], nums[1]}, [2]float64{nums[2], nums[3]}, [2]float64{nums[4], nums[5]}
			for s := 1; s <= 40; s++ {
				u := float64(s) / 40
				a, b, c, e := (1-u)*(1-u)*(1-u), 3*(1-u)*(1-u)*u, 3*(1-u)*u*u, u*u*u
				pts = append(pts, [2]float64{a*cur[0] + b*p1[0] + c*p2[0] + e*p3[0], a*cur[1] + b*p1[1] + c*p2[1] + e*p3[1]})
			}
			cur = p3
		}
	}
	return pts
}

// layeredGraph is units in layers with dependencies that skip layers and
// cross in plan order: the shape that sent edges through boxes.
func layeredGraph() *GraphModel {
	g := &GraphModel{Task: "demo"}
	deps := map[string][]string{
		"T3": {"T1"}, "T4": {"T2"}, "T5": {"T3", "T4"}, "T6": {"T1"}, "T7": {"T1"},
		"T8": {"T5", "T7"}, "T9": {"T5"}, "T10": {"T3", "T8", "T9"}, "T11": {"T8"}, "T12": {"T2", "T10", "T11"},
	}
	layer := map[string]int{"T1": 0, "T2": 0, "T3": 1, "T4": 1, "T6": 1, "T7": 1, "T5": 2, "T8": 3, "T9": 3, "T10": 4, "T11": 4, "T12": 5}
	for i := 1; i <= 12; i++ {
		id := fmt.Sprintf("T%d", i)
		g.Nodes = append(g.Nodes, GraphNode{ID: id, Title: "A unit with a title long enough to wrap onto two lines", Class: ClassWaiting, Layer: layer[id]})
		for _, d := range deps[id] {
			g.Edges = append(g.Edges, GraphEdge{From: d, To: id})
		}
	}
	return g
}

func TestGraphLayoutNoEdgeThroughABox(t *testing.T) {
	g := layeredGraph()
	lay := graphLayout(g.Nodes, g.Edges)
	require.Len(t, lay.at, 12)
	for _, e := range g.Edges {
		d, ok := lay.path(e)
		require.True(t, ok)
		for _, p := range pathPoints(t, d) {
			for id, b := range lay.at {
				inside := p[0] > float64(b.x)+1 && p[0] < float64(b.x+svgBoxW)-1 && p[1] > float64(b.y)+1 && p[1] < float64(b.y+svgBoxH)-1
				assert.False(t, inside, "the edge %s → %s runs through %s's box at %v (%s)", e.From, e.To, id, p, d)
			}
		}
	}
	// No two boxes overlap; each column holds its layer.
	for a, pa := range lay.at {
		for b, pb := range lay.at {
			if a != b {
				assert.False(t, pa.x < pb.x+svgBoxW && pb.x < pa.x+svgBoxW && pa.y < pb.y+svgBoxH && pb.y < pa.y+svgBoxH, "%s and %s overlap", a, b)
			}
		}
	}
	assert.Equal(t, colX(5), lay.at["T12"].x)
	assert.Equal(t, 2*svgPad+6*svgBoxW+5*svgColGap, lay.width)
}

func TestGraphLayoutReducesCrossings(t *testing.T) {
	// In plan order T3 (needs T2) is above T4 (needs T1): one crossing;
	// the sweeps swap them.
	g := &GraphModel{Nodes: []GraphNode{{ID: "T1"}, {ID: "T2"}, {ID: "T3", Layer: 1}, {ID: "T4", Layer: 1}},
		Edges: []GraphEdge{{From: "T2", To: "T3"}, {From: "T1", To: "T4"}}}
	lay := graphLayout(g.Nodes, g.Edges)
	assert.Less(t, lay.at["T4"].y, lay.at["T3"].y, "T4 moves up beside T1")

	// The twelve-unit plan: fewer crossings than plan order leaves.
	big := layeredGraph()
	lay = graphLayout(big.Nodes, big.Edges)
	cols := map[int][]int{}
	for i, it := range lay.items {
		cols[it.col] = append(cols[it.col], i)
	}
	plan := make([][]int, len(cols))
	for c := range plan {
		plan[c] = cols[c] // creation order: plan order, then lanes
	}
	pos := make([]float64, len(lay.items))
	for _, c := range plan {
		for i, it := range c {
			pos[it] = float64(i)
		}
	}
	before := lay.crossings(plan, pos)
	for i, it := range lay.items {
		pos[i] = float64(it.y)
	}
	after := lay.crossings(plan, pos)
	assert.Less(t, after, before, "crossings: %d in plan order, %d laid out", before, after)
}

func TestTitleLines(t *testing.T) {
	for _, c := range []struct {
		title string
		want  []string
	}{
		{"", nil},
		{"Short", []string{"Short"}},
		{"Domain model for carts, orders and line items", []string{"Domain model for carts,", "orders and line items"}},
		{"Payment client with retries and idempotency keys for every call", []string{"Payment client with", "retries and idempotency k…"}},
		{strings.Repeat("x", 60), []string{strings.Repeat("x", 26), strings.Repeat("x", 25) + "…"}},
		{"two\nlines\x1b[31m", []string{`two lines\x1b[31m`}},
	} {
		assert.Equal(t, c.want, titleLines(c.title, svgTitleN, 2), "%q", c.title)
	}
}
