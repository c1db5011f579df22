package view

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
)

//go:embed report.tmpl.html
var reportTemplate string

// reportTmpl is the page of itr report; html/template escapes every value
// for where it lands, so a collaborator's text is only ever text. It is
// parsed on first use: parsing at package init cost every itr command
// about 1 ms (GODEBUG=inittrace=1).
var reportTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"color":  func(class string) template.CSS { return template.CSS(paletteCSS(class)) },       //nolint:gosec // G203: colours from the fixed Palette, never user text
		"stroke": func(class string) template.CSS { return template.CSS(PaletteOf(class).Stroke) }, //nolint:gosec // G203: as above
		"label":  legendWords,
		"blocks": textBlocks,
	}).Parse(reportTemplate))
})

// paletteCSS is the CSS of a class's swatches and pills: its Palette
// fill and border, and the border's pattern (dashed, dotted, double,
// heavy) so that no class needs colour to be told apart.
func paletteCSS(class string) string {
	c := PaletteOf(class)
	css := "background:" + c.Fill + ";border-color:" + c.Stroke
	switch {
	case c.Double:
		css += ";border-style:double;border-width:4px"
	case c.Heavy:
		css += ";border-width:3px"
	case c.DotStyle != "":
		css += ";border-style:" + c.DotStyle
	}
	return css
}

// ReportData is what the report page shows.
type ReportData struct {
	Task, Slug, Goal, Mode, Phase string
	Dir                           string
	Done, Total, Percent          int
	Pace                          string
	Remaining                     string // the pace's estimate of what is left, "" without one
	Generated                     string // RFC 3339, UTC
	GeneratedText                 string
	Head, HeadShort, Branch       string
	Paused                        string
	Approval                      string // who approved the plan, when; "" when it asks for none or has none
	Outcome                       string // how the task ended, "" while it runs
	NextAction                    string
	Archive                       string
	Warnings, Checks              []string
	Flags                         []Flag

	Graph       template.HTML // the SVG GraphSVG drew
	NotDrawn    []GraphNode   // units left out of a capped drawing
	Drawn       int
	Legend      []ReportLegend
	Critical    string // the critical path, "T1 → T3"
	Weight      string
	EdgeCount   int
	Units       []ReportUnit
	Idle        []ReportUnit // units without entries
	TaskEntries []ReportEntry
	Guardrails  []progresslog.Guardrail
	Reconciles  []ReportEntry

	// Attention are the units that need a person: failed units (and what
	// replaces them) and units blocked on a decision.
	Attention []string
	// Decisions are the settled choices of decisions.md, newest first.
	Decisions []Decision
	// History is how many entries a unit, the task log and the reconcile
	// list show, newest first (0: all); TaskOlder and ReconcileOlder count
	// the older entries left out.
	History                   int
	TaskOlder, ReconcileOlder int
}

// DefaultReportHistory is how many entries of each unit (and of the task
// log) the report shows unless told otherwise: the newest.
const DefaultReportHistory = 10

// ReportOptions are the choices of ReportWith.
type ReportOptions struct {
	// History is how many entries each unit's card, the task log and the
	// reconcile list show, newest first, the older ones counted; 0 shows
	// every entry.
	History int
}

// TextBlock is a piece of collaborator text as the report shows it:
// prose, or the inside of a Markdown code fence (Code), shown as code.
type TextBlock struct {
	Code bool
	Text string
}

// textBlocks splits text at its Markdown code fences (a line starting
// with ```, its info string dropped): the prose between them and the code
// inside, each code line without the fence's indentation. A fence left
// open runs to the end.
func textBlocks(text string) []TextBlock {
	var out []TextBlock
	var cur []string
	code, indent := false, ""
	flush := func() {
		t := strings.Join(cur, "\n")
		if !code {
			t = strings.Trim(t, "\n")
		}
		if t != "" || code {
			out = append(out, TextBlock{Code: code, Text: t})
		}
		cur = nil
	}
	for _, l := range strings.Split(text, "\n") {
		if trimmed := strings.TrimLeft(l, " \t"); strings.HasPrefix(trimmed, "```") {
			flush()
			code, indent = !code, l[:len(l)-len(trimmed)]
			continue
		}
		if code {
			l = strings.TrimPrefix(l, indent)
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		flush()
	}
	return out
}

// ReportLegend is one class of the legend, with how many units it has.
type ReportLegend struct {
	Class string
	Count int
}

// ReportUnit is a unit of the timeline with its entries in log order.
type ReportUnit struct {
	ID, Title, Status, Class string
	Iterations, Max          int
	Depends                  []string
	Reason                   string
	Critical                 bool
	Entries                  []ReportEntry
	// Items words the unit's item ledger (by state where the plan
	// declares states), Metrics its metrics with their targets; Values
	// are its items' values, KeyValue the name shown first.
	Items, Metrics, KeyValue string
	Values                   []ReportValue
	// ReplacedBy are the units that replace a failed unit in the plan.
	ReplacedBy []string
	// Older counts the unit's entries older than those shown; Last is the
	// line of its newest entry in progress.md (0 without one).
	Older, Last int
	// Checks words the last result of each named check ("footer:
	// passed (run 3 times)"), Gates its gate rounds ("confirm 1, verify
	// 2"); "" without.
	Checks, Gates string
}

// reportChecks fills the named checks and gate rounds of unit u into ru.
func reportChecks(ru *ReportUnit, u *state.Unit) {
	if u == nil {
		return
	}
	var parts []string
	for _, name := range state.CheckNames(u.Checks) {
		c := u.Checks[name]
		s := name + ": " + c.Outcome
		if c.ExitCode != nil && c.Outcome != state.CheckPassed {
			s += fmt.Sprintf(" (exit %d)", *c.ExitCode)
		}
		if c.Target != "" {
			s += fmt.Sprintf(", %s against %s", orNoneText(c.Actual), c.Target)
		}
		s += fmt.Sprintf(", run %d time%s", c.Runs, store.Plural(c.Runs, "", "s"))
		parts = append(parts, s)
	}
	ru.Checks = strings.Join(parts, "; ")
	if g := u.GateRounds; g != nil {
		ru.Gates = fmt.Sprintf("confirm %d, verify %d", g.Confirm, g.Verify)
	}
}

func orNoneText(s string) string {
	if s == "" {
		return "no number"
	}
	return s
}

// ReportValue is one item's values: its key value, then the others.
type ReportValue struct {
	Item, Key, Others string
}

// maxReportValues is how many items' values a unit's card lists.
const maxReportValues = 200

// reportItems fills the item ledger, values and metrics of unit u into ru.
func reportItems(ru *ReportUnit, u UnitStatus) {
	if v := u.Items; v != nil {
		ru.Items, ru.KeyValue = v.Text(), v.KeyValue
		for i, iv := range v.Values {
			if i == maxReportValues {
				ru.Values = append(ru.Values, ReportValue{Item: "…", Others: fmt.Sprintf("and %d more items with values (itr status --json lists them all)", len(v.Values)-i)})
				break
			}
			rv := ReportValue{Item: iv.Item, Key: iv.Values[v.KeyValue]}
			var others []string
			for _, name := range sortedNames(iv.Values) {
				if name != v.KeyValue {
					others = append(others, name+": "+iv.Values[name])
				}
			}
			rv.Others = strings.Join(others, "; ")
			ru.Values = append(ru.Values, rv)
		}
	}
	if len(u.Metrics) > 0 {
		ru.Metrics = MetricsText(u.Metrics)
	}
}

// sortedNames are the keys of m in byte order.
func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ReportEntry is one entry of the log as the timeline shows it.
type ReportEntry struct {
	Kind     string // the entry's kind ("iteration", "blocked", ...)
	Label    string // "Iteration 2", "Blocked", "Reconciled"
	Stamp    string // as written
	When     string // the stamp made readable
	Did      string
	Move     string // the unit's status before → after, as the fold saw it
	Badges   []ReportBadge
	Run      string // the command of a verification run
	Result   string // its result
	RunClass string // pass, fail or other
	Fields   []progresslog.Field
	Lines    []string // Reconciled: what it found, one a line
	line     int      // where it starts in progress.md
}

// ReportBadge is a short mark on an entry: signal, verification...
type ReportBadge struct{ Class, Text string }

// Report renders a task as one self-contained HTML page: the header, the
// plan as an SVG graph, every unit's entries in order, the guardrails and
// what reconcile fixed. The page holds no script and loads nothing: its
// CSS is inline and its Content-Security-Policy forbids everything else.
//
// Each unit shows its newest DefaultReportHistory entries, newest first
// (ReportWith chooses another number).
func Report(st *store.Store, slug string, now time.Time) ([]byte, error) {
	return ReportWith(st, slug, now, ReportOptions{History: DefaultReportHistory})
}

// ReportWith is Report with options: how much history the page shows.
func ReportWith(st *store.Store, slug string, now time.Time, opts ReportOptions) ([]byte, error) {
	sum, t, err := status(st, slug)
	if err != nil {
		return nil, err
	}
	slug = sum.Slug
	if t.Progress(); t.ProgressErr != nil {
		return nil, t.ProgressErr
	}
	s := t.State
	if s == nil {
		s = sum.facts.derived
	}
	d := reportHeader(st, t, sum, now)
	d.History = max(opts.History, 0)
	g := d.addGraph(slug, s, t, sum.Claims)

	// The timeline: the moves of each unit as the reducer saw them.
	entries := t.Log().Entries
	byUnit := d.addEntries(entries, unitMoves(slug, t, entries))
	d.addUnits(g, s, t, byUnit, entries)
	d.fold()
	d.Guardrails = progresslog.ParseGuardrails(t.GuardrailsRaw).Entries
	for i := len(sum.Decisions) - 1; i >= 0; i-- {
		d.Decisions = append(d.Decisions, sum.Decisions[i])
	}

	// Room for the page at once: a plan of 100,000 units makes a page of
	// some 30 MB, which a buffer doubling its way there copies whole five
	// times over (memory not written is not touched, so room to spare
	// costs nothing).
	var out bytes.Buffer
	out.Grow(reportBytes + reportBytesPerUnit*len(s.Units))
	if err := reportTmpl().Execute(&out, d); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// The size of a report page, to make room for it: the page without
// units, and what each unit adds at most in its rows of the graph's list
// and the timeline (a unit with entries adds more, and the buffer grows).
const (
	reportBytes        = 96 << 10
	reportBytesPerUnit = 384
)

// reportHeader is the report's header: the task, where it stands, its
// pace, pause, checks and warnings, as of now.
func reportHeader(st *store.Store, t *store.Task, sum *Summary, now time.Time) *ReportData {
	d := &ReportData{
		Task: sum.Task, Slug: sum.Slug, Mode: sum.Mode, Phase: sum.Phase, Dir: sum.Dir,
		Done: sum.Done, Total: sum.Total, Percent: sum.Pace.PercentUnits,
		Pace: sum.Pace.String(), NextAction: sum.NextAction, Archive: sum.Archive,
		Generated:     now.UTC().Format(time.RFC3339),
		GeneratedText: now.UTC().Format("2006-01-02 15:04 UTC"),
		Head:          t.Head.Hash, Branch: strings.TrimPrefix(t.Head.Branch, "refs/heads/"),
		Warnings: sum.Warnings, Flags: sum.Flags,
	}
	if d.Task == "" {
		d.Task = sum.Slug
	}
	if len(d.Head) > 12 {
		d.HeadShort = d.Head[:12]
	} else {
		d.HeadShort = d.Head
	}
	if sum.Archive == "" {
		d.Goal = briefGoal(st, t)
	}
	d.Remaining = remainingText(sum.Pace)
	if sum.Paused != nil {
		d.Paused = pauseText(sum.Paused)
	}
	if a := sum.Approval; a != nil {
		d.Approval = a.By + " at " + a.At
	}
	if o := sum.Outcome; o != nil {
		d.Outcome = o.Text()
		if o.At != "" {
			d.Outcome += " (since " + o.At + ")"
		}
	}
	for _, c := range sum.Checks {
		d.Checks = append(d.Checks, c.String())
	}
	return d
}

// remainingText is the pace's estimate of what is left ("2 units left: 3-5
// iterations, 1-2 hours"), else its note, else "".
func remainingText(p Pace) string {
	r := p.Remaining
	if r == nil {
		return p.Note
	}
	text := fmt.Sprintf("%d unit%s left: %s iterations", r.Units, store.Plural(r.Units, "", "s"), span(r.IterationsLow, r.IterationsHigh))
	if r.SecondsHigh > 0 {
		text += ", " + timeSpan(r.SecondsLow, r.SecondsHigh)
	}
	return text
}

// addGraph draws the plan of task t (state s, the units agents claim)
// into the report, with its critical path and legend, and returns the
// graph.
func (d *ReportData) addGraph(slug string, s *state.State, t *store.Task, held []store.Claim) *GraphModel {
	claims := map[string]store.Claim{}
	for _, c := range held {
		claims[c.Unit] = c
	}
	g := GraphOf(slug, s, t.Plan, claims)
	svg, left := GraphSVG(g)
	d.Graph = template.HTML(svg) //nolint:gosec // G203: GraphSVG escapes every text it draws
	d.NotDrawn, d.Drawn, d.EdgeCount = left, len(g.Nodes)-len(left), len(g.Edges)
	d.Critical, d.Weight = strings.Join(g.Critical, " → "), g.Weight
	count := map[string]int{}
	for _, n := range g.Nodes {
		count[n.Class]++
	}
	for _, c := range GraphClasses {
		d.Legend = append(d.Legend, ReportLegend{Class: c, Count: count[c]})
	}
	return g
}

// unitMoves folds the entries of task t's log as the reducer does and
// returns, by the line of each entry that changed a unit's status, the
// move: "pending → in_progress".
func unitMoves(slug string, t *store.Task, entries []progresslog.Entry) map[int]string {
	moves := map[int]string{}
	reconcile.Fold(reconcile.Input{Slug: slug, Base: t.State, Plan: t.Plan, Entries: entries,
		Observe: func(ev reconcile.Event, from, to state.Status) {
			if ev.Line > 0 && from != to {
				moves[ev.Line] = string(from) + " → " + string(to)
			}
		}})
	return moves
}

// addEntries adds the entries of the whole task to the report (those of
// reconcile to Reconciles too) and returns the entries of each unit, in
// log order; moves are the units' moves by entry line (unitMoves).
func (d *ReportData) addEntries(entries []progresslog.Entry, moves map[int]string) map[string][]ReportEntry {
	byUnit := map[string][]ReportEntry{}
	for _, e := range entries {
		re := reportEntry(e)
		re.line = e.Line
		if e.Line > 0 {
			re.Move = moves[e.Line]
		}
		switch {
		case e.Unit != "":
			byUnit[e.Unit] = append(byUnit[e.Unit], re)
		default:
			d.TaskEntries = append(d.TaskEntries, re)
			if e.Kind == progresslog.KindReconciled || e.Kind == progresslog.KindAdopted {
				d.Reconciles = append(d.Reconciles, re)
			}
		}
	}
	return byUnit
}

// addUnits adds the units of graph g to the report, with their entries
// (byUnit): to Units those with entries, to Idle the others; then the
// units of entries no longer in the plan or the state, as history.
func (d *ReportData) addUnits(g *GraphModel, s *state.State, t *store.Task, byUnit map[string][]ReportEntry, entries []progresslog.Entry) {
	rows := indexOf(t.Plan)
	// The units with entries that are not in the graph are history; the
	// nodes cross them off as they go (no set of every node).
	unplaced := make(map[string]bool, len(byUnit))
	for id := range byUnit {
		unplaced[id] = true
	}
	d.Idle = make([]ReportUnit, 0, len(g.Nodes)-min(len(byUnit), len(g.Nodes)))
	for _, n := range g.Nodes {
		ru := ReportUnit{ID: n.ID, Title: n.Title, Status: n.Status, Class: n.Class, Iterations: n.Iterations, Max: n.Max,
			Critical: n.Critical, Entries: byUnit[n.ID]}
		if t.Plan != nil {
			ru.Depends = t.Plan.Deps(n.ID)
		}
		u := s.Units[n.ID]
		ru.Reason = unitReason(u)
		if n.Class == ClassFailed {
			ru.ReplacedBy = n.ReplacedBy
		}
		d.attend(n)
		reportItems(&ru, rows.row(s, n.ID))
		reportChecks(&ru, u)
		if len(ru.Entries) == 0 {
			d.Idle = append(d.Idle, ru)
		} else {
			delete(unplaced, n.ID)
			d.Units = append(d.Units, ru)
		}
	}
	// Entries of units no longer in the plan or the state: history.
	for _, e := range entries {
		if e.Unit != "" && unplaced[e.Unit] {
			delete(unplaced, e.Unit)
			d.Units = append(d.Units, ReportUnit{ID: e.Unit, Title: "(no longer in the plan)", Status: "removed", Class: ClassWaiting, Entries: byUnit[e.Unit]})
		}
	}
}

// attend adds unit n to Needs attention when it needs a person: failed
// (with what replaces it, or that nothing does) or blocked on a decision.
func (d *ReportData) attend(n GraphNode) {
	why := ""
	if r := strings.TrimSpace(n.Reason); r != "" {
		why = ": " + r
	}
	switch {
	case n.Class == ClassFailed:
		kind := ""
		if n.ReasonKind != "" {
			kind = " (" + n.ReasonKind + ")"
		}
		then := "nothing replaces it"
		if len(n.ReplacedBy) > 0 {
			then = "replaced by " + strings.Join(n.ReplacedBy, ", ")
		}
		d.Attention = append(d.Attention, fmt.Sprintf("%s failed%s%s; %s", n.ID, kind, why, then))
	case n.Class == ClassBlocked && n.ReasonKind == state.KindDecision:
		d.Attention = append(d.Attention, fmt.Sprintf("%s is blocked on a decision%s", n.ID, why))
	}
}

// fold turns the timeline newest first: the unit cards by their newest
// entry, each card's entries, the task log and the reconcile list, each
// cut to the newest History entries with the rest counted (History 0
// keeps all).
func (d *ReportData) fold() {
	for i := range d.Units {
		u := &d.Units[i]
		if len(u.Entries) > 0 {
			u.Last = u.Entries[len(u.Entries)-1].line
		}
		u.Entries, u.Older = newestFirst(u.Entries, d.History)
	}
	sort.SliceStable(d.Units, func(i, j int) bool { return d.Units[i].Last > d.Units[j].Last })
	d.TaskEntries, d.TaskOlder = newestFirst(d.TaskEntries, d.History)
	d.Reconciles, d.ReconcileOlder = newestFirst(d.Reconciles, d.History)
}

// newestFirst is entries (in log order) newest first, at most n of them
// (0: all), and how many older ones it left out.
func newestFirst(entries []ReportEntry, n int) ([]ReportEntry, int) {
	older := 0
	if n > 0 && len(entries) > n {
		older = len(entries) - n
		entries = entries[older:]
	}
	out := make([]ReportEntry, len(entries))
	for i, e := range entries {
		out[len(entries)-1-i] = e
	}
	return out, older
}

// unitReason is why unit u is blocked or failed, in the words of the
// report; "" for a unit without a reason or not in the state (nil).
func unitReason(u *state.Unit) string {
	if u == nil {
		return ""
	}
	reason := state.Val(u.Reason)
	if u.ReasonKind != nil || u.ClearWhen != nil {
		reason = blockWords(UnitStatus{Reason: reason, ReasonKind: state.Val(u.ReasonKind), ClearWhen: state.Val(u.ClearWhen)})
	}
	return reason
}

// The fields an entry's timeline shows in their own places.
var placedFields = map[string]bool{
	"did": true, "signal": true, "verification": true, "commit": true,
	strings.ToLower(reconcile.FieldRun): true, strings.ToLower(reconcile.FieldRunResult): true,
	strings.ToLower(reconcile.FieldVerifiedBy): true, "found": true,
	strings.ToLower(progresslog.FieldAgent): true, strings.ToLower(progresslog.FieldModel): true,
}

// reportEntry is how the timeline shows an entry.
func reportEntry(e progresslog.Entry) ReportEntry {
	re := ReportEntry{Kind: e.Kind.String(), Stamp: e.Stamp, When: e.Stamp}
	if tm, ok := e.Time(); ok {
		re.When = tm.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	re.Label = entryLabel(e)
	if e.Kind == progresslog.KindOther {
		re.When = ""
	}
	re.Did, _ = e.Field("Did")
	re.Badges = entryBadges(e)
	re.addRun(e)
	if v, ok := e.Field("Commit"); ok && !isNone(v) {
		re.Fields = append(re.Fields, progresslog.Field{Name: "Commit", Value: v})
	}
	if e.Kind == progresslog.KindReconciled {
		re.Lines = foundLines(e)
	}
	re.Fields = append(re.Fields, otherFields(e)...)
	return re
}

// entryLabel is what the timeline calls an entry: "Iteration 2", "Phase
// execute", "Blocked", or the heading of an entry that is not an event.
func entryLabel(e progresslog.Entry) string {
	switch e.Kind {
	case progresslog.KindIteration:
		return fmt.Sprintf("Iteration %d", e.Iteration)
	case progresslog.KindPhase:
		return "Phase " + e.Phase
	case progresslog.KindOther:
		return e.Heading
	default:
		title := e.Title() // "T1 - Blocked - ts"
		if parts := strings.Split(title, " - "); len(parts) >= 2 {
			return parts[1]
		}
		return title
	}
}

// entryBadges are the marks of an entry's signal, verification and
// verifier, in that order.
func entryBadges(e progresslog.Entry) []ReportBadge {
	var badges []ReportBadge
	if v, ok := e.Field("Signal"); ok && !isNone(v) {
		badges = append(badges, ReportBadge{"signal", "signal " + v})
	}
	if v, ok := e.Field("Verification"); ok && !isNone(v) {
		class := "pass"
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(v)), "pass") {
			class = "fail"
		}
		badges = append(badges, ReportBadge{class, "verification " + v})
	}
	if v, ok := e.Field(reconcile.FieldVerifiedBy); ok && !isNone(v) {
		badges = append(badges, ReportBadge{"pass", "verified by " + v})
	}
	switch who := progresslog.WhoOf(e); {
	case who.Agent != "" && who.Model != "":
		badges = append(badges, ReportBadge{"who", "by " + who.Agent + " (" + who.Model + ")"})
	case who.Agent != "":
		badges = append(badges, ReportBadge{"who", "by " + who.Agent})
	case who.Model != "":
		badges = append(badges, ReportBadge{"who", "model " + who.Model})
	}
	return badges
}

// addRun sets the verification run of entry e, its command and result,
// and adds the result's badge.
func (re *ReportEntry) addRun(e progresslog.Entry) {
	if v, ok := e.Field(reconcile.FieldRun); ok {
		re.Run = strings.Trim(strings.TrimSpace(v), "`")
	}
	v, ok := e.Field(reconcile.FieldRunResult)
	if !ok {
		return
	}
	re.Result = v
	switch r := strings.ToLower(strings.TrimSpace(v)); {
	case strings.HasPrefix(r, "passed"):
		re.RunClass = "pass"
	case strings.HasPrefix(r, "failed"):
		re.RunClass = "fail"
	default:
		re.RunClass = "other"
	}
	re.Badges = append(re.Badges, ReportBadge{re.RunClass, "run " + strings.SplitN(v, ":", 2)[0]})
}

// foundLines are the lines of a Reconciled entry's Found field, one a
// finding, without their "- ".
func foundLines(e progresslog.Entry) []string {
	v, ok := e.Field("Found")
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(v, "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- ")); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// otherFields are the fields of entry e that the timeline shows as a
// list: not those shown in their own places, not an iteration's empty
// Remaining or Blockers, not blank lines.
func otherFields(e progresslog.Entry) []progresslog.Field {
	var fields []progresslog.Field
	for _, f := range e.Fields {
		name := strings.ToLower(f.Name)
		if placedFields[name] || (e.Kind == progresslog.KindIteration && (name == "remaining" || name == "blockers") && isNone(f.Value)) {
			continue
		}
		if f.Name == "" && strings.TrimSpace(f.Value) == "" {
			continue
		}
		fields = append(fields, f)
	}
	return fields
}

// isNone reports whether a field says nothing ("None", "", "-").
func isNone(v string) bool {
	v = strings.TrimSpace(v)
	return v == "" || v == "-" || strings.EqualFold(v, "none") || strings.EqualFold(v, "n/a")
}
