// Package index keeps INDEX.md, the master table of a workspace's tasks
// (seed 000's project-level INDEX.md): one row a task with its name, mode,
// status (phase, paused, done/total), start, progress, last activity, its
// items by state and its key finding (the key value of its first item that
// has one: "Key value:" in the plan, finding by default).
// It is derived: itr writes it, when .itr.yaml says `index: true`, in the
// same commit as the change it shows, by replacing that task's row (Update);
// `itr list --write-index` rebuilds it whole (Build); the merge driver joins
// two sides row by row (Merge); `itr verify` compares it with a rebuild.
//
// Names are data: every cell is escaped so a name cannot break the table
// (a `|`, a newline) or format itself (backticks, emphasis, links, HTML).
package index

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// File is the index's name, at the task root.
const File = "INDEX.md"

// header is what comes before the table; the table's own header follows.
const header = "# Tasks\n\n" +
	"<!-- Written by itr because .itr.yaml says `index: true`, in the same commit as each change it shows.\n" +
	"     Do not edit it: `itr list --write-index` rebuilds it. -->\n\n"

// columns are the table's columns, in order; an index written before the
// last two (Items, Key finding) still reads.
var columns = []string{"Task", "Mode", "Status", "Started", "Progress", "Last activity", "Items", "Key finding"}

// oldColumns is the number of columns of an index written before items.
const oldColumns = 6

// Row is one task of the index, its cells unescaped.
type Row struct {
	Slug         string
	Name         string
	Mode         string
	Status       string // "execute, paused, 2/5 done"; "archived (itr/archive/x/2026-01-14), 5/5 done"; "archived (...), abandoned: superseded, 1/5 done"
	Started      string
	Progress     string // "40%"
	LastActivity string
	// Items counts the items of the task's ledgers by state ("6 items: 4
	// level-3, 1 included, 1 not recorded"), "-" for none; KeyFinding is
	// the key value of the first item that has one, and how many more
	// have one.
	Items      string
	KeyFinding string
}

// RowOf is the row of a task whose view is s under plan p (nil: none);
// archive is the tag an archived task is kept in ("" while it is active).
// Its status names the task's outcome (s.Outcome), but complete for an
// archived task, which goes without saying.
func RowOf(slug string, s *state.State, p *plan.Plan, archive string) Row {
	done, total := 0, 0
	for _, u := range s.Units {
		total++
		if u.Status == state.Done {
			done++
		}
	}
	status := []string{string(s.Phase)}
	if archive != "" {
		status = []string{"archived (" + strings.TrimPrefix(archive, "refs/tags/") + ")"}
	} else if s.Paused != nil {
		status = append(status, "paused")
	}
	// How the task ended; an archive is complete unless it says otherwise.
	if o := s.Outcome; o != nil && (archive == "" || o.Result != state.ResultComplete) {
		status = append(status, oneLine(o.Text(), 160))
	}
	status = append(status, fmt.Sprintf("%d/%d done", done, total))
	progress := "-"
	if total > 0 {
		progress = fmt.Sprintf("%d%%", done*100/total)
	}
	return Row{Slug: slug, Name: s.Task, Mode: string(s.Mode), Status: strings.Join(status, ", "),
		Started: orDash(state.Val(s.Created)), Progress: progress, LastActivity: orDash(state.Val(s.Updated)),
		Items: itemsCell(s, p), KeyFinding: keyFinding(s, p)}
}

// itemsCell counts the items of every unit's ledger by state, in the
// order of the units' item states (the plan's), then the states the plan
// does not name: "6 items: 4 level-3, 1 included, 1 not recorded"; "-"
// when no unit has items.
func itemsCell(s *state.State, p *plan.Plan) string {
	counts := map[string]int{}
	var order []string
	count := func(st string, n int) {
		if n == 0 {
			return
		}
		if _, seen := counts[st]; !seen {
			order = append(order, st)
		}
		counts[st] += n
	}
	recorded, total := 0, 0
	for _, id := range s.IDs() {
		it := s.Units[id].Items
		if it == nil {
			continue
		}
		var names []string
		if p != nil && !p.Placeholder() {
			names = p.ItemStatesOf(id).Names()
		}
		for _, st := range it.StateNames() {
			if !slices.Contains(names, st) {
				names = append(names, st)
			}
		}
		n := 0
		for _, st := range names {
			k := it.Set(st).Len()
			count(st, k)
			n += k
		}
		recorded += n
		total += max(state.Val(it.Total), n)
	}
	if total == 0 {
		return "-"
	}
	parts := make([]string, 0, len(order)+1)
	for _, st := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
	}
	if total > recorded {
		parts = append(parts, fmt.Sprintf("%d not recorded", total-recorded))
	}
	return fmt.Sprintf("%d item%s: %s", total, map[bool]string{true: "", false: "s"}[total == 1], strings.Join(parts, ", "))
}

// keyFinding is the key value of the first item (units in order, items
// in natural order) that has one, and how many more have one; "-" when
// none has.
func keyFinding(s *state.State, p *plan.Plan) string {
	first, more := "", 0
	for _, id := range s.IDs() {
		it := s.Units[id].Items
		key := plan.DefaultKeyValue
		if p != nil && !p.Placeholder() {
			key = p.KeyValueOf(id)
		}
		for _, item := range it.ValueItems() {
			v := it.Value(item, key)
			switch {
			case v == "":
			case first == "":
				first = v
			default:
				more++
			}
		}
	}
	switch {
	case first == "":
		return "-"
	case more > 0:
		return fmt.Sprintf("%s (and %d more)", first, more)
	}
	return first
}

// oneLine is s on one line, cut to n characters with "…".
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Render writes the index of rows, sorted by slug.
func Render(rows []Row) []byte {
	rows = append([]Row(nil), rows...)
	sort.Slice(rows, func(i, j int) bool { return rows[i].Slug < rows[j].Slug })
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("| " + strings.Join(columns, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(columns)) + "\n")
	for _, r := range rows {
		b.WriteString(renderRow(r))
	}
	return b.Bytes()
}

func renderRow(r Row) string {
	cells := []string{
		Escape(r.Name) + " (`" + r.Slug + "`)",
		Escape(r.Mode), Escape(r.Status), Escape(r.Started), Escape(r.Progress), Escape(r.LastActivity),
		Escape(r.Items), Escape(r.KeyFinding),
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// escaped are the characters Escape puts a backslash before: the table's
// separator, the escape itself, and what Markdown would format.
const escaped = "\\|`*_[]<>#!~"

// Escape makes text one inert table cell: line breaks and other control
// characters become spaces, Markdown's metacharacters are backslashed,
// and an empty cell is "-".
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || (r >= 0x80 && r < 0xa0):
			b.WriteByte(' ')
		case strings.ContainsRune(escaped, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	out := strings.TrimSpace(b.String())
	if out == "" {
		return "-"
	}
	return out
}

// unescape reverses Escape's backslashes.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(escaped, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ErrNotIndex means the text is not a table itr wrote.
var ErrNotIndex = errors.New("not an INDEX.md itr wrote")

// Parse reads the rows of an index itr wrote. A line of the table that is
// not a row of six cells with a slug, or the same slug twice, is an error
// naming the line (wrapping ErrNotIndex).
func Parse(data []byte) ([]Row, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	head := "| " + strings.Join(columns, " | ") + " |"
	oldHead := "| " + strings.Join(columns[:oldColumns], " | ") + " |"
	start := -1
	for i, l := range lines {
		if l == head || l == oldHead {
			start = i
			break
		}
	}
	if start < 0 || start+1 >= len(lines) || !strings.HasPrefix(lines[start+1], "|---") {
		return nil, fmt.Errorf("%s: no table of %s: %w", File, strings.Join(columns, ", "), ErrNotIndex)
	}
	var rows []Row
	seen := map[string]int{}
	for i := start + 2; i < len(lines); i++ {
		l := lines[i]
		if l == "" && i == len(lines)-1 {
			break
		}
		r, err := parseRow(l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", File, i+1, err)
		}
		if first, ok := seen[r.Slug]; ok {
			return nil, fmt.Errorf("%s:%d: task %s is listed twice (first on line %d): %w", File, i+1, r.Slug, first, ErrNotIndex)
		}
		seen[r.Slug] = i + 1
		rows = append(rows, r)
	}
	return rows, nil
}

func parseRow(l string) (Row, error) {
	if !strings.HasPrefix(l, "| ") || !strings.HasSuffix(l, " |") || len(l) < 4 {
		return Row{}, fmt.Errorf("not a row of the table: %w", ErrNotIndex)
	}
	cells := splitCells(l[2 : len(l)-2])
	if len(cells) == oldColumns {
		cells = append(cells, "-", "-") // written before items
	}
	if len(cells) != len(columns) {
		return Row{}, fmt.Errorf("%d cells, not %d: %w", len(cells), len(columns), ErrNotIndex)
	}
	first := cells[0]
	open := strings.LastIndex(first, " (`")
	if open < 0 || !strings.HasSuffix(first, "`)") || open+3 > len(first)-2 {
		return Row{}, fmt.Errorf("the first cell names no task as (`slug`): %w", ErrNotIndex)
	}
	slug := first[open+3 : len(first)-2]
	if slug == "" || strings.ContainsAny(slug, "`\\| ") {
		return Row{}, fmt.Errorf("%q is not a task's slug: %w", slug, ErrNotIndex)
	}
	return Row{Slug: slug, Name: unescape(first[:open]), Mode: unescape(cells[1]), Status: unescape(cells[2]),
		Started: unescape(cells[3]), Progress: unescape(cells[4]), LastActivity: unescape(cells[5]),
		Items: unescape(cells[6]), KeyFinding: unescape(cells[7])}, nil
}

// splitCells splits on " | " that is not escaped.
func splitCells(s string) []string {
	var cells []string
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == '|' && i-1 >= last && s[i-1] == ' ' && i+1 < len(s) && s[i+1] == ' ' {
			cells = append(cells, s[last:i-1])
			last = i + 2
			i++
		}
	}
	return append(cells, s[last:])
}

// Set returns rows with the row of slug replaced by r (added when it is
// not there), or taken out when r is nil.
func Set(rows []Row, slug string, r *Row) []Row {
	out := make([]Row, 0, len(rows)+1)
	for _, x := range rows {
		if x.Slug != slug {
			out = append(out, x)
		}
	}
	if r != nil {
		out = append(out, *r)
	}
	return out
}

// Merge joins two sides of an index row by row against their base: a row
// one side changed (added, removed) is taken from it; a row both changed
// is the one with the later last activity (ours on a tie). A row of a task
// both sides worked on may then lag behind the merged task until the next
// itr write of the task rewrites it; `itr verify` names such a row.
func Merge(base, ours, theirs []byte) ([]byte, error) {
	var b, o, t []Row
	var err error
	if len(bytes.TrimSpace(base)) > 0 {
		if b, err = Parse(base); err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
	}
	if o, err = Parse(ours); err != nil {
		return nil, fmt.Errorf("ours: %w", err)
	}
	if t, err = Parse(theirs); err != nil {
		return nil, fmt.Errorf("theirs: %w", err)
	}
	by := func(rows []Row) map[string]Row {
		m := map[string]Row{}
		for _, r := range rows {
			m[r.Slug] = r
		}
		return m
	}
	bm, om, tm := by(b), by(o), by(t)
	slugs := map[string]bool{}
	for _, m := range []map[string]Row{bm, om, tm} {
		for s := range m {
			slugs[s] = true
		}
	}
	var out []Row
	for s := range slugs {
		br, inB := bm[s]
		or, inO := om[s]
		tr, inT := tm[s]
		switch {
		case inO == inB && (!inO || or == br): // ours left it: theirs decides
			if inT {
				out = append(out, tr)
			}
		case inT == inB && (!inT || tr == br): // theirs left it: ours decides
			if inO {
				out = append(out, or)
			}
		case !inO:
			out = append(out, tr) // ours took it out, theirs changed it: keep the change
		case !inT:
			out = append(out, or)
		case tr.LastActivity > or.LastActivity:
			out = append(out, tr)
		default:
			out = append(out, or)
		}
	}
	return Render(out), nil
}
