package index

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

func row(slug, name, last string) Row {
	return Row{Slug: slug, Name: name, Mode: "development", Status: "execute, 1/2 done", Started: "2026-01-01T00:00:00Z", Progress: "50%", LastActivity: last, Items: "-", KeyFinding: "-"}
}

func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain name", "plain name"},
		{"a | b", `a \| b`},
		{"line\nbreak", "line break"},
		{"cr\r\nlf", "cr  lf"},
		{"`code` *em* _u_ [link](x) <b>", "\\`code\\` \\*em\\* \\_u\\_ \\[link\\](x) \\<b\\>"},
		{`back\slash`, `back\\slash`},
		{"# heading! ~x~", `\# heading\! \~x\~`},
		{"tab\there\x1b[31m", `tab here \[31m`},
		{"", "-"},
		{"  \n ", "-"},
		{"line\u2028sep", "line sep"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Escape(c.in), "%q", c.in)
		if c.want != "-" {
			assert.NotContains(t, Escape(c.in), "\n")
		}
	}
}

func TestRenderParseRoundTrip(t *testing.T) {
	rows := []Row{
		row("beta", "Beta", "2026-01-02T00:00:00Z"),
		row("alpha", "Alpha | with `code`, *stars* and a \\ (not a slug: `x`)", "2026-01-03T00:00:00Z"),
	}
	data := Render(rows)
	assert.True(t, strings.HasPrefix(string(data), "# Tasks\n"))
	assert.Contains(t, string(data), "| Task | Mode | Status | Started | Progress | Last activity | Items | Key finding |\n|---|---|---|---|---|---|---|---|\n")
	got, err := Parse(data)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "alpha", got[0].Slug, "rows are sorted by slug")
	assert.Equal(t, rows[1], got[0], "every cell reads back as written")
	assert.Equal(t, rows[0], got[1])
	assert.Equal(t, string(data), string(Render(got)))
	// Each row is one line of eight cells: the name cannot add a cell.
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "| Alpha") {
			assert.Len(t, splitCells(l[2:len(l)-2]), 8)
		}
	}
}

// TestParseIndexBeforeItems: an index written before the Items and Key
// finding columns still reads (both "-"), and is written with them.
func TestParseIndexBeforeItems(t *testing.T) {
	old := "# Tasks\n\n| Task | Mode | Status | Started | Progress | Last activity |\n|---|---|---|---|---|---|\n" +
		"| A (`a`) | development | execute, 1/2 done | 2026-01-01T00:00:00Z | 50% | 2026-01-02T00:00:00Z |\n"
	rows, err := Parse([]byte(old))
	require.NoError(t, err)
	assert.Equal(t, []Row{row("a", "A", "2026-01-02T00:00:00Z")}, rows)
	assert.Contains(t, string(Render(rows)), "| A (`a`) | development | execute, 1/2 done | 2026-01-01T00:00:00Z | 50% | 2026-01-02T00:00:00Z | - | - |\n")
	merged, err := Merge([]byte(old), []byte(old), Render([]Row{row("a", "A", "2026-01-03T00:00:00Z")}))
	require.NoError(t, err)
	assert.Contains(t, string(merged), "2026-01-03T00:00:00Z | - | - |")
}

// TestRowItemsAndKeyFinding: the items of every ledger by state, in the
// plan's order of states, and the key value of the first item that has
// one (the plan's "Key value", finding by default).
func TestRowItemsAndKeyFinding(t *testing.T) {
	s := state.New(state.Knowledge, "Lit review", "lit", "2026-01-01T00:00:00Z")
	r1 := &state.Unit{ID: "R1", Status: state.InProgress, Items: &state.Items{Total: state.Ptr(6)}}
	r1.Items.Mark([]state.ItemMark{{Range: state.ItemRange{Lo: 1, Hi: 4}, State: "level-3"}, {Range: state.ItemRange{Lo: 5, Hi: 5}, State: "included"}})
	r1.Items.SetValue(state.ItemValue{Item: "2", Name: "finding", Text: "Wage claims exposure $12M"})
	r1.Items.SetValue(state.ItemValue{Item: "1", Name: "finding", Text: "Entity consolidation required"})
	r1.Items.SetValue(state.ItemValue{Item: "3", Name: "summary", Text: "Clean record"})
	r2 := &state.Unit{ID: "R2", Status: state.Pending, Items: &state.Items{}}
	r2.Items.Mark([]state.ItemMark{{Range: state.ItemRange{Name: "a"}, State: state.ItemSkipped}})
	s.Units["R1"], s.Units["R2"] = r1, r2
	p, err := plan.Parse("plan.md", []byte("**Item states:** candidate, included, level-3\n## Phases\n- [ ] **R1**: a\n  - Items: 6\n- [ ] **R2**: b\n"))
	require.NoError(t, err)
	got := RowOf("lit", s, p, "")
	assert.Equal(t, "7 items: 1 included, 4 level-3, 1 skipped, 1 not recorded", got.Items)
	assert.Equal(t, "Entity consolidation required (and 1 more)", got.KeyFinding)
	keyed, err := plan.Parse("plan.md", []byte("**Key value:** summary\n## Phases\n- [ ] **R1**: a\n- [ ] **R2**: b\n"))
	require.NoError(t, err)
	assert.Equal(t, "Clean record", RowOf("lit", s, keyed, "").KeyFinding)
	// Without the plan: the ledger's own order, finding as the key.
	assert.Equal(t, "7 items: 1 included, 4 level-3, 1 skipped, 1 not recorded", RowOf("lit", s, nil, "").Items)
	rendered := string(Render([]Row{got}))
	assert.Contains(t, rendered, "| 7 items: 1 included, 4 level-3, 1 skipped, 1 not recorded | Entity consolidation required (and 1 more) |\n")
	back, err := Parse([]byte(rendered))
	require.NoError(t, err)
	assert.Equal(t, got, back[0], "the dollar sign and all read back")
}

func TestRowOf(t *testing.T) {
	s := state.New(state.Knowledge, "Lit review", "lit", "2026-01-01T00:00:00Z")
	s.Phase = state.Execute
	s.Units["R1"] = &state.Unit{ID: "R1", Status: state.Done}
	s.Units["R2"] = &state.Unit{ID: "R2", Status: state.InProgress}
	s.Units["R3"] = &state.Unit{ID: "R3", Status: state.Pending}
	s.Updated = state.Ptr("2026-01-05T00:00:00Z")
	r := RowOf("lit", s, nil, "")
	assert.Equal(t, Row{Slug: "lit", Name: "Lit review", Mode: "knowledge", Status: "execute, 1/3 done", Started: "2026-01-01T00:00:00Z", Progress: "33%", LastActivity: "2026-01-05T00:00:00Z", Items: "-", KeyFinding: "-"}, r)
	s.Paused = &state.Pause{Since: "2026-01-04T00:00:00Z"}
	assert.Equal(t, "execute, paused, 1/3 done", RowOf("lit", s, nil, "").Status)
	assert.Equal(t, "archived (itr/archive/lit/2026-01-06), 1/3 done", RowOf("lit", s, nil, "refs/tags/itr/archive/lit/2026-01-06").Status)
	empty := state.New(state.Development, "New", "new", "")
	empty.Created, empty.Updated = nil, nil
	r = RowOf("new", empty, nil, "")
	assert.Equal(t, "-", r.Progress)
	assert.Equal(t, "-", r.Started)
	assert.Equal(t, "discover, 0/0 done", r.Status)
}

func TestParseErrors(t *testing.T) {
	head := "# Tasks\n\n| Task | Mode | Status | Started | Progress | Last activity |\n|---|---|---|---|---|---|\n"
	cases := []struct{ name, in, want string }{
		{"empty", "", "INDEX.md: no table of Task, Mode, Status, Started, Progress, Last activity, Items, Key finding"},
		{"no separator", "| Task | Mode | Status | Started | Progress | Last activity |\n", "no table"},
		{"five cells", head + "| A (`a`) | development | x | y | z |\n", "INDEX.md:5: 5 cells, not 8"},
		{"seven cells", head + "| A (`a`) | development | x | y | z | w | v |\n", "INDEX.md:5: 7 cells, not 8"},
		{"no slug", head + "| A | development | x | y | z | w |\n", "INDEX.md:5: the first cell names no task"},
		{"bad slug", head + "| A (`a b`) | development | x | y | z | w |\n", `INDEX.md:5: "a b" is not a task's slug`},
		{"twice", head + "| A (`a`) | d | x | y | z | w |\n| B (`a`) | d | x | y | z | w |\n", "INDEX.md:6: task a is listed twice (first on line 5)"},
		{"not a row", head + "text\n", "INDEX.md:5: not a row of the table"},
		{"conflict", head + "<<<<<<< ours\n", "INDEX.md:5: not a row"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.ErrorIs(t, err, ErrNotIndex)
		})
	}
}

func TestSet(t *testing.T) {
	rows := []Row{row("a", "A", "1"), row("b", "B", "1")}
	nb := row("b", "B2", "2")
	got := Set(rows, "b", &nb)
	assert.Equal(t, []Row{row("a", "A", "1"), nb}, got)
	assert.Equal(t, []Row{row("a", "A", "1")}, Set(rows, "b", nil))
	nc := row("c", "C", "3")
	assert.Len(t, Set(rows, "c", &nc), 3)
	assert.Len(t, rows, 2, "the input is not changed")
}

func TestMerge(t *testing.T) {
	a1, a2, a3 := row("a", "A", "2026-01-01T00:00:00Z"), row("a", "A", "2026-01-02T00:00:00Z"), row("a", "A", "2026-01-03T00:00:00Z")
	b1, b2 := row("b", "B", "2026-01-01T00:00:00Z"), row("b", "B", "2026-01-02T00:00:00Z")
	c1 := row("c", "C", "2026-01-01T00:00:00Z")
	cases := []struct {
		name                string
		base, ours, theirs  []Row
		want                []Row
		baseEmpty, wantsErr bool
	}{
		{name: "each side its own task", base: []Row{a1, b1}, ours: []Row{a2, b1}, theirs: []Row{a1, b2}, want: []Row{a2, b2}},
		{name: "both changed one: the later", base: []Row{a1}, ours: []Row{a3}, theirs: []Row{a2}, want: []Row{a3}},
		{name: "both changed one: theirs later", base: []Row{a1}, ours: []Row{a2}, theirs: []Row{a3}, want: []Row{a3}},
		{name: "added on one side", base: []Row{a1}, ours: []Row{a1}, theirs: []Row{a1, c1}, want: []Row{a1, c1}},
		{name: "added on both", base: []Row{a1}, ours: []Row{a1, b1}, theirs: []Row{a1, c1}, want: []Row{a1, b1, c1}},
		{name: "taken out on one side", base: []Row{a1, b1}, ours: []Row{a1}, theirs: []Row{a1, b1}, want: []Row{a1}},
		{name: "taken out and changed", base: []Row{a1, b1}, ours: []Row{a1}, theirs: []Row{a1, b2}, want: []Row{a1, b2}},
		{name: "no base: added on both", baseEmpty: true, ours: []Row{a1}, theirs: []Row{a2, b1}, want: []Row{a2, b1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var base []byte
			if !c.baseEmpty {
				base = Render(c.base)
			}
			got, err := Merge(base, Render(c.ours), Render(c.theirs))
			require.NoError(t, err)
			assert.Equal(t, string(Render(c.want)), string(got))
		})
	}
	_, err := Merge(nil, []byte("<<<<<<< x\n"), Render(nil))
	assert.ErrorContains(t, err, "ours: INDEX.md: no table")
	_, err = Merge(Render(nil), Render(nil), []byte("| x |\n"))
	assert.ErrorContains(t, err, "theirs: ")
}

func FuzzParse(f *testing.F) {
	f.Add(Render([]Row{row("a", "A | `b` *c*", "2026-01-01T00:00:00Z"), row("b.c-d", "\\", "-")}))
	f.Add([]byte("| Task | Mode | Status | Started | Progress | Last activity |\n|---|---|---|---|---|---|\n| x (`y`) | \\| | a \\\\| b | c | d | e |\n"))
	f.Add([]byte("| Task | Mode | Status | Started | Progress | Last activity |\n|---|\n|  (``) |  |  |  |  |  |\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := Parse(data)
		if err != nil {
			return
		}
		out := Render(rows)
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("parse of own rendering failed: %v\n%s", err, out)
		}
		if string(Render(again)) != string(out) {
			t.Fatalf("rendering is not stable:\n%s\n---\n%s", out, Render(again))
		}
	})
}
