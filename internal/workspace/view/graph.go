package view

import (
	"fmt"
	"slices"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

// The classes a unit of the graph is drawn in: its status, with pending
// split into ready (its dependencies are done) and waiting.
const (
	ClassDone       = string(state.Done)
	ClassInProgress = string(state.InProgress)
	ClassConfirming = string(state.Confirming)
	ClassVerifying  = string(state.Verifying)
	ClassBlocked    = string(state.Blocked)
	ClassTimeout    = string(state.Timeout)
	ClassReady      = "ready"
	ClassWaiting    = "waiting"
	ClassFailed     = string(state.Failed)
	ClassSkipped    = string(state.Skipped)
)

// GraphClasses are the classes in the order a legend lists them.
var GraphClasses = []string{ClassDone, ClassInProgress, ClassConfirming, ClassVerifying, ClassBlocked, ClassTimeout, ClassReady, ClassWaiting, ClassFailed, ClassSkipped}

// GraphNode is one unit of the plan's graph.
type GraphNode struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Status     string `json:"status"` // the unit's status in state.json
	Class      string `json:"class"`  // one of GraphClasses
	Iterations int    `json:"iterations"`
	Max        int    `json:"max_iterations,omitempty"`
	// Layer is the length of the longest chain of dependencies below the
	// unit (0: it depends on nothing): the column or row it is drawn in.
	Layer int `json:"layer"`
	// Claim names who holds the unit and until when, "" when nobody does.
	Claim string `json:"claim,omitempty"`
	// Critical marks the units on the critical path.
	Critical bool `json:"critical,omitempty"`
	// Reason is why a blocked, failed or skipped unit is so, ReasonKind
	// what it needs, and ReplacedBy the units that replace it in the plan.
	Reason     string   `json:"reason,omitempty"`
	ReasonKind string   `json:"reason_kind,omitempty"`
	ReplacedBy []string `json:"replaced_by,omitempty"`
}

// GraphEdge is a dependency: To depends on From.
type GraphEdge struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Critical bool   `json:"critical,omitempty"` // both ends on the critical path, in a row
}

// GraphModel is the plan as a graph: units in plan order, dependencies,
// and the critical path.
type GraphModel struct {
	Task  string      `json:"task"`
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
	// Critical is the longest chain of unfinished units through the
	// dependencies (by Estimate when every unfinished unit has one of one
	// kind, else by count), first to last; empty when all are done.
	Critical []string `json:"critical_path"`
	// Weight is what Critical adds up to ("3 units", "7.5h").
	Weight string `json:"critical_weight,omitempty"`
}

// Graph builds the graph of a task from its state, plan and claims.
func Graph(st *store.Store, slug string) (*GraphModel, error) {
	slug, err := st.Select(slug)
	if err != nil {
		return nil, err
	}
	t, err := st.LoadLight(slug)
	if err != nil {
		return nil, err
	}
	if t.StateErr != nil {
		return nil, t.StateErr
	}
	claims, _ := st.Claims(slug)
	return GraphOf(slug, t.State, t.Plan, claims), nil
}

// GraphOf is Graph of a state, a plan (nil: the state's units, without
// dependencies) and claims, read from nothing else.
func GraphOf(slug string, s *state.State, p *plan.Plan, claims map[string]store.Claim) *GraphModel {
	if p != nil {
		ids, units := s.Ordered()
		if deps, ok := p.Positions(ids); ok {
			return graphAt(slug, s, p, claims, ids, units, deps)
		}
	}
	return graphByID(slug, s, p, claims)
}

// graphByID is GraphOf for a state whose units do not line up with the
// plan's (or without a plan): each unit and dependency by ID.
func graphByID(slug string, s *state.State, p *plan.Plan, claims map[string]store.Claim) *GraphModel {
	g := &GraphModel{Task: slug, Nodes: []GraphNode{}, Edges: []GraphEdge{}, Critical: []string{}}
	var deps, replacedBy map[string][]string
	if p != nil {
		deps, replacedBy = p.DepMap(), p.ReplacedBy()
	}
	settled := reconcile.SettledFunc(s, p)
	ids := s.IDs()
	index := map[string]int{}
	for _, id := range ids {
		u := s.Units[id]
		n := GraphNode{ID: id, Status: string(u.Status), Iterations: state.Val(u.IterationsUsed), Max: state.Val(u.MaxIterations),
			Reason: state.Val(u.Reason), ReasonKind: state.Val(u.ReasonKind), ReplacedBy: replacedBy[id]}
		if p != nil {
			if pu := p.Unit(id); pu != nil {
				n.Title = pu.Title
			}
		}
		n.Class = classOf(u, deps[id], settled)
		if n.Class == ClassReady && reconcile.StandingBy(s, p, id) {
			n.Class = ClassWaiting // a replacement stands by until the unit it replaces fails
		}
		if c, ok := claims[id]; ok && (c.Finished == "" || u.Status != state.Done) {
			n.Claim = c.Holding()
		}
		index[id] = len(g.Nodes)
		g.Nodes = append(g.Nodes, n)
	}
	for _, id := range ids {
		for _, d := range deps[id] {
			if _, ok := index[d]; ok {
				g.Edges = append(g.Edges, GraphEdge{From: d, To: id})
			}
		}
	}
	// Layers by position, not by ID: a plan of 100,000 units looks each
	// dependency up once.
	at := make([][]int, len(ids))
	for i, id := range ids {
		for _, d := range deps[id] {
			if j, ok := index[d]; ok {
				at[i] = append(at[i], j)
			}
		}
	}
	for i, l := range layersOf(at) {
		g.Nodes[i].Layer = l
	}
	g.Critical, g.Weight = criticalPath(s, p, ids, deps, index)
	on := map[string]int{}
	for i, id := range g.Critical {
		on[id] = i + 1
		g.Nodes[index[id]].Critical = true
	}
	for i, e := range g.Edges {
		if a, b := on[e.From], on[e.To]; a > 0 && b == a+1 {
			g.Edges[i].Critical = true
		}
	}
	return g
}

// graphAt is GraphOf for a state whose units line up with the plan's
// (plan.Positions): units[i] is the unit of ids[i], p.Units[i] its plan
// unit and deps[i] the positions it depends on. Every unit and edge is
// walked by position, no unit looked up by ID.
func graphAt(slug string, s *state.State, p *plan.Plan, claims map[string]store.Claim, ids []string, units []*state.Unit, deps [][]int) *GraphModel {
	g := &GraphModel{Task: slug, Nodes: make([]GraphNode, 0, len(ids)), Edges: []GraphEdge{}, Critical: []string{}}
	replacedBy := p.ReplacedBy()
	settled := reconcile.SettledAt(s, p, ids, units)
	edges := 0
	for i, id := range ids {
		u := units[i]
		n := GraphNode{ID: id, Title: p.Units[i].Title, Status: string(u.Status), Iterations: state.Val(u.IterationsUsed), Max: state.Val(u.MaxIterations),
			Reason: state.Val(u.Reason), ReasonKind: state.Val(u.ReasonKind), ReplacedBy: replacedBy[id]}
		n.Class = classAt(u, deps[i], settled)
		if n.Class == ClassReady && reconcile.StandingByUnit(s, p, u) {
			n.Class = ClassWaiting // a replacement stands by until the unit it replaces fails
		}
		if c, ok := claims[id]; ok && (c.Finished == "" || u.Status != state.Done) {
			n.Claim = c.Holding()
		}
		g.Nodes = append(g.Nodes, n)
		edges += len(deps[i])
	}
	for i, l := range layersOf(deps) {
		g.Nodes[i].Layer = l
	}
	path, weight := criticalAt(p, units, deps, settled)
	g.Weight = weight
	on := make([]int, len(ids)) // position on the critical path, from 1
	if len(path) > 0 {
		g.Critical = make([]string, len(path))
	}
	for k, i := range path {
		g.Critical[k] = ids[i]
		on[i] = k + 1
		g.Nodes[i].Critical = true
	}
	if edges > 0 {
		g.Edges = make([]GraphEdge, 0, edges)
	}
	for i, id := range ids {
		for _, d := range deps[i] {
			a, b := on[d], on[i]
			g.Edges = append(g.Edges, GraphEdge{From: ids[d], To: id, Critical: a > 0 && b == a+1})
		}
	}
	return g
}

// layersOf is the layer of each unit, the length of the longest chain of
// dependencies below it, by position: deps[i] are the positions unit i
// depends on. Cycles are refused by itr plan; a cycle in a hand-edited
// plan is cut where it closes.
func layersOf(deps [][]int) []int {
	layer := make([]int, len(deps))
	for i := range layer {
		layer[i] = -1
	}
	visiting := make([]bool, len(deps))
	var depth func(i int) int
	depth = func(i int) int {
		if layer[i] >= 0 {
			return layer[i]
		}
		if visiting[i] {
			return 0
		}
		visiting[i] = true
		l := 0
		for _, j := range deps[i] {
			l = max(l, depth(j)+1)
		}
		visiting[i] = false
		layer[i] = l
		return l
	}
	for i := range deps {
		depth(i)
	}
	return layer
}

// classAt is classOf by position: a pending unit is ready when every
// dependency (deps, positions) is settled.
func classAt(u *state.Unit, deps []int, settled []bool) string {
	if c := statusClass(u.Status); c != "" {
		return c
	}
	for _, d := range deps {
		if !settled[d] {
			return ClassWaiting
		}
	}
	return ClassReady
}

// criticalAt is criticalPath by position (see graphAt), the path as
// positions.
func criticalAt(p *plan.Plan, units []*state.Unit, deps [][]int, settled []bool) ([]int, string) {
	open := make([]bool, len(units))
	for i, u := range units {
		open[i] = u != nil && !settled[i]
	}
	return heaviestChain(open, deps, func(i int) *plan.Unit { return p.Units[i] })
}

// heaviestChain is the critical path's walk over units by position: the
// heaviest chain of open units, each depending (deps) on the one before,
// by Estimate when every open unit has one of one kind (planUnit gives a
// unit's plan entry, nil when there is none), else one per unit; ties go
// to the chain met first. It returns the chain's positions and its weight
// in words.
func heaviestChain(open []bool, deps [][]int, planUnit func(int) *plan.Unit) ([]int, string) {
	n := len(open)
	weight := make([]float64, n)
	kind := ""
	byEstimate := planUnit != nil
	for i := range open {
		if !open[i] {
			continue
		}
		weight[i] = 1
		if !byEstimate {
			continue
		}
		pu := planUnit(i)
		if pu == nil {
			byEstimate = false
			continue
		}
		w, k, ok := pu.Weight()
		if !ok || (kind != "" && k != kind) {
			byEstimate = false
			continue
		}
		kind = k
		weight[i] = w
	}
	if !byEstimate {
		for i := range weight {
			if open[i] {
				weight[i] = 1
			}
		}
	}
	best := make([]float64, n)
	prev := make([]int, n)
	done := make([]bool, n)
	var walk func(i int) float64
	walk = func(i int) float64 {
		if done[i] {
			return best[i]
		}
		done[i] = true // a cycle ends here
		prev[i] = -1
		total := weight[i]
		for _, j := range deps[i] {
			if !open[j] {
				continue
			}
			if w := walk(j) + weight[i]; w > total {
				total, prev[i] = w, j
			}
		}
		best[i] = total
		return total
	}
	end, top := -1, 0.0
	for i := range open {
		if open[i] {
			if w := walk(i); w > top {
				end, top = i, w
			}
		}
	}
	if end < 0 {
		return nil, ""
	}
	var path []int
	seen := make([]bool, n)
	for i := end; i >= 0 && !seen[i]; i = prev[i] {
		seen[i] = true
		path = append(path, i)
	}
	slices.Reverse(path) // walked from the end back
	if byEstimate {
		return path, fmt.Sprintf("%g%s", top, unitSuffix(kind))
	}
	return path, fmt.Sprintf("%d unit%s", len(path), store.Plural(len(path), "", "s"))
}

// classOf is the class a unit is drawn in; a pending unit is ready when
// every dependency is settled (done, skipped, or failed and replaced).
func classOf(u *state.Unit, deps []string, settled func(string) bool) string {
	if c := statusClass(u.Status); c != "" {
		return c
	}
	for _, d := range deps {
		if !settled(d) {
			return ClassWaiting
		}
	}
	return ClassReady
}

// statusClass is the class of a unit in status st, "" for a pending one
// (ready or waiting by its dependencies).
func statusClass(st state.Status) string {
	switch st {
	case state.Done:
		return ClassDone
	case state.InProgress:
		return ClassInProgress
	case state.Confirming:
		return ClassConfirming
	case state.Verifying:
		return ClassVerifying
	case state.Blocked:
		return ClassBlocked
	case state.Timeout:
		return ClassTimeout
	case state.Failed:
		return ClassFailed
	case state.Skipped:
		return ClassSkipped
	}
	return ""
}

// criticalPath is the heaviest chain of unfinished units, each depending
// on the one before, by Estimate when every unfinished unit has one of one
// kind, else one per unit; ties go to the chain met first in plan order.
// It is heaviestChain over ids by their positions (index gives them).
func criticalPath(s *state.State, p *plan.Plan, ids []string, deps map[string][]string, index map[string]int) ([]string, string) {
	settled := reconcile.SettledFunc(s, p)
	open := make([]bool, len(ids))
	at := make([][]int, len(ids))
	for i, id := range ids {
		open[i] = s.Units[id] != nil && !settled(id)
		for _, d := range deps[id] {
			if j, ok := index[d]; ok {
				at[i] = append(at[i], j)
			}
		}
	}
	var planUnit func(int) *plan.Unit
	if p != nil {
		planUnit = func(i int) *plan.Unit { return p.Unit(ids[i]) }
	}
	path, weight := heaviestChain(open, at, planUnit)
	out := make([]string, len(path))
	for k, i := range path {
		out[k] = ids[i]
	}
	return out, weight
}

// unitSuffix is how an Estimate kind is written after a number.
func unitSuffix(kind string) string {
	if kind == "pts" {
		return " points"
	}
	return kind
}
