package view

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/state"
)

// Handoff is what a unit receives from the work before it: the inputs its
// plan entry names, as the working tree has them, and for each unit it
// depends on (by Depends, the dependencies section, or an input such as
// "T1.output") that unit's outputs, last Did and Remaining. It is what an
// orchestrator passes to the subagent it gives the unit to. Its JSON field
// names are part of itr's interface.
type Handoff struct {
	Unit   string `json:"unit"`
	Title  string `json:"title,omitempty"`
	Status string `json:"status"`
	// Inputs are the files and folders the unit reads; Missing words the
	// ones that are not there (the unit cannot start while any is).
	Inputs  []store.FileFact `json:"inputs,omitempty"`
	Missing []string         `json:"missing_inputs,omitempty"`
	// From are the units it depends on, in natural ID order.
	From []DepHandoff `json:"from,omitempty"`
}

// DepHandoff is what one unit hands on: its status, its outputs and its
// newest iteration's Did and Remaining.
type DepHandoff struct {
	Unit   string `json:"unit"`
	Title  string `json:"title,omitempty"`
	Status string `json:"status"`
	// InPlaceOf is the failed unit this one replaces ("Replaces:") and
	// hands on for, when that is why it is here.
	InPlaceOf string           `json:"in_place_of,omitempty"`
	Outputs   []store.FileFact `json:"outputs,omitempty"`
	Iteration int              `json:"iteration,omitempty"`
	Did       string           `json:"did,omitempty"`
	Remaining string           `json:"remaining,omitempty"`
}

// handoffMaxDeps bounds the units a handoff words; a unit waiting on more
// gets the first ones and a count.
const handoffMaxDeps = 8

// handoffOf builds unit id's handoff from the task, its view s and what
// the log says (facts). Files are looked up in the working tree.
func handoffOf(st *store.Store, t *store.Task, s *state.State, facts *logFacts, id string) *Handoff {
	u := s.Units[id]
	if u == nil {
		return nil
	}
	h := &Handoff{Unit: id, Status: string(u.Status)}
	if t.Plan == nil {
		return h
	}
	if pu := t.Plan.Unit(id); pu != nil {
		h.Title = pu.Title
	}
	for _, f := range st.InputsOf(t, id) {
		h.Inputs = append(h.Inputs, f)
		if f.Missing {
			h.Missing = append(h.Missing, f.String())
		}
	}
	// A failed dependency hands on through the done units that replace
	// it: theirs is the work the unit builds on.
	var from []DepHandoff
	replacedBy := t.Plan.ReplacedBy()
	for _, dep := range t.Plan.Deps(id) {
		du := s.Units[dep]
		if du == nil {
			continue
		}
		if du.Status == state.Failed {
			n := len(from)
			for _, r := range replacedBy[dep] {
				if ru := s.Units[r]; ru != nil && ru.Status == state.Done {
					from = append(from, DepHandoff{Unit: r, Status: string(ru.Status), InPlaceOf: dep})
				}
			}
			if len(from) > n {
				continue
			}
		}
		from = append(from, DepHandoff{Unit: dep, Status: string(du.Status)})
	}
	for _, d := range from {
		dep := d.Unit
		if pu := t.Plan.Unit(dep); pu != nil {
			d.Title = pu.Title
			for _, name := range pu.Outputs() {
				d.Outputs = append(d.Outputs, st.FileOf(t.Slug, name))
			}
		}
		if facts != nil {
			if l := facts.lastIn(s, dep); l != nil {
				d.Iteration, d.Did, d.Remaining = l.Iteration, l.Did, l.Remaining
			}
		}
		h.From = append(h.From, d)
	}
	return h
}

// Lines words the handoff for an agent in a few Markdown list items, the
// collaborators' text quoted as data, each at most width characters of it.
func (h *Handoff) Lines(width int) []string {
	if h == nil {
		return nil
	}
	var out []string
	// The outputs of the units it depends on are worded with each of
	// them; Reads has the other files.
	var parts []string
	for _, f := range h.Inputs {
		if f.From == "" {
			parts = append(parts, fileText(f))
		}
	}
	if len(parts) > 0 {
		out = append(out, "Reads: "+strings.Join(parts, ", "))
	}
	if len(h.Missing) > 0 {
		out = append(out, fmt.Sprintf("**Missing inputs** (it cannot start until they are there): %s", visible(strings.Join(h.Missing, ", "))))
	}
	for i, d := range h.From {
		if i == handoffMaxDeps {
			out = append(out, fmt.Sprintf("… and %d more units it depends on (itr next --all --json lists them)", len(h.From)-i))
			break
		}
		line := fmt.Sprintf("From %s (%s)", d.Unit, d.Status)
		if d.InPlaceOf != "" {
			line = fmt.Sprintf("From %s (%s, in place of %s, which failed)", d.Unit, d.Status, d.InPlaceOf)
		}
		if len(d.Outputs) > 0 {
			parts := make([]string, len(d.Outputs))
			for j, f := range d.Outputs {
				parts[j] = fileText(f)
			}
			line += ": wrote " + strings.Join(parts, ", ")
		}
		if d.Iteration > 0 {
			line += fmt.Sprintf("; last did %s; remaining %s", quote(d.Did, width), quote(d.Remaining, width/2))
		}
		out = append(out, line)
	}
	return out
}

// fileText reads "`outputs/a.md` (2.1 KB)", "`notes/` (3 files, 12 KB)" or
// "`outputs/a.md` (missing)".
func fileText(f store.FileFact) string {
	name := "`" + visible(f.Name) + "`"
	switch {
	case f.Missing:
		return name + " (missing)"
	case f.Dir:
		return fmt.Sprintf("%s (%d file%s, %s)", name, f.Files, store.Plural(f.Files, "", "s"), byteSize(f.Size))
	}
	return name + " (" + byteSize(f.Size) + ")"
}

// byteSize reads "900 B", "2.1 KB", "3.4 MB" (powers of 1024).
func byteSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1024*1024*1024))
}
