package progresslog

import (
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const unionBase = "# Progress Log\n\n## Task - Created - 2026-01-14T10:30:00Z\n**Name:** x\n\n## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** base\n"

func TestUnion(t *testing.T) {
	ours := unionBase + "\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** ours\n"
	theirs := unionBase + "\n## T2 - Iteration 1 - 2026-01-14T10:50:00Z\n**Did:** theirs\n\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** ours\n"
	merged, added, err := Union([]byte(unionBase), []byte(ours), []byte(theirs))
	require.NoError(t, err)
	assert.Equal(t, 1, added, "the entry both sides have is kept once")
	assert.Nil(t, IsAppendOnly([]byte(ours), merged), "the result extends ours")
	l := Parse(merged)
	require.Len(t, l.Entries, 4)
	assert.Equal(t, "T2", l.Entries[3].Unit)
	assert.False(t, l.Conflicted)

	// Deterministic, and symmetric in content.
	again, _, _ := Union([]byte(unionBase), []byte(ours), []byte(theirs))
	assert.Equal(t, string(merged), string(again))
	other, _, err := Union([]byte(unionBase), []byte(theirs), []byte(ours))
	require.NoError(t, err)
	assert.Len(t, Parse(other).Entries, 4)

	// An entry the base had and ours lost is kept.
	rewritten := strings.Replace(ours, "**Did:** base", "**Did:** rewritten", 1)
	merged, added, err = Union([]byte(unionBase), []byte(rewritten), []byte(theirs))
	require.NoError(t, err)
	assert.Equal(t, 2, added, "the base entry ours rewrote, and T2")
	assert.Contains(t, string(merged), "**Did:** base")

	// A conflicted ours is rebuilt without markers.
	conflicted := unionBase + "\n<<<<<<< HEAD\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** a\n=======\n## T3 - Iteration 1 - 2026-01-14T11:00:00Z\n**Did:** b\n>>>>>>> other\n"
	merged, _, err = Union(nil, []byte(conflicted), []byte(theirs))
	require.NoError(t, err)
	assert.NotContains(t, string(merged), "<<<<<<<")
	assert.Len(t, Parse(merged).Entries, 6)
}

// appendChainUnion is Union as it was written before it was made linear:
// one Append per entry. It is the reference the linear Union must match
// byte for byte (for entries that can be written).
func appendChainUnion(base, ours, theirs []byte) ([]byte, int, error) {
	key := func(e Entry) string {
		e.Side, e.Line = Both, 0
		b, err := RenderEntry(e, "\n")
		if err != nil {
			return e.Heading
		}
		return string(b)
	}
	add := func(old []byte, e Entry) ([]byte, error) {
		e.Side, e.Line = Both, 0
		return Append(old, e)
	}
	ol, tl := Parse(ours), Parse(theirs)
	seen := map[string]bool{}
	for _, e := range ol.Entries {
		seen[key(e)] = true
	}
	merged := ours
	var err error
	if ol.Conflicted || len(ours) == 0 {
		merged = nil
		seen = map[string]bool{}
		for _, e := range ol.Entries {
			if k := key(e); !seen[k] {
				seen[k] = true
				if merged, err = add(merged, e); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	extra := tl.Entries
	if base != nil {
		extra = append(append([]Entry(nil), Parse(base).Entries...), extra...)
	}
	added := 0
	for _, e := range extra {
		k := key(e)
		if seen[k] {
			continue
		}
		seen[k] = true
		if merged, err = add(merged, e); err != nil {
			return nil, 0, err
		}
		added++
	}
	return merged, added, nil
}

// randomEntry makes a valid entry of any kind, with fields that exercise
// rendering: multi-line values with blank lines, free text, escapes.
func randomEntry(r *rand.Rand, i int) Entry {
	stamp := fmt.Sprintf("2026-01-%02dT%02d:%02d:%02dZ", 1+r.Intn(28), r.Intn(24), r.Intn(60), i%60)
	unit := fmt.Sprintf("T%d", 1+r.Intn(4))
	var e Entry
	switch r.Intn(6) {
	case 0, 1, 2:
		e = Entry{Kind: KindIteration, Unit: unit, Iteration: 1 + r.Intn(9), Stamp: stamp}
	case 3:
		e = Entry{Kind: KindBlocked, Unit: unit, Stamp: stamp, Fields: []Field{{Name: "Reason", Value: "waiting"}}}
	case 4:
		e = Entry{Kind: KindPhase, Phase: "execute", Stamp: stamp}
	default:
		e = Entry{Kind: KindOther, Heading: fmt.Sprintf("Note %d", r.Intn(50))}
	}
	values := []string{
		fmt.Sprintf("work %d", i),
		"first line\nsecond line\n\nafter a blank line",
		"## looks like a heading",
		"<<<<<<< looks like a marker",
		"trailing spaces   ",
		"tabs\tinside",
	}
	for n := r.Intn(4); n > 0; n-- {
		name := []string{"Did", "Next", "", "Status"}[r.Intn(4)]
		e.Fields = append(e.Fields, Field{Name: name, Value: values[r.Intn(len(values))]})
	}
	return e
}

// appendAll appends entries one by one, as itr does.
func appendAll(t testing.TB, log []byte, es ...Entry) []byte {
	for _, e := range es {
		var err error
		log, err = Append(log, e)
		require.NoError(t, err)
	}
	return log
}

func TestUnionMatchesAppendChain(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := range 300 {
		var base []byte
		if r.Intn(8) > 0 {
			base = appendAll(t, nil, Entry{Kind: KindCreated, Stamp: "2026-01-01T00:00:00Z"})
			for range r.Intn(6) {
				base = appendAll(t, base, randomEntry(r, round))
			}
		}
		ours, theirs := base, base
		for i := range r.Intn(8) {
			e := randomEntry(r, i)
			switch r.Intn(3) {
			case 0:
				ours = appendAll(t, ours, e)
			case 1:
				theirs = appendAll(t, theirs, e)
			default: // both sides have it
				ours, theirs = appendAll(t, ours, e), appendAll(t, theirs, e)
			}
		}
		switch r.Intn(8) {
		case 0: // ours in CRLF
			ours = []byte(strings.ReplaceAll(string(ours), "\n", "\r\n"))
		case 1: // ours without its last line end
			ours = []byte(strings.TrimSuffix(string(ours), "\n"))
		case 2: // ours lost an entry of the base (Union keeps it)
			if l := Parse(ours); len(l.Entries) > 1 {
				l.Entries = l.Entries[1:]
				ours = l.Render()
			}
		case 3: // ours empty
			ours = nil
		case 4: // ours ends with blank lines
			ours = append(ours, "\n\n"...)
		}
		want, wantAdded, wantErr := appendChainUnion(base, ours, theirs)
		got, added, err := Union(base, ours, theirs)
		require.Equal(t, wantErr, err, "round %d", round)
		require.Equal(t, string(want), string(got), "round %d", round)
		require.Equal(t, wantAdded, added, "round %d", round)
	}
	// Odd ends: a last line ended by a lone CR, blank lines, no entry.
	for _, ours := range []string{"# Progress Log\r", "# Progress Log", "\n\n", " ", "# Progress Log\r\n\r\n\r\n"} {
		theirs := unionBase + "\n## T2 - Iteration 1 - 2026-01-14T10:50:00Z\n**Did:** theirs\n"
		want, _, err := appendChainUnion([]byte(unionBase), []byte(ours), []byte(theirs))
		require.NoError(t, err)
		got, _, err := Union([]byte(unionBase), []byte(ours), []byte(theirs))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%q", ours)
	}
	// A conflicted ours is rebuilt from its entries, as before.
	conflicted := unionBase + "\n<<<<<<< HEAD\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** a\n=======\n## T3 - Iteration 1 - 2026-01-14T11:00:00Z\n**Did:** b\n>>>>>>> other\n"
	theirs := unionBase + "\n## T2 - Iteration 1 - 2026-01-14T10:50:00Z\n**Did:** theirs\n"
	want, _, err := appendChainUnion([]byte(unionBase), []byte(conflicted), []byte(theirs))
	require.NoError(t, err)
	got, _, err := Union([]byte(unionBase), []byte(conflicted), []byte(theirs))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

// TestUnionOfExtensions: when ours and theirs each append to the base,
// Union is ours (the base and ours' tail), then theirs' tail without the
// entries ours already has, exactly as appended.
func TestUnionOfExtensions(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for round := range 200 {
		base := appendAll(t, nil, Entry{Kind: KindCreated, Stamp: "2026-01-01T00:00:00Z"})
		for range r.Intn(5) {
			base = appendAll(t, base, randomEntry(r, round))
		}
		ours, theirs := base, base
		var theirsOnly []Entry
		have := map[string]bool{}
		for _, e := range Parse(base).Entries {
			k := entryKey(e)
			have[k] = true
		}
		for i := range 1 + r.Intn(10) {
			e := randomEntry(r, 1000+i)
			k := entryKey(e)
			switch {
			case have[k]:
				continue // the same entry twice in one log is not what this is about
			case r.Intn(3) == 0:
				ours, theirs = appendAll(t, ours, e), appendAll(t, theirs, e)
			case r.Intn(2) == 0:
				ours = appendAll(t, ours, e)
			default:
				theirs = appendAll(t, theirs, e)
				theirsOnly = append(theirsOnly, e)
			}
			have[k] = true
		}
		want := appendAll(t, append([]byte(nil), ours...), theirsOnly...)
		got, added, err := Union(base, ours, theirs)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "round %d", round)
		require.Equal(t, len(theirsOnly), added)
		strict, err := StrictUnion(base, ours, theirs)
		require.NoError(t, err)
		require.Equal(t, string(got), string(strict))
		entries, err := StrictUnionEntries(base, ours, theirs)
		require.NoError(t, err)
		require.Equal(t, withoutLines(Parse(got)).Entries, withoutLines(&Log{Entries: entries}).Entries, "the entries are the merged log's")
		require.Nil(t, IsAppendOnly(ours, got), "the result extends ours")
		if len(theirsOnly) == 0 {
			continue
		}
		// The tail of theirs is what was appended, byte for byte, when ours
		// has none of it.
		if !strings.Contains(string(ours[len(base):]), "##") {
			require.Equal(t, string(ours)+string(theirs[len(base):]), string(got))
		}
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestUnionLinear: eight times the entries only theirs has cost about
// eight times the memory, not sixty-four (one copy of the log per entry
// did that, and took minutes on a 50 MB log).
func TestUnionLinear(t *testing.T) {
	sides := func(n int) (base, ours, theirs []byte) {
		base = appendAll(t, nil, Entry{Kind: KindCreated, Stamp: "2026-01-01T00:00:00Z"})
		var o, th strings.Builder
		o.Write(base)
		th.Write(base)
		for i := range n {
			e := Entry{Kind: KindIteration, Unit: "T1", Iteration: i + 1, Stamp: "2026-01-02T00:00:00Z", Fields: []Field{{Name: "Did", Value: fmt.Sprintf("ours %d", i)}}}
			b, err := RenderEntry(e, "\n")
			require.NoError(t, err)
			o.WriteString("\n" + string(b))
			e = Entry{Kind: KindIteration, Unit: "T2", Iteration: i + 1, Stamp: "2026-01-02T00:00:00Z", Fields: []Field{{Name: "Did", Value: fmt.Sprintf("theirs %d", i)}}}
			b, err = RenderEntry(e, "\n")
			require.NoError(t, err)
			th.WriteString("\n" + string(b))
		}
		return base, []byte(o.String()), []byte(th.String())
	}
	cost := func(n int) uint64 {
		base, ours, theirs := sides(n)
		return allocated(func() {
			merged, added, err := Union(base, ours, theirs)
			require.NoError(t, err)
			require.Equal(t, n, added)
			require.Len(t, merged, len(ours)+len(theirs)-len(base))
		})
	}
	small, large := cost(1000), cost(8000)
	ratio := float64(large) / float64(small)
	t.Logf("allocated %d bytes for 1,000 entries a side, %d for 8,000: ×%.1f", small, large, ratio)
	assert.Less(t, ratio, 16.0, "Union must be linear in its inputs")

	gcost := func(n int) uint64 {
		var ours, theirs []byte
		var err error
		for i := range n {
			ours, err = AppendGuardrail(ours, Guardrail{Name: fmt.Sprintf("ours %d", i), When: "w"})
			require.NoError(t, err)
		}
		var b strings.Builder
		b.WriteString(guardrailsTitle)
		for i := range n {
			fmt.Fprintf(&b, "## theirs %d\n- **When**: w\n\n", i)
		}
		theirs = []byte(b.String())
		return allocated(func() {
			merged, err := UnionGuardrails(ours, theirs)
			require.NoError(t, err)
			require.Len(t, ParseGuardrails(merged).Entries, 2*n)
		})
	}
	small, large = gcost(1000), gcost(8000)
	ratio = float64(large) / float64(small)
	t.Logf("guardrails: allocated %d bytes for 1,000 lessons a side, %d for 8,000: ×%.1f", small, large, ratio)
	assert.Less(t, ratio, 16.0, "UnionGuardrails must be linear in its inputs")
}

func TestUnionGuardrailsMatchesAppendChain(t *testing.T) {
	ours := []byte(guardrailsTitle + "## A\n- **When**: w\n- **Problem**: p\n")
	theirs := []byte(guardrailsTitle + "## B\n- **When**: w2\n- **Learned**: T1 iteration 2\n\n## A\n- **When**: w\n- **Problem**: p\n- **Learned**: other\n")
	got, err := UnionGuardrails(ours, theirs)
	require.NoError(t, err)
	want, err := AppendGuardrail(ours, Guardrail{Name: "B", When: "w2", Learned: "T1 iteration 2"})
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "A differs only in Learned: the same lesson")
	got, err = UnionGuardrails(nil, theirs)
	require.NoError(t, err)
	assert.Equal(t, guardrailsTitle, string(got[:len(guardrailsTitle)]), "an empty ours gets the title")
	crlf := []byte(strings.ReplaceAll(string(ours), "\n", "\r\n"))
	got, err = UnionGuardrails(crlf, theirs)
	require.NoError(t, err)
	assert.NotContains(t, strings.ReplaceAll(string(got), "\r\n", ""), "\n", "CRLF kept for what is appended")
}

// TestUnionUnwritableEntry: an entry only theirs has that cannot be
// written back (a malformed event heading) is an error, never dropped, even
// when ours has another entry with the same heading.
func TestUnionUnwritableEntry(t *testing.T) {
	bad := "\n## T1 - iteration one - 2026-01-14T11:00:00Z\n**Did:** %s\n"
	ours := unionBase + fmt.Sprintf(bad, "ours")
	theirs := unionBase + fmt.Sprintf(bad, "theirs")
	_, _, err := Union([]byte(unionBase), []byte(ours), []byte(theirs))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 9: ")
	merged, _, err := Union([]byte(unionBase), []byte(ours), []byte(ours))
	require.NoError(t, err, "the same malformed entry on both sides is kept once, as it was")
	assert.Equal(t, ours, string(merged))
}

func TestStrictUnionRefuses(t *testing.T) {
	base := unionBase
	ours := base + "\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** ours\n"
	theirs := base + "\n## T2 - Iteration 1 - 2026-01-14T10:50:00Z\n**Did:** theirs\n"
	tests := []struct {
		name                string
		base, ours, theirs  string
		version             string
		sentinel            error
		msg                 string
		nilBase, emptyCheck bool
	}{
		{name: "NUL in theirs", base: base, ours: ours, theirs: theirs + "\x00\x01", version: "theirs", sentinel: ErrBinary, msg: "theirs: a NUL byte on line 11: binary data, not a log"},
		{name: "not UTF-8 in ours", base: base, ours: "\xff" + ours, theirs: theirs, version: "ours", sentinel: ErrBinary, msg: "ours: bytes that are not UTF-8 on line 1: binary data, not a log"},
		{name: "NUL in the base", base: base + "\x00", ours: ours, theirs: theirs, version: "base", sentinel: ErrBinary},
		{name: "no entry in theirs", base: base, ours: ours, theirs: "# Progress Log\n\njust text\n", version: "theirs", sentinel: ErrNoEntries, msg: `theirs: no entry headings ("## ..."), not a log`},
		{name: "no entry in ours, no base", ours: "some notes\n", theirs: theirs, version: "ours", sentinel: ErrNoEntries, nilBase: true},
		{name: "markers in ours", base: base, ours: base + "\n<<<<<<< a\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n=======\n>>>>>>> b\n", theirs: theirs, version: "ours", sentinel: ErrConflicted},
		{name: "rewritten in theirs", base: base, ours: ours, theirs: strings.Replace(theirs, "**Did:** base", "**Did:** edited", 1), version: "theirs", sentinel: ErrRewritten,
			msg: `theirs: rewrote entry "T1 - Iteration 1 - 2026-01-14T10:40:00Z" of the base (line 6, now line 6): entries are append-only`},
		{name: "removed in ours", base: base, ours: strings.Replace(ours, "## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** base\n\n", "", 1), theirs: theirs, version: "ours", sentinel: ErrRemoved,
			msg: `ours: lacks entry "T1 - Iteration 1 - 2026-01-14T10:40:00Z" of the base (line 6): entries are append-only`},
		{name: "emptied theirs", base: base, ours: ours, theirs: "", version: "theirs", sentinel: ErrRemoved},
		{name: "title changed", base: base, ours: ours, theirs: strings.Replace(theirs, "# Progress Log", "# My Log", 1), version: "theirs", sentinel: ErrRewritten,
			msg: "theirs: changed the text before the first entry (the title) of the base: entries are append-only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b []byte
			if !tt.nilBase {
				b = []byte(tt.base)
			}
			merged, err := StrictUnion(b, []byte(tt.ours), []byte(tt.theirs))
			require.Error(t, err)
			assert.Nil(t, merged)
			entries, err2 := StrictUnionEntries(b, []byte(tt.ours), []byte(tt.theirs))
			assert.Nil(t, entries)
			assert.Equal(t, err, err2)
			var me *MergeError
			require.True(t, errors.As(err, &me))
			assert.Equal(t, tt.version, me.Version)
			assert.ErrorIs(t, err, tt.sentinel)
			if tt.msg != "" {
				assert.Equal(t, tt.msg, err.Error())
			}
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestStrictUnionAccepts(t *testing.T) {
	ours := unionBase + "\n## T1 - Iteration 2 - 2026-01-14T11:00:00Z\n**Did:** ours\n"
	theirs := unionBase + "\n## T2 - Iteration 1 - 2026-01-14T10:50:00Z\n**Did:** theirs\n"
	for name, base := range map[string][]byte{"missing base": nil, "empty base": {}, "blank base": []byte("\n\n")} {
		got, err := StrictUnion(base, []byte(ours), []byte(theirs))
		require.NoError(t, err, name)
		assert.Equal(t, ours+"\n## T2 - Iteration 1 - 2026-01-14T10:50:00Z\n**Did:** theirs\n", string(got), name)
	}
	// Both sides may be no byte extension of the base and still lose
	// nothing: after one merge the merged log extends ours, not theirs.
	merged := ours + "\n## T2 - Iteration 1 - 2026-01-14T10:50:00Z\n**Did:** theirs\n"
	next := theirs + "\n## T2 - Iteration 2 - 2026-01-14T12:00:00Z\n**Did:** theirs again\n"
	require.NotNil(t, IsAppendOnly([]byte(theirs), []byte(merged)))
	got, err := StrictUnion([]byte(theirs), []byte(merged), []byte(next))
	require.NoError(t, err)
	assert.Equal(t, merged+"\n## T2 - Iteration 2 - 2026-01-14T12:00:00Z\n**Did:** theirs again\n", string(got))
	// Line ends and the blank lines after the title are not entries.
	crlf := strings.ReplaceAll(ours, "\n", "\r\n")
	_, err = StrictUnion([]byte(unionBase), []byte(crlf), []byte(theirs))
	require.NoError(t, err)
	_, err = StrictUnion([]byte("# Progress Log\n"), []byte(ours), []byte(theirs))
	require.NoError(t, err, "a base with only the title")
	// A virtual merge base may itself hold conflict markers.
	cbase := "# Progress Log\n\n<<<<<<< a\n## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** base\n=======\n>>>>>>> b\n"
	_, err = StrictUnion([]byte(cbase), []byte(ours), []byte(theirs))
	require.NoError(t, err)
}

func TestStrictUnionGuardrails(t *testing.T) {
	base := guardrailsTitle + "## A\n- **When**: w\n"
	ours := base + "\n## B\n- **When**: w\n"
	theirs := base + "\n## C\n- **When**: w\n"
	got, err := StrictUnionGuardrails([]byte(base), []byte(ours), []byte(theirs))
	require.NoError(t, err)
	assert.Equal(t, ours+"\n## C\n- **When**: w\n", string(got))
	got, err = StrictUnionGuardrails(nil, []byte(guardrailsTitle), []byte(theirs))
	require.NoError(t, err, "a guardrails.md with no lesson is a new task's")
	assert.Equal(t, theirs, string(got))

	var me *MergeError
	_, err = StrictUnionGuardrails([]byte(base), []byte(ours), []byte(strings.Replace(theirs, "## A\n- **When**: w", "## A\n- **When**: other", 1)))
	require.ErrorAs(t, err, &me)
	assert.Equal(t, `theirs: rewrote lesson "A" of the base (line 5, now line 5): entries are append-only`, err.Error())
	_, err = StrictUnionGuardrails([]byte(base), []byte(guardrailsTitle), []byte(theirs))
	assert.ErrorIs(t, err, ErrRemoved)
	_, err = StrictUnionGuardrails([]byte(base), []byte(ours), []byte(strings.Replace(theirs, "# Guardrails", "# Lessons", 1)))
	assert.ErrorIs(t, err, ErrRewritten, "the title changed")
	_, err = StrictUnionGuardrails([]byte(base), []byte(ours+"\xc3"), []byte(theirs))
	assert.ErrorIs(t, err, ErrBinary)
	_, err = StrictUnionGuardrails([]byte(base), []byte(ours), []byte(theirs+"<<<<<<< a\n=======\n## D\n>>>>>>> b\n"))
	assert.ErrorIs(t, err, ErrConflicted)
}

func TestCheckText(t *testing.T) {
	assert.NoError(t, CheckText(nil))
	assert.NoError(t, CheckText([]byte("héllo\n€\n")))
	assert.EqualError(t, CheckText([]byte("a\nb\n\x00")), "a NUL byte on line 3: binary data, not a log")
	assert.EqualError(t, CheckText([]byte("a\n\xe2\x82")), "bytes that are not UTF-8 on line 2: binary data, not a log")
}

// TestEntryKey: two entries have the same key exactly when they are
// written the same, also for what Parse can read but never writes (a lone
// backslash line, a marker line in a file whose markers are out of place,
// a malformed heading).
func TestEntryKey(t *testing.T) {
	doc := "# Progress Log\n\n" +
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** a\n\n" +
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** a  \n\\\n\n" +
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did:** a\nfree\n\n" +
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**Did**: a\n\n" +
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n**did:** a\n\n" +
		"## T1 - Iteration 1 - 2026-01-14T10:40:00Z\n\\**Did:** a\n\n" +
		"## T1 - iteration 1 - 2026-01-14T10:40:00Z\n**Did:** a\n\n" +
		"## T1 - iteration 1 - 2026-01-14T10:40:00Z\n**Did:** b\n\n" +
		"## Notes\nsome text\n  continued\n\n" +
		"## Notes\nsome text\ncontinued\n\n" +
		"## Notes\n=======\n\n" +
		"## Notes\n\\=======\n\n" +
		"## Task - Phase execute - 2026-01-14T10:40:00Z\n"
	entries := Parse([]byte(doc)).Entries
	r := rand.New(rand.NewSource(3))
	for i := range 60 {
		b, err := RenderEntry(randomEntry(r, i%7), "\n")
		require.NoError(t, err)
		entries = append(entries, Parse(b).Entries...)
	}
	render := func(e Entry) string {
		b, err := RenderEntry(e, "\n")
		if err != nil {
			return "invalid: " + strings.Join(renderEntryLines(e), "\n")
		}
		return string(b)
	}
	for i, a := range entries {
		for j, b := range entries {
			assert.Equal(t, render(a) == render(b), entryKey(a) == entryKey(b), "entries %d and %d:\n%s\n%s", i, j, render(a), render(b))
		}
	}
}
