package progresslog

import (
	"fmt"
	"strings"
)

// guardrails.md and decisions.md are field files: a preamble, then entries
// of a "## heading" and "- **Name**: value" fields, some of them known by
// name. Parsing (with git conflict blocks), rendering and the strict union
// of a merge are written once here for both; each entry type says which of
// its fields are known and where its heading, extra fields, line and side
// are.

// knownField is a known field of an entry: its name and where its value is.
type knownField struct {
	name string
	v    *string
}

// fieldEntry is a pointer to an entry of a field file.
type fieldEntry[E any] interface {
	*E
	// known returns the known fields in the order they are written.
	known() []knownField
	// parts returns where the heading, the other fields, the line and the
	// side are.
	parts() (heading *string, extra *[]Field, line *int, side *Side)
}

// fieldDoc is a parsed field file; Guardrails and Decisions hold the same.
type fieldDoc[E any] struct {
	preamble, newline, theirsPreamble string
	conflicted, preambleConflict      bool
	entries                           []E
	problems                          []Problem
}

// parseFieldDoc reads a field file, a conflicted one as both sides' entries
// aligned (Parse's way): it never fails.
func parseFieldDoc[E any, P fieldEntry[E]](data []byte) fieldDoc[E] {
	lines, newline := splitLines(data)
	s := splitConflicts(lines)
	d := fieldDoc[E]{newline: newline, conflicted: s.conflicted}
	oursPre, ours := parseFieldSide[E, P](s.ours)
	d.preamble = oursPre
	if !s.conflicted {
		d.entries = ours
		if s.problem != nil {
			d.problems = []Problem{*s.problem}
		}
		return d
	}
	theirsPre, theirs := parseFieldSide[E, P](s.theirs)
	if theirsPre != oursPre {
		d.preambleConflict, d.theirsPreamble = true, theirsPre
	}
	for _, p := range alignSides(fieldKeys[E, P](ours), fieldKeys[E, P](theirs)) {
		side := ours
		if p.side == Theirs {
			side = theirs
		}
		e := side[p.i]
		_, _, _, sp := P(&e).parts()
		*sp = p.side
		d.entries = append(d.entries, e)
	}
	return d
}

// parseFieldSide reads the entries of one side: a known field takes the
// first value given for it; the rest are extra, in file order.
func parseFieldSide[E any, P fieldEntry[E]](lines []rawLine) (string, []E) {
	pre, secs := guardrailSyntax.sectionize(lines)
	var out []E
	for _, sec := range secs {
		var e E
		heading, extra, line, _ := P(&e).parts()
		*heading, *line = sec.heading, sec.line
	fields:
		for _, f := range sec.fields {
			if f.Name != "" {
				for _, k := range P(&e).known() {
					if strings.EqualFold(f.Name, k.name) && *k.v == "" {
						*k.v = f.Value
						continue fields
					}
				}
			}
			*extra = append(*extra, f)
		}
		out = append(out, e)
	}
	return pre, out
}

// renderFieldLines writes an entry as lines, without validating it: the
// known fields that are not empty, then the others.
func renderFieldLines[E any, P fieldEntry[E]](e E) []string {
	heading, extra, _, _ := P(&e).parts()
	var fields []Field
	for _, k := range P(&e).known() {
		if v := normalizeValue(*k.v); v != "" {
			fields = append(fields, Field{Name: k.name, Value: v})
		}
	}
	fields = append(fields, *extra...)
	return append([]string{"## " + sanitizeHeading(*heading)}, guardrailSyntax.renderFields(fields)...)
}

// fieldKeys are the entries as rendered: equal exactly when written the
// same.
func fieldKeys[E any, P fieldEntry[E]](es []E) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = strings.Join(renderFieldLines[E, P](e), "\n")
	}
	return out
}

// render writes the file back. For a value parseFieldDoc returned,
// parsing the result gives it again apart from line numbers.
func (d fieldDoc[E]) render(lines func(E) []string, side func(*E) Side) []byte {
	doc := document{
		preamble:       d.preamble,
		theirsPreamble: d.theirsPreamble,
		splitPreamble:  d.preambleConflict,
		conflicted:     d.conflicted,
		newline:        d.newline,
	}
	for i := range d.entries {
		doc.blocks = append(doc.blocks, block{side: side(&d.entries[i]), lines: lines(d.entries[i])})
	}
	return doc.render()
}

// renderFieldDoc is render for a field file's entry type.
func renderFieldDoc[E any, P fieldEntry[E]](d fieldDoc[E]) []byte {
	return d.render(renderFieldLines[E, P], func(e *E) Side {
		_, _, _, s := P(e).parts()
		return *s
	})
}

// strictFieldUnion checks the three versions of a field file a merge driver
// gets, as StrictUnionGuardrails says: text only, no conflict markers, and
// neither side rewrote or removed an entry of the base or changed the text
// before the first entry. what names an entry in messages ("lesson").
func strictFieldUnion[E any, P fieldEntry[E]](base, ours, theirs []byte, what string) (od, td fieldDoc[E], err error) {
	for _, v := range []struct {
		name string
		data []byte
	}{{"base", base}, {"ours", ours}, {"theirs", theirs}} {
		if err := CheckText(v.data); err != nil {
			return od, td, &MergeError{v.name, err}
		}
	}
	bd := parseFieldDoc[E, P](base)
	od, td = parseFieldDoc[E, P](ours), parseFieldDoc[E, P](theirs)
	keys := func(d fieldDoc[E]) ([]Entry, []string) {
		es := make([]Entry, len(d.entries))
		for i := range d.entries {
			heading, _, line, _ := P(&d.entries[i]).parts()
			es[i] = Entry{Kind: KindOther, Heading: *heading, Line: *line}
		}
		return es, fieldKeys[E, P](d.entries)
	}
	be, bk := keys(bd)
	for _, s := range []struct {
		name string
		d    fieldDoc[E]
	}{{"ours", od}, {"theirs", td}} {
		if s.d.conflicted {
			return od, td, &MergeError{s.name, ErrConflicted}
		}
		se, sk := keys(s.d)
		if err := extends(bd.preamble, s.d.preamble, be, bk, se, sk, what); err != nil {
			return od, td, &MergeError{s.name, err}
		}
	}
	return od, td, nil
}

// canonicalExtra puts an entry's other fields in the form they will be
// read back in, and refuses one that would read back as a known field
// still empty. what and title name the entry in errors ("guardrail",
// "Flaky tests"); typ is its Go type for the fix ("Guardrail").
func canonicalExtra(what, typ, title string, known []knownField, extra []Field) ([]Field, error) {
	out, err := canonicalFields(extra)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", what, title, err)
	}
	for _, f := range out {
		for _, k := range known {
			if f.Name != "" && strings.EqualFold(f.Name, k.name) && *k.v == "" {
				return nil, fmt.Errorf("%s %q: extra field %q would read back as the %s field: set %s.%s instead", what, title, f.Name, k.name, typ, k.name)
			}
		}
	}
	return out, nil
}
