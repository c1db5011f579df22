package view

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strings"
	"sync"
	"time"

	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
	"github.com/itr-dev/itr/state"
	"github.com/itr-dev/itr/workspace/store"
)

//go:embed report.tmpl.html
var reportTemplate string

// reportTmpl is the page of itr report; html/template escapes every value
// for where it lands, so a collaborator's text is only ever text. It is
// parsed on first use: parsing at package init cost every itr command
// about 1 ms (GODEBUG=inittrace=1).
var reportTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"color": func(class string) template.CSS {
			c := colorOf(class)
			return template.CSS("background:" + c.Fill + ";border-color:" + c.Stroke) //nolint:gosec // G203: colours from the fixed palette (classColors), never user text
		},
		"stroke": func(class string) template.CSS { return template.CSS(colorOf(class).Stroke) }, //nolint:gosec // G203: as above
		"label":  func(class string) string { return strings.ReplaceAll(class, "_", " ") },
	}).Parse(reportTemplate))
})

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
}

// ReportBadge is a short mark on an entry: signal, verification...
type ReportBadge struct{ Class, Text string }

// Report renders a task as one self-contained HTML page: the header, the
// plan as an SVG graph, every unit's entries in order, the guardrails and
// what reconcile fixed. The page holds no script and loads nothing: its
// CSS is inline and its Content-Security-Policy forbids everything else.
func Report(st *store.Store, slug string, now time.Time) ([]byte, error) {
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
	d := &ReportData{
		Task: sum.Task, Slug: slug, Mode: sum.Mode, Phase: sum.Phase, Dir: sum.Dir,
		Done: sum.Done, Total: sum.Total, Percent: sum.Pace.PercentUnits,
		Pace: sum.Pace.String(), NextAction: sum.NextAction, Archive: sum.Archive,
		Generated:     now.UTC().Format(time.RFC3339),
		GeneratedText: now.UTC().Format("2006-01-02 15:04 UTC"),
		Head:          t.Head.Hash, Branch: strings.TrimPrefix(t.Head.Branch, "refs/heads/"),
		Warnings: sum.Warnings, Flags: sum.Flags,
	}
	if d.Task == "" {
		d.Task = slug
	}
	if len(d.Head) > 12 {
		d.HeadShort = d.Head[:12]
	} else {
		d.HeadShort = d.Head
	}
	if sum.Archive == "" {
		d.Goal = briefGoal(st, t)
	}
	if r := sum.Pace.Remaining; r != nil {
		d.Remaining = fmt.Sprintf("%d unit%s left: %s iterations", r.Units, store.Plural(r.Units, "", "s"), span(r.IterationsLow, r.IterationsHigh))
		if r.SecondsHigh > 0 {
			d.Remaining += ", " + timeSpan(r.SecondsLow, r.SecondsHigh)
		}
	} else if sum.Pace.Note != "" {
		d.Remaining = sum.Pace.Note
	}
	if sum.Paused != nil {
		d.Paused = pauseText(sum.Paused)
	}
	for _, c := range sum.Checks {
		d.Checks = append(d.Checks, c.String())
	}

	// The graph.
	claims := map[string]store.Claim{}
	for _, c := range sum.Claims {
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

	// The timeline: the moves of each unit as the reducer saw them.
	entries := t.Log().Entries
	moves := map[int]string{}
	reconcile.Fold(reconcile.Input{Slug: slug, Base: t.State, Plan: t.Plan, Entries: entries,
		Observe: func(ev reconcile.Event, from, to state.Status) {
			if ev.Line > 0 && from != to {
				moves[ev.Line] = string(from) + " → " + string(to)
			}
		}})
	byUnit := map[string][]ReportEntry{}
	for _, e := range entries {
		re := reportEntry(e)
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
	critical := map[string]bool{}
	for _, id := range g.Critical {
		critical[id] = true
	}
	var deps map[string][]string
	if t.Plan != nil {
		deps = t.Plan.DepMap()
	}
	known := map[string]bool{}
	for _, n := range g.Nodes {
		known[n.ID] = true
		ru := ReportUnit{ID: n.ID, Title: n.Title, Status: n.Status, Class: n.Class, Iterations: n.Iterations, Max: n.Max,
			Critical: critical[n.ID], Entries: byUnit[n.ID]}
		ru.Depends = deps[n.ID]
		if u := s.Units[n.ID]; u != nil {
			ru.Reason = state.Val(u.Reason)
			if u.ReasonKind != nil || u.ClearWhen != nil {
				ru.Reason = blockWords(UnitStatus{Reason: ru.Reason, ReasonKind: state.Val(u.ReasonKind), ClearWhen: state.Val(u.ClearWhen)})
			}
		}
		if len(ru.Entries) == 0 {
			d.Idle = append(d.Idle, ru)
		} else {
			d.Units = append(d.Units, ru)
		}
	}
	// Entries of units no longer in the plan or the state: history.
	for _, e := range entries {
		if e.Unit != "" && !known[e.Unit] {
			known[e.Unit] = true
			d.Units = append(d.Units, ReportUnit{ID: e.Unit, Title: "(no longer in the plan)", Status: "removed", Class: ClassWaiting, Entries: byUnit[e.Unit]})
		}
	}
	d.Guardrails = progresslog.ParseGuardrails(t.GuardrailsRaw).Entries

	var out bytes.Buffer
	if err := reportTmpl().Execute(&out, d); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// The fields an entry's timeline shows in their own places.
var placedFields = map[string]bool{
	"did": true, "signal": true, "verification": true, "commit": true,
	strings.ToLower(reconcile.FieldRun): true, strings.ToLower(reconcile.FieldRunResult): true,
	strings.ToLower(reconcile.FieldVerifiedBy): true, "found": true,
}

// reportEntry is how the timeline shows an entry.
func reportEntry(e progresslog.Entry) ReportEntry {
	re := ReportEntry{Kind: e.Kind.String(), Stamp: e.Stamp, When: e.Stamp}
	if tm, ok := e.Time(); ok {
		re.When = tm.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	switch e.Kind {
	case progresslog.KindIteration:
		re.Label = fmt.Sprintf("Iteration %d", e.Iteration)
	case progresslog.KindPhase:
		re.Label = "Phase " + e.Phase
	case progresslog.KindOther:
		re.Label, re.When = e.Heading, ""
	default:
		title := e.Title() // "T1 - Blocked - ts"
		if parts := strings.Split(title, " - "); len(parts) >= 2 {
			re.Label = parts[1]
		} else {
			re.Label = title
		}
	}
	re.Did, _ = e.Field("Did")
	if v, ok := e.Field("Signal"); ok && !isNone(v) {
		re.Badges = append(re.Badges, ReportBadge{"signal", "signal " + v})
	}
	if v, ok := e.Field("Verification"); ok && !isNone(v) {
		class := "pass"
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(v)), "pass") {
			class = "fail"
		}
		re.Badges = append(re.Badges, ReportBadge{class, "verification " + v})
	}
	if v, ok := e.Field(reconcile.FieldVerifiedBy); ok && !isNone(v) {
		re.Badges = append(re.Badges, ReportBadge{"pass", "verified by " + v})
	}
	if v, ok := e.Field(reconcile.FieldRun); ok {
		re.Run = strings.Trim(strings.TrimSpace(v), "`")
	}
	if v, ok := e.Field(reconcile.FieldRunResult); ok {
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
	if v, ok := e.Field("Commit"); ok && !isNone(v) {
		re.Fields = append(re.Fields, progresslog.Field{Name: "Commit", Value: v})
	}
	if e.Kind == progresslog.KindReconciled {
		if v, ok := e.Field("Found"); ok {
			for _, l := range strings.Split(v, "\n") {
				if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- ")); l != "" {
					re.Lines = append(re.Lines, l)
				}
			}
		}
	}
	for _, f := range e.Fields {
		name := strings.ToLower(f.Name)
		if placedFields[name] || (e.Kind == progresslog.KindIteration && (name == "remaining" || name == "blockers") && isNone(f.Value)) {
			continue
		}
		if f.Name == "" && strings.TrimSpace(f.Value) == "" {
			continue
		}
		re.Fields = append(re.Fields, f)
	}
	return re
}

// isNone reports whether a field says nothing ("None", "", "-").
func isNone(v string) bool {
	v = strings.TrimSpace(v)
	return v == "" || v == "-" || strings.EqualFold(v, "none") || strings.EqualFold(v, "n/a")
}
