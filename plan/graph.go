package plan

import (
	"container/heap"
	"slices"
	"strings"
)

// graph is the dependency graph of a plan's units, by index in document
// order. A plan built in code rebuilds it on every query, so a change is
// seen as it is now; a parsed plan, read-only, builds it once.
type graph struct {
	ids        []string
	index      map[string]int
	deps       [][]int        // deps[i]: the units i depends on, in natural ID order
	dependents [][]int        // dependents[i]: the units that depend on i, in natural ID order
	lines      map[[2]int]int // (from, to) → the lowest line declaring it
}

// graph builds the graph. Edges naming unknown units or a unit and itself
// are left out; with errs non-nil each is reported there. A parsed plan's
// graph is built once.
func (p *Plan) graph(errs *[]*Error) *graph {
	if errs == nil && p.parsed && p.graphOnce != nil {
		c := p.graphOnce
		c.once.Do(func() { c.g = p.build(nil) })
		return c.g
	}
	return p.build(errs)
}

// build builds the graph afresh.
func (p *Plan) build(errs *[]*Error) *graph {
	g := &graph{index: make(map[string]int, len(p.Units)), lines: map[[2]int]int{}, ids: make([]string, 0, len(p.Units))}
	for _, u := range p.Units { // the IDs as IDs gives them, without a second map
		if _, dup := g.index[u.ID]; !dup && ValidID(u.ID) {
			g.index[u.ID] = len(g.ids)
			g.ids = append(g.ids, u.ID)
		}
	}
	g.deps = make([][]int, len(g.ids))
	g.dependents = make([][]int, len(g.ids))
	report := func(line int, format string, args ...any) {
		if errs != nil {
			*errs = append(*errs, p.errorf(line, format, args...))
		}
	}
	add := func(from, to string, line int) {
		fi, fok := g.index[from]
		ti, tok := g.index[to]
		switch {
		case !tok && g.caseOf(to) != "":
			report(line, "the dependency line names %s, which is not defined (IDs are case-sensitive; the plan has %s): write %s, or add a unit %s", to, g.caseOf(to), g.caseOf(to), to)
		case !tok:
			report(line, "the dependency line names %s, which is not defined; add a unit %s or remove it from the line", to, to)
		case !fok && g.caseOf(from) != "":
			report(line, "unit %s depends on %s, which is not defined (IDs are case-sensitive; the plan has %s): write %s, or add a unit %s", to, from, g.caseOf(from), g.caseOf(from), from)
		case !fok:
			report(line, "unit %s depends on %s, which is not defined; add a unit %s or remove the dependency", to, from, from)
		case fi == ti:
			report(line, "unit %s depends on itself; remove %s from its dependencies", to, to)
		default:
			key := [2]int{fi, ti}
			if old, ok := g.lines[key]; ok {
				g.lines[key] = min(old, line)
				return
			}
			g.lines[key] = line
			g.deps[ti] = append(g.deps[ti], fi)
			g.dependents[fi] = append(g.dependents[fi], ti)
		}
	}
	for _, u := range p.Units {
		line := u.dependsLine
		if line == 0 {
			line = u.Line
		}
		for _, d := range u.Depends {
			add(d, u.ID, line)
		}
		// A unit reading another's outputs waits for it; bad references
		// are inputErrors' to word, so only edges between two known
		// units are added here.
		for _, in := range u.InputRefs() {
			if _, ok := g.index[in.Unit]; ok && in.Unit != u.ID {
				add(in.Unit, u.ID, max(u.lines.at(keyInputs), u.Line))
			}
		}
	}
	for _, s := range p.Sections {
		if s.Kind == DependenciesSection {
			for _, e := range depLines(p, s.Body, s.bodyLine, false) {
				add(e.from, e.to, e.line)
			}
		}
	}
	byID := func(a, b int) int { return CompareIDs(g.ids[a], g.ids[b]) }
	for i := range g.ids {
		slices.SortFunc(g.deps[i], byID)
		slices.SortFunc(g.dependents[i], byID)
	}
	return g
}

// caseOf returns the unit ID of the graph that id matches but for case,
// "" when none does: the fix to suggest for a reference in the wrong case.
func (g *graph) caseOf(id string) string {
	for _, other := range g.ids {
		if strings.EqualFold(other, id) && other != id {
			return other
		}
	}
	return ""
}

// cycle returns an error naming one dependency cycle, or nil. The cycle is
// written the way the dependencies section writes edges (each unit depends
// on the one before it) starting at its unit that comes first in the file;
// the error is at the lowest line declaring one of its edges.
func (g *graph) cycle(p *Plan) error {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(g.ids))
	var stack, found []int
	var visit func(v int) bool
	visit = func(v int) bool {
		color[v] = grey
		stack = append(stack, v)
		for _, w := range g.deps[v] {
			if color[w] == grey {
				found = slices.Clone(stack[slices.Index(stack, w):])
				return true
			}
			if color[w] == white && visit(w) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		color[v] = black
		return false
	}
	for v := range g.ids {
		if color[v] == white && visit(v) {
			break
		}
	}
	if found == nil {
		return nil
	}
	// found[i] depends on found[i+1], and the last on found[0]: reversed,
	// each depends on the one before.
	slices.Reverse(found)
	start := slices.Index(found, slices.Min(found))
	found = slices.Concat(found[start:], found[:start])
	names := make([]string, 0, len(found)+1)
	line := 0
	for i, v := range found {
		names = append(names, g.ids[v])
		l := g.lines[[2]int{v, found[(i+1)%len(found)]}]
		if line == 0 || l < line {
			line = l
		}
	}
	names = append(names, g.ids[found[0]])
	return p.errorf(line, "dependency cycle %s; remove one of these dependencies", strings.Join(names, " → "))
}

func (g *graph) names(idx []int) []string {
	if len(idx) == 0 {
		return nil
	}
	out := make([]string, len(idx))
	for i, v := range idx {
		out[i] = g.ids[v]
	}
	return out
}

// Deps returns the units id depends on, from its "Depends" sub-item and the
// dependencies section together, in natural ID order (T2 before T10).
func (p *Plan) Deps(id string) []string {
	g := p.graph(nil)
	if i, ok := g.index[id]; ok {
		return g.names(g.deps[i])
	}
	return nil
}

// DepMap returns the dependencies of every unit (what Deps gives for each)
// from one build of the graph: the way to ask about many units at once.
func (p *Plan) DepMap() map[string][]string {
	g := p.graph(nil)
	out := make(map[string][]string, len(g.ids))
	for i, id := range g.ids {
		out[id] = g.names(g.deps[i])
	}
	return out
}

// Dependents returns the units that depend on id directly, in natural ID
// order.
func (p *Plan) Dependents(id string) []string {
	g := p.graph(nil)
	if i, ok := g.index[id]; ok {
		return g.names(g.dependents[i])
	}
	return nil
}

// Order returns the unit IDs in a stable topological order: a unit comes
// after all its dependencies and, among the units whose dependencies are
// all placed, the one first in the file comes first. Units caught in a
// cycle (possible only in a plan built in code; Parse refuses cycles) come
// last, in document order.
func (p *Plan) Order() []string {
	return p.graph(nil).order()
}

func (g *graph) order() []string {
	waiting := make([]int, len(g.ids))
	ready := &intHeap{}
	for i := range g.ids {
		waiting[i] = len(g.deps[i])
		if waiting[i] == 0 {
			heap.Push(ready, i)
		}
	}
	placed := make([]bool, len(g.ids))
	out := make([]string, 0, len(g.ids))
	for ready.Len() > 0 {
		v := heap.Pop(ready).(int)
		placed[v] = true
		out = append(out, g.ids[v])
		for _, w := range g.dependents[v] {
			if waiting[w]--; waiting[w] == 0 {
				heap.Push(ready, w)
			}
		}
	}
	for i, ok := range placed {
		if !ok {
			out = append(out, g.ids[i])
		}
	}
	return out
}

// Ready returns the units that are not done and whose dependencies are all
// done, in the order of Order. done tells whether a unit is done; nil
// means the checkbox of the plan ("- [x]").
func (p *Plan) Ready(done func(id string) bool) []string {
	done = p.doneFunc(done)
	g := p.graph(nil)
	var out []string
	for _, id := range g.order() {
		if done(id) {
			continue
		}
		if !slices.ContainsFunc(g.deps[g.index[id]], func(d int) bool { return !done(g.ids[d]) }) {
			out = append(out, id)
		}
	}
	return out
}

// Waiting returns the direct dependencies of id that are not done, in
// natural ID order. done is as for Ready.
func (p *Plan) Waiting(id string, done func(string) bool) []string {
	done = p.doneFunc(done)
	var out []string
	for _, d := range p.Deps(id) {
		if !done(d) {
			out = append(out, d)
		}
	}
	return out
}

func (p *Plan) doneFunc(done func(string) bool) func(string) bool {
	if done != nil {
		return done
	}
	return func(id string) bool {
		u := p.Unit(id)
		return u != nil && u.Done
	}
}

// intHeap is a min-heap of unit indexes: the ready unit first in the file.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
