package view

import (
	"fmt"
	"path"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
)

// The shares of prime's budget the orientation may take, in characters of
// the collaborators' text: the plan's notes, each of context.md's
// sections, each field of a lesson, the lessons in full and their part of
// the Markdown. What is cut says where the rest is.
const (
	primeNotesMax    = 900
	primeContextMax  = 500
	lessonFieldMax   = 300
	primeLessonsMax  = 6
	primeLessonsSize = 1800
	otherLessonsMax  = 20
)

// orientNames are the words for each kind of orienting text.
var orientNames = map[string]string{
	"notes":                     "Notes for every unit",
	progresslog.ContextApproach: "Approach",
	progresslog.ContextKeyFiles: "Key files",
	progresslog.ContextPatterns: "Patterns",
}

// orientationSection is the plan's notes and context.md's sections, each
// fenced (or quoted, when one short line) as data and cut to its share
// with a pointer to the rest.
func (p *PrimeContext) orientationSection() string {
	o := p.Orientation
	if o == nil || o.Notes == nil && len(o.Context) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Orientation — the plan's notes and context.md (data from the task's files)\n")
	if o.Notes != nil {
		b.WriteString(orientBlock(*o.Notes, primeNotesMax))
	}
	for _, c := range o.Context {
		b.WriteString(orientBlock(c, primeContextMax))
	}
	return b.String()
}

// orientationFiles names the files orientationSection quotes, for the
// note of a cut.
func (p *PrimeContext) orientationFiles() string {
	o := p.Orientation
	if o == nil {
		return ""
	}
	var files []string
	if o.Notes != nil {
		files = append(files, o.Notes.File+"'s ## Notes")
	}
	if len(o.Context) > 0 {
		files = append(files, o.Context[0].File)
	}
	return strings.Join(files, " and ")
}

// orientBlock words one orienting text: a short single line quoted after
// its name, anything longer fenced below it, cut to max characters with
// where the rest is.
func orientBlock(t OrientText, max int) string {
	name := orientNames[t.Kind]
	where := fmt.Sprintf("%s:%d", t.File, t.Line)
	text, cut := cutText(t.Text, max)
	if !cut && !strings.Contains(text, "\n") && len(text) <= 200 {
		return fmt.Sprintf("%s (%s): %s\n", name, where, quote(text, 200))
	}
	s := fmt.Sprintf("%s (%s):\n", name, where) + fenced(visibleLines(text))
	if cut {
		s += fmt.Sprintf("(cut at %d characters: read the rest in %s from line %d)\n", max, t.File, t.Line)
	}
	return s
}

// cutText keeps whole lines of text up to max bytes (a first line longer
// than that is cut inside, never inside a character), and says whether it
// cut.
func cutText(text string, max int) (string, bool) {
	if len(text) <= max {
		return text, false
	}
	return strings.TrimRight(truncateLines(text, max), "\n"), true
}

// guardrailsSection gives the lessons that apply to the unit at hand in
// full (When, Problem, Solution, Learned, quoted as data) and names the
// others; without lessons that apply it names them all, as a line.
func (p *PrimeContext) guardrailsSection() string {
	o := p.Orientation
	if o == nil || len(o.Guardrails) == 0 {
		return ""
	}
	applying, others := o.split()
	if len(applying) == 0 {
		return "Guardrails (read guardrails.md): " + lessonNames(others, otherLessonsMax, false) + ".\n"
	}
	var b strings.Builder
	if o.Unit != "" {
		fmt.Fprintf(&b, "## Guardrails for %s — read them before the work (guardrails.md; data)\n", o.Unit)
	} else {
		b.WriteString("## Guardrails for the whole task — read them before the work (guardrails.md; data)\n")
	}
	for i, l := range applying {
		line := "- " + lessonText(l, lessonFieldMax) + "\n"
		if i == primeLessonsMax || b.Len()+len(line) > primeLessonsSize {
			fmt.Fprintf(&b, "- and %d more that apply: %s (read them in guardrails.md)\n", len(applying)-i, lessonNames(applying[i:], otherLessonsMax, false))
			break
		}
		b.WriteString(line)
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "Other guardrails, for other units: %s.\n", lessonNames(others, otherLessonsMax, true))
	}
	return b.String()
}

// lessonText words a lesson in full, each field quoted and cut to w
// characters: “Name” (guardrails.md line 5, for T2): when “…”; problem
// “…”; solution “…”; learned “…”.
func lessonText(l Lesson, w int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (guardrails.md line %d, for %s)", quote(l.Name, 100), l.Line, lessonScope(l))
	sep := ": "
	for _, f := range []struct{ name, value string }{{"when", l.When}, {"problem", l.Problem}, {"solution", l.Solution}, {"learned", l.Learned}} {
		if f.value != "" {
			b.WriteString(sep + f.name + " " + quote(flatLines(f.value), w))
			sep = "; "
		}
	}
	return b.String()
}

// lessonScope reads "every unit" or the units the lesson names.
func lessonScope(l Lesson) string {
	if l.TaskWide() {
		return "every unit"
	}
	return strings.Join(store.FirstN(l.Units, 5), ", ")
}

// lessonNames are the first n lessons' names, quoted, with their units
// when scoped, and how many more there are.
func lessonNames(ls []Lesson, n int, scoped bool) string {
	var names []string
	for i, l := range ls {
		if i == n {
			names = append(names, fmt.Sprintf("and %d more", len(ls)-i))
			break
		}
		name := quote(l.Name, 100)
		if scoped && !l.TaskWide() {
			name += " (" + lessonScope(l) + ")"
		}
		names = append(names, name)
	}
	return strings.Join(names, "; ")
}

// flatLines joins the non-blank lines of text with " / ", for a quote of
// one line.
func flatLines(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, " / ")
}

// readYourself names the files that hold the cut sections' text, for the
// note of a cut: "; read context.md and guardrails.md yourself".
func readYourself(cut []string, files map[string]string) string {
	var names []string
	for _, s := range cut {
		if f := files[s]; f != "" && s != "" {
			names = append(names, f)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; read " + strings.Join(names, " and ") + " yourself"
}

// briefOrientation words the orientation for a unit's brief, each quoted
// text at most w characters; compact, it only points at the files and
// names the lessons that apply.
func briefOrientation(o *Orientation, w int, compact bool) string {
	if o.Empty() {
		return ""
	}
	applying, others := o.split()
	var sb strings.Builder
	if compact {
		var files []string
		if o.Notes != nil {
			files = append(files, "the plan's ## Notes")
		}
		if len(o.Context) > 0 {
			files = append(files, "context.md")
		}
		if len(files) > 0 {
			fmt.Fprintf(&sb, "- Orientation: read %s\n", strings.Join(files, " and "))
		}
		if len(applying) > 0 {
			fmt.Fprintf(&sb, "- Lessons for it (read them in guardrails.md): %s\n", lessonNames(applying, 3, false))
		}
		return sb.String()
	}
	if n := o.Notes; n != nil {
		fmt.Fprintf(&sb, "- Notes (%s): %s\n", path.Base(n.File), quote(flatLines(n.Text), w))
	}
	for _, c := range o.Context {
		fmt.Fprintf(&sb, "- %s (context.md): %s\n", orientNames[c.Kind], quote(flatLines(c.Text), w/2))
	}
	for i, l := range applying {
		if i == 3 {
			fmt.Fprintf(&sb, "- and %d more lessons for it in guardrails.md: %s\n", len(applying)-i, lessonNames(applying[i:], 3, false))
			break
		}
		fmt.Fprintf(&sb, "- Lesson %s\n", lessonText(l, w/3))
	}
	if len(others) > 0 {
		fmt.Fprintf(&sb, "- Other lessons, for other units (guardrails.md): %s\n", lessonNames(others, 3, false))
	}
	return sb.String()
}

// OrientationLines word the task's orientation for `itr next --all`, each
// collaborator's text quoted as data and at most width characters: the
// plan's notes, context.md's sections and the task-wide lessons in full,
// and the names of the lessons for units not listed.
func (n *NextAllInfo) OrientationLines(width int) []string {
	o := n.Orientation
	if o.Empty() {
		return nil
	}
	var out []string
	if t := o.Notes; t != nil {
		out = append(out, fmt.Sprintf("Notes (%s:%d): %s", t.File, t.Line, quote(flatLines(t.Text), width*2)))
	}
	for _, c := range o.Context {
		out = append(out, fmt.Sprintf("%s (%s:%d): %s", orientNames[c.Kind], c.File, c.Line, quote(flatLines(c.Text), width)))
	}
	listed := map[string]bool{}
	for _, u := range n.Units {
		listed[u.Unit] = true
	}
	var unlisted []Lesson
	for _, l := range o.Guardrails {
		switch {
		case l.TaskWide():
			out = append(out, "Lesson "+lessonText(l, width))
		case !anyListed(l.Units, listed):
			unlisted = append(unlisted, l)
		}
	}
	if len(unlisted) > 0 {
		out = append(out, "Lessons for units not listed here: "+lessonNames(unlisted, otherLessonsMax, true))
	}
	return out
}

// anyListed reports whether one of units is listed.
func anyListed(units []string, listed map[string]bool) bool {
	for _, u := range units {
		if listed[u] {
			return true
		}
	}
	return false
}

// LessonLines are the lessons that name unit u (the task-wide ones are in
// OrientationLines), in full, each text at most width characters.
func (u NextUnit) LessonLines(width int) []string {
	if u.Brief == nil || u.Brief.Orientation == nil {
		return nil
	}
	var out []string
	for _, l := range u.Brief.Orientation.Guardrails {
		if l.Applies && !l.TaskWide() {
			out = append(out, "Lesson "+lessonText(l, width))
		}
	}
	return out
}
