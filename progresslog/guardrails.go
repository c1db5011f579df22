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
func (g *Guardrail) known() []struct {
	name string
	v    *string
} {
	return []struct {
		name string
		v    *string
	}{{"When", &g.When}, {"Problem", &g.Problem}, {"Solution", &g.Solution}, {"Learned", &g.Learned}}
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
	lines, newline := splitLines(data)
	s := splitConflicts(lines)
	g := &Guardrails{Newline: newline, Conflicted: s.conflicted}
	oursPre, ours := parseGuardrailSide(s.ours)
	g.Preamble = oursPre
	if !s.conflicted {
		g.Entries = ours
		if s.problem != nil {
			g.Problems = []Problem{*s.problem}
		}
		return g
	}
	theirsPre, theirs := parseGuardrailSide(s.theirs)
	if theirsPre != oursPre {
		g.PreambleConflict, g.TheirsPreamble = true, theirsPre
	}
	keys := func(gs []Guardrail) []string {
		out := make([]string, len(gs))
		for i, x := range gs {
			out[i] = strings.Join(renderGuardrailLines(x), "\n")
		}
		return out
	}
	for _, p := range alignSides(keys(ours), keys(theirs)) {
		side := ours
		if p.side == Theirs {
			side = theirs
		}
		e := side[p.i]
		e.Side = p.side
		g.Entries = append(g.Entries, e)
	}
	return g
}

func parseGuardrailSide(lines []rawLine) (string, []Guardrail) {
	pre, secs := guardrailSyntax.sectionize(lines)
	var out []Guardrail
	for _, sec := range secs {
		g := Guardrail{Name: sec.heading, Line: sec.line}
	fields:
		for _, f := range sec.fields {
			if f.Name != "" {
				for _, k := range g.known() {
					if strings.EqualFold(f.Name, k.name) && *k.v == "" {
						*k.v = f.Value
						continue fields
					}
				}
			}
			g.Extra = append(g.Extra, f)
		}
		out = append(out, g)
	}
	return pre, out
}

// renderGuardrailLines writes a guardrail as lines, without validating it.
// Empty known fields are left out.
func renderGuardrailLines(g Guardrail) []string {
	var fields []Field
	for _, k := range g.known() {
		if v := normalizeValue(*k.v); v != "" {
			fields = append(fields, Field{Name: k.name, Value: v})
		}
	}
	fields = append(fields, g.Extra...)
	return append([]string{"## " + sanitizeHeading(g.Name)}, guardrailSyntax.renderFields(fields)...)
}

// Render writes the guardrails. For a value ParseGuardrails returned,
// ParseGuardrails(g.Render()) equals g apart from line numbers. The known
// fields come first, in the order When, Problem, Solution, Learned.
func (g *Guardrails) Render() []byte {
	d := document{
		preamble:       g.Preamble,
		theirsPreamble: g.TheirsPreamble,
		splitPreamble:  g.PreambleConflict,
		conflicted:     g.Conflicted,
		newline:        g.Newline,
	}
	for _, e := range g.Entries {
		d.blocks = append(d.blocks, block{side: e.Side, lines: renderGuardrailLines(e)})
	}
	return d.render()
}

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
	extra, err := canonicalFields(g.Extra)
	if err != nil {
		return Guardrail{}, fmt.Errorf("guardrail %q: %w", g.Name, err)
	}
	for _, f := range extra {
		for _, k := range g.known() {
			if f.Name != "" && strings.EqualFold(f.Name, k.name) && *k.v == "" {
				return Guardrail{}, fmt.Errorf("guardrail %q: extra field %q would read back as the %s field: set Guardrail.%s instead", g.Name, f.Name, k.name, k.name)
			}
		}
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
