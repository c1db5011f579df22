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
	// Layers: the longest chain below each unit. Cycles are refused by
	// itr plan; a cycle in a hand-edited plan is cut where it closes.
	layer := map[string]int{}
	visiting := map[string]bool{}
	var depth func(id string) int
	depth = func(id string) int {
		if l, ok := layer[id]; ok {
			return l
		}
		if visiting[id] {
			return 0
		}
		visiting[id] = true
		l := 0
		for _, d := range deps[id] {
			if _, ok := index[d]; ok {
				l = max(l, depth(d)+1)
			}
		}
		visiting[id] = false
		layer[id] = l
		return l
	}
	for i := range g.Nodes {
		g.Nodes[i].Layer = depth(g.Nodes[i].ID)
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

// classOf is the class a unit is drawn in; a pending unit is ready when
// every dependency is settled (done, skipped, or failed and replaced).
func classOf(u *state.Unit, deps []string, settled func(string) bool) string {
	switch u.Status {
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
	for _, d := range deps {
		if !settled(d) {
			return ClassWaiting
		}
	}
	return ClassReady
}

// criticalPath is the heaviest chain of unfinished units, each depending
// on the one before, by Estimate when every unfinished unit has one of one
// kind, else one per unit; ties go to the chain met first in plan order.
func criticalPath(s *state.State, p *plan.Plan, ids []string, deps map[string][]string, index map[string]int) ([]string, string) {
	settled := reconcile.SettledFunc(s, p)
	open := func(id string) bool { u := s.Units[id]; return u != nil && !settled(id) }
	weight := map[string]float64{}
	kind := ""
	byEstimate := p != nil
	for _, id := range ids {
		if !open(id) {
			continue
		}
		weight[id] = 1
		if !byEstimate {
			continue
		}
		pu := p.Unit(id)
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
		weight[id] = w
	}
	if !byEstimate {
		for id := range weight {
			weight[id] = 1
		}
	}
	best := map[string]float64{}
	prev := map[string]string{}
	done := map[string]bool{}
	var walk func(id string) float64
	walk = func(id string) float64 {
		if done[id] {
			return best[id]
		}
		done[id] = true // a cycle ends here
		total := weight[id]
		for _, d := range deps[id] {
			if _, ok := index[d]; !ok || !open(d) {
				continue
			}
			if w := walk(d) + weight[id]; w > total {
				total, prev[id] = w, d
			}
		}
		best[id] = total
		return total
	}
	end, top := "", 0.0
	for _, id := range ids {
		if open(id) {
			if w := walk(id); w > top {
				end, top = id, w
			}
		}
	}
	if end == "" {
		return []string{}, ""
	}
	var path []string
	seen := map[string]bool{}
	for id := end; id != "" && !seen[id]; id = prev[id] {
		seen[id] = true
		path = append(path, id)
	}
	slices.Reverse(path) // walked from the end back
	if byEstimate {
		return path, fmt.Sprintf("%g%s", top, unitSuffix(kind))
	}
	return path, fmt.Sprintf("%d unit%s", len(path), store.Plural(len(path), "", "s"))
}

// unitSuffix is how an Estimate kind is written after a number.
func unitSuffix(kind string) string {
	if kind == "pts" {
		return " points"
	}
	return kind
}
