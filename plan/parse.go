package plan

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/itr-dev/itr/internal/lazyre"
	"github.com/itr-dev/itr/state"
)

// Parse reads a tasks.md or plan.md. file is the name used in errors. It
// accepts LF and CRLF line endings. Besides reading errors (a malformed unit
// line, a duplicate unit ID, a bad "Max iterations" or "Depends" value, unit
// lines in a file without a "## Tasks" or "## Phases" heading) it checks
// that no template text is left and the dependency graph: every dependency
// names a defined unit, no unit depends on itself and there is no cycle.
//
// A plan that is still the template (see Plan.Placeholder) parses as
// written: its template text is allowed and the graph checks are skipped.
// Once one unit is real, template text such as "{N}", "{title}" or
// "{none|T1}" is refused wherever itr reads it: a placeholder unit, a unit
// sub-item whose whole value is template text, a "**Key:** value" header
// line whose whole value is template text, and any "{...}" in the
// "**Total:**" and "**Status:**" lines. Prose (details, notes, other
// sections) and a title only partly template, such as "{Feature} flags",
// are not checked.
//
// Every error is an *Error; Parse returns the reading error with the lowest
// line, else the template error with the lowest line, else the graph error
// with the lowest line.
//
// A file without a "## Tasks" or "## Phases" section and without unit lines
// is an empty plan, not an error.
func Parse(file string, data []byte) (*Plan, error) {
	ps := read(file, data)
	if err := first(ps.errs); err != nil {
		return nil, err
	}
	g, err := ps.p.check()
	if err != nil {
		return nil, err
	}
	ps.p.parsed, ps.p.graphOnce, ps.p.unitsOnce = true, &graphCache{}, &unitsCache{}
	ps.p.replacing = slices.ContainsFunc(ps.p.Units, func(u *Unit) bool { return len(u.Replaces) > 0 })
	noteParsed(ps.p, ps.text, ps.modeOfFile)
	if g != nil {
		// The graph check built is the one every query reads: built once.
		c := ps.p.graphOnce
		c.once.Do(func() { c.g = g; c.built.Store(true) })
	}
	return ps.p, nil
}

// read runs the parser over data: LF, CRLF or CR line endings, an optional
// byte order mark.
func read(file string, data []byte) *parser {
	text := strings.TrimPrefix(string(data), bom)
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	// The maps of unit IDs sized for the unit lines at once: a large plan
	// does not grow them step by step.
	units := strings.Count(text, "\n- [") + strings.Count(text, "\n* [")
	ps := &parser{p: &Plan{File: file}, text: text, folded: make(map[string]definedID, units), slab: make([]Unit, 0, units)}
	ps.run(strings.Split(text, "\n"))
	return ps
}

// bom is the byte order mark a file may start with.
const bom = "\uFEFF"

// Check verifies a plan: no template text is left once a unit is real (see
// Parse), dependencies name defined units, no unit depends on itself, there
// is no cycle, and no unit ID is still template text. A plan that is still
// the template passes. Parse runs it; call it again after changing units in
// code (errors about a unit built in code name the unit's Line, 0 if unset).
func (p *Plan) Check() error {
	_, err := p.check()
	return err
}

// check is Check, returning the dependency graph it built (nil for a plan
// that is still the template, or with an error).
func (p *Plan) check() (*graph, error) {
	if err := first(p.templateErrors()); err != nil {
		return nil, err
	}
	if p.Placeholder() {
		return nil, nil
	}
	var errs []*Error
	for _, u := range p.Units {
		if !ValidID(u.ID) {
			errs = append(errs, p.errorf(u.Line, "unit ID %q is still template text; give the unit an ID such as T1, or delete it", u.ID))
		}
	}
	errs = append(errs, p.inputErrors()...)
	errs = append(errs, p.itemStateErrors()...)
	g := p.graph(&errs)
	errs = append(errs, p.replacesErrors(g)...)
	if err := first(errs); err != nil {
		return nil, err
	}
	if err := g.cycle(p); err != nil {
		return nil, err
	}
	return g, nil
}

func (p *Plan) errorf(line int, format string, args ...any) *Error {
	return &Error{File: p.File, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// first returns the error with the lowest line, the earliest found on ties.
func first(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	return slices.MinFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
}

// Where the parser is.
const (
	inHeader = iota
	inOther
	inDeps
	inUnits
)

// What the parser is reading inside a units section.
const (
	unitIntro = iota // before the first unit
	unitItems        // the unit line, its details and sub-items
	unitNotes        // unindented text after the sub-items
)

type parser struct {
	p    *Plan
	text string // what is read: a BOM taken off, line endings made LF
	// modeOfFile is set when the plan's Mode came from the file's name.
	modeOfFile bool
	errs       []*Error
	// folded is the first unit ID by its FoldID, with its line: to refuse
	// an ID defined twice, and IDs that differ only in case.
	folded map[string]definedID
	// clashed are the IDs that clashed with an earlier one in another
	// case, with their first line (an ID defined twice among them).
	clashed map[string]int

	fence bool // inside a ``` block
	where int
	pre   []string // header lines that are not the title or meta

	sec      *Section
	secFirst int      // line of the first body line
	body     []string // body lines of sec

	state   int
	unit    *Unit
	details []string
	notes   []string
	item    *item // &itemBuf while a sub-item is open, else nil
	itemBuf item
	// lines is where the units' keyLines are kept, a chunk at a time:
	// a unit's few keys take no allocation of their own (keepLines).
	lines []keyLine
	seen  map[string]int // known sub-item key → line, for the current unit

	// slab holds the units as they are read, made at once for the unit
	// lines counted up front: one allocation for a plan's units, not one
	// each (newUnit).
	slab []Unit

	// The first line that looks like a unit outside a units section.
	strayLine int
	strayID   string
	strayIn   string // heading of its section, "" before the first heading
}

// definedID is a unit ID and the line of its unit line.
type definedID struct {
	id   string
	line int
}

// item is a sub-item being read.
type item struct {
	key    string // "" for a bullet without "Key:"
	keyed  bool
	value  string
	line   int
	indent int
}

func (ps *parser) errorf(line int, format string, args ...any) {
	ps.errs = append(ps.errs, ps.p.errorf(line, format, args...))
}

func (ps *parser) run(lines []string) {
	for i, line := range lines {
		n := i + 1
		fenced := ps.fence
		if !fenced && isHeading(line) {
			ps.closeRegion()
			ps.openSection(strings.TrimSpace(line[2:]), n)
			continue
		}
		switch ps.where {
		case inHeader:
			ps.header(line, n, fenced)
		case inUnits:
			ps.unitLine(line, n, fenced)
		default:
			if len(ps.body) == 0 {
				ps.secFirst = n
			}
			ps.body = append(ps.body, line)
			ps.stray(line, n, fenced)
		}
		if isFence(line) {
			ps.fence = !ps.fence
		}
	}
	ps.closeRegion()
	ps.dependencyErrors()
	if ps.p.Mode == "" {
		ps.p.Mode, ps.modeOfFile = Development, true
		if path.Base(ps.p.File) == "plan.md" {
			ps.p.Mode = Knowledge
		}
	}
	if ps.strayLine > 0 && !slices.ContainsFunc(ps.p.Sections, func(s Section) bool { return s.Kind == UnitsSection }) {
		heading := unitsHeading(ps.p.Mode)
		where := "comes before any \"## \" heading"
		if ps.strayIn != "" {
			where = fmt.Sprintf("is under %q", ps.strayIn)
		}
		ps.errorf(ps.strayLine, "unit %s %s and the file has no %q heading, so no unit is read; put the units under a %q heading", ps.strayID, where, heading, heading)
	}
}

// dependencyErrors notes the malformed lines of the dependencies sections.
// It runs once every unit is read: a line is a dependency line when it
// names a unit of the plan, wherever that unit is defined.
func (ps *parser) dependencyErrors() {
	for _, s := range ps.p.Sections {
		if s.Kind != DependenciesSection {
			continue
		}
		for _, e := range depLines(ps.p, s.Body, s.bodyLine, true) {
			if e.err != nil {
				ps.errs = append(ps.errs, e.err)
			}
		}
	}
}

// unitsHeading is the heading units go under in a plan of mode m.
func unitsHeading(m Mode) string {
	if m == Knowledge {
		return "## Phases"
	}
	return "## Tasks"
}

// stray notes the first unit line outside a units section: in a file
// without one, that is a unit under the wrong heading, not a plan without
// units.
func (ps *parser) stray(line string, n int, fenced bool) {
	if fenced || ps.strayLine > 0 || !checkboxRe.MatchString(line) {
		return
	}
	id, _, _, ok := splitUnitLine(line)
	if !ok || !ValidID(id) && !templateID(id) {
		return
	}
	ps.strayLine, ps.strayID = n, id
	if ps.sec != nil {
		ps.strayIn = strings.TrimSpace("## " + ps.sec.Heading)
	}
}

func isHeading(line string) bool { return line == "##" || strings.HasPrefix(line, "## ") }

func isFence(line string) bool { return strings.HasPrefix(strings.TrimLeft(line, " \t"), "```") }

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

// trimBlank drops blank lines at both ends.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

var (
	metaRe  = lazyre.New(`^\*\*([^*]+?):\*\*(.*)$`)
	metaRe2 = lazyre.New(`^\*\*([^*]+?)\*\*:(.*)$`)
)

func (ps *parser) header(line string, n int, fenced bool) {
	t := strings.TrimSpace(line)
	if !fenced {
		if ps.p.Title == "" && strings.HasPrefix(t, "# ") {
			if title := strings.TrimSpace(t[2:]); title != "" {
				ps.p.Title = title
				return
			}
		}
		if f, ok := parseMeta(t); ok {
			ps.p.Meta = append(ps.p.Meta, f)
			ps.p.metaLines = append(ps.p.metaLines, n)
			for _, k := range []string{MetaMaxTotal, MetaCheckIn} {
				if _, good := positive(f.Value); strings.EqualFold(f.Key, k) && !good && !isTemplate(f.Value) {
					ps.errorf(n, "%s %q is not a positive whole number; write it as \"**%s:** 60\", or delete the line", k, f.Value, k)
				}
			}
			if msg := checkMeta(f); msg != "" {
				ps.errorf(n, "%s", msg)
			}
			if msg := checkRuleMeta(f); msg != "" {
				ps.errorf(n, "%s", msg)
			}
			return
		}
	}
	ps.pre = append(ps.pre, line)
	ps.stray(line, n, fenced)
}

func parseMeta(t string) (Field, bool) {
	m := metaRe.FindStringSubmatch(t)
	if m == nil {
		m = metaRe2.FindStringSubmatch(t)
	}
	if m == nil {
		return Field{}, false
	}
	key := strings.TrimSpace(m[1])
	if key == "" {
		return Field{}, false
	}
	return Field{Key: key, Value: strings.TrimSpace(m[2])}, true
}

func (ps *parser) openSection(heading string, n int) {
	s := Section{Heading: heading, Line: n}
	switch strings.ToLower(heading) {
	case "dependencies":
		s.Kind, ps.where = DependenciesSection, inDeps
	case "tasks", "phases":
		s.Kind, ps.where = UnitsSection, inUnits
		if ps.p.Mode == "" {
			ps.p.Mode = Development
			if strings.EqualFold(heading, "phases") {
				ps.p.Mode = Knowledge
			}
		}
		ps.state = unitIntro
	default:
		s.Kind, ps.where = OtherSection, inOther
	}
	ps.sec = &s
	ps.body = nil
}

// closeRegion ends the header or the current section.
func (ps *parser) closeRegion() {
	switch ps.where {
	case inHeader:
		ps.p.Preamble = strings.Join(trimBlank(ps.pre), "\n")
		ps.pre = nil
		return
	case inUnits:
		ps.closeUnit()
	}
	s := ps.sec
	lead := 0
	for lead < len(ps.body) && isBlank(ps.body[lead]) {
		lead++
	}
	body := trimBlank(ps.body)
	s.Body = strings.Join(body, "\n")
	if len(body) > 0 {
		s.bodyLine = ps.secFirst + lead
	}
	ps.p.Sections = append(ps.p.Sections, *s)
	ps.sec, ps.body = nil, nil
}

var (
	// checkboxRe is anything that looks like the start of a unit line.
	checkboxRe = lazyre.New(`^[-*+]\s*\[[^\]]{0,2}\]`)
	unitRe     = lazyre.New(`^[-*] \[([ xX])\][ \t]+(.*)$`)
)

const unitForm = `write it as "- [ ] **T1**: title"`

func (ps *parser) unitLine(line string, n int, fenced bool) {
	indent, rest := splitIndent(line)
	blank := isBlank(line)
	if !fenced && indent == 0 && checkboxRe.MatchString(line) {
		ps.closeUnit()
		ps.openUnit(line, n)
		return
	}
	if ps.state == unitIntro {
		if !fenced && indent > 0 && checkboxRe.MatchString(rest) {
			if _, _, _, ok := splitUnitLine(rest); ok {
				ps.errorf(n, "unit line is indented; start it at the beginning of the line")
			}
		}
		if len(ps.body) == 0 {
			ps.secFirst = n
		}
		ps.body = append(ps.body, line)
		return
	}
	if ps.state == unitNotes {
		ps.notes = append(ps.notes, line)
		return
	}
	if blank {
		return
	}
	if indent == 0 {
		ps.state = unitNotes
		ps.notes = append(ps.notes, line)
		return
	}
	text := strings.TrimSpace(rest)
	bullet, after := splitBullet(text)
	switch {
	case bullet && (ps.item == nil || indent <= ps.item.indent || knownItem(after)):
		ps.closeItem()
		ps.itemBuf = newItem(after, n, indent)
		ps.item = &ps.itemBuf
	case ps.item != nil:
		ps.item.value += "\n" + text
	default:
		ps.details = append(ps.details, text)
	}
}

// splitIndent measures the leading spaces and tabs of line (a tab counts
// four) and returns the rest.
func splitIndent(line string) (int, string) {
	w := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w, line[i:]
		}
	}
	return w, ""
}

// splitBullet reports whether trimmed text is a "- " or "* " bullet and
// returns the text after it.
func splitBullet(text string) (bool, string) {
	if text == "-" || text == "*" {
		return true, ""
	}
	if strings.HasPrefix(text, "- ") || strings.HasPrefix(text, "* ") || strings.HasPrefix(text, "-\t") || strings.HasPrefix(text, "*\t") {
		return true, strings.TrimSpace(text[2:])
	}
	return false, ""
}

// knownItem reports whether bullet text is a known sub-item such as
// "Files: a.go"; those start a sub-item at any indentation.
func knownItem(text string) bool {
	it := newItem(text, 0, 0)
	return it.keyed && canonicalKey(it.key) != ""
}

func newItem(text string, n, indent int) item {
	it := item{line: n, indent: indent, value: text}
	if i := strings.IndexByte(text, ':'); i > 0 && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t') {
		if key := strings.TrimSpace(text[:i]); isKey(key) {
			it.key, it.keyed, it.value = key, true, strings.TrimSpace(text[i+1:])
		}
	}
	return it
}

// isKey reports whether s can be a sub-item key: a letter, then letters,
// digits, spaces, "_" or "-".
func isKey(s string) bool {
	for i, r := range s {
		switch {
		case r < 128 && unicode.IsLetter(r):
		case i > 0 && r < 128 && (unicode.IsDigit(r) || r == ' ' || r == '_' || r == '-'):
		default:
			return false
		}
	}
	return s != ""
}

// Canonical names of the known sub-items, in the order Render writes them.
const (
	keyFiles      = "Files"
	keyCriteria   = "Criteria"
	keyCompletion = "Completion"
	keyOutput     = "Output"
	keyMinWords   = "Min words"
	keyComplete   = "Complete"
	keyMax        = "Max iterations"
	keyDepends    = "Depends"
	keyModel      = "Model"
	keyVerify     = "Verify"
	keyEstimate   = "Estimate"
	keyInputs     = "Inputs"
	keyReplaces   = "Replaces"
	keyItems      = "Items"
	keyCounter    = "Counter"
)

var knownKeys = []string{keyFiles, keyCriteria, keyCompletion, keyInputs, keyOutput, keyMinWords, keyComplete, keyVerify, keyEstimate, keyMax, keyDepends, keyModel, keyReplaces, keyItems, keyCounter,
	MetaItemStates, MetaSettledStates, MetaSettleItems, MetaKeyValue, keyMetric,
	keyMarkers, keyMustEnd, keySections, keyMaxSize}

// canonicalKey returns the canonical name of a known key, or "".
func canonicalKey(key string) string {
	k := oneSpaced(key)
	if _, ok := checkName(k); ok {
		return keyCheck
	}
	for _, c := range knownKeys {
		if strings.EqualFold(k, c) {
			return c
		}
	}
	return ""
}

// oneSpaced is strings.Join(strings.Fields(s), " "): s itself, without
// an allocation, when it is already words with one space between them
// (every key of a plan written as the template writes it).
func oneSpaced(s string) string {
	plain := len(s) > 0 && s[0] != ' ' && s[len(s)-1] != ' '
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c < utf8.RuneSelf && (c != ' ' || s[i+1] != ' ') && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f'
	}
	if plain {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// matchUnitLine matches `^[-*] \[([ xX])\][ \t]+(.*)$` (unitRe) by hand,
// as it is asked of every line of a plan: box is the character in the
// brackets, rest the text after the spaces.
func matchUnitLine(line string) (box byte, rest string, ok bool) {
	if len(line) < 6 || (line[0] != '-' && line[0] != '*') || line[1] != ' ' || line[2] != '[' || line[4] != ']' {
		return 0, "", false
	}
	if box = line[3]; box != ' ' && box != 'x' && box != 'X' {
		return 0, "", false
	}
	after := line[5:]
	rest = strings.TrimLeft(after, " \t")
	if len(rest) == len(after) || strings.ContainsAny(rest, "\n") {
		return 0, "", false
	}
	return box, rest, true
}

// splitUnitLine reads the part of a unit line after "- [ ] ": the ID and the
// title. ok is false when it is not a unit line at all.
func splitUnitLine(line string) (id, title string, done, ok bool) {
	m1, m2, matched := matchUnitLine(line)
	if !matched {
		return "", "", false, false
	}
	done, rest := m1 != ' ', m2
	if strings.HasPrefix(rest, "**") {
		j := strings.Index(rest[2:], "**")
		if j < 0 {
			return "", "", false, false
		}
		id = strings.TrimSpace(rest[2 : 2+j])
		for {
			t := strings.TrimSpace(strings.TrimRight(id, ":"))
			if t == id {
				break
			}
			id = t
		}
		after := strings.TrimSpace(rest[2+j+2:])
		return id, strings.TrimSpace(strings.TrimPrefix(after, ":")), done, true
	}
	// Without bold, the ID is the one word before the first colon; it
	// may still be no valid ID ("IV.A"), which openUnit says.
	i := strings.IndexByte(rest, ':')
	if i < 0 {
		return "", "", false, false
	}
	id = strings.TrimSpace(rest[:i])
	if id == "" || strings.IndexFunc(id, unicode.IsSpace) >= 0 {
		return "", "", false, false
	}
	return id, strings.TrimSpace(rest[i+1:]), done, true
}

func (ps *parser) openUnit(line string, n int) {
	ps.details, ps.notes, ps.item = nil, nil, nil
	id, title, done, ok := splitUnitLine(line)
	if !ok {
		ps.errorf(n, "cannot read the unit line %q; %s", line, unitForm)
		ps.state = unitNotes // the line belongs to nothing; keep reading
		return
	}
	placeholderID := templateID(id)
	if !placeholderID {
		if err := state.CheckID(id); err != nil {
			ps.errorf(n, "%v", err)
			ps.state = unitNotes
			return
		}
		ps.defineID(id, n)
	}
	head, in, isInline := cutInline(title)
	if isInline {
		title = head
	}
	ps.unit = ps.newUnit()
	*ps.unit = Unit{ID: id, Title: title, Done: done, Line: n, Placeholder: placeholderID || isTemplate(title)}
	if isInline {
		ps.setInline(ps.unit, in, n)
	}
	ps.unit.section = len(ps.p.Sections) + 1 // the section is appended when it closes
	ps.state = unitItems
	if ps.seen == nil {
		ps.seen = map[string]int{}
	}
	clear(ps.seen) // one map for every unit: most have a few keys
}

// newUnit is room for the next unit: the slab's next element, or a unit
// of its own once the slab is full (the count was a guess).
func (ps *parser) newUnit() *Unit {
	if len(ps.slab) == cap(ps.slab) {
		return new(Unit)
	}
	ps.slab = ps.slab[:len(ps.slab)+1]
	return &ps.slab[len(ps.slab)-1]
}

// defineID notes the unit ID id defined on line n, noting an error when an
// earlier unit has it, or has it in another case.
func (ps *parser) defineID(id string, n int) {
	fold := state.FoldID(id)
	prev, clash := ps.folded[fold]
	if !clash {
		ps.folded[fold] = definedID{id, n}
		return
	}
	first, dup := prev.line, prev.id == id
	if !dup {
		first, dup = ps.clashed[id]
	}
	if dup {
		ps.errorf(n, "unit %s is defined twice (first on line %d); give each unit its own ID", id, first)
		return
	}
	if ps.clashed == nil {
		ps.clashed = map[string]int{}
	}
	ps.clashed[id] = n
	ps.errorf(n, "unit ID %s clashes with %s (%s:%d): IDs that differ only in case would share a claim ref and file names on a case-insensitive disk; rename one", id, prev.id, ps.p.File, prev.line)
}

func (ps *parser) closeUnit() {
	u := ps.unit
	if u == nil {
		return
	}
	ps.closeItem()
	u.Details = strings.Join(ps.details, "\n")
	u.Notes = strings.Join(trimBlank(ps.notes), "\n")
	ps.p.Units = append(ps.p.Units, u)
	ps.unit, ps.details, ps.notes, ps.item = nil, nil, nil, nil
}

func (ps *parser) closeItem() {
	it, u := ps.item, ps.unit
	ps.item = nil
	if it == nil || u == nil {
		return
	}
	key := ""
	if it.keyed {
		key = canonicalKey(it.key)
	}
	switch key {
	case "": // not a known key: kept as written
		f := Field{Value: it.value}
		if it.keyed {
			f.Key = it.key
		}
		u.Extra = append(u.Extra, f)
		u.extraLines = append(u.extraLines, it.line)
	case keyCounter: // a unit may count several things
		ps.addCounter(u, it)
	case keyMetric: // and have several targets
		ps.addMetric(u, it)
	case keyCheck: // and several named checks
		ps.addCheck(u, it)
	default:
		if prev, dup := ps.seen[key]; dup {
			ps.errorf(it.line, "%s: %q is given twice (first on line %d); keep one", u.ID, key, prev)
			return
		}
		ps.seen[key] = it.line
		ps.keepLine(u, keyLine{key, it.line}) // each key once: seen refused a second
		ps.setField(u, key, it.value, it.line)
	}
}

// keepLine appends kl to u's lines. They are kept in the parser's chunk,
// one after another: while u's lines are the chunk's last, kl goes after
// them in place; otherwise (a full chunk) u's lines move to a new chunk.
func (ps *parser) keepLine(u *Unit, kl keyLine) {
	n := len(u.lines)
	if n > 0 && len(ps.lines) < cap(ps.lines) && &ps.lines[len(ps.lines)-1] == &u.lines[n-1] {
		ps.lines = append(ps.lines, kl)
		u.lines = ps.lines[len(ps.lines)-n-1 : len(ps.lines) : len(ps.lines)]
		return
	}
	if n == 0 && len(ps.lines) < cap(ps.lines) {
		ps.lines = append(ps.lines, kl)
		u.lines = ps.lines[len(ps.lines)-1 : len(ps.lines) : len(ps.lines)]
		return
	}
	if n+1 > cap(ps.lines)-len(ps.lines) {
		ps.lines = make([]keyLine, 0, max(1024, 2*(n+1)))
	}
	ps.lines = append(ps.lines, u.lines...)
	ps.lines = append(ps.lines, kl)
	u.lines = ps.lines[len(ps.lines)-n-1 : len(ps.lines) : len(ps.lines)]
}

// addCounter adds the counter sub-item it to unit u.
func (ps *parser) addCounter(u *Unit, it *item) {
	c, err := ParseCounter(it.value)
	if err != nil {
		ps.errorf(it.line, "%s: %v", u.ID, err)
		return
	}
	u.Counters = append(u.Counters, c)
}

// setField sets the field of unit u that the known sub-item key holds,
// from its value v on line n, noting an error when v is not valid there.
func (ps *parser) setField(u *Unit, key, v string, n int) {
	switch key {
	case keyFiles:
		u.Files = v
	case keyCriteria:
		u.Criteria = v
	case keyCompletion:
		u.Completion = v
	case keyVerify:
		u.Verify = strings.TrimSpace(v)
	case keyModel:
		u.Model = v
	case keyEstimate:
		ps.setEstimate(u, v, n)
	case keyOutput:
		ps.setOutput(u, v, n)
	case keyInputs:
		ps.setInputs(u, v, n)
	case keyComplete:
		ps.setComplete(u, v, n)
	case keyReplaces:
		ps.setReplaces(u, v, n)
	case keyItems:
		ps.setItems(u, v, n)
	case MetaItemStates, MetaSettledStates:
		ps.setStates(u, key, v, n)
	case MetaSettleItems:
		ps.setSettle(u, v, n)
	case MetaKeyValue:
		ps.setKeyValue(u, v, n)
	case keyMax, keyDepends, keyMinWords:
		ps.setCounted(u, key, v, n)
	case keyMarkers, keyMustEnd, keySections, keyMaxSize:
		ps.setRule(u, key, v, n)
	}
}

// setEstimate sets the Estimate of unit u from v, on line n.
func (ps *parser) setEstimate(u *Unit, v string, n int) {
	u.Estimate = strings.TrimSpace(v)
	if _, _, ok := u.Weight(); !ok && !isTemplate(v) {
		ps.errorf(n, `%s: Estimate %q is not an estimate; write a positive number of points ("Estimate: 3") or of hours, days or minutes ("Estimate: 2h", "1.5d", "45m")`, u.ID, v)
	}
}

// setOutput sets the Output of unit u from v, on line n.
func (ps *parser) setOutput(u *Unit, v string, n int) {
	u.Output = v
	if isTemplate(v) {
		return
	}
	if bad := badOutput(v); bad != "" {
		ps.errorf(n, "%s: Output names %q; write a relative path without \"..\", such as `outputs/review.md` (looked up in the task folder, then from the repository root)", u.ID, bad)
	}
}

// setInputs sets the Inputs of unit u from v, on line n.
func (ps *parser) setInputs(u *Unit, v string, n int) {
	u.Inputs = v
	if isTemplate(v) {
		return
	}
	if _, bad := parseInputs(v); bad != "" {
		ps.errorf(n, "%s", inputsError(u.ID, bad))
	}
}

// setComplete sets the Complete of unit u from v, on line n.
func (ps *parser) setComplete(u *Unit, v string, n int) {
	c, ok := completeValue(v)
	if !ok {
		ps.errorf(n, `%s: Complete %q is not known; write "Complete: sentences" (the outputs end with a whole sentence) or leave it out`, u.ID, v)
		return
	}
	u.Complete = c
}

// setReplaces sets the Replaces of unit u from v, on line n.
func (ps *parser) setReplaces(u *Unit, v string, n int) {
	ids, bad, ok := parseReplaces(v)
	if !ok {
		ps.errorf(n, `%s: Replaces lists %q, which is not a unit ID; write the IDs of the units this one stands in for, such as "Replaces: T3"`, u.ID, bad)
		return
	}
	u.Replaces = ids
}

// setItems sets the Items of unit u from v, on line n.
func (ps *parser) setItems(u *Unit, v string, n int) {
	count, names, bad := parseItems(v)
	if bad != "" {
		ps.errorf(n, `%s: Items %q: %s; write the number of items ("Items: 17", items 1 to 17) or their IDs ("Items: intro, methods, results")`, u.ID, strings.TrimSpace(v), bad)
		return
	}
	u.Items, u.ItemCount, u.ItemNames = strings.TrimSpace(v), count, names
}

// setCounted sets the "Max iterations", "Depends" or "Min words" of unit
// u from v, on line n; a value still template text is kept in Pending.
func (ps *parser) setCounted(u *Unit, key, v string, n int) {
	if isTemplate(v) {
		if u.Pending == nil {
			u.Pending = map[string]string{}
		}
		u.Pending[key] = v
		return
	}
	switch key {
	case keyMinWords:
		ps.setPositive(u, &u.MinWords, "min words", v, n)
	case keyMax:
		ps.setPositive(u, &u.MaxIterations, "max iterations", v, n)
	default:
		deps, bad := parseDepends(v)
		if bad != "" {
			ps.errorf(n, `%s: Depends lists %q, which is not a unit ID; write unit IDs separated by commas, such as "T1, T2", or "none"`, u.ID, bad)
			return
		}
		if u.DependsInline {
			// The unit line's DependsOn said it first; both may stand
			// only when they agree.
			if !sameIDs(deps, u.Depends) {
				ps.errorf(n, "%s: Depends (%s) and the DependsOn of the unit line (%s:%d: %s) list different units; keep one, or make them agree",
					u.ID, idList(deps), ps.p.File, u.dependsLine, idList(u.Depends))
			}
			return
		}
		u.Depends, u.dependsLine = deps, n
	}
}

// setPositive sets *dst, a number of unit u named what, from v on line
// n, which must be a positive whole number.
func (ps *parser) setPositive(u *Unit, dst *int, what, v string, n int) {
	k, ok := positive(v)
	if !ok {
		ps.errorf(n, "%s: %s %q is not a positive whole number", u.ID, what, v)
		return
	}
	*dst = k
}

// positive reads a positive whole number written in decimal digits on one
// line, optionally in backticks.
func positive(v string) (int, bool) {
	s := strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "`"))
	if s == "" || strings.ContainsRune(v, '\n') || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// parseDepends reads a Depends value: "none", "-" or empty for no
// dependencies, else IDs separated by commas and/or spaces, each optionally
// in backticks or bold. bad is the first token that is not an ID.
func parseDepends(v string) (deps []string, bad string) {
	toks := splitIDs(v)
	if len(toks) == 0 {
		return []string{}, ""
	}
	if first := strings.Trim(toks[0], "`*"); len(toks) == 1 && (first == "-" || strings.EqualFold(first, "none")) {
		return []string{}, ""
	}
	// The IDs are written over the tokens they come from: the one read
	// is never behind the one written.
	deps = toks[:0]
	for _, tok := range toks {
		id := strings.Trim(tok, "`*")
		if !ValidID(id) {
			return nil, tok
		}
		if !slices.Contains(deps, id) {
			deps = append(deps, id)
		}
	}
	return deps, ""
}

// idList writes IDs as a Depends value does: "P1, P2", or "none".
func idList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

func splitIDs(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// depLine is one edge read from the dependencies section, or an error.
type depLine struct {
	from, to string // to depends on from
	line     int
	err      *Error
}

// depLineMarks takes a dependency line's Markdown emphasis and code marks
// out and reads an arrow as ->: one replacer for every line (it is built
// on first use, and building one per line was a tenth of a large plan's
// status).
var depLineMarks = strings.NewReplacer("`", "", "*", "", "→", "->")

// depLines reads the edges of a dependencies section body whose first line
// is line first. Lines without an arrow, or naming no unit of p, declare
// nothing (prose such as "input -> output"); with strict, a line with an
// arrow naming a unit must be well formed, else it yields an error.
func depLines(p *Plan, body string, first int, strict bool) []depLine {
	var out []depLine
	fence := false
	for i, raw := range strings.Split(body, "\n") {
		n := first + i
		if isFence(raw) {
			fence = !fence
			continue
		}
		s := strings.TrimSpace(raw)
		if fence || s == "" {
			continue
		}
		if b, after := splitBullet(s); b {
			s = after
		}
		s = depLineMarks.Replace(s)
		s = stripComment(s)
		if !strings.Contains(s, "->") {
			continue
		}
		var groups [][]string
		anyID := false
		for _, g := range strings.Split(s, "->") {
			toks := splitIDs(g)
			for _, t := range toks {
				anyID = anyID || ValidID(t) && p.Unit(t) != nil
			}
			groups = append(groups, toks)
		}
		if !anyID {
			continue
		}
		if err := checkGroups(groups); err != "" {
			if strict {
				out = append(out, depLine{line: n, err: p.errorf(n, "dependency line %q: %s", strings.TrimSpace(raw), err)})
			}
			continue
		}
		for k := 1; k < len(groups); k++ {
			for _, to := range groups[k] {
				for _, from := range groups[k-1] {
					out = append(out, depLine{from: from, to: to, line: n})
				}
			}
		}
	}
	return out
}

func checkGroups(groups [][]string) string {
	for _, g := range groups {
		if len(g) == 0 {
			return `an arrow needs unit IDs on both sides, such as "T1 -> T2"`
		}
		for _, t := range g {
			if !ValidID(t) {
				return fmt.Sprintf(`%q is not a unit ID; write lines such as "T1, T2 -> T3"`, t)
			}
		}
	}
	return ""
}

// stripComment removes trailing parenthesised comments: "T1 → T2 (sequential)".
func stripComment(s string) string {
	for {
		s = strings.TrimSpace(s)
		if !strings.HasSuffix(s, ")") {
			return s
		}
		depth, k := 0, -1
		for i := len(s) - 1; i >= 0 && k < 0; i-- {
			switch s[i] {
			case ')':
				depth++
			case '(':
				depth--
				if depth == 0 {
					k = i
				}
			}
		}
		if k < 0 {
			return s
		}
		s = s[:k]
	}
}
