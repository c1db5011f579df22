package plan

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGolden parses every testdata/*.md, renders it and compares the result
// with testdata/NAME.golden, and a summary of what was read with
// testdata/NAME.summary.golden. Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			p, err := Parse(filepath.Base(file), data)
			require.NoError(t, err)
			out := p.Render()
			golden(t, "testdata/"+name+".golden", out)
			golden(t, "testdata/"+name+".summary.golden", []byte(summary(p)))

			q, err := Parse(filepath.Base(file), out)
			require.NoError(t, err)
			assert.Equal(t, shape(p), shape(q), "parse(render(p)) must equal p")
			assert.Equal(t, string(out), string(q.Render()), "render must be stable")
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./plan -run TestGolden -update to create it")
	assert.Equal(t, string(want), string(got))
}

// summary describes what Parse read, one line per fact, for golden files.
func summary(p *Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode: %s\ntitle: %q\nplaceholder: %v\n", p.Mode, p.Title, p.Placeholder())
	for _, f := range p.Meta {
		fmt.Fprintf(&b, "meta %q = %q\n", f.Key, f.Value)
	}
	if p.Preamble != "" {
		fmt.Fprintf(&b, "preamble: %q\n", p.Preamble)
	}
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "section line %d kind %d %q body %q\n", s.Line, s.Kind, s.Heading, s.Body)
	}
	for _, u := range p.Units {
		fmt.Fprintf(&b, "unit %s line %d done=%v placeholder=%v title=%q\n", u.ID, u.Line, u.Done, u.Placeholder, u.Title)
		fmt.Fprintf(&b, "  max=%d signal=%s depends=%v deps=%v dependents=%v\n", u.MaxIterations, u.Signal(), u.Depends, p.Deps(u.ID), p.Dependents(u.ID))
		if u.Status != "" || u.DependsInline {
			fmt.Fprintf(&b, "  inline status=%q depends_inline=%v\n", u.Status, u.DependsInline)
		}
		for _, f := range []Field{{"files", u.Files}, {"criteria", u.Criteria}, {"completion", u.Completion}, {"output", u.Output}, {"model", u.Model}, {"details", u.Details}, {"notes", u.Notes}} {
			if f.Value != "" {
				fmt.Fprintf(&b, "  %s=%q\n", f.Key, f.Value)
			}
		}
		if u.HasItems() {
			fmt.Fprintf(&b, "  items=%q count=%d names=%q\n", u.Items, u.ItemCount, u.ItemNames)
		}
		for _, c := range u.Counters {
			fmt.Fprintf(&b, "  counter name=%q path=%q match=%q\n", c.Name, c.Path, c.Match)
		}
		if d := p.ItemStatesOf(u.ID); d.Declared() {
			fmt.Fprintf(&b, "  item states=%q settled=%q at %s\n", d.States, d.Settled, d.Where())
		}
		if u.SettleItems != "" || u.KeyValue != "" {
			fmt.Fprintf(&b, "  settle=%q key value=%q\n", u.SettleItems, u.KeyValue)
		}
		for _, m := range u.Metrics {
			fmt.Fprintf(&b, "  metric %s\n", m)
		}
		if outs := u.Outputs(); len(outs) > 0 {
			fmt.Fprintf(&b, "  outputs=%q min_words=%d complete=%q\n", outs, u.MinWords, u.Complete)
		}
		for _, k := range []string{keyMax, keyMinWords, keyDepends} {
			if v, ok := u.Pending[k]; ok {
				fmt.Fprintf(&b, "  pending %q = %q\n", k, v)
			}
		}
		for _, f := range u.Extra {
			fmt.Fprintf(&b, "  extra %q = %q\n", f.Key, f.Value)
		}
	}
	fmt.Fprintf(&b, "order: %v\nready: %v\n", p.Order(), p.Ready(nil))
	return b.String()
}

// shape is p without line numbers, for comparing a plan with the plan read
// back from its rendering. A unit added in code (no section yet) is where
// Render puts it.
func shape(p *Plan) *Plan {
	q := *p
	q.Units = nil
	first := slices.IndexFunc(p.Sections, func(s Section) bool { return s.Kind == UnitsSection })
	for _, u := range p.Units {
		c := *u
		c.Line, c.dependsLine, c.lines, c.extraLines = 0, 0, nil, nil
		if c.Checks != nil {
			// A named check's line is where the plan wrote it: for messages.
			c.Checks = slices.Clone(c.Checks)
			for i := range c.Checks {
				c.Checks[i].Line = 0
			}
		}
		if c.section == 0 {
			c.section = first + 1 // rendered in the first units section
		}
		q.Units = append(q.Units, &c)
	}
	q.Sections, q.metaLines = nil, nil
	q.parsed, q.graphOnce, q.unitsOnce = false, nil, nil
	for _, s := range p.Sections {
		s.Line, s.bodyLine = 0, 0
		q.Sections = append(q.Sections, s)
	}
	return &q
}
