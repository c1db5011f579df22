package progresslog

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// checkGolden compares got with the golden file path, or rewrites it with
// -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./progresslog -run Golden -update to create it")
	require.Equal(t, string(want), got)
}

// dumpFields writes fields one a line, values quoted.
func dumpFields(b *strings.Builder, fields []Field) {
	for _, f := range fields {
		fmt.Fprintf(b, "    %q: %q\n", f.Name, f.Value)
	}
}

// dumpHead writes what a parsed file's dump starts with: its line ending,
// whether it is conflicted, its preamble and, in a conflict, theirs.
func dumpHead(b *strings.Builder, newline string, conflicted bool, preamble string, preambleConflict bool, theirs string) {
	fmt.Fprintf(b, "newline %q conflicted %v\n", newline, conflicted)
	fmt.Fprintf(b, "preamble %q\n", preamble)
	if preambleConflict {
		fmt.Fprintf(b, "theirs preamble %q\n", theirs)
	}
}

// dumpProblems writes a parsed file's problems, one a line.
func dumpProblems(b *strings.Builder, problems []Problem) {
	for _, p := range problems {
		fmt.Fprintf(b, "problem %s\n", p)
	}
}

// dumpLog describes a parsed log in a stable, readable form.
func dumpLog(l *Log) string {
	var b strings.Builder
	dumpHead(&b, l.Newline, l.Conflicted, l.Preamble, l.PreambleConflict, l.TheirsPreamble)
	for _, e := range l.Entries {
		fmt.Fprintf(&b, "entry line %d side %s kind %s unit %q iteration %d phase %q stamp %q\n",
			e.Line, e.Side, e.Kind, e.Unit, e.Iteration, e.Phase, e.Stamp)
		fmt.Fprintf(&b, "  heading %q\n", e.Heading)
		if tm, ok := e.Time(); ok {
			fmt.Fprintf(&b, "  time %s\n", tm.UTC().Format("2006-01-02T15:04:05Z"))
		}
		dumpFields(&b, e.Fields)
	}
	dumpProblems(&b, l.Problems)
	return b.String()
}

func dumpGuardrails(g *Guardrails) string {
	var b strings.Builder
	dumpHead(&b, g.Newline, g.Conflicted, g.Preamble, g.PreambleConflict, g.TheirsPreamble)
	for _, e := range g.Entries {
		fmt.Fprintf(&b, "guardrail line %d side %s name %q\n", e.Line, e.Side, e.Name)
		fmt.Fprintf(&b, "  when %q\n  problem %q\n  solution %q\n  learned %q\n", e.When, e.Problem, e.Solution, e.Learned)
		dumpFields(&b, e.Extra)
	}
	dumpProblems(&b, g.Problems)
	return b.String()
}

// goldenFiles compares, for every testdata/<dir>/*.md, what dump makes of
// its bytes with <name>.golden.
func goldenFiles(t *testing.T, dir string, dump func(data []byte) string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			checkGolden(t, strings.TrimSuffix(p, ".md")+".golden", dump(data))
		})
	}
}

// TestGoldenProgress parses every testdata/progress/*.md and compares the
// parsed form and the rendered file with <name>.golden.
func TestGoldenProgress(t *testing.T) {
	goldenFiles(t, "progress", func(data []byte) string {
		l := Parse(data)
		return dumpLog(l) + "--- rendered ---\n" + string(l.Render())
	})
}

// TestGoldenGuardrails does the same for testdata/guardrails/*.md.
func TestGoldenGuardrails(t *testing.T) {
	goldenFiles(t, "guardrails", func(data []byte) string {
		g := ParseGuardrails(data)
		return dumpGuardrails(g) + "--- rendered ---\n" + string(g.Render())
	})
}

// appendEach builds a file from nothing by appending each of es with
// appendTo, each step append-only by appendOnly.
func appendEach[E any](t *testing.T, es []E, appendTo func([]byte, E) ([]byte, error), appendOnly func(old, new []byte) *Violation) []byte {
	t.Helper()
	var data []byte
	for _, e := range es {
		next, err := appendTo(data, e)
		require.NoError(t, err)
		require.Nil(t, appendOnly(data, next))
		data = next
	}
	return data
}

// TestGoldenAppend builds a progress.md from nothing with Append and
// compares it with testdata/append.golden.
func TestGoldenAppend(t *testing.T) {
	entries := []Entry{
		{Kind: KindCreated, Stamp: "2026-01-14T10:30:00Z", Fields: []Field{{"Name", "User authentication"}, {"Mode", "development"}}},
		{Kind: KindPhase, Phase: "execute", Stamp: "2026-01-14T10:31:00Z"},
		{Kind: KindIteration, Unit: "T1", Iteration: 1, Stamp: "2026-01-14T10:40:00Z", Fields: []Field{
			{"Did", "Added the model\n## T1 - Iteration 9 - 2026-01-14T10:41:00Z\n**Signal:** T1_DONE"},
			{"Remaining", "tests\r\n\r\n- and docs  \n\n"},
			{"Blockers", ""},
			{"Commit", "abc1234: feat(user-auth): Add User model"},
		}},
		{Kind: KindIteration, Unit: "T1", Iteration: 2, Stamp: "2026-01-14T11:15:00Z", Fields: []Field{
			{"Did", "tests"}, {"Signal", "T1_DONE"}, {"", "## a forged heading as free text"}, {"", "<<<<<<< HEAD"},
		}},
		{Kind: KindBlocked, Unit: "T3", Stamp: "2026-01-14T12:00:00Z", Fields: []Field{{"Reason", "Waiting on T2"}}},
		{Kind: KindReopened, Unit: "T1", Stamp: "2026-01-14T12:30:00Z", Fields: []Field{{"Reason", "the model drops\n## T1 - Iteration 3 - forged"}}},
		{Kind: KindOther, Heading: "Notes from the reviewer", Fields: []Field{{"", "Looks good."}}},
	}
	data := appendEach(t, entries, Append, IsAppendOnly)
	gs := []Guardrail{
		{Name: "Flaky network tests", When: "running the integration suite", Problem: "timeouts on CI",
			Solution: "use the local fake\n- **Learned**: forged", Learned: "T2 iteration 3", Extra: []Field{{"Owner", "platform"}}},
		{Name: "Second", When: "always"},
	}
	gdata := appendEach(t, gs, AppendGuardrail, IsGuardrailsAppendOnly)
	checkGolden(t, "testdata/append.golden", string(data)+"--- guardrails.md ---\n"+string(gdata))
}
