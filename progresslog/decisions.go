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
func (d *Decision) known() []knownField {
	return []knownField{{"Choice", &d.Choice}, {"Why", &d.Why}, {"Unit", &d.Unit}, {"Decided", &d.Decided}}
}

// parts returns where the heading, extra fields, line and side are.
func (d *Decision) parts() (*string, *[]Field, *int, *Side) {
	return &d.Title, &d.Extra, &d.Line, &d.Side
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
	d := parseFieldDoc[Decision](data)
	return &Decisions{Preamble: d.preamble, Entries: d.entries, Newline: d.newline, Conflicted: d.conflicted,
		PreambleConflict: d.preambleConflict, TheirsPreamble: d.theirsPreamble, Problems: d.problems}
}

// doc is d as the field file it was parsed from.
func (d *Decisions) doc() fieldDoc[Decision] {
	return fieldDoc[Decision]{preamble: d.Preamble, entries: d.Entries, newline: d.Newline, conflicted: d.Conflicted,
		preambleConflict: d.PreambleConflict, theirsPreamble: d.TheirsPreamble, problems: d.Problems}
}

// decisionKeys are the decisions as rendered: equal exactly when written
// the same.
func decisionKeys(ds []Decision) []string { return fieldKeys[Decision](ds) }

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
func renderDecisionLines(d Decision) []string { return renderFieldLines[Decision](d) }

// Render writes the decisions. For a value ParseDecisions returned,
// ParseDecisions(d.Render()) equals d apart from line numbers. The known
// fields come first, in the order Choice, Why, Unit, Decided.
func (d *Decisions) Render() []byte { return renderFieldDoc[Decision](d.doc()) }

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
	extra, err := canonicalExtra("decision", "Decision", d.Title, d.known(), d.Extra)
	if err != nil {
		return Decision{}, err
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
	od, td, err := strictFieldUnion[Decision](base, ours, theirs, "decision")
	if err != nil {
		return nil, err
	}
	return unionDecisions(&Decisions{Entries: od.entries}, &Decisions{Entries: td.entries}, ours)
}
