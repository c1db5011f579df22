package plan

import (
	"slices"
	"strings"
)

// A unit's "Replaces: T3" sub-item makes it a compensating unit: it stands
// in for T3 when T3 failed. Once the replacing unit is done, a failed T3
// counts as settled: its dependants may proceed as if it were done, and
// archive accepts it. While T3 has not failed, the replacement changes
// nothing about T3 (fail or skip it first).

// parseReplaces reads a Replaces value: unit IDs separated by commas
// and/or spaces, each optionally in backticks or bold, deduplicated. bad is
// the first token that is not an ID (the whole value when it names none),
// and ok is false then.
func parseReplaces(v string) (ids []string, bad string, ok bool) {
	toks := splitIDs(v)
	if len(toks) == 0 {
		return nil, v, false
	}
	for _, tok := range toks {
		id := strings.Trim(tok, "`*")
		if !ValidID(id) {
			return nil, tok, false
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, "", true
}

// replacesErrors checks every Replaces sub-item against the graph: it
// names defined units, not the unit itself, and not a unit the replacing
// unit depends on (directly or not), which could never be settled before
// it. Each error is at the sub-item's line.
func (p *Plan) replacesErrors(g *graph) []*Error {
	var errs []*Error
	for _, u := range p.Units {
		if len(u.Replaces) == 0 {
			continue
		}
		line := u.Line
		if n, ok := u.lines.find(keyReplaces); ok {
			line = n
		}
		for _, r := range u.Replaces {
			_, defined := g.index[r]
			switch {
			case r == u.ID:
				errs = append(errs, p.errorf(line, "unit %s replaces itself; name the failed unit it stands in for, or remove the Replaces line", u.ID))
			case !defined:
				errs = append(errs, p.errorf(line, "unit %s replaces %s, which is not defined; name a unit of the plan, or remove it from the Replaces line", u.ID, r))
			case g.reaches(u.ID, r):
				errs = append(errs, p.errorf(line, "unit %s replaces %s but depends on it, so %s could never count as done before %s; remove the dependency or the replacement", u.ID, r, r, u.ID))
			}
		}
	}
	return errs
}

// reaches reports whether unit from depends on unit to, directly or
// through other units.
func (g *graph) reaches(from, to string) bool {
	start, ok := g.index[from]
	target, ok2 := g.index[to]
	if !ok || !ok2 {
		return false
	}
	seen := make([]bool, len(g.ids))
	stack := []int{start}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range g.deps[v] {
			if d == target {
				return true
			}
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}

// ReplacedBy returns, for every unit some unit replaces, the units that
// replace it, in document order: the way to ask about many units at once.
// Replacements naming undefined units or the unit itself are left out.
func (p *Plan) ReplacedBy() map[string][]string {
	out := map[string][]string{}
	if !p.AnyReplaces() {
		return out // most plans replace nothing: no index of their units
	}
	known := p.Unit // a parsed plan's units by ID, built once
	if !p.parsed {
		ix := p.Index()
		known = func(id string) *Unit { return ix[id] }
	}
	seen := map[[2]string]bool{} // a replaced unit and its replacement, once each
	for _, u := range p.Units {
		if !ValidID(u.ID) {
			continue
		}
		for _, r := range u.Replaces {
			if r != u.ID && known(r) != nil && !seen[[2]string{r, u.ID}] {
				seen[[2]string{r, u.ID}] = true
				out[r] = append(out[r], u.ID)
			}
		}
	}
	return out
}
