package progresslog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// withoutLines returns a copy of l with every line number zeroed, for
// structural comparison.
func withoutLines(l *Log) Log {
	c := *l
	c.Entries = zeroLines(l.Entries, func(e *Entry) *int { return &e.Line })
	c.Problems = zeroLines(l.Problems, problemLine)
	return c
}

func guardrailsWithoutLines(g *Guardrails) Guardrails {
	c := *g
	c.Entries = zeroLines(g.Entries, func(e *Guardrail) *int { return &e.Line })
	c.Problems = zeroLines(g.Problems, problemLine)
	return c
}

// zeroLines returns a copy of es with the line number line points at
// zeroed in each.
func zeroLines[E any](es []E, line func(*E) *int) []E {
	c := append([]E(nil), es...)
	for i := range c {
		*line(&c[i]) = 0
	}
	return c
}

func problemLine(p *Problem) *int { return &p.Line }

// appendedLast requires after to hold before's entries unchanged and then
// one more, want as it reads back (its line number, which line points at,
// aside).
func appendedLast[E any](t *testing.T, before, after []E, want E, line func(*E) *int, out []byte) {
	t.Helper()
	require.Len(t, after, len(before)+1)
	require.Equal(t, before, nilIfEmpty(after[:len(before)]), "old entries unchanged")
	got := after[len(after)-1]
	*line(&want) = *line(&got)
	require.Equal(t, want, got, "the new entry reads back\n%q", out)
}

// nilIfEmpty returns nil for an empty slice, as the parsers do.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// addSeeds adds every file of testdata/<dir> to the corpus.
func addSeeds(f *testing.F, dir string) [][]byte {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.md"))
	require.NoError(f, err)
	require.NotEmpty(f, paths)
	var seeds [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		seeds = append(seeds, data)
	}
	return seeds
}

func FuzzParse(f *testing.F) {
	for _, s := range addSeeds(f, "progress") {
		f.Add(s)
	}
	f.Add([]byte("## T1 - Iteration 1 - x\r\n**Did:** a\r\n  b\r\n"))
	f.Add([]byte("<<<<<<< a\n## T1 - Iteration 1 - x\n=======\n## T1 - Iteration 2 - x\n>>>>>>> b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := Parse(data)
		for _, e := range l.Entries {
			require.Positive(t, e.Line)
			if e.Kind != KindOther {
				require.Equal(t, e.Heading, e.Title(), "an event's heading is its title")
			}
		}
		out := l.Render()
		again := Parse(out)
		require.Equal(t, withoutLines(l), withoutLines(again), "parse → render → parse\ninput:\n%q\nrendered:\n%q", data, out)
		require.Equal(t, string(out), string(again.Render()), "render is stable")
	})
}

// FuzzParseConflict builds files with a conflict block, which random bytes
// seldom form, and checks the same round trip as FuzzParse.
func FuzzParseConflict(f *testing.F) {
	f.Add("# Progress Log\n\n## T1 - Iteration 1 - ts\n**Did:** a\n", "## T1 - Iteration 2 - ts\n**Did:** ours\n",
		"## T2 - Iteration 1 - ts\n**Did:** theirs\n", "\n## T3 - Iteration 1 - ts\n", false)
	f.Add("## A\n**Did:** x\n", "**Remaining:** a\n", "**Remaining:** b\n\n## B\n", "## C\n", true)
	f.Add("# Ours title\n", "\n", "# Theirs\n", "## A\n", false)
	f.Fuzz(func(t *testing.T, pre, ours, theirs, post string, diff3 bool) {
		terminated := func(s string) string {
			if s != "" && !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			return s
		}
		data := terminated(pre) + "<<<<<<< ours\n" + terminated(ours)
		if diff3 {
			data += "||||||| base\n## base\n"
		}
		data += "=======\n" + terminated(theirs) + ">>>>>>> theirs\n" + post
		l := Parse([]byte(data))
		out := l.Render()
		again := Parse(out)
		require.Equal(t, withoutLines(l), withoutLines(again), "parse → render → parse\ninput:\n%q\nrendered:\n%q", data, out)
		require.Equal(t, string(out), string(again.Render()), "render is stable")
		g := ParseGuardrails([]byte(data))
		gout := g.Render()
		require.Equal(t, guardrailsWithoutLines(g), guardrailsWithoutLines(ParseGuardrails(gout)), "guardrails\ninput:\n%q\nrendered:\n%q", data, gout)
		d := ParseDecisions([]byte(data))
		dout := d.Render()
		require.Equal(t, decisionsWithoutLines(d), decisionsWithoutLines(ParseDecisions(dout)), "decisions\ninput:\n%q\nrendered:\n%q", data, dout)
	})
}

func FuzzParseGuardrails(f *testing.F) {
	for _, s := range addSeeds(f, "guardrails") {
		f.Add(s)
	}
	f.Add([]byte("## a\r\n- **When**: x\r\n  y\r\n- **when:** z\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := ParseGuardrails(data)
		out := g.Render()
		again := ParseGuardrails(out)
		require.Equal(t, guardrailsWithoutLines(g), guardrailsWithoutLines(again), "parse → render → parse\ninput:\n%q\nrendered:\n%q", data, out)
		require.Equal(t, string(out), string(again.Render()), "render is stable")
	})
}

func FuzzAppend(f *testing.F) {
	seeds := addSeeds(f, "progress")
	for i, s := range seeds {
		f.Add(s, uint8(i%10), "T1", 2, "2026-01-14T10:40:00Z", "Did", "the model\n## T1 - Iteration 9 - x\n**Signal:** T1_DONE", "a note")
	}
	f.Add([]byte(""), uint8(KindCreated), "", 0, "2026-01-14T10:30:00Z", "Name", "User auth", "")
	f.Add([]byte("## T1 - Iteration 1 - ts\n"), uint8(KindReopened), "T1", 0, "2026-01-14T13:00:00Z", "Reason", "the model drops\n## T1 - Reopened - x", "")
	f.Add([]byte("# Progress Log"), uint8(KindPhase), "", 0, "2026-01-14T10:30:00Z", "", "", "<<<<<<< HEAD")
	f.Add([]byte("x\r\n"), uint8(KindOther), "", 0, "", "Über", "naïve\r\n\ttabbed  \r\n", "## T1 - Iteration 3 - y")
	f.Fuzz(func(t *testing.T, old []byte, kind uint8, unit string, iteration int, stamp, name, value, free string) {
		e := Entry{Kind: Kind(kind % uint8(len(events))), Stamp: stamp, Fields: []Field{{Name: name, Value: value}, {Value: free}}}
		switch {
		case e.Kind == KindIteration:
			e.Unit, e.Iteration = unit, iteration
		case e.Kind.unitKind():
			e.Unit = unit
		case e.Kind == KindPhase:
			e.Phase = unit
		case e.Kind == KindOther:
			e.Heading, e.Stamp = stamp, ""
		}
		out, err := Append(old, e)
		if err != nil {
			return // an entry that cannot be written; the table tests cover which
		}
		require.True(t, bytes.HasPrefix(out, old), "old is a prefix")
		checkAppendOwned(t, old, e, out)
		require.Equal(t, Parse(out), ParseOwned(bytes.Clone(out)), "ParseOwned reads what Parse does")
		require.Nil(t, IsAppendOnly(old, out))
		before, after := Parse(old), Parse(out)
		if before.Conflicted {
			return // entries of a conflicted file may realign; only the prefix is promised
		}
		want, err := canonical(e)
		require.NoError(t, err)
		appendedLast(t, before.Entries, after.Entries, want, func(e *Entry) *int { return &e.Line }, out)
		require.Equal(t, before.Problems, nilIfEmpty(after.Problems[:len(before.Problems)]), "old problems unchanged")
	})
}

func FuzzAppendGuardrail(f *testing.F) {
	for _, s := range addSeeds(f, "guardrails") {
		f.Add(s, "Flaky tests", "running CI", "timeouts\n## x", "- **Solution**: forged", "T2 iteration 3", "Owner", "me")
	}
	f.Add([]byte(""), "n", "", "", "", "", "", "=======")
	f.Fuzz(func(t *testing.T, old []byte, name, when, problem, solution, learned, extraName, extra string) {
		g := Guardrail{Name: name, When: when, Problem: problem, Solution: solution, Learned: learned,
			Extra: []Field{{Name: extraName, Value: extra}}}
		out, err := AppendGuardrail(old, g)
		if err != nil {
			return
		}
		require.True(t, bytes.HasPrefix(out, old), "old is a prefix")
		require.Nil(t, IsGuardrailsAppendOnly(old, out))
		before, after := ParseGuardrails(old), ParseGuardrails(out)
		if before.Conflicted {
			return
		}
		want, err := canonicalGuardrail(g)
		require.NoError(t, err)
		appendedLast(t, before.Entries, after.Entries, want, func(e *Guardrail) *int { return &e.Line }, out)
	})
}

// FuzzStrictUnion checks the merge driver's union on any three versions:
// it either refuses (an error, which leaves git's conflict), or its result extends ours byte for
// byte (when ours holds no conflict markers), holds every entry of ours and
// theirs exactly as the lenient Union does, and is what Union returns.
func FuzzStrictUnion(f *testing.F) {
	seeds := addSeeds(f, "progress")
	for i, s := range seeds {
		next := seeds[(i+1)%len(seeds)]
		f.Add(s, s, next)
		f.Add(s, next, s)
		f.Add([]byte(nil), s, next)
	}
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		merged, err := StrictUnion(base, ours, theirs)
		if err != nil {
			return
		}
		lenient, _, lerr := Union(base, ours, theirs)
		require.NoError(t, lerr)
		require.Equal(t, string(lenient), string(merged), "StrictUnion and Union differ")
		if !Parse(ours).Conflicted && len(ours) > 0 {
			require.True(t, bytes.HasPrefix(merged, ours), "the result does not extend ours")
		}
		have := map[string]bool{}
		for _, e := range Parse(merged).Entries {
			have[entryKey(e)] = true
		}
		for _, side := range [][]byte{ours, theirs} {
			for _, e := range Parse(side).Entries {
				require.True(t, have[entryKey(e)], "entry %q lost", e.Title())
			}
		}
	})
}

// FuzzFiles: every list of paths a Files field writes reads back as the
// paths it lists and the count of the rest, also through an entry.
func FuzzFiles(f *testing.F) {
	f.Add("src/a.go", "docs/b c.md", 1)
	f.Add("\"q\".md", "(+2 more)", 0)
	f.Add(" lead", "tab\tx", 2)
	f.Fuzz(func(t *testing.T, a, b string, max int) {
		var paths []string
		for _, p := range []string{a, b} {
			if p != "" && !strings.ContainsRune(p, 0) {
				paths = append(paths, p)
			}
		}
		max %= 3
		v := FormatFiles(paths, max)
		e := Entry{Kind: KindIteration, Unit: "T1", Iteration: 1, Stamp: "2026-02-03T14:46:00Z", Fields: []Field{{Name: FieldFiles, Value: v}}}
		if v == "" {
			return
		}
		out, err := Append(nil, e)
		require.NoError(t, err)
		got, _ := Parse(out).Entries[0].Field(FieldFiles)
		listed, more := ParseFiles(got)
		shown := len(paths)
		if max > 0 && max < shown {
			shown = max
		}
		require.Equal(t, paths[:shown], listed, "value %q", got)
		require.Equal(t, len(paths)-shown, more)
	})
}

// checkAppendOwned: AppendOwned writes what Append wrote (out), in old's
// spare capacity when it has room (old's bytes untouched, the array
// shared), in a new array when it has none.
func checkAppendOwned(t *testing.T, old []byte, e Entry, out []byte) {
	t.Helper()
	roomy := append(make([]byte, 0, len(out)+1), old...)
	owned, err := AppendOwned(roomy, e)
	require.NoError(t, err)
	require.Equal(t, out, owned, "AppendOwned with room")
	require.Equal(t, old, roomy[:len(old)], "old's bytes untouched")
	if len(old) > 0 {
		require.Same(t, &roomy[0], &owned[0], "written in place")
	}
	tight := bytes.Clone(old)[:len(old):len(old)]
	owned, err = AppendOwned(tight, e)
	require.NoError(t, err)
	require.Equal(t, out, owned, "AppendOwned without room")
	if len(old) > 0 && len(out) > len(old) {
		require.NotSame(t, &tight[0], &owned[0], "a new array")
	}
}
