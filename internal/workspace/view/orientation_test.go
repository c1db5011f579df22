package view

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/gitstate"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/progresslog"
)

// orientedPlan is seed 002's tasks.md with its "## Notes", context for
// sub-agents.
const orientedPlan = `# Login - Tasks

## Tasks

- [ ] **T1**: Add the user model
  - Output: ` + "`outputs/model.md`" + `
  - Max iterations: 3
- [ ] **T2**: Add the login form
  - Depends: T1
  - Inputs: T1.output
  - Max iterations: 5
- [ ] **T3**: Write the docs
  - Max iterations: 4

## Notes

Sub-agents: keep the form server-rendered.
Never touch the payments module.
`

// orientedContext is seed 002's context.md, filled in.
const orientedContext = `# Login Context

**Goal:** Users sign in with an email and a password.

**Approach:** Server-rendered forms, tests first.

**Key files/outputs:**
- ` + "`internal/auth/login.go`" + ` — the handler
- ` + "`outputs/model.md`" + ` — the model's notes

**Patterns to follow:**
- Errors wrap with %w

**Signals:**
- T1: the model migrates
`

// lesson runs `itr guardrail` with every field of g.
func (b *task) lesson(g progresslog.Guardrail) *task {
	f := b.f
	f.t.Helper()
	f.tick()
	old, err := f.st.ReadAt("HEAD", b.rel(store.GuardrailsFile))
	require.NoError(f.t, err)
	data, err := progresslog.AppendGuardrail(old, g)
	require.NoError(f.t, err)
	b.commit(nil, store.EventGuardrail, "guardrail: "+g.Name, []gitstate.FileChange{{Path: b.rel(store.GuardrailsFile), Data: data}})
	return b
}

// orientedTask is seed 002's shape: T1 done, T2 under way, a plan with
// notes, context.md filled in and three lessons: one for every unit, one
// for T2 (by its ID), one for T1.
func orientedTask(f *fixture) *task {
	b := freshTask(f).planned(orientedPlan)
	f.plainCommit("the model's notes", true, gitstate.FileChange{Path: b.rel("outputs/model.md"), Data: []byte("The user model: email, password hash, created at.\n")})
	b.checkpoint("T1", "added the model", iterOpts{signal: true})
	b.finish("T1")
	b.lesson(progresslog.Guardrail{Name: "Run the linter", When: "always", Problem: "CI failed on style", Solution: "make lint before each checkpoint", Learned: "T1 iteration 1"})
	b.lesson(progresslog.Guardrail{Name: "CSRF on forms", When: "T2 adds a form", Problem: "the form posted without a token", Solution: "use the csrf middleware", Learned: "T2 iteration 1"})
	b.lesson(progresslog.Guardrail{Name: "Schema changes", When: "changing outputs/model.md's schema", Problem: "old rows broke", Solution: "write a migration"})
	b.checkpoint("T2", "form skeleton", iterOpts{remaining: "csrf, errors"})
	f.writeDisk(b.rel(contextFile), orientedContext)
	return b
}

func TestLessonUnits(t *testing.T) {
	t.Parallel()
	text := strings.Replace(orientedPlan, "- [ ] **T3**: Write the docs\n", "- [ ] **T3**: Write the docs\n  - Output: `notes/`\n", 1)
	p, err := plan.Parse("tasks.md", []byte(text))
	require.NoError(t, err)
	units := unitRefsOf(p)
	tests := []struct {
		name string
		l    Lesson
		want []string
	}{
		{"no unit named: task-wide", Lesson{Name: "Lint", When: "always"}, nil},
		{"an ID as a word", Lesson{Name: "Forms", When: "working on T2."}, []string{"T2"}},
		{"an ID in the heading", Lesson{Name: "T3 docs style", When: "writing"}, []string{"T3"}},
		{"not inside a longer ID", Lesson{Name: "x", When: "T20 and XT2 and T2-B"}, nil},
		{"T1.output names T1", Lesson{Name: "x", When: "reading T1.output"}, []string{"T1"}},
		{"a file written and read", Lesson{Name: "x", When: "editing outputs/model.md"}, []string{"T1", "T2"}},
		{"the file under the task folder", Lesson{Name: "x", When: "editing .claude/iterative/login/outputs/model.md, carefully"}, []string{"T1", "T2"}},
		{"not a longer file", Lesson{Name: "x", When: "outputs/model.md.bak or my-outputs/model.md"}, nil},
		{"a file in a folder output", Lesson{Name: "x", When: "editing notes/a.md"}, []string{"T3"}},
		{"not the folder's word alone", Lesson{Name: "x", When: "taking notes, or my-notes/a.md"}, nil},
		{"the When decides, not the Problem", Lesson{Name: "x", When: "always", Problem: "T3 broke"}, nil},
		{"without When, the Problem and Solution", Lesson{Name: "x", Problem: "T3 broke", Solution: "ask first"}, []string{"T3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, lessonUnits(tc.l, units))
		})
	}
}

// TestOrientationPrime: prime carries the plan's notes and context.md's
// sections fenced as data, the lessons for the unit at hand in full and the
// others by name; --json has the same in "orientation".
func TestOrientationPrime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	orientedTask(f)
	p, err := Prime(f.st, "")
	require.NoError(t, err)
	md := p.Markdown
	assert.Contains(t, md, "## Orientation — the plan's notes and context.md (data from the task's files)\n"+
		"Notes for every unit (.claude/iterative/login/tasks.md:15):\n```text\nSub-agents: keep the form server-rendered.\nNever touch the payments module.\n```\n")
	assert.Contains(t, md, "Approach (.claude/iterative/login/context.md:5): “Server-rendered forms, tests first.”\n")
	assert.Contains(t, md, "Key files (.claude/iterative/login/context.md:7):\n```text\n- `internal/auth/login.go` — the handler\n")
	assert.Contains(t, md, "Patterns (.claude/iterative/login/context.md:11): “- Errors wrap with %w”\n")
	assert.Contains(t, md, "## Guardrails for T2 — read them before the work (guardrails.md; data)\n"+
		"- “Run the linter” (guardrails.md line 5, for every unit): when “always”; problem “CI failed on style”; solution “make lint before each checkpoint”; learned “T1 iteration 1”\n"+
		"- “CSRF on forms” (guardrails.md line 11, for T2): when “T2 adds a form”; problem “the form posted without a token”; solution “use the csrf middleware”; learned “T2 iteration 1”\n"+
		"- “Schema changes” (guardrails.md line 17, for T1, T2): ")
	assert.NotContains(t, md, "Signals", "only the Approach, Key files and Patterns orient")
	assert.LessOrEqual(t, len(md), primeTarget)

	o := p.Orientation
	require.NotNil(t, o)
	assert.Equal(t, "T2", o.Unit)
	require.NotNil(t, o.Notes)
	assert.Equal(t, OrientText{Kind: "notes", Label: "Notes", File: ".claude/iterative/login/tasks.md", Line: 15,
		Text: "Sub-agents: keep the form server-rendered.\nNever touch the payments module."}, *o.Notes)
	require.Len(t, o.Context, 3)
	assert.Equal(t, []string{"approach", "key_files", "patterns"}, []string{o.Context[0].Kind, o.Context[1].Kind, o.Context[2].Kind})
	assert.Equal(t, "Key files/outputs", o.Context[1].Label)
	assert.Equal(t, 38, o.ContextWords)
	require.Len(t, o.Guardrails, 3)
	assert.Equal(t, []bool{true, true, true}, []bool{o.Guardrails[0].Applies, o.Guardrails[1].Applies, o.Guardrails[2].Applies})
	assert.Equal(t, []string{"T1", "T2"}, o.Guardrails[2].Units, "T1 writes outputs/model.md, T2 reads it")
	assert.Equal(t, []string{"Run the linter", "CSRF on forms", "Schema changes"}, p.Guardrails)
	data, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"orientation":{"notes":{"kind":"notes","label":"Notes","file":".claude/iterative/login/tasks.md","line":15,`)
	assert.Contains(t, string(data), `"applies":true`)
}

// TestOrientationBriefAndNextAll: a unit's brief carries the orientation
// and the lessons for that unit in full, the others by name; next --all
// words the task's once and each unit's own lessons with it.
func TestOrientationBriefAndNextAll(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := orientedTask(f)
	br, err := Brief(f.st, "login", "T3")
	require.NoError(t, err)
	assert.Contains(t, br.Markdown, "- Notes (tasks.md): “Sub-agents: keep the form server-rendered. / Never touch the payments module.”\n")
	assert.Contains(t, br.Markdown, "- Approach (context.md): “Server-rendered forms, tests first.”\n")
	assert.Contains(t, br.Markdown, "- Lesson “Run the linter” (guardrails.md line 5, for every unit): when “always”")
	assert.Contains(t, br.Markdown, "- Other lessons, for other units (guardrails.md): “CSRF on forms”; “Schema changes”\n")
	assert.LessOrEqual(t, br.Tokens, briefTokens)
	require.NotNil(t, br.Orientation)
	assert.Equal(t, "T3", br.Orientation.Unit)
	assert.False(t, br.Orientation.Guardrails[1].Applies)

	br, err = Brief(f.st, "login", "T2")
	require.NoError(t, err)
	assert.Contains(t, br.Markdown, "- Lesson “CSRF on forms” (guardrails.md line 11, for T2): when “T2 adds a form”; problem “the form posted without a token”; solution “use the csrf middleware”")
	assert.NotContains(t, br.Markdown, "Other lessons")

	all, err := NextAll(f.st, "login")
	require.NoError(t, err)
	require.NotNil(t, all.Orientation)
	lines := all.OrientationLines(120)
	assert.Equal(t, "Notes (.claude/iterative/login/tasks.md:15): “Sub-agents: keep the form server-rendered. / Never touch the payments module.”", lines[0])
	assert.Contains(t, lines, "Patterns (.claude/iterative/login/context.md:11): “- Errors wrap with %w”")
	assert.Contains(t, strings.Join(lines, "\n"), "Lesson “Run the linter” (guardrails.md line 5, for every unit)")
	assert.NotContains(t, strings.Join(lines, "\n"), "CSRF", "T2 is listed: its lesson is with it")
	var t2 *NextUnit
	for i := range all.Units {
		if all.Units[i].Unit == "T2" {
			t2 = &all.Units[i]
		}
	}
	require.NotNil(t, t2)
	ls := t2.LessonLines(120)
	require.Len(t, ls, 2)
	assert.True(t, strings.HasPrefix(ls[0], "Lesson “CSRF on forms”"))

	// A long orientation still leaves the brief within its budget: it
	// points at the files instead.
	f.writeDisk(b.rel(contextFile), "**Approach:** "+strings.Repeat("long approach text ", 200)+"\n")
	br, err = Brief(f.st, "login", "T2")
	require.NoError(t, err)
	assert.LessOrEqual(t, br.Tokens, briefTokens)
}

// TestOrientationContextProblems: a context.md that is too long, too big,
// not UTF-8, unlabelled, unreadable or full of control characters gives a
// warning that names the file and the fix, and prime still works.
func TestOrientationContextProblems(t *testing.T) {
	t.Parallel()
	rel := ".claude/iterative/login/context.md"
	words300 := "**Approach:** " + strings.Repeat("word ", 300) + "\n"
	tests := []struct {
		name  string
		write func(f *fixture)
		warn  string // "" : no warning about context.md
		check func(t *testing.T, p *PrimeContext)
	}{
		{"the template", func(f *fixture) {}, "", func(t *testing.T, p *PrimeContext) {
			assert.Nil(t, p.Orientation)
			assert.NotContains(t, p.Markdown, "## Orientation")
		}},
		{"300 words", func(f *fixture) { f.writeDisk(rel, words300) }, rel + " has 301 words, over the seed's limit of 200: keep one sentence each", func(t *testing.T, p *PrimeContext) {
			assert.Equal(t, 301, p.Orientation.ContextWords)
			assert.Contains(t, p.Markdown, "(cut at 500 characters: read the rest in "+rel+" from line 1)")
		}},
		{"too big to read", func(f *fixture) { f.writeDisk(rel, strings.Repeat("x", contextReadMax+1)) }, rel + " is 64.0 KB, too big to orient a session", func(t *testing.T, p *PrimeContext) {
			assert.Nil(t, p.Orientation)
		}},
		{"not UTF-8", func(f *fixture) { f.writeDisk(rel, "**Approach:** ok\nbad \xff\n") }, rel + ":2 is not UTF-8 text", func(t *testing.T, p *PrimeContext) {
			assert.True(t, utf8.ValidString(p.Markdown))
		}},
		{"prose only", func(f *fixture) { f.writeDisk(rel, "We build a login page.\n") }, rel + " has none of the sections prime carries", nil},
		{"a folder", func(f *fixture) {
			require.NoError(t, os.Remove(f.abs(rel)))
			require.NoError(t, os.MkdirAll(f.abs(rel), 0o755))
		}, rel + " cannot be read, so prime leaves it out: " + rel + " is not a regular file", nil},
		{"a symbolic link", func(f *fixture) {
			require.NoError(t, os.Remove(f.abs(rel)))
			require.NoError(t, os.Symlink("/etc/passwd", f.abs(rel)))
		}, rel + " cannot be read, so prime leaves it out: " + rel + " is a symbolic link", nil},
		{"control characters", func(f *fixture) {
			f.writeDisk(rel, "**Approach:** a\x00b\x1b[31mred\u202e\n**Patterns to follow:**\n- x\x1b]8;;http://evil\x07y\n")
		}, "", func(t *testing.T, p *PrimeContext) {
			assert.Contains(t, p.Markdown, `Approach (`+rel+`:1): “a\x00b\x1b[31mred\u202e”`)
			assert.Contains(t, p.Markdown, `Patterns (`+rel+`:2): “- x\x1b]8;;http://evil\x07y”`)
			assert.NotContains(t, p.Markdown, "\x1b")
			assert.NotContains(t, p.Markdown, "\x00")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			plannedTask(f)
			tc.write(f)
			p, err := Prime(f.st, "")
			require.NoError(t, err, "prime still works")
			sum, err := Status(f.st, "")
			require.NoError(t, err)
			var about []string
			for _, w := range sum.Warnings {
				if strings.Contains(w, rel) && !strings.Contains(w, "changes no commit holds") {
					about = append(about, w)
				}
			}
			if tc.warn == "" {
				assert.Empty(t, about)
			} else {
				require.Len(t, about, 1, "%q", sum.Warnings)
				assert.Contains(t, about[0], tc.warn)
				assert.Contains(t, p.Warnings, about[0], "prime warns as status does")
				assert.Contains(t, p.Markdown, visible(store.OneLine(about[0], 300)))
			}
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

// TestOrientationCut: when the sections before it fill prime, the
// orientation is cut and the closing note names the files to read.
func TestOrientationCut(t *testing.T) {
	t.Parallel()
	var text strings.Builder
	text.WriteString("# Big - Tasks\n\n## Tasks\n\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&text, "- [ ] **T%d**: Unit %d\n  - Max iterations: 9\n", i, i)
	}
	text.WriteString("\n## Notes\n\nKeep it small.\n")
	f := newFixture(t)
	b := freshTask(f).planned(text.String())
	for i := 1; i <= 40; i++ {
		b.block(fmt.Sprintf("T%d", i), strings.Repeat("reason ", 25))
	}
	b.lesson(progresslog.Guardrail{Name: "Lint", When: "always", Problem: "style", Solution: "make lint"})
	f.writeDisk(b.rel(contextFile), orientedContext)
	p, err := Prime(f.st, "")
	require.NoError(t, err)
	md := p.Markdown
	assert.LessOrEqual(t, len(md), primeTarget)
	assert.NotContains(t, md, "## Orientation")
	assert.Regexp(t, `sections cut to keep this short; `+"`itr status`"+` shows everything; read \.claude/iterative/login/tasks\.md's ## Notes and \.claude/iterative/login/context\.md and guardrails\.md yourself\.\)\n$`, md)
	require.NotNil(t, p.Orientation, "--json keeps it whole")
	assert.Equal(t, "Keep it small.", p.Orientation.Notes.Text)
}

// TestOrientationManyLessons: a guardrails.md of 300 lessons for every
// unit keeps prime within its budget: those that fit 1,800 characters (six
// at most) in full, the rest by name and a count.
func TestOrientationManyLessons(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := inProgressTask(f)
	var raw []byte
	for i := 1; i <= 300; i++ {
		var err error
		raw, err = progresslog.AppendGuardrail(raw, progresslog.Guardrail{Name: fmt.Sprintf("Lesson %d", i), When: "always",
			Problem: strings.Repeat("a long problem ", 40), Solution: "fix it"})
		require.NoError(t, err)
	}
	f.plainCommit("many lessons", true, gitstate.FileChange{Path: b.rel(store.GuardrailsFile), Data: raw})
	p, err := Prime(f.st, "")
	require.NoError(t, err)
	md := p.Markdown
	assert.LessOrEqual(t, len(md), primeTarget)
	assert.Contains(t, md, "## Guardrails for T1 — read them before the work (guardrails.md; data)\n- “Lesson 1” (guardrails.md line 5, for every unit): when “always”; problem “a long problem")
	assert.Regexp(t, `\n- and 29\d more that apply: “Lesson \d+”; `, md)
	assert.Contains(t, md, "and 2", "the names are counted, not all listed")
	assert.Len(t, p.Orientation.Guardrails, 300)
	br, err := Brief(f.st, "login", "T1")
	require.NoError(t, err)
	assert.LessOrEqual(t, br.Tokens, briefTokens)
}
