package progresslog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzParseDecisions(f *testing.F) {
	for _, s := range addSeeds(f, "decisions") {
		f.Add(s)
	}
	f.Add([]byte("## a\r\n- **Choice**: x\r\n  y\r\n- **choice:** z\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := ParseDecisions(data)
		out := d.Render()
		again := ParseDecisions(out)
		require.Equal(t, decisionsWithoutLines(d), decisionsWithoutLines(again), "parse → render → parse\ninput:\n%q\nrendered:\n%q", data, out)
		require.Equal(t, string(out), string(again.Render()), "render is stable")
		// Latest keeps one decision a title, each one of the file's.
		seen := map[string]bool{}
		for _, x := range d.Latest() {
			k := TitleKey(x.Title)
			require.False(t, seen[k], "title %q twice in Latest", x.Title)
			seen[k] = true
		}
		for _, x := range d.Entries {
			require.True(t, seen[TitleKey(x.Title)], "title %q missing from Latest", x.Title)
		}
	})
}

func FuzzAppendDecision(f *testing.F) {
	for _, s := range addSeeds(f, "decisions") {
		f.Add(s, "Storage engine", "SQLite\n## x", "- **Why**: forged", "T2", "2026-01-14T10:30:00Z", "Owner", "me")
	}
	f.Add([]byte(""), "n", "c", "", "", "", "", "=======")
	f.Fuzz(func(t *testing.T, old []byte, title, choice, why, unit, decided, extraName, extra string) {
		d := Decision{Title: title, Choice: choice, Why: why, Unit: unit, Decided: decided,
			Extra: []Field{{Name: extraName, Value: extra}}}
		out, err := AppendDecision(old, d)
		if err != nil {
			return
		}
		require.True(t, bytes.HasPrefix(out, old), "old is a prefix")
		require.Nil(t, IsDecisionsAppendOnly(old, out))
		before, after := ParseDecisions(old), ParseDecisions(out)
		if before.Conflicted {
			return
		}
		want, err := canonicalDecision(d)
		require.NoError(t, err)
		appendedLast(t, before.Entries, after.Entries, want, func(e *Decision) *int { return &e.Line }, out)
		latest := after.Latest()
		require.Equal(t, want.Choice, latest[len(latest)-1].Choice, "the newest decision is in force")
	})
}

// FuzzStrictUnionDecisions checks the merge driver's union of decisions.md:
// it refuses, or its result extends ours and holds every decision of both
// sides as written.
func FuzzStrictUnionDecisions(f *testing.F) {
	seeds := addSeeds(f, "decisions")
	for i, s := range seeds {
		next := seeds[(i+1)%len(seeds)]
		f.Add(s, s, next)
		f.Add([]byte(nil), s, next)
	}
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		merged, err := StrictUnionDecisions(base, ours, theirs)
		if err != nil {
			return
		}
		if len(ours) > 0 {
			require.True(t, bytes.HasPrefix(merged, ours), "the result does not extend ours")
		}
		// Every decision of both sides is there, by its known fields: a
		// free-text line that reads as a conflict marker is escaped when
		// written, as in guardrails.md (lessonKey compares the same way).
		key := func(d Decision) string {
			return strings.Join([]string{d.Title, d.Choice, d.Why, d.Unit, d.Decided}, "\x00")
		}
		have := map[string]bool{}
		for _, d := range ParseDecisions(merged).Entries {
			have[key(d)] = true
		}
		for _, side := range [][]byte{ours, theirs} {
			for i, d := range ParseDecisions(side).Entries {
				require.True(t, have[key(d)], "decision %d lost", i)
			}
		}
	})
}
