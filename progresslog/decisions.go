package progresslog

import (
	"errors"
	"fmt"
	"strings"
)

// Decision is one settled choice in decisions.md:
//
//	## Storage engine
//	- **Choice**: SQLite
//	- **Why**: one file, no server to run
//	- **Unit**: T2
//	- **Decided**: 2026-01-14T10:30:00Z
//
// The heading is the decision's title, the question it settles. A later
// decision with the same title (compared by TitleKey) supersedes the
// earlier one: the earlier stays in the file, as history.
type Decision struct {
	Title   string // the heading without "## "
	Choice  string
	Why     string
	Unit    string // the unit it was decided in; "" for the whole task
	Decided string // when, as written (RFC 3339 when itr writes it)
	// Extra holds the other fields and free-text lines, in file order. A
	// second field with a known name that already has a value is kept here.
	Extra []Field
	Line  int  // 1-based line of the heading in the parsed file; 0 for new ones
	Side  Side // which side of a merge conflict the entry comes from
}

// known returns pointers to the known fields, in the order Render writes
// them.
func (d *Decision) known() []struct {
	name string
	v    *string
} {
	return []struct {
		name string
		v    *string
	}{{"Choice", &d.Choice}, {"Why", &d.Why}, {"Unit", &d.Unit}, {"Decided", &d.Decided}}
}

// TitleKey is what makes two decisions about the same question: the title
// without regard to case or to runs of white space.
func TitleKey(title string) string {
	return strings.ToLower(strings.Join(strings.Fields(title), " "))
}

// Decisions is a parsed decisions.md. Its fields mean what Log's do.
type Decisions struct {
	Preamble         string
	Entries          []Decision
	Newline          string
	Conflicted       bool
	PreambleConflict bool
	TheirsPreamble   string
	Problems         []Problem
}

// ParseDecisions reads decisions.md. Fields are "- **Name**: value" (as
// guardrails.md writes them) or "- **Name:** value"; Choice, Why, Unit and
// Decided are recognised without regard to case. Like Parse it never fails
// and reads git conflict blocks the same way.
func ParseDecisions(data []byte) *Decisions {
	lines, newline := splitLines(data)
	s := splitConflicts(lines)
	d := &Decisions{Newline: newline, Conflicted: s.conflicted}
	oursPre, ours := parseDecisionSide(s.ours)
	d.Preamble = oursPre
	if !s.conflicted {
		d.Entries = ours
		if s.problem != nil {
			d.Problems = []Problem{*s.problem}
		}
		return d
	}
	theirsPre, theirs := parseDecisionSide(s.theirs)
	if theirsPre != oursPre {
		d.PreambleConflict, d.TheirsPreamble = true, theirsPre
	}
	for _, p := range alignSides(decisionKeys(ours), decisionKeys(theirs)) {
		side := ours
		if p.side == Theirs {
			side = theirs
		}
		e := side[p.i]
		e.Side = p.side
		d.Entries = append(d.Entries, e)
	}
	return d
}

// decisionKeys are the decisions as rendered: equal exactly when written
// the same.
func decisionKeys(ds []Decision) []string {
	out := make([]string, len(ds))
	for i, x := range ds {
		out[i] = strings.Join(renderDecisionLines(x), "\n")
	}
	return out
}

func parseDecisionSide(lines []rawLine) (string, []Decision) {
	pre, secs := guardrailSyntax.sectionize(lines)
	var out []Decision
	for _, sec := range secs {
		d := Decision{Title: sec.heading, Line: sec.line}
	fields:
		for _, f := range sec.fields {
			if f.Name != "" {
				for _, k := range d.known() {
					if strings.EqualFold(f.Name, k.name) && *k.v == "" {
						*k.v = f.Value
						continue fields
					}
				}
			}
			d.Extra = append(d.Extra, f)
		}
		out = append(out, d)
	}
	return pre, out
}

// Latest returns, for each title, the newest decision with that title (the
// one furthest down the file), in the order of those newest decisions: a
// decision taken again moves to the end.
func (d *Decisions) Latest() []Decision {
	last := make(map[string]int, len(d.Entries))
	for i, e := range d.Entries {
		last[TitleKey(e.Title)] = i
	}
	var out []Decision
	for i, e := range d.Entries {
		if last[TitleKey(e.Title)] == i {
			out = append(out, e)
		}
	}
	return out
}

// Superseded counts the decisions a later one with the same title replaced.
func (d *Decisions) Superseded() int { return len(d.Entries) - len(d.Latest()) }

// renderDecisionLines writes a decision as lines, without validating it.
// Empty known fields are left out.
func renderDecisionLines(d Decision) []string {
	var fields []Field
	for _, k := range d.known() {
		if v := normalizeValue(*k.v); v != "" {
			fields = append(fields, Field{Name: k.name, Value: v})
		}
	}
	fields = append(fields, d.Extra...)
	return append([]string{"## " + sanitizeHeading(d.Title)}, guardrailSyntax.renderFields(fields)...)
}

// Render writes the decisions. For a value ParseDecisions returned,
// ParseDecisions(d.Render()) equals d apart from line numbers. The known
// fields come first, in the order Choice, Why, Unit, Decided.
func (d *Decisions) Render() []byte {
	doc := document{
		preamble:       d.Preamble,
		theirsPreamble: d.TheirsPreamble,
		splitPreamble:  d.PreambleConflict,
		conflicted:     d.Conflicted,
		newline:        d.Newline,
	}
	for _, e := range d.Entries {
		doc.blocks = append(doc.blocks, block{side: e.Side, lines: renderDecisionLines(e)})
	}
	return doc.render()
}

// canonicalDecision validates a decision for writing and returns it as it
// will read back.
func canonicalDecision(d Decision) (Decision, error) {
	if strings.TrimSpace(d.Title) == "" {
		return Decision{}, errors.New("decision has no title: set Title to the question it settles, e.g. \"Storage engine\"")
	}
	if strings.ContainsAny(d.Title, "\r\n") {
		return Decision{}, fmt.Errorf("decision title %q must be one line", d.Title)
	}
	for _, k := range d.known() {
		*k.v = normalizeValue(*k.v)
	}
	if strings.TrimSpace(d.Choice) == "" {
		return Decision{}, fmt.Errorf("decision %q has no choice: set Choice to what was decided", d.Title)
	}
	extra, err := canonicalFields(d.Extra)
	if err != nil {
		return Decision{}, fmt.Errorf("decision %q: %w", d.Title, err)
	}
	for _, f := range extra {
		for _, k := range d.known() {
			if f.Name != "" && strings.EqualFold(f.Name, k.name) && *k.v == "" {
				return Decision{}, fmt.Errorf("decision %q: extra field %q would read back as the %s field: set Decision.%s instead", d.Title, f.Name, k.name, k.name)
			}
		}
	}
	d.Extra, d.Line, d.Side = extra, 0, Both
	return d, nil
}

// decisionsTitle starts a new decisions.md.
const decisionsTitle = "# Decisions\n\nSettled choices: read before reopening a question. Append with `itr decide`; a later decision with the same title supersedes the earlier one.\n\n"

// AppendDecision returns old with d appended, like Append: old is always a
// byte prefix of the result. An empty old gets the "# Decisions" title and
// its instruction line first.
func AppendDecision(old []byte, d Decision) ([]byte, error) {
	c, err := canonicalDecision(d)
	if err != nil {
		return nil, err
	}
	return appendLines(old, decisionsTitle, renderDecisionLines(c)), nil
}

// IsDecisionsAppendOnly is IsAppendOnly for decisions.md: Entry is the
// decision's title.
func IsDecisionsAppendOnly(old, new []byte) *Violation {
	v := violation(old, new)
	if v == nil {
		return nil
	}
	v.File = "decisions.md"
	best := 0
	for _, d := range ParseDecisions(old).Entries {
		if d.Line <= v.Line && d.Line > best {
			v.Entry, best = d.Title, d.Line
		}
	}
	return v
}

// UnionDecisions merges two versions of decisions.md: ours byte for byte,
// then every decision only theirs has (compared as written), in theirs'
// order. Two decisions with the same title from the two sides are both
// kept: the one that comes later in the merged file is the one in force.
func UnionDecisions(ours, theirs []byte) ([]byte, error) {
	return unionDecisions(ParseDecisions(ours), ParseDecisions(theirs), ours)
}

func unionDecisions(od, td *Decisions, oursRaw []byte) ([]byte, error) {
	seen := make(map[string]bool, len(od.Entries)+len(td.Entries))
	for _, k := range decisionKeys(od.Entries) {
		seen[k] = true
	}
	w := newLogWriter(oursRaw, decisionsTitle, len(td.Entries)*64)
	for i, k := range decisionKeys(td.Entries) {
		if seen[k] {
			continue
		}
		seen[k] = true
		d := td.Entries[i]
		c, err := canonicalDecision(d)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", d.Line, err)
		}
		w.writeLines(renderDecisionLines(c))
	}
	return w.buf, nil
}

// StrictUnionDecisions is UnionDecisions for a merge driver: like
// StrictUnionGuardrails it refuses a version that is not text, a side that
// holds conflict markers, and a side that rewrote or removed a decision of
// the base or changed the text before the first decision. A decisions.md
// may have no decision yet.
func StrictUnionDecisions(base, ours, theirs []byte) ([]byte, error) {
	for _, v := range []struct {
		name string
		data []byte
	}{{"base", base}, {"ours", ours}, {"theirs", theirs}} {
		if err := CheckText(v.data); err != nil {
			return nil, &MergeError{v.name, err}
		}
	}
	bd := ParseDecisions(base)
	od, td := ParseDecisions(ours), ParseDecisions(theirs)
	keys := func(d *Decisions) ([]Entry, []string) {
		es := make([]Entry, len(d.Entries))
		for i, x := range d.Entries {
			es[i] = Entry{Kind: KindOther, Heading: x.Title, Line: x.Line}
		}
		return es, decisionKeys(d.Entries)
	}
	be, bk := keys(bd)
	for _, s := range []struct {
		name string
		d    *Decisions
	}{{"ours", od}, {"theirs", td}} {
		if s.d.Conflicted {
			return nil, &MergeError{s.name, ErrConflicted}
		}
		se, sk := keys(s.d)
		if err := extends(bd.Preamble, s.d.Preamble, be, bk, se, sk, "decision"); err != nil {
			return nil, &MergeError{s.name, err}
		}
	}
	return unionDecisions(od, td, ours)
}
