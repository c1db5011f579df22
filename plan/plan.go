// Package plan reads and writes the plan of a task: tasks.md in development
// mode and plan.md in knowledge mode. It turns the file into units with
// their limits, completion signals and dependencies, checks the dependency
// graph (unknown units, self-dependencies, cycles) and answers the questions
// the rest of itr asks of it: in which order do the units run, which are
// ready, what is a unit waiting on.
//
// The package is pure: it reads no files, no clock and no environment.
// Render writes a parsed plan back so that parsing the result gives the same
// plan again; text it does not understand (notes, other sections) is kept
// verbatim. Sync keeps a plan file in step with the state without
// rewriting it: it sets the checkboxes and the Status and Total counts and
// leaves every other byte as it was.
package plan

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/itr-dev/itr/state"
)

// Mode is the kind of task a plan belongs to.
type Mode string

// The two modes. Development plans list tasks under "## Tasks", knowledge
// plans list phases under "## Phases".
const (
	Development Mode = "development"
	Knowledge   Mode = "knowledge"
)

// Field is one "Key: value" pair: a "**Key:** value" header line of the plan
// or a "- Key: value" sub-item of a unit.
type Field struct{ Key, Value string }

// Unit is one task (development) or phase (knowledge) of the plan.
type Unit struct {
	ID    string // T1, R2, IV-A, PHASE_3 (state.ValidID); template text such as "{ID}" in a placeholder unit
	Title string
	Done  bool // the box is checked: "- [x]"

	// Raw values of the known sub-items, "" when absent. A value continued
	// on more indented lines holds them joined with "\n".
	Files, Criteria, Completion, Output, Model string
	// Inputs is the raw value of the Inputs sub-item: the files the unit
	// reads and other units' outputs ("T1.output"); see InputRefs.
	Inputs string
	// Estimate is the unit's size as written ("3", "2h", "1.5d"); see
	// Weight.
	Estimate string
	// Verify is the unit's check, a command line ("Verify: go test
	// ./auth/..."), that checkpoint --verify runs when given no command.
	Verify string
	// Checks are the unit's named checks ("Check NAME: COMMAND"), in plan
	// order; see RunChecks.
	Checks []NamedCheck

	MaxIterations int // 0 when absent
	// MinWords is the least number of words each output must hold, 0 when
	// absent ("Min words: N").
	MinWords int
	// Complete is "sentences" when each output must end with a whole
	// sentence ("Complete: sentences"), else "".
	Complete string
	// The output rules as written, "" when absent: the
	// "Truncation markers" (see MarkerLists), "Must end with" (Footers),
	// "Sections" (SectionNames) and "Max size" (MaxSizeOf). See rules.go.
	TruncationMarkers, MustEndWith, Sections, MaxSize string
	// Items is the "Items" sub-item as written, "" when absent: a count
	// (ItemCount, items 1 to N) or a list of item IDs (ItemNames, in plan
	// order). See items.go.
	Items     string
	ItemCount int
	ItemNames []string
	// Counters are the unit's "Counter" sub-items, in order (a unit may
	// have several).
	Counters []Counter
	// ItemStatesRaw and SettledRaw are the unit's "Item states" and
	// "Settled states" as written, "" when absent; SettleItems its "Settle
	// items before done" (yes or no) and KeyValue its "Key value". See
	// itemstates.go and Plan.ItemStatesOf.
	ItemStatesRaw, SettledRaw, SettleItems, KeyValue string
	// Metrics are the unit's "Metric" sub-items, targets for the numbers
	// its iterations record, in order.
	Metrics []MetricTarget
	// Depends lists the IDs of the "Depends" sub-item only (or of the
	// DependsOn of the inline form, see DependsInline), as written and
	// deduplicated. It is nil without that sub-item and empty (not nil) for
	// "Depends: none"; Deps gives the union with the dependencies section.
	Depends []string
	// DependsInline reports that Depends was read from seed 003's inline
	// form, "- [ ] S1: Search: Find sources (Status: PENDING, DependsOn:
	// P1, P2)", where Render writes it back. A "Depends" sub-item may
	// list the same units too; Parse refuses one that lists others.
	DependsInline bool
	// Status is the Status of the inline form, in upper case: one of
	// SeedStatuses, "" without one. It is COMPLETED exactly when the box
	// is checked (Parse refuses a plan that says otherwise); the other
	// values are a view, like the box: the log says where the unit
	// stands, and Sync writes it there at every event (SeedStatus).
	Status string
	// Pending holds "Max iterations", "Min words" and "Depends" sub-items whose value is
	// still template text such as "{N}", keyed by those names. Parse
	// accepts them only in a plan that is still the template. They mean
	// nothing and are kept only so Render writes them back, which it does
	// only while MaxIterations is 0 and Depends is nil.
	Pending map[string]string
	// Replaces lists the units this one stands in for ("Replaces: T3"), a
	// compensating unit: once it is done, a failed unit it replaces counts
	// as settled and its dependants may proceed. nil when absent.
	Replaces []string
	Extra    []Field // unknown sub-items in order; Key is "" for a bullet without "Key:"
	// Details is indented text between the unit line and its first
	// sub-item, one trimmed line per "\n".
	Details string
	// Notes is unindented text that follows the unit's sub-items, verbatim.
	Notes string

	Placeholder bool // the ID or the title is still template text like "{title}"
	Line        int  // 1-based line of the unit line

	dependsLine int      // line of the Depends sub-item, for errors
	section     int      // 1 + index in Plan.Sections of the units section holding it; 0: the first
	lines       keyLines // known sub-item key → its line, for errors
	extraLines  []int    // line of each Extra sub-item, for errors
}

// Signal is the completion signal of the unit: the text inside
// <signal>…</signal> in its Completion sub-item, else that value without
// backticks, else ID_DONE.
func (u *Unit) Signal() string {
	v := u.Completion
	if i := strings.Index(v, "<signal>"); i >= 0 {
		rest := v[i+len("<signal>"):]
		if j := strings.Index(rest, "</signal>"); j >= 0 {
			v = rest[:j]
		}
	}
	if s := strings.TrimSpace(strings.ReplaceAll(v, "`", "")); s != "" {
		return s
	}
	return u.ID + "_DONE"
}

// SectionKind tells what a "## " section of the plan holds.
type SectionKind int

// The kinds of section.
const (
	OtherSection        SectionKind = iota // kept verbatim: "## Notes" and anything unknown
	DependenciesSection                    // "## Dependencies": arrow lines such as "T1 → T2"
	UnitsSection                           // "## Tasks" or "## Phases": the units
)

// Section is one "## " section of the plan, in document order.
type Section struct {
	Heading string // text after "## ", as written
	Kind    SectionKind
	// Body is the section's text verbatim without leading and trailing
	// blank lines. For a units section it is the text before its first unit;
	// the units themselves are in Plan.Units.
	Body string
	Line int // line of the heading

	bodyLine int // line of the first line of Body
}

// Plan is a parsed tasks.md or plan.md.
type Plan struct {
	File     string  // name used in errors, such as "tasks.md"
	Mode     Mode    // from the units heading, else from the file name
	Title    string  // the "# ..." line without "# "
	Meta     []Field // "**Key:** value" header lines, in order
	Preamble string  // other text before the first "##" heading, verbatim
	Units    []*Unit // in document order
	// Sections are the "## " sections in document order. Render writes them
	// in this order; a plan built in code may leave it empty.
	Sections []Section

	metaLines []int // line of each Meta field, for errors

	// parsed marks a plan that Parse returned: read-only by contract, so
	// its dependency graph and its units by ID are built once (graphOnce,
	// unitsOnce) instead of on every query. A plan built in code is
	// searched afresh each time, as it may change.
	parsed    bool
	graphOnce *graphCache
	unitsOnce *unitsCache
	// replacing is set on a parsed plan when a unit replaces another.
	replacing bool
}

// lastParsed is the plan Parse returned last in this process, with the
// text it read (a BOM taken off, line endings made LF) and whether its
// Mode came from the file's name rather than a heading: what SyncViewWith
// needs to know a plan is the file it syncs. Kept beside the plan, not in
// it, so that two plans of the same units compare equal; weakly, so that
// it never keeps a plan alive.
var lastParsed struct {
	sync.Mutex
	p          weak.Pointer[Plan]
	src        string
	modeOfFile bool
}

// noteParsed remembers p as the plan Parse read from src.
func noteParsed(p *Plan, src string, modeOfFile bool) {
	lastParsed.Lock()
	defer lastParsed.Unlock()
	lastParsed.p, lastParsed.src, lastParsed.modeOfFile = weak.Make(p), src, modeOfFile
}

// parsedFrom reports whether p is the plan Parse read last and data its
// text, and whether its Mode came from the file's name.
func parsedFrom(p *Plan, data []byte) (ok, modeOfFile bool) {
	lastParsed.Lock()
	defer lastParsed.Unlock()
	if p == nil || lastParsed.p.Value() != p || string(data) != lastParsed.src {
		return false, false
	}
	return true, lastParsed.modeOfFile
}

// graphCache holds the graph of a parsed plan.
type graphCache struct {
	once sync.Once
	g    *graph
	// built is set once g is: what Unit reads to know, without building
	// the graph (building it asks Unit), whether it may use it.
	built atomic.Bool
}

// unitsCache holds the units of a parsed plan by ID: by the graph's index
// of positions when every unit is in the graph (valid, distinct IDs: the
// graph's positions are the units'), which spares a second map of every
// ID; else a map of its own.
type unitsCache struct {
	once sync.Once
	pos  map[string]int
	ix   map[string]*Unit
}

// Error is a problem in a plan file, at a line.
type Error struct {
	File string
	Line int
	Msg  string
}

// Error returns "FILE:LINE: MSG".
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Unit returns the unit with the given ID, or nil: a map lookup on a
// parsed plan (every rule asks it of many units), a search otherwise.
func (p *Plan) Unit(id string) *Unit {
	if p.parsed && p.unitsOnce != nil {
		c := p.unitsOnce
		c.once.Do(func() {
			if gc := p.graphOnce; gc != nil && gc.built.Load() && len(gc.g.ids) == len(p.Units) {
				c.pos = gc.g.index
			} else {
				c.ix = p.Index()
			}
		})
		if c.pos != nil {
			if i, ok := c.pos[id]; ok {
				return p.Units[i]
			}
			return nil
		}
		return c.ix[id]
	}
	for _, u := range p.Units {
		if u.ID == id {
			return u
		}
	}
	return nil
}

// Positions returns the dependencies of the plan's units by position, when
// ids are exactly the IDs of its units in document order (ids[i] ==
// p.Units[i].ID, as a state in step with a plan in natural order lists
// them): deps[i] holds the positions in ids of the units ids[i] depends
// on, in natural ID order, and p.Units[i] is the unit of ids[i]. ok is
// false otherwise (the caller asks by ID). The slices are shared with the
// plan: read them, never change them. The check is linear, without a map:
// the way to walk a large plan's units and edges without looking each up.
func (p *Plan) Positions(ids []string) (deps [][]int, ok bool) {
	if len(ids) != len(p.Units) {
		return nil, false
	}
	for i, u := range p.Units {
		if u.ID != ids[i] {
			return nil, false
		}
	}
	g := p.graph(nil)
	if len(g.ids) != len(ids) {
		return nil, false
	}
	return g.deps, true
}

// UniqueIDs reports whether p is a parsed plan whose units' IDs are all
// valid and distinct (Parse refuses others but a template's): then a view
// holding as many units as p, all of p's, holds no other. A plan built in
// code answers false, as it may change.
func (p *Plan) UniqueIDs() bool {
	return p.parsed && p.graphOnce != nil && len(p.graph(nil).ids) == len(p.Units)
}

// OrderPositions is Order by position: the positions in p.Units of its
// units in Order's order, for a plan whose units Positions lines up.
func (p *Plan) OrderPositions() []int { return p.graph(nil).orderIndex() }

// ReadOnly reports whether p came from Parse: read-only, so that Unit and
// Deps are map lookups in what was built once, the way to ask about a few
// units of a large plan without an Index or a DepMap of all of them.
func (p *Plan) ReadOnly() bool { return p.parsed && p.unitsOnce != nil && p.graphOnce != nil }

// AnyReplaces reports whether a unit of p replaces another ("Replaces:"):
// without one, no unit stands by and none is replaced, which a view may
// know without asking about each unit. A parsed plan answers from what
// Parse saw.
func (p *Plan) AnyReplaces() bool {
	if p.parsed {
		return p.replacing
	}
	return slices.ContainsFunc(p.Units, func(u *Unit) bool { return len(u.Replaces) > 0 })
}

// Index returns the units by ID, as Unit finds them (the first unit with
// an ID wins), from one pass: the way to look up many units.
func (p *Plan) Index() map[string]*Unit {
	out := make(map[string]*Unit, len(p.Units))
	for _, u := range p.Units {
		if _, ok := out[u.ID]; !ok {
			out[u.ID] = u
		}
	}
	return out
}

// IDs returns the IDs of the units in document order, leaving out units
// whose ID is still template text.
func (p *Plan) IDs() []string {
	var ids []string
	if len(p.Units) > 0 && p.UniqueIDs() {
		// Every ID valid and distinct: no map to tell the repeated ones.
		ids = make([]string, len(p.Units))
		for i, u := range p.Units {
			ids[i] = u.ID
		}
		return ids
	}
	seen := make(map[string]bool, len(p.Units))
	for _, u := range p.Units {
		if ValidID(u.ID) && !seen[u.ID] {
			seen[u.ID] = true
			ids = append(ids, u.ID)
		}
	}
	return ids
}

// Placeholder reports whether the plan is still the template: every unit is
// a placeholder, or there are no units. Such a plan parses with its
// template text; once one unit is real, Parse refuses any template text
// left in the units or in the "**Key:** value" header lines.
func (p *Plan) Placeholder() bool {
	for _, u := range p.Units {
		if !u.Placeholder {
			return false
		}
	}
	return true
}

// ValidID reports whether s is a unit ID: an ASCII letter, then ASCII
// letters, digits, '-' and '_', such as T1, IV-A, W2-001 or
// PHASE_3_HIGH_SEVERITY; it is state.ValidID, the one rule every package
// uses. Parse refuses two IDs that differ only in case.
func ValidID(s string) bool { return state.ValidID(s) }

// CompareIDs orders unit IDs naturally (T2 < T10, R9 < T1, IV-A <
// IV-B, W2-9 < W2-10); it is
// state.CompareIDs, the one order every package uses.
func CompareIDs(a, b string) int { return state.CompareIDs(a, b) }

// keyLines are a unit's known sub-item keys with the line of each, in the
// order they were read: a unit has a few, so a slice searched in order is
// smaller and faster than a map of its own for each of 100,000 units.
type keyLines []keyLine

// keyLine is one known sub-item key and its line.
type keyLine struct {
	key  string
	line int
}

// at is the line of key, 0 when the unit has no such sub-item.
func (kl keyLines) at(key string) int {
	n, _ := kl.find(key)
	return n
}

// find is the line of key and whether the unit has that sub-item.
func (kl keyLines) find(key string) (int, bool) {
	for _, l := range kl {
		if l.key == key {
			return l.line, true
		}
	}
	return 0, false
}
