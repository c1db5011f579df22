package docscheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/mcpcmd"
)

// repo is the top of the repository, seen from this package's folder.
const repo = "../.."

// TestDocsLinks fails for every relative link or image of README.md and
// docs/**/*.md whose file does not exist, or whose #anchor names no
// heading of the Markdown file it points at, naming the file, the line and
// the link.
func TestDocsLinks(t *testing.T) {
	files := markdownFiles(t, repo)
	require.Contains(t, files, "README.md")
	require.Contains(t, files, "docs/guide/commands.md", "the guide is in docs/guide")
	problems, checked := checkLinks(t, repo, files)
	for _, problem := range problems {
		t.Error(problem)
	}
	require.Greater(t, checked, 100, "the relative links of README.md and docs/")
	t.Logf("%d relative links checked in %d files", checked, len(files))
}

// TestDocsLinkChecker shows that the link check catches what it is for,
// on a small tree of its own: a missing file, a missing anchor, an image
// that is not there, and a link that leaves the repository; and that it
// passes good links and whatever code spans and fenced blocks hold.
func TestDocsLinkChecker(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("README.md", strings.Join([]string{
		"# Title",
		"",
		"Good: [a](docs/a.md), [b](docs/a.md#what-itr-offers-next-in-every-state), [top](#title),",
		"[split",
		"over two lines](docs/a.md#the-files-of-a-task), [dir](docs), [web](https://example.com/x),",
		"[mail](mailto:x@example.com), [spaced](docs/a%20b.md), [root](/docs/a.md#indexmd),",
		"[`code`](docs/a.md#itr-status---json) and [again](docs/a.md#notes-1).",
		"",
		"In code, not links: `[x](nowhere.md)` and",
		"",
		"```",
		"[y](nowhere.md)",
		"```",
		"",
		"Bad: [gone](docs/gone.md) and [anchor](docs/a.md#no-such-heading).",
		"![picture](docs/missing.png) and [out](../outside.md)",
		"[ref]: docs/also-gone.md",
	}, "\n"))
	write("docs/a.md", strings.Join([]string{
		"# What itr offers next, in every state",
		"## The files of a task",
		"### `itr status --json`",
		"## INDEX.md",
		"## Notes",
		"## Notes",
		"```",
		"## Not a heading",
		"```",
	}, "\n"))
	write("docs/a b.md", "# A B\n")
	got, _ := checkLinks(t, dir, markdownFiles(t, dir))
	want := []string{
		"README.md:15: link docs/gone.md: docs/gone.md does not exist",
		"README.md:15: link docs/a.md#no-such-heading: docs/a.md has no heading whose anchor is #no-such-heading",
		"README.md:16: link docs/missing.png: docs/missing.png does not exist",
		"README.md:16: link ../outside.md: it leaves the repository",
		"README.md:17: link docs/also-gone.md: docs/also-gone.md does not exist",
	}
	require.Equal(t, want, got)
}

// TestDocsAnchors pins GitHub's anchors for headings the guide links to.
func TestDocsAnchors(t *testing.T) {
	for heading, want := range map[string]string{
		"What itr offers next, in every state":             "what-itr-offers-next-in-every-state",
		"`itr status --json`":                              "itr-status---json",
		"Items inside a unit: the ledger and its counters": "items-inside-a-unit-the-ledger-and-its-counters",
		"INDEX.md":        "indexmd",
		"itr setup AGENT": "itr-setup-agent",
		"Knowledge tasks: items, counters and deliverables":            "knowledge-tasks-items-counters-and-deliverables",
		"Current unit: T2 “Login endpoint” — in_progress, 1/5":         "current-unit-t2-login-endpoint--in_progress-15",
		"[A link](x.md) and *emphasis*":                                "a-link-and-emphasis",
		"The model for 100+ agents on one remote":                      "the-model-for-100-agents-on-one-remote",
		"Pictures: the plan as a graph, the task as a report":          "pictures-the-plan-as-a-graph-the-task-as-a-report",
		"`itr mcp`: the tools for agents without a shell":              "itr-mcp-the-tools-for-agents-without-a-shell",
		"Verification runs: evidence, not claims":                      "verification-runs-evidence-not-claims",
		"gitstate against go-git":                                      "gitstate-against-go-git",
		"itr's commits and the repository's hooks":                     "itrs-commits-and-the-repositorys-hooks",
		"Set-up on a fresh machine with Go":                            "set-up-on-a-fresh-machine-with-go",
		"A 60-second walkthrough":                                      "a-60-second-walkthrough",
		"Settings: .itr.yaml and the environment":                      "settings-itryaml-and-the-environment",
		"Many agents, many machines":                                   "many-agents-many-machines",
		"Failed, skipped and compensating units":                       "failed-skipped-and-compensating-units",
		"Performance: what itr costs, measured":                        "performance-what-itr-costs-measured",
		"The pre-commit hook on a plain git commit":                    "the-pre-commit-hook-on-a-plain-git-commit",
		"Evidence: outputs and verification runs":                      "evidence-outputs-and-verification-runs",
		"Concepts: the lifecycle of a unit, and what a task remembers": "concepts-the-lifecycle-of-a-unit-and-what-a-task-remembers",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestDocsMCPTools runs itr's MCP server in-process (internal/mcpcmd, as
// itr-mcp runs it) and asks it for its tools over newline-delimited
// JSON-RPC, since only mcpserver may import the MCP SDK (internal/policy).
// The tools it registers must be exactly the rows of the guide's tool
// table, exactly the names `itr mcp --help` lists (docs/cli/itr_mcp.md,
// which TestDocsCurrent in cmd/itr keeps equal to the help text), and every
// count of tools that README.md or docs/ states, in words or digits, must
// be their number.
func TestDocsMCPTools(t *testing.T) {
	tools := registeredTools(t)
	require.NotEmpty(t, tools)

	table := toolTable(t, filepath.Join(repo, "docs", "guide", "mcp.md"))
	if !slices.Equal(table, tools) {
		t.Errorf("docs/guide/mcp.md: the tool table lists %v; the server registers %v", table, tools)
	}

	help := helpTools(t, filepath.Join(repo, "docs", "cli", "itr_mcp.md"))
	if !slices.Equal(help, tools) {
		t.Errorf("docs/cli/itr_mcp.md (the help of itr mcp, cmd/itr/mcp.go): its one-line summary lists %v; the server registers %v", help, tools)
	}

	counts := 0
	for _, name := range markdownFiles(t, repo) {
		for _, c := range toolCounts(t, filepath.Join(repo, filepath.FromSlash(name))) {
			counts++
			if c.n != len(tools) {
				t.Errorf("%s:%d: %q: the server registers %d tools (%s)", name, c.line, c.text, len(tools), strings.Join(tools, ", "))
			}
		}
	}
	if counts == 0 {
		t.Error("no page states how many MCP tools there are; the check of counts found nothing to check")
	}
}

// TestDocsCommandList fails for every top-level command of itr that has no
// line in the README's command list, and for every line there that names a
// command itr does not have. The commands are the pages of the generated
// reference (docs/cli/itr_<command>.md), which TestDocsCurrent in cmd/itr
// keeps equal to the command tree; package main cannot be imported here.
func TestDocsCommandList(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join(repo, "docs", "cli"))
	require.NoError(t, err)
	var commands []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !strings.HasPrefix(name, "itr_") || strings.Contains(name[len("itr_"):], "_") {
			continue
		}
		commands = append(commands, name[len("itr_"):])
	}
	require.Greater(t, len(commands), 10, "docs/cli holds the command reference")

	listed := map[string]int{}
	section := sectionLines(t, filepath.Join(repo, "README.md"), "Commands")
	require.NotEmpty(t, section, "README.md has a ## Commands section")
	item := regexp.MustCompile("^- \\[?`itr ([a-z][a-z-]*)")
	for _, l := range section {
		if m := item.FindStringSubmatch(l.text); m != nil {
			if _, seen := listed[m[1]]; !seen {
				listed[m[1]] = l.n
			}
		}
	}
	for _, c := range commands {
		if _, ok := listed[c]; !ok {
			t.Errorf("README.md: the command list (## Commands) has no line for `itr %s` (docs/cli/itr_%s.md)", c, c)
		}
	}
	for c, line := range listed {
		if c != "help" && !slices.Contains(commands, c) {
			t.Errorf("README.md:%d: the command list names `itr %s`, which is not a command (no docs/cli/itr_%s.md)", line, c, c)
		}
	}
}

// markdownFiles lists README.md and every .md file under docs/, as
// slash-separated paths relative to root.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	slices.Sort(files[1:])
	return files
}

// A line of a Markdown file: its number and text.
type line struct {
	n    int
	text string
}

// doc is a Markdown file as the checks read it: its headings' anchors, and
// its paragraphs outside fenced code blocks, code spans blanked out.
type doc struct {
	anchors    map[string]bool
	paragraphs []paragraph
}

// A paragraph is consecutive non-blank lines outside fenced code, joined
// with "\n" so that a link may span lines; first is the first line's number.
type paragraph struct {
	first int
	text  string
}

var (
	fenceRE   = regexp.MustCompile("^\\s*(`{3,}|~{3,})(.*)$")
	headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$`)
	htmlIDRE  = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

var docs = map[string]*doc{}

// readDoc reads and parses a Markdown file once.
func readDoc(t *testing.T, file string) *doc {
	t.Helper()
	if d, ok := docs[file]; ok {
		return d
	}
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	d := &doc{anchors: map[string]bool{}}
	seen := map[string]int{}
	var fence string
	var para []string
	first := 0
	flush := func() {
		if len(para) > 0 {
			d.paragraphs = append(d.paragraphs, paragraph{first: first, text: blankCode(strings.Join(para, "\n"))})
		}
		para = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if m := fenceRE.FindStringSubmatch(text); m != nil {
			switch {
			case fence == "":
				flush()
				fence = m[1]
				continue
			case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(m[2]) == "":
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		if m := headingRE.FindStringSubmatch(text); m != nil {
			flush()
			a := anchor(m[2])
			if k := seen[a]; k > 0 {
				seen[a]++
				a = a + "-" + strconv.Itoa(k)
			} else {
				seen[a] = 1
			}
			d.anchors[a] = true
			continue
		}
		for _, m := range htmlIDRE.FindAllStringSubmatch(text, -1) {
			d.anchors[m[1]] = true
		}
		if strings.TrimSpace(text) == "" {
			flush()
			continue
		}
		if len(para) == 0 {
			first = n
		}
		para = append(para, text)
	}
	require.NoError(t, sc.Err())
	flush()
	docs[file] = d
	return d
}

// blankCode replaces the inside of every code span by spaces, keeping the
// backticks and every line break, so that what a code span holds is never
// taken for a link. A backtick run with no closing run of the same length
// is literal text, as in CommonMark.
func blankCode(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] == '`' {
			j++
		}
		run := j - i
		end := -1
		for k := j; k < len(b); {
			if b[k] != '`' {
				k++
				continue
			}
			l := k
			for l < len(b) && b[l] == '`' {
				l++
			}
			if l-k == run {
				end = k
				break
			}
			k = l
		}
		if end < 0 {
			i = j
			continue
		}
		for k := j; k < end; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = end + run
	}
	return string(b)
}

var (
	inlineLinkRE = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]*)>?(?:\s+"[^"]*")?\s*\)`)
	refDefRE     = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)`)
	htmlLinkRE   = regexp.MustCompile(`<(?:a|img)\s[^>]*?(?:href|src)="([^"]*)"`)
	schemeRE     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// checkLinks returns a problem for every relative link of files (paths
// relative to root) that does not resolve, in file and line order, and how
// many relative links it checked.
func checkLinks(t *testing.T, root string, files []string) (problems []string, checked int) {
	t.Helper()
	absRoot, err := filepath.Abs(root)
	require.NoError(t, err)
	for _, name := range files {
		d := readDoc(t, filepath.Join(root, filepath.FromSlash(name)))
		for _, p := range d.paragraphs {
			type found struct {
				at     int
				target string
			}
			var links []found
			for _, re := range []*regexp.Regexp{inlineLinkRE, refDefRE, htmlLinkRE} {
				for _, m := range re.FindAllStringSubmatchIndex(p.text, -1) {
					links = append(links, found{at: m[0], target: p.text[m[2]:m[3]]})
				}
			}
			slices.SortStableFunc(links, func(a, b found) int { return a.at - b.at })
			for _, l := range links {
				n := p.first + strings.Count(p.text[:l.at], "\n")
				if relative(l.target) {
					checked++
				}
				if msg := resolve(t, absRoot, name, l.target); msg != "" {
					problems = append(problems, fmt.Sprintf("%s:%d: link %s: %s", name, n, l.target, msg))
				}
			}
		}
	}
	return problems, checked
}

// relative says whether a link's target is a path in the repository (not a
// URL with a scheme, such as https: or mailto:).
func relative(target string) bool {
	return target != "" && !schemeRE.MatchString(target) && !strings.HasPrefix(target, "//")
}

// resolve says what is wrong with target, a link of the file from
// (relative to root), or "" when it resolves or is not relative.
func resolve(t *testing.T, root, from, target string) string {
	t.Helper()
	if !relative(target) {
		return ""
	}
	p, frag, _ := strings.Cut(target, "#")
	p, err := url.PathUnescape(p)
	if err != nil {
		return "not a valid path: " + err.Error()
	}
	var rel string
	switch {
	case p == "":
		rel = from
	case strings.HasPrefix(p, "/"):
		rel = path.Clean(strings.TrimPrefix(p, "/"))
	default:
		rel = path.Join(path.Dir(from), p)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "it leaves the repository"
	}
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return rel + " does not exist"
	}
	if frag == "" || st.IsDir() || !strings.HasSuffix(rel, ".md") {
		return ""
	}
	if frag, err = url.PathUnescape(frag); err != nil {
		return "not a valid anchor: " + err.Error()
	}
	if !readDoc(t, filepath.Join(root, filepath.FromSlash(rel))).anchors[frag] {
		return fmt.Sprintf("%s has no heading whose anchor is #%s", rel, frag)
	}
	return ""
}

var (
	mdLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlRE   = regexp.MustCompile(`<[^>]+>`)
)

// anchor is the anchor GitHub gives a heading: its text as rendered (links
// and images by their text, no HTML tags, no code backticks), lower-case,
// each space a '-', and every other character but letters, digits, '-' and
// '_' dropped.
func anchor(heading string) string {
	text := mdLinkRE.ReplaceAllString(heading, "$1")
	text = htmlRE.ReplaceAllString(text, "")
	text = strings.TrimSpace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sectionLines returns the lines of file under the level-2 heading title,
// up to the next level-1 or level-2 heading.
func sectionLines(t *testing.T, file, title string) []line {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var out []line
	in := false
	for i, text := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(text, "# ") || strings.HasPrefix(text, "## ") {
			in = strings.TrimSpace(strings.TrimPrefix(text, "## ")) == title
			continue
		}
		if in {
			out = append(out, line{n: i + 1, text: text})
		}
	}
	return out
}

// registeredTools lists the tools itr's MCP server registers, sorted, by
// running it in-process on three requests (initialize, the initialized
// notification and tools/list); it answers every request written before its
// input ends.
func registeredTools(t *testing.T) []string {
	t.Helper()
	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"docscheck","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
	}, "\n") + "\n"
	var out, errw bytes.Buffer
	code := mcpcmd.Main([]string{"-C", t.TempDir()}, strings.NewReader(requests), &out, &errw,
		func(string) string { return "" }, "docscheck")
	require.Equal(t, 0, code, "itr-mcp: %s", errw.String())
	for _, raw := range bytes.Split(out.Bytes(), []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal(raw, &msg), "%s", raw)
		if msg.ID != 2 {
			continue
		}
		require.Nil(t, msg.Error, "tools/list: %s", raw)
		var names []string
		for _, tool := range msg.Result.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}
	t.Fatalf("itr-mcp gave no answer to tools/list: %s", out.String())
	return nil
}

// toolTable returns the tools of the table in file whose first column is
// headed "tool", sorted.
func toolTable(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	row := regexp.MustCompile("^\\|\\s*`([a-z_]+)`\\s*\\|")
	var names []string
	in := false
	for _, text := range strings.Split(string(data), "\n") {
		switch {
		case regexp.MustCompile(`^\|\s*tool\s*\|`).MatchString(text):
			in = true
		case !strings.HasPrefix(text, "|"):
			in = false
		case in:
			if m := row.FindStringSubmatch(text); m != nil {
				names = append(names, m[1])
			}
		}
	}
	require.NotEmpty(t, names, "%s has a table whose first column is headed `tool`", file)
	slices.Sort(names)
	return names
}

// helpTools returns the tools `itr mcp --help` names in its one-line
// summary, "Serve itr's tools ... (resume, start, ...)", sorted.
func helpTools(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	require.Greater(t, len(lines), 2, file)
	m := regexp.MustCompile(`\(([a-z_, ]+)\)\s*$`).FindStringSubmatch(lines[2])
	require.NotNil(t, m, "%s: the summary (line 3) ends with the tools in parentheses: %q", file, lines[2])
	var names []string
	for _, n := range strings.Split(m[1], ",") {
		names = append(names, strings.TrimSpace(n))
	}
	slices.Sort(names)
	return names
}

// A count of tools stated in a page.
type count struct {
	line int
	text string
	n    int
}

var (
	numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	toolCountRE = regexp.MustCompile(`(?i)\b(` + strings.Join(numberWords, "|") + `|\d+)\s+(?:MCP\s+)?tool(?:s\b|\s+definitions\b)`)
)

// toolCounts finds every "eight tools", "8 MCP tools" or "eight tool
// definitions" in file, fenced code included.
func toolCounts(t *testing.T, file string) []count {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var out []count
	// A phrase may break across lines: match on the text with line breaks
	// as spaces, and count the breaks before each match for its line.
	text := string(data)
	flat := strings.ReplaceAll(text, "\n", " ")
	for _, m := range toolCountRE.FindAllStringSubmatchIndex(flat, -1) {
		word := strings.ToLower(flat[m[2]:m[3]])
		n := slices.Index(numberWords, word)
		if n < 0 {
			n, err = strconv.Atoi(word)
			require.NoError(t, err)
		}
		out = append(out, count{line: 1 + strings.Count(text[:m[0]], "\n"), text: flat[m[0]:m[1]], n: n})
	}
	return out
}
