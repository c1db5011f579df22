package progresslog

import (
	"errors"
	"fmt"
	"strings"
)

// Guardrail is one lesson in guardrails.md:
//
//	## Flaky network tests
//	- **When**: running the integration suite
//	- **Problem**: timeouts on CI
//	- **Solution**: use the local fake
//	- **Learned**: T2 iteration 3
type Guardrail struct {
	Name     string // the heading without "## "
	When     string
	Problem  string
	Solution string
	Learned  string
	// Extra holds the other fields and free-text lines, in file order. A
	// second field with a known name that already has a value is kept here.
	Extra []Field
	Line  int  // 1-based line of the heading in the parsed file; 0 for new ones
	Side  Side // which side of a merge conflict the entry comes from
}

// known returns pointers to the known fields, in the order Render writes
// them.
func (g *Guardrail) known() []knownField {
	return []knownField{{"When", &g.When}, {"Problem", &g.Problem}, {"Solution", &g.Solution}, {"Learned", &g.Learned}}
}

// parts returns where the heading, extra fields, line and side are.
func (g *Guardrail) parts() (*string, *[]Field, *int, *Side) {
	return &g.Name, &g.Extra, &g.Line, &g.Side
}

// Guardrails is a parsed guardrails.md. Its fields mean what Log's do.
type Guardrails struct {
	Preamble         string
	Entries          []Guardrail
	Newline          string
	Conflicted       bool
	PreambleConflict bool
	TheirsPreamble   string
	Problems         []Problem
}

// ParseGuardrails reads guardrails.md. Fields are "- **Name**: value" (the
// seed's form) or "- **Name:** value"; When, Problem, Solution and Learned
// are recognised without regard to case. Like Parse it never fails and
// reads git conflict blocks the same way.
func ParseGuardrails(data []byte) *Guardrails {
	d := parseFieldDoc[Guardrail](data)
	return &Guardrails{Preamble: d.preamble, Entries: d.entries, Newline: d.newline, Conflicted: d.conflicted,
		PreambleConflict: d.preambleConflict, TheirsPreamble: d.theirsPreamble, Problems: d.problems}
}

// doc is g as the field file it was parsed from.
func (g *Guardrails) doc() fieldDoc[Guardrail] {
	return fieldDoc[Guardrail]{preamble: g.Preamble, entries: g.Entries, newline: g.Newline, conflicted: g.Conflicted,
		preambleConflict: g.PreambleConflict, theirsPreamble: g.TheirsPreamble, problems: g.Problems}
}

// renderGuardrailLines writes a guardrail as lines, without validating it.
// Empty known fields are left out.
func renderGuardrailLines(g Guardrail) []string { return renderFieldLines[Guardrail](g) }

// Render writes the guardrails. For a value ParseGuardrails returned,
// ParseGuardrails(g.Render()) equals g apart from line numbers. The known
// fields come first, in the order When, Problem, Solution, Learned.
func (g *Guardrails) Render() []byte { return renderFieldDoc[Guardrail](g.doc()) }

// canonicalGuardrail validates a guardrail for writing and returns it as it
// will read back.
func canonicalGuardrail(g Guardrail) (Guardrail, error) {
	if strings.TrimSpace(g.Name) == "" {
		return Guardrail{}, errors.New("guardrail has no name: set Name to the pattern, e.g. \"Flaky network tests\"")
	}
	if strings.ContainsAny(g.Name, "\r\n") {
		return Guardrail{}, fmt.Errorf("guardrail name %q must be one line", g.Name)
	}
	for _, k := range g.known() {
		*k.v = normalizeValue(*k.v)
	}
	extra, err := canonicalExtra("guardrail", "Guardrail", g.Name, g.known(), g.Extra)
	if err != nil {
		return Guardrail{}, err
	}
	g.Extra, g.Line, g.Side = extra, 0, Both
	return g, nil
}

// guardrailsTitle starts a new guardrails.md, as the seed writes it.
const guardrailsTitle = "# Guardrails\n\nRead before starting any iteration. Append when issues discovered.\n\n"

// AppendGuardrail returns old with g appended, like Append: old is always a
// byte prefix of the result. An empty old gets the "# Guardrails" title and
// its instruction line first.
func AppendGuardrail(old []byte, g Guardrail) ([]byte, error) {
	c, err := canonicalGuardrail(g)
	if err != nil {
		return nil, err
	}
	return appendLines(old, guardrailsTitle, renderGuardrailLines(c)), nil
}
