package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// skillCommand is one itr command line a skill's text names.
type skillCommand struct {
	where string // file:line
	line  string
}

// inlineItr finds `itr ...` code spans.
var inlineItr = regexp.MustCompile("`((?:[A-Z_]+=\\S+ )*itr(?: [^`]*)?)`")

// skillCommands returns every itr command line of a Markdown text: the
// lines of its fenced blocks that run itr (joined where they end in a
// backslash, without their # comments) and its `itr ...` code spans.
func skillCommands(name, text string) []skillCommand {
	var out []skillCommand
	sc := bufio.NewScanner(strings.NewReader(text))
	fenced, pending, start := false, "", 0
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			for _, m := range inlineItr.FindAllStringSubmatch(line, -1) {
				out = append(out, skillCommand{fmt.Sprintf("%s:%d", name, n), m[1]})
			}
			continue
		}
		if pending == "" {
			start = n
		}
		pending += strings.TrimSpace(line)
		if strings.HasSuffix(pending, "\\") {
			pending = strings.TrimSuffix(pending, "\\") + " "
			continue
		}
		cmd := pending
		pending = ""
		if i := strings.Index(cmd, " #"); i >= 0 {
			cmd = strings.TrimSpace(cmd[:i])
		}
		words := strings.Fields(cmd)
		for len(words) > 0 && strings.Contains(words[0], "=") {
			words = words[1:]
		}
		if len(words) > 0 && words[0] == "itr" {
			out = append(out, skillCommand{fmt.Sprintf("%s:%d", name, start), cmd})
		}
	}
	return out
}

// checkItrLine reports what is wrong with an itr command line against the
// real command tree: an unknown command, an unknown flag, a flag without
// its value, or arguments the command does not take.
func checkItrLine(line string) error {
	args, err := splitCommand(line)
	if err != nil {
		return err
	}
	for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-") {
		args = args[1:] // ITR_AGENT=sub1 itr ...
	}
	if len(args) < 2 || args[0] != "itr" {
		return fmt.Errorf("not an itr command with a subcommand")
	}
	root := newRoot(&globals{})
	cmd, rest, err := root.Find(args[1:])
	if err != nil {
		return err
	}
	if cmd == root {
		return fmt.Errorf("unknown command %q", args[1])
	}
	if len(args) == 2 {
		return nil // a command named in prose: `itr reopen`
	}
	if err := cmd.ParseFlags(rest); err != nil && !errors.Is(err, pflag.ErrHelp) {
		return fmt.Errorf("itr %s: %w", cmd.Name(), err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return fmt.Errorf("itr %s: %w", cmd.Name(), err)
	}
	return nil
}

// TestSkillCommandsExist runs every itr command the shipped skills name
// (skills/*/SKILL.md and references/) through the real command tree: each
// command, flag and argument count must be one itr accepts.
func TestSkillCommandsExist(t *testing.T) {
	top := filepath.Join("..", "..", "skills")
	checked := 0
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
		for _, c := range skillCommands(filepath.ToSlash(rel), string(data)) {
			checked++
			if err := checkItrLine(c.line); err != nil {
				t.Errorf("%s: `%s`: %v", c.where, c.line, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Errorf("only %d itr commands found in skills/: the extraction is broken", checked)
	}
	t.Logf("%d itr command lines checked", checked)
}

// TestSkillCommandChecker shows the check catches what it is for.
func TestSkillCommandChecker(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{`itr checkpoint T1 --did "x" --signal`, true},
		{`ITR_AGENT=sub1 itr claim T3`, true},
		{`itr block T3 --reason "x" --kind decision`, true},
		{`itr checkpoint --did "x" --done`, false}, // no such flag
		{`itr finish T1`, false},                   // no such command
		{`itr block T3 T4 --reason "x"`, false},    // one unit only
		{`itr init "A" --slug`, false},             // a flag without its value
		{`itr prime --unit T3`, true},
		{`itr reopen`, true}, // a command named in prose
		{`itr reopne`, false},
	} {
		err := checkItrLine(tc.line)
		if (err == nil) != tc.ok {
			t.Errorf("%s: got %v, want ok=%v", tc.line, err, tc.ok)
		}
	}
	got := skillCommands("x.md", "Run `itr next`, then:\n\n```sh\nitr plan   # apply\nitr guardrail --name a \\\n  --when b\necho itr\n```\n")
	want := []string{"x.md:1 itr next", "x.md:4 itr plan", "x.md:5 itr guardrail --name a  --when b"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if s := got[i].where + " " + got[i].line; s != want[i] {
			t.Errorf("got %q, want %q", s, want[i])
		}
	}
}
