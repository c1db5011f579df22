package plan

import (
	"slices"
	"strings"
)

// graph is the dependency graph of a plan's units, by index in document
// order. A plan built in code rebuilds it on every query, so a change is
// seen as it is now; a parsed plan, read-only, builds it once.
//
// The edges are slices by position, not maps: deps[i] and depLines[i] are
// windows of one array each, as are dependents[i], so a plan of 100,000
// units allocates a few arrays instead of one slice per unit and one map
// entry per edge.
type graph struct {
	ids        []string
	index      map[string]int
	deps       [][]int // deps[i]: the units i depends on, in natural ID order
	depLines   [][]int // depLines[i][k]: the lowest line declaring deps[i][k]
	dependents [][]int // dependents[i]: the units that depend on i, in natural ID order
}

// edge is a dependency of a unit being built: the unit it depends on, and
// the lowest line declaring it.
type edge struct{ from, line int }

// manyDeps is how many dependencies of one unit are searched one by one
// for a repeated edge; a unit with more gets a map (a unit may depend on
// every other one).
const manyDeps = 32

// graph builds the graph. Edges naming unknown units or a unit and itself
// are left out; with errs non-nil each is reported there. A parsed plan's
// graph is built once.
func (p *Plan) graph(errs *[]*Error) *graph {
	if errs == nil && p.parsed && p.graphOnce != nil {
		c := p.graphOnce
		c.once.Do(func() { c.g = p.build(nil); c.built.Store(true) })
		return c.g
	}
	return p.build(errs)
}

// build builds the graph afresh.
func (p *Plan) build(errs *[]*Error) *graph {
	g := &graph{index: make(map[string]int, len(p.Units)), ids: make([]string, 0, len(p.Units))}
	for _, u := range p.Units { // the IDs as IDs gives them, without a second map
		if _, dup := g.index[u.ID]; !dup && ValidID(u.ID) {
			g.index[u.ID] = len(g.ids)
			g.ids = append(g.ids, u.ID)
		}
	}
	in := make([][]edge, len(g.ids))
	var many map[[2]int]int // (from, to) → its place in in[to], for units of many dependencies
	edges := 0
	report := func(line int, format string, args ...any) {
		if errs != nil {
			*errs = append(*errs, p.errorf(line, format, args...))
		}
	}
	link := func(fi, ti, line int) {
		k := -1
		if len(in[ti]) < manyDeps {
			k = slices.IndexFunc(in[ti], func(e edge) bool { return e.from == fi })
		} else {
			if many == nil {
				many = map[[2]int]int{}
			}
			if len(in[ti]) == manyDeps {
				for j, e := range in[ti] {
					many[[2]int{e.from, ti}] = j
				}
			}
			if j, ok := many[[2]int{fi, ti}]; ok {
				k = j
			} else {
				many[[2]int{fi, ti}] = len(in[ti])
			}
		}
		if k >= 0 {
			in[ti][k].line = min(in[ti][k].line, line)
			return
		}
		in[ti] = append(in[ti], edge{fi, line})
		edges++
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
			link(fi, ti, line)
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
	g.place(in, edges)
	return g
}

// place lays the edges of each unit (in[i]: what unit i depends on) out
// in the graph: deps, their lines and dependents, each sorted by natural
// ID order, in arrays of all the edges.
func (g *graph) place(in [][]edge, edges int) {
	byID := func(a, b int) int { return CompareIDs(g.ids[a], g.ids[b]) }
	byFrom := func(a, b edge) int { return byID(a.from, b.from) }
	g.deps = make([][]int, len(g.ids))
	g.depLines = make([][]int, len(g.ids))
	g.dependents = make([][]int, len(g.ids))
	deps, lines := make([]int, 0, edges), make([]int, 0, edges)
	counts := make([]int, len(g.ids)) // then each unit's start in dependents
	for ti, es := range in {
		if len(es) > 1 && !slices.IsSortedFunc(es, byFrom) {
			slices.SortFunc(es, byFrom)
		}
		start := len(deps)
		for _, e := range es {
			deps = append(deps, e.from)
			lines = append(lines, e.line)
			counts[e.from]++
		}
		if len(es) > 0 {
			g.deps[ti] = deps[start:len(deps):len(deps)]
			g.depLines[ti] = lines[start:len(lines):len(lines)]
		}
	}
	dependents := make([]int, edges)
	at := 0
	for i, n := range counts {
		if n > 0 {
			g.dependents[i] = dependents[at : at : at+n]
		}
		at += n
	}
	for ti, ds := range g.deps {
		for _, fi := range ds {
			g.dependents[fi] = append(g.dependents[fi], ti)
		}
	}
	for _, ds := range g.dependents {
		if len(ds) > 1 && !slices.IsSortedFunc(ds, byID) {
			slices.SortFunc(ds, byID)
		}
	}
}

// line is the lowest line declaring that unit to depends on unit from.
func (g *graph) line(from, to int) int {
	if k := slices.Index(g.deps[to], from); k >= 0 {
		return g.depLines[to][k]
	}
	return 0
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
		l := g.line(v, found[(i+1)%len(found)])
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
	order := g.orderIndex()
	out := make([]string, len(order))
	for i, v := range order {
		out[i] = g.ids[v]
	}
	return out
}

// orderIndex is order by position in g.ids.
func (g *graph) orderIndex() []int {
	waiting := make([]int, len(g.ids))
	ready := &intHeap{}
	for i := range g.ids {
		waiting[i] = len(g.deps[i])
		if waiting[i] == 0 {
			ready.push(i)
		}
	}
	placed := make([]bool, len(g.ids))
	out := make([]int, 0, len(g.ids))
	for ready.Len() > 0 {
		v := ready.pop()
		placed[v] = true
		out = append(out, v)
		for _, w := range g.dependents[v] {
			if waiting[w]--; waiting[w] == 0 {
				ready.push(w)
			}
		}
	}
	for i, ok := range placed {
		if !ok {
			out = append(out, i)
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
	for _, v := range g.orderIndex() {
		if id := g.ids[v]; !done(id) && !slices.ContainsFunc(g.deps[v], func(d int) bool { return !done(g.ids[d]) }) {
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
// Typed, not through container/heap, whose any boxes every index above 255.
type intHeap []int

func (h intHeap) Len() int { return len(h) }

// push adds v.
func (h *intHeap) push(v int) {
	*h = append(*h, v)
	a := *h
	for i := len(a) - 1; i > 0; {
		up := (i - 1) / 2
		if a[up] <= a[i] {
			break
		}
		a[up], a[i] = a[i], a[up]
		i = up
	}
}

// pop removes and returns the least index.
func (h *intHeap) pop() int {
	a := *h
	top, n := a[0], len(a)-1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, least := 2*i+1, i
		if l < n && a[l] < a[least] {
			least = l
		}
		if r := l + 1; r < n && a[r] < a[least] {
			least = r
		}
		if least == i {
			break
		}
		a[i], a[least] = a[least], a[i]
		i = least
	}
	*h = a
	return top
}
