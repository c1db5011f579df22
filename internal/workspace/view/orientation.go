package view

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
)

// contextFile is the seed's short orientation for each iteration.
const contextFile = "context.md"

// contextReadMax is the most of context.md itr reads: the seed keeps it
// under 200 words, so a larger file is a mistake to name, not to carry.
const contextReadMax = 64 << 10

// Orientation is what the files that orient a session say, read once per
// command: the plan's "## Notes" (seed 002's context for sub-agents),
// context.md's Approach, Key files and Patterns, and the lessons of
// guardrails.md with the units each applies to. Everything in it is
// collaborators' text: the renderings quote or fence it as data. Its JSON
// field names are part of itr's interface.
type Orientation struct {
	// Notes is the plan's "## Notes" section, unless it is still the
	// template's placeholder.
	Notes *OrientText `json:"notes,omitempty"`
	// Context are context.md's Approach, Key files and Patterns, in that
	// order, each when it holds more than the template's placeholder.
	Context []OrientText `json:"context,omitempty"`
	// ContextWords counts context.md's words (the seed keeps it under
	// 200; over that, status and prime warn).
	ContextWords int `json:"context_words,omitempty"`
	// Guardrails are the lessons of guardrails.md (as committed), in file
	// order.
	Guardrails []Lesson `json:"guardrails,omitempty"`
	// Unit is the unit the lessons' Applies was judged for; "" when there
	// is no unit at hand (then only the task-wide lessons apply).
	Unit string `json:"unit,omitempty"`
}

// OrientText is one orienting text of a task's files, where it is.
type OrientText struct {
	// Kind is notes, approach, key_files or patterns.
	Kind  string `json:"kind"`
	Label string `json:"label"` // as the file writes it: "Notes", "Key files/outputs"
	File  string `json:"file"`  // from the repository top
	Line  int    `json:"line"`
	Text  string `json:"text"`
}

// Lesson is one guardrail (guardrails.md) with its scope.
type Lesson struct {
	Name     string `json:"name"`
	When     string `json:"when,omitempty"`
	Problem  string `json:"problem,omitempty"`
	Solution string `json:"solution,omitempty"`
	Learned  string `json:"learned,omitempty"`
	Line     int    `json:"line"`
	// Units are the plan's units its When names (its heading and, without
	// a When, its Problem and Solution too): by ID, or by a file the
	// unit writes (Output) or reads (Inputs). Empty: a task-wide lesson.
	Units []string `json:"units,omitempty"`
	// Applies says it applies to Orientation.Unit: it is task-wide or
	// names that unit.
	Applies bool `json:"applies"`
}

// TaskWide reports a lesson that names no unit: it applies to every one.
func (l Lesson) TaskWide() bool { return len(l.Units) == 0 }

// appliesTo reports whether the lesson applies to unit id ("" : no unit
// at hand, where only the task-wide lessons apply).
func (l Lesson) appliesTo(id string) bool {
	return l.TaskWide() || id != "" && slices.Contains(l.Units, id)
}

// For is the orientation with the lessons judged for unit id ("" for no
// unit at hand); nil stays nil.
func (o *Orientation) For(id string) *Orientation {
	if o == nil {
		return nil
	}
	c := *o
	c.Unit = id
	c.Guardrails = make([]Lesson, len(o.Guardrails))
	for i, l := range o.Guardrails {
		l.Applies = l.appliesTo(id)
		c.Guardrails[i] = l
	}
	return &c
}

// Empty reports an orientation with nothing to say.
func (o *Orientation) Empty() bool {
	return o == nil || o.Notes == nil && len(o.Context) == 0 && len(o.Guardrails) == 0
}

// applying and others split the lessons: those that apply to the unit at
// hand, and the rest.
func (o *Orientation) split() (applying, others []Lesson) {
	if o == nil {
		return nil, nil
	}
	for _, l := range o.Guardrails {
		if l.Applies {
			applying = append(applying, l)
		} else {
			others = append(others, l)
		}
	}
	return applying, others
}

// Names are the names of every lesson, in file order.
func (o *Orientation) Names() []string {
	if o == nil {
		return nil
	}
	var out []string
	for _, l := range o.Guardrails {
		out = append(out, l.Name)
	}
	return out
}

// orientationOf reads the orientation of task t: the plan's notes, the
// working tree's context.md and the committed guardrails.md; warns are
// what is wrong with them, each naming the file and the fix. It never
// fails: a file it cannot read is left out with a warning.
func orientationOf(st *store.Store, t *store.Task) (*Orientation, []string) {
	o := &Orientation{Notes: planNotes(t.Plan)}
	warns := o.readContext(st, st.Rel(t.Slug, contextFile))
	var units []unitRefs // what names each unit, read once there is a lesson to match
	for i, g := range progresslog.ParseGuardrails(t.GuardrailsRaw).Entries {
		if i == 0 {
			units = unitRefsOf(t.Plan)
		}
		l := Lesson{Name: g.Name, When: strings.TrimSpace(g.When), Problem: strings.TrimSpace(g.Problem),
			Solution: strings.TrimSpace(g.Solution), Learned: strings.TrimSpace(g.Learned), Line: g.Line}
		l.Units = lessonUnits(l, units)
		l.Applies = l.TaskWide()
		o.Guardrails = append(o.Guardrails, l)
	}
	return o, warns
}

// planNotes is the plan's "## Notes" section (or one whose heading starts
// with "Notes"), nil without one or while it is the template's.
func planNotes(p *plan.Plan) *OrientText {
	if p == nil {
		return nil
	}
	for _, s := range p.Sections {
		if s.Kind != plan.OtherSection || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(s.Heading)), "notes") {
			continue
		}
		if progresslog.IsTemplateText(s.Body) {
			return nil
		}
		return &OrientText{Kind: "notes", Label: s.Heading, File: p.File, Line: s.Line, Text: s.Body}
	}
	return nil
}

// readContext reads context.md at rel into o, and says what is wrong with
// it: too big to read, unreadable, not UTF-8, over the seed's 200 words,
// or without any of the sections prime carries.
func (o *Orientation) readContext(st *store.Store, rel string) []string {
	fi, err := os.Lstat(st.Abs(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil && fi.Mode().IsRegular() && fi.Size() > contextReadMax {
		return []string{fmt.Sprintf("%s is %s, too big to orient a session (the seed keeps it under %d words), so prime leaves it out: cut it to the goal, the approach, the key files and the patterns, and move the rest to brief.md",
			rel, byteSize(fi.Size()), progresslog.ContextWordLimit)}
	}
	data, err := st.ReadWorktree(rel)
	if err != nil {
		return []string{fmt.Sprintf("%s cannot be read, so prime leaves it out: %v", rel, err)}
	}
	c := progresslog.ParseContext(data)
	o.ContextWords = c.Words
	for _, k := range progresslog.ContextKinds {
		if s := c.Section(k); s != nil {
			o.Context = append(o.Context, OrientText{Kind: k, Label: s.Label, File: rel, Line: s.Line, Text: s.Text})
		}
	}
	var warns []string
	if c.BadUTF8 > 0 {
		warns = append(warns, fmt.Sprintf("%s:%d is not UTF-8 text: prime shows its bad bytes as U+FFFD; save the file as UTF-8", rel, c.BadUTF8))
	}
	if c.Words > progresslog.ContextWordLimit {
		warns = append(warns, fmt.Sprintf("%s has %d words, over the seed's limit of %d: keep one sentence each for the goal and the approach and a few short bullets for the key files and the patterns; move the rest to brief.md (requirements) or guardrails.md (lessons)",
			rel, c.Words, progresslog.ContextWordLimit))
	}
	if !c.Labelled() && c.Words > 0 {
		warns = append(warns, fmt.Sprintf("%s has none of the sections prime carries, so sessions do not get it: label its text as the template does (**Approach:**, **Key files/outputs:**, **Patterns to follow:**, or ## headings of those names)", rel))
	}
	return warns
}

// unitRefs is what a lesson may name a unit by: its ID, and the files it
// writes (Output) and reads (Inputs, with other units' outputs resolved).
type unitRefs struct {
	id    string
	files []string
}

// unitRefsOf lists the plan's units with what names them, in plan order.
func unitRefsOf(p *plan.Plan) []unitRefs {
	if p == nil {
		return nil
	}
	out := make([]unitRefs, 0, len(p.Units))
	for _, u := range p.Units {
		if u.Placeholder {
			continue
		}
		r := unitRefs{id: u.ID}
		r.files = append(r.files, u.Outputs()...)
		for _, in := range p.InputFiles(u.ID) {
			r.files = append(r.files, in.Name)
		}
		out = append(out, r)
	}
	return out
}

// lessonUnits are the units lesson l names, in plan order: in its heading
// and When (and, when it has no When, in its Problem and Solution), by ID
// as a whole word or by one of their files (a folder, "notes/", by any
// path inside it).
func lessonUnits(l Lesson, units []unitRefs) []string {
	text := l.Name + "\n" + l.When
	if l.When == "" {
		text += "\n" + l.Problem + "\n" + l.Solution
	}
	var out []string
	for _, u := range units {
		if namesWord(text, u.id, idChar) || slices.ContainsFunc(u.files, func(f string) bool { return len(f) > 2 && namesFile(text, f) }) {
			out = append(out, u.id)
		}
	}
	return out
}

// namesWord reports whether text holds word with no character of the same
// kind (in) just before or after it: "T2" in "before T2." but not in "T20".
func namesWord(text, word string, in func(byte) bool) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], word)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(word)
		before := i == 0 || !in(text[i-1])
		after := end == len(text) || !in(text[end]) || text[end] == '.' && (end+1 == len(text) || !in(text[end+1]))
		if before && after {
			return true
		}
		from = i + 1
	}
}

// namesFile reports whether text names the file f as a whole name, or a
// path inside the folder f ("notes/" is named by "notes/a.md").
func namesFile(text, f string) bool {
	if !strings.HasSuffix(f, "/") {
		return namesWord(text, f, pathChar)
	}
	for from := 0; ; {
		i := strings.Index(text[from:], f)
		if i < 0 {
			return false
		}
		i += from
		if i == 0 || !pathChar(text[i-1]) {
			return true
		}
		from = i + 1
	}
}

// idChar is a character a unit ID may hold.
func idChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// pathChar is a character that continues a file name on either side
// ("/" may come before it: a longer path ending in the name names it).
func pathChar(c byte) bool { return idChar(c) || c == '.' || c >= 0x80 }
