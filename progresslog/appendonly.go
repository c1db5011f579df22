package progresslog

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Violation is an edit to earlier bytes of an append-only file.
type Violation struct {
	// File is the file's name for the message; "progress.md" when empty.
	File string
	// Line is the first line of the old text that differs (1-based).
	Line int
	// Entry is the heading (without "## ") of the entry holding that line,
	// or "preamble" when the line comes before the first entry.
	Entry string
	// Diff is LineDiff(old, new).
	Diff string
}

// Error reads like `progress.md: entry "T1 - Iteration 2 - …" changed at
// line 14 (entries are append-only: ...)`.
func (v *Violation) Error() string {
	file := v.File
	if file == "" {
		file = "progress.md"
	}
	what := "the preamble"
	if v.Entry != "preamble" {
		what = fmt.Sprintf("entry %q", shorten(v.Entry, 60))
	}
	return fmt.Sprintf("%s: %s changed at line %d (entries are append-only: restore the earlier text from git and append a new entry instead)",
		file, what, v.Line)
}

// IsAppendOnly returns nil when new only appends to old, that is when new
// starts with old byte for byte (which also allows new to add the line end
// old's last line lacked). Otherwise it says where old was changed.
func IsAppendOnly(old, new []byte) *Violation {
	v := violation(old, new)
	if v == nil {
		return nil
	}
	v.File = "progress.md"
	best := 0 // entries of a conflicted file need not be in line order
	for _, e := range Parse(old).Entries {
		if e.Line <= v.Line && e.Line > best {
			v.Entry, best = e.Heading, e.Line
		}
	}
	return v
}

// IsGuardrailsAppendOnly is IsAppendOnly for guardrails.md: Entry is the
// guardrail's name.
func IsGuardrailsAppendOnly(old, new []byte) *Violation {
	v := violation(old, new)
	if v == nil {
		return nil
	}
	v.File = "guardrails.md"
	best := 0
	for _, g := range ParseGuardrails(old).Entries {
		if g.Line <= v.Line && g.Line > best {
			v.Entry, best = g.Name, g.Line
		}
	}
	return v
}

// violation finds the first line of old that new changes; nil when new
// starts with old.
func violation(old, new []byte) *Violation {
	if bytes.HasPrefix(new, old) {
		return nil
	}
	i := 0
	for i < len(old) && i < len(new) && old[i] == new[i] {
		i++
	}
	return &Violation{
		Line:  bytes.Count(old[:i], []byte("\n")) + 1,
		Entry: "preamble",
		Diff:  LineDiff(string(old), string(new)),
	}
}

// diffContext is how many unchanged lines LineDiff shows around a change.
const diffContext = 2

// LineDiff returns a unified-style line diff of a and b: hunks headed
// "@@ -a,b +c,d @@", lines prefixed "-" (only in a), "+" (only in b) or " "
// (context, two lines around each change), and "\ No newline at end of
// file" after a last line without one. It returns "" when a equals b.
func LineDiff(a, b string) string {
	if a == b {
		return ""
	}
	type op struct {
		kind byte // ' ', '-' or '+'
		text string
	}
	var ops []op
	for _, d := range lineDiffs(a, b) {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				ops = append(ops, op{kind, l})
			}
		}
	}
	// aLine[i] and bLine[i] count the lines of a and b before ops[i].
	aLine, bLine := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, o := range ops {
		aLine[i+1], bLine[i+1] = aLine[i], bLine[i]
		if o.kind != '+' {
			aLine[i+1]++
		}
		if o.kind != '-' {
			bLine[i+1]++
		}
	}
	var out strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i // one past the last change of the hunk
		for j := i; j < len(ops) && j < end+2*diffContext+1; j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			}
		}
		stop := min(len(ops), end+diffContext)
		header := func(first, count int) string {
			if count == 0 {
				return fmt.Sprintf("%d,0", first)
			}
			return fmt.Sprintf("%d,%d", first+1, count)
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n",
			header(aLine[start], aLine[stop]-aLine[start]), header(bLine[start], bLine[stop]-bLine[start]))
		for _, o := range ops[start:stop] {
			out.WriteByte(o.kind)
			out.WriteString(strings.TrimSuffix(o.text, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(o.text, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return out.String()
}
