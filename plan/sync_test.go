package plan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/itr-dev/itr/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// doneIDs returns a done function for Sync: the IDs given are done.
func doneIDs(ids ...string) func(string) bool {
	return func(id string) bool {
		for _, d := range ids {
			if d == id {
				return true
			}
		}
		return false
	}
}

func TestSync(t *testing.T) {
	c := Counts{Done: 1, InProgress: 2, Pending: 3}
	tests := []struct {
		name string
		in   string
		done func(string) bool
		want string // "" when nothing changes
	}{
		{"itr's template", itrTemplate, doneIDs("T1"),
			strings.NewReplacer("- [ ] **T1**", "- [x] **T1**", "{N} tasks", "6 tasks", "{X} done, {Y} in progress, {Z} pending", "1 done, 2 in progress, 3 pending").Replace(itrTemplate)},
		{"boxes both ways, text after the box kept", "## Tasks\n- [ ] **T1**: a  [ ] not a box  \n* [x] T2: b\n- [x] **T3**:c", doneIDs("T1"),
			"## Tasks\n- [x] **T1**: a  [ ] not a box  \n* [ ] T2: b\n- [ ] **T3**:c"},
		{"an upper-case X stays when done", "## Tasks\n- [X] **T1**: a\n- [X] **T2**: b\n", doneIDs("T1"),
			"## Tasks\n- [X] **T1**: a\n- [ ] **T2**: b\n"},
		{"CRLF kept", "# P\r\n**Status:** old\r\n\r\n## Tasks\r\n\r\n- [ ] **T1**: a\r\n  - Max iterations: 3\r\n", doneIDs("T1"),
			"# P\r\n**Status:** 1 done, 2 in progress, 3 pending\r\n\r\n## Tasks\r\n\r\n- [x] **T1**: a\r\n  - Max iterations: 3\r\n"},
		{"BOM, CR and mixed endings kept", "\uFEFF**Total:** 2 tasks\r## Tasks\r\n- [ ] **T1**: a\n- [ ] **T2**: b\r", doneIDs("T1", "T2"),
			"\uFEFF**Total:** 6 tasks\r## Tasks\r\n- [x] **T1**: a\n- [x] **T2**: b\r"},
		{"a unit on the first line after a BOM", "\uFEFF- [ ] **T1**: stray\n## Tasks\n- [ ] **T2**: b", doneIDs("T1", "T2"),
			"\uFEFF- [ ] **T1**: stray\n## Tasks\n- [x] **T2**: b"},
		{"fenced units untouched", "## Tasks\n- [ ] **T1**: a\n\n```md\n- [ ] **T1**: example\n```\n- [ ] **T2**: b\n", doneIDs("T1", "T2"),
			"## Tasks\n- [x] **T1**: a\n\n```md\n- [ ] **T1**: example\n```\n- [x] **T2**: b\n"},
		{"unit lines under other headings untouched", "## Tasks\n- [ ] **T1**: a\n## Later\n- [ ] **T1**: again\n", doneIDs("T1"),
			"## Tasks\n- [x] **T1**: a\n## Later\n- [ ] **T1**: again\n"},
		{"no Status line, none added", "# P\n**Created:** today\n\n## Tasks\n- [ ] **T1**: a\n", doneIDs("T1"),
			"# P\n**Created:** today\n\n## Tasks\n- [x] **T1**: a\n"},
		{"nothing to change", "# P\n**Status:** 1 done, 2 in progress, 3 pending\n**Total:** 6 tasks\n## Tasks\n- [x] **T1**: a\n- [ ] **T2**: b\n", doneIDs("T1"), ""},
		{"nil done leaves the boxes", "**Status:** x\n## Tasks\n- [ ] **T1**: a\n- [x] **T2**: b\n", nil,
			"**Status:** 1 done, 2 in progress, 3 pending\n## Tasks\n- [ ] **T1**: a\n- [x] **T2**: b\n"},
		{"spacing, bold forms and key case kept", "  **status**:{X} done \t\n**Total:**   {N} phases  \n", nil,
			"  **status**:1 done, 2 in progress, 3 pending \t\n**Total:**   6 phases  \n"},
		{"an empty value gets a space", "**Status:**\n**Total:**\n## Phases\n", nil,
			"**Status:** 1 done, 2 in progress, 3 pending\n**Total:** 6 phases\n## Phases\n"},
		{"every Status line, only in the header", "**Status:** a\n```\n**Status:** fenced\n```\n**Status:** b\n## Notes\n**Status:** not the header\n", nil,
			"**Status:** 1 done, 2 in progress, 3 pending\n```\n**Status:** fenced\n```\n**Status:** 1 done, 2 in progress, 3 pending\n## Notes\n**Status:** not the header\n"},
		{"template units untouched, duplicates both synced", "## Tasks\n- [ ] **{ID}**: {title}\n- [ ] **T1**: a\n- [ ] **T1**: again\n", func(string) bool { return true },
			"## Tasks\n- [ ] **{ID}**: {title}\n- [x] **T1**: a\n- [x] **T1**: again\n"},
		{"unreadable unit lines untouched", "## Tasks\n- [] **T1**: a\n- [ ] **t.2**: b\n-  [ ] **T3**: c\n", func(string) bool { return true }, ""},
		{"a file without units: Status and Total only", "**Total:** 4\n\n- [ ] **T1**: stray\n", func(string) bool { return true },
			"**Total:** 6 tasks\n\n- [ ] **T1**: stray\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed := Sync([]byte(tt.in), tt.done, c)
			want := tt.want
			if want == "" {
				want = tt.in
			}
			assert.Equal(t, want, string(out))
			assert.Equal(t, tt.want != "", changed)
			require.NoError(t, syncDiff([]byte(tt.in), out, tt.done, c))
			again, changed := Sync(out, tt.done, c)
			assert.False(t, changed, "a second Sync changes nothing")
			assert.Equal(t, string(out), string(again))
		})
	}
}

func TestSyncUnchangedReturnsData(t *testing.T) {
	in := []byte("## Tasks\n- [ ] **T1**: a\n")
	out, changed := Sync(in, doneIDs(), Counts{})
	require.False(t, changed)
	assert.Same(t, &in[0], &out[0])
	out, _ = Sync(in, doneIDs("T1"), Counts{})
	assert.Equal(t, "## Tasks\n- [ ] **T1**: a\n", string(in), "Sync does not write into data")
	assert.Equal(t, "## Tasks\n- [x] **T1**: a\n", string(out))
}

func TestSyncCounts(t *testing.T) {
	for _, tt := range []struct {
		c             Counts
		status, total string
	}{
		{Counts{}, "0 done, 0 in progress, 0 pending", "0 tasks"},
		{Counts{Pending: 1}, "0 done, 0 in progress, 1 pending", "1 task"},
		{Counts{Done: 2, InProgress: 1, Pending: 4, Blocked: 2}, "2 done, 1 in progress, 4 pending, 2 blocked", "9 tasks"},
		{Counts{Done: 2, Pending: 1, Failed: 1, Skipped: 2}, "2 done, 0 in progress, 1 pending, 1 failed, 2 skipped", "6 tasks"},
	} {
		out, _ := Sync([]byte("**Total:** {N} tasks\n**Status:** x\n"), nil, tt.c)
		assert.Equal(t, "**Total:** "+tt.total+"\n**Status:** "+tt.status+"\n", string(out))
		assert.Equal(t, tt.status, tt.c.Status())
	}
	// The word comes from the line, else the units heading.
	out, _ := Sync([]byte("**Total:** 3\n## Phases\n"), nil, Counts{Done: 1})
	assert.Equal(t, "**Total:** 1 phase\n## Phases\n", string(out))
	out, _ = Sync([]byte("**Total:** 3 tasks\n## Phases\n"), nil, Counts{Done: 1})
	assert.Equal(t, "**Total:** 1 task\n## Phases\n", string(out))
}

func TestTally(t *testing.T) {
	st := map[string]state.Status{"T1": state.Done, "T2": state.InProgress, "T3": state.Confirming, "T4": state.Verifying, "T5": state.Blocked, "T6": state.Timeout, "T7": state.Pending}
	c := Tally([]string{"T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"}, func(id string) state.Status { return st[id] })
	assert.Equal(t, Counts{Done: 1, InProgress: 3, Pending: 2, Blocked: 2}, c)
	assert.Equal(t, 8, c.Total())

	// Failed and skipped units are counted apart, never as done.
	st["T8"], st["T9"] = state.Failed, state.Skipped
	c = Tally([]string{"T1", "T8", "T9"}, func(id string) state.Status { return st[id] })
	assert.Equal(t, Counts{Done: 1, Failed: 1, Skipped: 1}, c)
	assert.Equal(t, 3, c.Total())
}

// TestSyncGolden syncs every testdata/*.md with T1, T10 and R1 done and
// compares the result with testdata/NAME.sync.golden (-update rewrites
// them); only boxes and the Status and Total values may differ from the
// input, and the synced plan parses to the same plan but for the boxes.
func TestSyncGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	require.NoError(t, err)
	done := doneIDs("T1", "T10", "R1")
	c := Counts{Done: 2, InProgress: 1, Pending: 3, Blocked: 1}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(file)
			require.NoError(t, err)
			out, changed := Sync(in, done, c)
			assert.True(t, changed)
			golden(t, "testdata/"+name+".sync.golden", out)
			require.NoError(t, syncDiff(in, out, done, c))
			require.NoError(t, syncedPlan(filepath.Base(file), in, out, done, c))
		})
	}
}

var lineEndRe = regexp.MustCompile(`\r\n|\n|\r`)

// fileLines cuts b into lines and their endings.
func fileLines(b []byte) (lines, ends []string) {
	s := string(b)
	pos := 0
	for _, m := range lineEndRe.FindAllStringIndex(s, -1) {
		lines, ends = append(lines, s[pos:m[0]]), append(ends, s[m[0]:m[1]])
		pos = m[1]
	}
	return append(lines, s[pos:]), append(ends, "")
}

var totalRe = regexp.MustCompile(`^(\d+) (tasks?|phases?)$`)

// syncDiff checks that out differs from in only where Sync may write: the
// box of a unit line ("- [ ]" or "* [ ]" at the start of a line, the box
// byte one of " xX"), and the value of a "**Status:**" or "**Total:**"
// line, which must then be the counts. Line endings must be equal.
func syncDiff(in, out []byte, done func(string) bool, c Counts) error {
	if bytes.Equal(in, out) {
		return nil
	}
	a, ae := fileLines(in)
	b, be := fileLines(out)
	if len(a) != len(b) {
		return fmt.Errorf("%d lines became %d", len(a), len(b))
	}
	for i := range a {
		if ae[i] != be[i] {
			return fmt.Errorf("line %d: ending %q became %q", i+1, ae[i], be[i])
		}
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if i == 0 {
			if strings.HasPrefix(x, bom) != strings.HasPrefix(y, bom) {
				return fmt.Errorf("the byte order mark changed")
			}
			x, y = strings.TrimPrefix(x, bom), strings.TrimPrefix(y, bom)
		}
		if boxOnly(x, y) || inlineStatusOnly(x, y) {
			if done == nil {
				return fmt.Errorf("line %d: a box or an inline Status changed without a done function", i+1)
			}
			continue
		}
		if err := metaOnly(x, y, c); err != nil {
			return fmt.Errorf("line %d: %q became %q: %w", i+1, a[i], b[i], err)
		}
	}
	return nil
}

// boxOnly reports whether unit line x became y by its box alone.
func boxOnly(x, y string) bool {
	if len(x) != len(y) || len(x) < 5 || x[:3] != y[:3] || x[4:] != y[4:] {
		return false
	}
	return (x[0] == '-' || x[0] == '*') && x[1:3] == " [" && x[4] == ']' &&
		strings.ContainsRune(" xX", rune(x[3])) && strings.ContainsRune(" xX", rune(y[3]))
}

// inlineStatusOnly reports whether unit line x became y by the value of
// its inline Status (seed 003's "(Status: PENDING, DependsOn: P1)"), and
// maybe its box, the new value one of the seed's.
func inlineStatusOnly(x, y string) bool {
	sx, ex, ok1 := statusSpan(x)
	sy, ey, ok2 := statusSpan(y)
	if !ok1 || !ok2 || x[ex:] != y[ey:] || !slices.Contains(SeedStatuses, y[sy:ey]) {
		return false
	}
	return x[:sx] == y[:sy] || boxOnly(x[:sx], y[:sy])
}

// metaOnly checks that header line x became y by the value of its Status or
// Total field alone, and that the new value is the counts.
func metaOnly(x, y string, c Counts) error {
	fx, ok1 := parseMeta(strings.TrimSpace(x))
	fy, ok2 := parseMeta(strings.TrimSpace(y))
	if !ok1 || !ok2 || fx.Key != fy.Key {
		return fmt.Errorf("changed, and not a header line's value")
	}
	switch {
	case strings.EqualFold(fx.Key, "Status"):
		if fy.Value != c.Status() {
			return fmt.Errorf("status %q is not %q", fy.Value, c.Status())
		}
	case strings.EqualFold(fx.Key, "Total"):
		m := totalRe.FindStringSubmatch(fy.Value)
		if m == nil || m[1] != strconv.Itoa(c.Total()) {
			return fmt.Errorf("total %q is not %d units", fy.Value, c.Total())
		}
	default:
		return fmt.Errorf("the %q line changed", fx.Key)
	}
	// Same text before the value and after it.
	trim := func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }
	px := trim(strings.TrimSuffix(trim(x), fx.Value))
	py := trim(strings.TrimSuffix(trim(y), fy.Value))
	if px != py {
		return fmt.Errorf("the text before the value changed: %q, %q", px, py)
	}
	if x[len(trim(x)):] != y[len(trim(y)):] {
		return fmt.Errorf("trailing space changed")
	}
	return nil
}

// syncedPlan checks that when in parses, out parses to the same plan but
// for the boxes, which follow done, and the Status and Total values.
func syncedPlan(file string, in, out []byte, done func(string) bool, c Counts) error {
	p, err := Parse(file, in)
	if err != nil {
		return nil
	}
	q, err := Parse(file, out)
	if err != nil {
		return fmt.Errorf("the synced plan does not parse: %w", err)
	}
	for i, u := range p.Units {
		if done != nil && ValidID(u.ID) {
			u.Done = done(u.ID)
			switch {
			case u.Status == "":
			case u.Done:
				u.Status = StatusCompleted
			case u.Status == StatusCompleted:
				u.Status = StatusPending
			}
		}
		if q.Units[i].Done != u.Done {
			return fmt.Errorf("unit %s: done %v, want %v", u.ID, q.Units[i].Done, u.Done)
		}
	}
	for i, f := range p.Meta {
		if strings.EqualFold(f.Key, "Status") || strings.EqualFold(f.Key, "Total") {
			p.Meta[i].Value = q.Meta[i].Value
		}
	}
	if !assert.ObjectsAreEqual(p, q) {
		return fmt.Errorf("the synced plan differs beyond boxes and counts:\n%#v\n%#v", p, q)
	}
	return nil
}

// TestSyncGenerated syncs documents made of the round-trip fragments and of
// header lines Sync rewrites, with every kind of line ending, and checks
// the properties FuzzSync checks.
func TestSyncGenerated(t *testing.T) {
	frags := append([]string{"**Status:** {X} done, {Y} in progress, {Z} pending", "**Total:** {N} tasks", "  **status**:  x  ", "**Total:**", "**Total**: 3 phases",
		"\uFEFF- [ ] **T1**: bom", "- [x] **T2**: done", "* [X] T3: bare"}, fragments...)
	seps := []string{"\n", "\r\n", "\r"}
	r := rand.New(rand.NewPCG(3, 4))
	changed := 0
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for j, n := 0, 1+r.IntN(20); j < n; j++ {
			b.WriteString(frags[r.IntN(len(frags))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		in := []byte(b.String())
		if r.IntN(3) == 0 {
			in = in[:len(in)-1]
		}
		mask := r.Uint32()
		done := func(id string) bool { return mask>>(len(id)+int(id[len(id)-1]))%32&1 == 1 }
		if r.IntN(5) == 0 {
			done = nil
		}
		c := Counts{Done: r.IntN(4), InProgress: r.IntN(3), Pending: r.IntN(5), Blocked: r.IntN(2)}
		out, ok := Sync(in, done, c)
		if ok {
			changed++
		}
		require.Equal(t, !bytes.Equal(in, out), ok)
		again, ok := Sync(out, done, c)
		require.False(t, ok, "in %q\nout %q\nagain %q", in, out, again)
		require.NoError(t, syncDiff(in, out, done, c), "in %q\nout %q", in, out)
		require.NoError(t, syncedPlan("tasks.md", in, out, done, c), "in %q\nout %q", in, out)
	}
	require.Greater(t, changed, 4500)
}
