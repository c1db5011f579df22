package plan

import (
	"slices"
	"strconv"
	"strings"
)

// Render writes the plan back as Markdown with LF line endings: the title,
// the "**Key:** value" lines and the rest of the header, then the sections in
// the order they were read (a template plan.md keeps "## Phases" before "##
// Dependencies"). Each unit goes back into the units section it was read
// from; units added in code go into the first units section, and a plan
// without one gets "## Tasks" or "## Phases" (by Mode) before its first other
// section. Sub-items are written in canonical order: Files, Criteria,
// Completion, Inputs, Output, Min words, Complete, the output rules
// (Truncation markers, Must end with, Sections, Max size), Verify,
// Estimate, Items, ..., Max iterations, Depends, Model, then the unknown ones;
// seed 003's inline Status and DependsOn end the unit line as
// "(Status: PENDING, DependsOn: P1, P2)".
// Everything else is written verbatim, so Parse(Render()) gives the same
// plan, line numbers aside.
func (p *Plan) Render() []byte {
	var blocks []string
	if p.Title != "" {
		blocks = append(blocks, "# "+p.Title)
	}
	if len(p.Meta) > 0 {
		lines := make([]string, len(p.Meta))
		for i, f := range p.Meta {
			lines[i] = "**" + f.Key + ":**"
			if f.Value != "" {
				lines[i] += " " + f.Value
			}
		}
		blocks = append(blocks, strings.Join(lines, "\n"))
	}
	if p.Preamble != "" {
		blocks = append(blocks, p.Preamble)
	}
	sections := p.sections()
	firstUnits := slices.IndexFunc(sections, func(s Section) bool { return s.Kind == UnitsSection })
	for i, s := range sections {
		b := "##"
		if s.Heading != "" {
			b += " " + s.Heading
		}
		parts := []string{b}
		if s.Body != "" {
			parts = append(parts, s.Body)
		}
		if s.Kind == UnitsSection {
			if units := p.renderUnits(i, i == firstUnits); units != "" {
				parts = append(parts, units)
			}
		}
		blocks = append(blocks, strings.Join(parts, "\n\n"))
	}
	if len(blocks) == 0 {
		return []byte{}
	}
	return []byte(strings.Join(blocks, "\n\n") + "\n")
}

// sections returns the sections to render: p.Sections, plus a units section
// when there are units but no section to hold them.
func (p *Plan) sections() []Section {
	if len(p.Units) == 0 {
		return p.Sections
	}
	at := len(p.Sections)
	for i, s := range p.Sections {
		if s.Kind == UnitsSection {
			return p.Sections
		}
		if s.Kind == OtherSection && at == len(p.Sections) {
			at = i
		}
	}
	heading := "Tasks"
	if p.Mode == Knowledge {
		heading = "Phases"
	}
	out := make([]Section, 0, len(p.Sections)+1)
	out = append(out, p.Sections[:at]...)
	out = append(out, Section{Heading: heading, Kind: UnitsSection})
	return append(out, p.Sections[at:]...)
}

// renderUnits writes the units read from section index sec, plus, in the
// first units section, those that belong to no units section.
func (p *Plan) renderUnits(sec int, first bool) string {
	var b strings.Builder
	var prev *Unit
	for _, u := range p.Units {
		home := u.section - 1
		if home >= 0 && home < len(p.Sections) && p.Sections[home].Kind == UnitsSection {
			if home != sec {
				continue
			}
		} else if !first {
			continue
		}
		if prev != nil {
			b.WriteString("\n")
			if prev.Notes != "" {
				b.WriteString("\n")
			}
		}
		b.WriteString(u.render())
		prev = u
	}
	return b.String()
}

// renderHead is the unit's line: its box, ID, title and inline fields.
func (u *Unit) renderHead() string {
	box := " "
	if u.Done {
		box = "x"
	}
	head := "- [" + box + "] **" + u.ID + "**"
	if u.Title != "" {
		head += ": " + u.Title
	}
	if in := u.renderInline(); in != "" {
		if u.Title == "" {
			head += ":"
		}
		head += " " + in
	}
	return head
}

func (u *Unit) render() string {
	lines := []string{u.renderHead()}
	if u.Details != "" {
		for _, d := range strings.Split(u.Details, "\n") {
			lines = append(lines, "  "+d)
		}
	}
	item := func(key, value string) {
		vl := strings.Split(value, "\n")
		first := "  -"
		if key != "" {
			first += " " + key + ":"
		}
		if vl[0] != "" {
			first += " " + vl[0]
		}
		lines = append(lines, first)
		for _, l := range vl[1:] {
			lines = append(lines, "    "+l)
		}
	}
	for _, f := range []Field{{keyFiles, u.Files}, {keyCriteria, u.Criteria}, {keyCompletion, u.Completion}, {keyInputs, u.Inputs}, {keyOutput, u.Output}} {
		if f.Value != "" {
			item(f.Key, f.Value)
		}
	}
	switch v, ok := u.Pending[keyMinWords]; {
	case u.MinWords > 0:
		item(keyMinWords, strconv.Itoa(u.MinWords))
	case ok:
		item(keyMinWords, v)
	}
	for _, f := range []Field{{keyComplete, u.Complete}, {keyMarkers, u.TruncationMarkers}, {keyMustEnd, u.MustEndWith}, {keySections, u.Sections}, {keyMaxSize, u.MaxSize},
		{keyVerify, u.Verify}, {keyEstimate, u.Estimate}, {keyItems, u.Items}} {
		if f.Value != "" {
			item(f.Key, f.Value)
		}
	}
	for _, c := range u.Counters {
		item(keyCounter, c.Raw)
	}
	for _, f := range []Field{{MetaItemStates, u.ItemStatesRaw}, {MetaSettledStates, u.SettledRaw}, {MetaSettleItems, u.SettleItems}, {MetaKeyValue, u.KeyValue}} {
		if f.Value != "" {
			item(f.Key, f.Value)
		}
	}
	for _, m := range u.Metrics {
		item(keyMetric, m.Raw)
	}
	for _, c := range u.Checks {
		item(keyCheck+" "+c.Name, c.Raw)
	}
	switch v, ok := u.Pending[keyMax]; {
	case u.MaxIterations > 0:
		item(keyMax, strconv.Itoa(u.MaxIterations))
	case ok:
		item(keyMax, v)
	}
	switch v, ok := u.Pending[keyDepends]; {
	case u.DependsInline && ok:
		item(keyDepends, v)
	case u.DependsInline: // on the unit line
	case len(u.Depends) > 0:
		item(keyDepends, strings.Join(u.Depends, ", "))
	case u.Depends != nil:
		item(keyDepends, "none")
	case ok:
		item(keyDepends, v)
	}
	if u.Model != "" {
		item(keyModel, u.Model)
	}
	if len(u.Replaces) > 0 {
		item(keyReplaces, strings.Join(u.Replaces, ", "))
	}
	for _, f := range u.Extra {
		item(f.Key, f.Value)
	}
	out := strings.Join(lines, "\n")
	if u.Notes != "" {
		out += "\n\n" + u.Notes
	}
	return out
}
