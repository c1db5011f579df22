package view

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/npmtest"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/plan"
	"github.com/itr-dev/itr/state"
)

// graphOf is the graph of a plan written as tasks.md units (under a
// "## Tasks" heading added here) in the given statuses (pending when not
// named), with titles replaced by titles (to hold what markdown cannot)
// and claims.
func graphOf(t *testing.T, units string, status map[string]state.Status, titles map[string]string, claims map[string]store.Claim) *GraphModel {
	t.Helper()
	p, err := plan.Parse("tasks.md", []byte("# Demo - Tasks\n\n## Tasks\n\n"+units))
	require.NoError(t, err)
	s := state.New(state.Development, "demo", "demo", "")
	for _, u := range p.Units {
		st := status[u.ID]
		if st == "" {
			st = state.Pending
		}
		s.Units[u.ID] = &state.Unit{ID: u.ID, Status: st, IterationsUsed: state.Ptr(1), MaxIterations: state.Ptr(5)}
		if title, ok := titles[u.ID]; ok {
			p.Unit(u.ID).Title = title
		}
	}
	return GraphOf("demo", s, p, claims)
}

// chain is T1 ← T2 ← T3 and T4 ← T3's sibling T5: two branches.
const chain = `- [ ] **T1**: Model
  - Estimate: 1h
- [ ] **T2**: Service
  - Depends: T1
  - Estimate: 1h
- [ ] **T3**: Handler
  - Depends: T2
  - Estimate: 1h
- [ ] **T4**: Docs
  - Depends: T1
  - Estimate: 8h
`

func TestGraphOfClassesLayersCritical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		units    string
		status   map[string]state.Status
		class    map[string]string
		layer    map[string]int
		critical []string
		weight   string
	}{
		{
			name: "by estimate the long unit wins", units: chain,
			class:    map[string]string{"T1": ClassReady, "T2": ClassWaiting, "T3": ClassWaiting, "T4": ClassWaiting},
			layer:    map[string]int{"T1": 0, "T2": 1, "T3": 2, "T4": 1},
			critical: []string{"T1", "T4"}, weight: "9h",
		},
		{
			name: "without estimates by count", units: strings.ReplaceAll(chain, "  - Estimate: 8h\n", ""),
			critical: []string{"T1", "T2", "T3"}, weight: "3 units",
		},
		{
			name: "done units leave the path and free their dependants", units: chain,
			status:   map[string]state.Status{"T1": state.Done, "T2": state.InProgress, "T4": state.Blocked},
			class:    map[string]string{"T1": ClassDone, "T2": ClassInProgress, "T3": ClassWaiting, "T4": ClassBlocked},
			critical: []string{"T4"}, weight: "8h",
		},
		{
			name: "every class", units: chain + "- [ ] **T5**: More\n  - Estimate: 1h\n- [ ] **T6**: Last\n  - Estimate: 1h\n",
			status: map[string]state.Status{"T1": state.Done, "T2": state.Confirming, "T3": state.Verifying, "T5": state.Timeout},
			class:  map[string]string{"T1": ClassDone, "T2": ClassConfirming, "T3": ClassVerifying, "T4": ClassReady, "T5": ClassTimeout, "T6": ClassReady},
		},
		{
			name: "all done", units: chain,
			status:   map[string]state.Status{"T1": state.Done, "T2": state.Done, "T3": state.Done, "T4": state.Done},
			critical: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := graphOf(t, tt.units, tt.status, nil, nil)
			for _, n := range g.Nodes {
				if c, ok := tt.class[n.ID]; ok {
					assert.Equal(t, c, n.Class, n.ID)
				}
				if l, ok := tt.layer[n.ID]; ok {
					assert.Equal(t, l, n.Layer, n.ID)
				}
			}
			if tt.critical != nil {
				assert.Equal(t, tt.critical, g.Critical)
				assert.Equal(t, tt.weight, g.Weight)
				on := map[string]bool{}
				for _, id := range tt.critical {
					on[id] = true
				}
				for _, n := range g.Nodes {
					assert.Equal(t, on[n.ID], n.Critical, n.ID)
				}
			}
		})
	}
}

func TestGraphRenderers(t *testing.T) {
	t.Parallel()
	claims := map[string]store.Claim{"T2": {Unit: "T2", Agent: "bob", Since: "2026-01-14T10:00:00Z", Until: "2026-01-14T12:00:00Z"}}
	g := graphOf(t, strings.ReplaceAll(chain, "  - Estimate: 8h\n", ""), map[string]state.Status{"T1": state.Done, "T4": state.Blocked}, nil, claims)
	require.Equal(t, []string{"T2", "T3"}, g.Critical)

	mmd := g.Mermaid()
	for _, want := range []string{
		"flowchart LR\n",
		`  u_T1["T1: Model<br/>done · 1/5 iterations"]` + "\n",
		`  u_T2["T2: Service<br/>pending · 1/5 iterations<br/>held by bob until 2026-01-14T12:00:00Z #40;since 2026-01-14T10:00:00Z#41;"]` + "\n",
		"  u_T1 --> u_T2\n", "  u_T2 ==> u_T3\n", "  u_T1 --> u_T4\n",
		"  class u_T1 done\n", "  class u_T2 ready\n", "  class u_T3 waiting\n", "  class u_T4 blocked\n",
		"  class u_T2,u_T3 critical\n",
		"  classDef waiting fill:#eeeeee,stroke:#777777,color:#000000,stroke-width:1px,stroke-dasharray:6 4\n",
		"  classDef blocked fill:#fbe3cf,stroke:#c25400,color:#000000,stroke-width:2px,stroke-dasharray:9 3 2 3\n",
		`  u_T4["! T4: Docs<br/>`,
	} {
		assert.Contains(t, mmd, want)
	}

	dot := g.Dot()
	for _, want := range []string{
		"digraph \"itr\" {\n  rankdir=LR;\n",
		`  u_T2 [label="T2: Service\npending · 1/5 iterations\nheld by bob until 2026-01-14T12:00:00Z (since 2026-01-14T10:00:00Z)", fillcolor="#ffffff", color="#222222", penwidth=3];`,
		`  u_T3 [label="T3: Handler\npending · 1/5 iterations", fillcolor="#eeeeee", color="#777777", style="rounded,filled,dashed", penwidth=3];`,
		`  u_T4 [label="! T4: Docs\nblocked · 1/5 iterations", fillcolor="#fbe3cf", color="#c25400", peripheries=2];`,
		"  u_T2 -> u_T3 [penwidth=3, color=\"#000000\"];\n", "  u_T1 -> u_T2;\n",
		"  labelloc=b;\n", `<td border="2" bgcolor="#fbe3cf" color="#c25400"><font point-size="10">! blocked</font></td>`,
	} {
		assert.Contains(t, dot, want)
	}

	assert.Equal(t, `Critical path: T2 → T3 (2 units)
Legend: [x] done  [>] in progress  [c] confirming  [v] verifying  [!] blocked  [t] timeout  [ ] ready  [.] waiting  * critical path

Layer 0
  [x] T1  Model

Layer 1
  [ ] T2  Service  ← T1 *  (held by bob until 2026-01-14T12:00:00Z (since 2026-01-14T10:00:00Z))
  [!] T4  Docs  ← T1

Layer 2
  [.] T3  Handler  ← T2 *
`, g.ASCII(0))
	assert.Contains(t, g.ASCII(25), "  [x] T1  Model\n", "a title of width-20 characters stays whole")
	assert.Contains(t, g.ASCII(24), "  [.] T3  Han…  ← T2 *\n", "longer titles are cut")
}

func TestGraphEmptyAndOne(t *testing.T) {
	t.Parallel()
	empty := GraphOf("demo", state.New(state.Development, "demo", "demo", ""), nil, nil)
	assert.Equal(t, "flowchart LR\n  empty[\"demo: no units planned yet\"]\n", empty.Mermaid())
	assert.Contains(t, empty.Dot(), `empty [label="demo: no units planned yet"`)
	assert.Equal(t, "demo: no units planned yet\n", empty.ASCII(80))

	one := graphOf(t, "- [ ] **T1**: Only\n", nil, nil, nil)
	assert.Equal(t, []string{"T1"}, one.Critical)
	assert.Equal(t, "1 unit", one.Weight)
	assert.Contains(t, one.ASCII(0), "Critical path: T1 (1 unit)\n")
	assert.Contains(t, one.ASCII(0), "  [ ] T1  Only *\n")
	assert.Contains(t, one.Mermaid(), "  class u_T1 critical\n")
}

// hostile are titles that try to break out of every format.
var hostile = map[string]string{
	"T1": `"] --> X["pwned`,
	"T2": "<script>alert(1)</script>",
	"T3": "`**md**` #quot; %% comment",
	"T4": "red \x1b[31mRED\x1b[0m and \u202eevil",
	"T5": "two\nlines\r\nand \\N \\l back\\slash \"quoted\"",
	"T6": "end } ] ) | ; & #35; #60;",
}

// hostilePlan is T1..T6 in a chain, titled from hostile.
func hostileGraph(t *testing.T) *GraphModel {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "- [ ] **T%d**: placeholder\n", i)
		if i > 1 {
			fmt.Fprintf(&b, "  - Depends: T%d\n", i-1)
		}
	}
	claims := map[string]store.Claim{"T1": {Unit: "T1", Agent: "\"]<b>eve\x1b[0m", Since: "s", Until: "u"}}
	return graphOf(t, b.String(), nil, hostile, claims)
}

func TestGraphHostileTitles(t *testing.T) {
	t.Parallel()
	g := hostileGraph(t)
	mmd := g.Mermaid()
	assertMermaidGrammar(t, mmd)
	for _, bad := range []string{"<script", "`", "%%", "\x1b", "\u202e", "pwned\"", "#quot;", "\\"} {
		assert.NotContains(t, mmd, bad)
	}
	assert.Contains(t, mmd, `u_T2["T2: #60;script#62;alert#40;1#41;#60;/script#62;<br/>`)

	dot := g.Dot()
	assert.Contains(t, dot, `u_T1 [label="T1: \"] --> X[\"pwned\n`)
	assert.Contains(t, dot, `u_T5 [label="T5: two lines and \\N \\l back\\slash \"quoted\"\n`)
	assert.Contains(t, dot, `held by \"]<b>eve\\x1b[0m until u (since s)"`)
	assert.NotContains(t, dot, "\x1b")

	ascii := g.ASCII(0)
	assert.NotContains(t, ascii, "\x1b")
	assert.NotContains(t, ascii, "\u202e")
	assert.Contains(t, ascii, `[.] T4  red \x1b[31mRED\x1b[0m and \u202eevil  ← T3`)
	assert.Contains(t, ascii, `[.] T5  two lines and \N \l back\slash "quoted"  ← T4`)
	assert.Equal(t, 2+6*2+6, strings.Count(ascii, "\n"), "one line per unit: no title adds one")
}

func TestGraphIDsSafeAndUnique(t *testing.T) {
	t.Parallel()
	g := &GraphModel{Nodes: []GraphNode{{ID: "T-1"}, {ID: "T_1"}, {ID: "T 1"}, {ID: "end"}, {ID: "é"}}}
	ids := g.graphIDs()
	assert.Equal(t, map[string]string{"T-1": "u_T_1", "T_1": "u_T_1_2", "T 1": "u_T_1_3", "end": "u_end", "é": "u__"}, ids)
	assertMermaidGrammar(t, g.Mermaid())
}

// bigGraph is n units, each depending on the one of half its number.
func bigGraph(t *testing.T, n int) *GraphModel {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] **T%d**: Unit number %d\n", i, i)
		if i > 1 {
			fmt.Fprintf(&b, "  - Depends: T%d\n", i/2)
		}
	}
	status := map[string]state.Status{}
	for i := 1; i <= n/10; i++ {
		status[fmt.Sprintf("T%d", i)] = state.Done
	}
	return graphOf(t, b.String(), status, nil, nil)
}

func TestGraphBig(t *testing.T) {
	t.Parallel()
	g := bigGraph(t, 500)
	require.Len(t, g.Nodes, 500)
	require.Len(t, g.Edges, 499)
	assert.Equal(t, 8, g.Nodes[499].Layer) // T500: 500 → 250 → 125 → 62 → 31 → 15 → 7 → 3 → 1
	assertMermaidGrammar(t, g.Mermaid())
	assert.Equal(t, 2+9*2+500, strings.Count(g.ASCII(80), "\n"))
}

// The lines Mermaid() writes, each one statement of the flowchart
// grammar; labels are quoted and hold no quote.
var mermaidLine = []*regexp.Regexp{
	regexp.MustCompile(`^flowchart LR$`),
	regexp.MustCompile(`^ {2,4}[A-Za-z_][A-Za-z0-9_]*\["[^"]*"\]$`),
	regexp.MustCompile(`^  [A-Za-z_][A-Za-z0-9_]* (-->|==>) [A-Za-z_][A-Za-z0-9_]*$`),
	regexp.MustCompile(`^  classDef [a-z_]+ [a-z-]+:[#0-9a-z ]+(,[a-z-]+:[#0-9a-z ]+)*$`),
	regexp.MustCompile(`^  class [A-Za-z_][A-Za-z0-9_]*(,[A-Za-z_][A-Za-z0-9_]*)* [a-z_]+$`),
	regexp.MustCompile(`^  subgraph legend \["Legend"\]$`),
	regexp.MustCompile(`^  end$`),
}

// labelText is what a label may hold: entity codes, <br/> and characters
// that are not ASCII punctuation with a meaning to Mermaid.
var labelText = regexp.MustCompile(`^([^"<>&#%` + "`" + `\\\[\]{}()|;]|#[0-9]+;|<br/>)*$`)

// assertMermaidGrammar checks the text against the rules of the flowchart
// grammar Mermaid() relies on, without a Mermaid parser.
func assertMermaidGrammar(t *testing.T, text string) {
	t.Helper()
	require.True(t, strings.HasSuffix(text, "\n"))
	label := regexp.MustCompile(`\["([^"]*)"\]`)
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		ok := false
		for _, re := range mermaidLine {
			ok = ok || re.MatchString(line)
		}
		require.True(t, ok, "line %d is no statement Mermaid() writes: %q", i+1, line)
		if m := label.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "  subgraph") {
			require.Regexp(t, labelText, m[1], "line %d", i+1)
		}
	}
}

// sampleGraphs are the graphs the renderers' outputs are checked on by
// the tools themselves: an empty task, one unit, hostile names and 500
// units.
func sampleGraphs(t *testing.T) map[string]*GraphModel {
	return map[string]*GraphModel{
		"empty":   GraphOf("demo", state.New(state.Development, "demo", "demo", ""), nil, nil),
		"one":     graphOf(t, "- [ ] **T1**: Only\n", nil, nil, nil),
		"hostile": hostileGraph(t),
		"500":     bigGraph(t, 500),
	}
}

func TestGraphDotGraphviz(t *testing.T) {
	t.Parallel()
	dotBin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("graphviz (dot) is not installed")
	}
	for name, g := range sampleGraphs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, dotBin, "-Tsvg")
			cmd.Stdin = strings.NewReader(g.Dot())
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			require.NoError(t, cmd.Run(), "dot -Tsvg: %s", errOut.String())
			assert.Empty(t, errOut.String(), "dot warns")
			svg := out.String()
			require.Contains(t, svg, "<svg")
			for _, n := range g.Nodes {
				assert.Contains(t, svg, ">"+n.ID+": ", "the SVG shows %s", n.ID)
			}
			assert.NotContains(t, svg, "<script")
		})
	}
}

// mermaidChecker is a command that runs testdata/mermaid/check.mjs with
// the mermaid and jsdom packages (npmtest: ITR_MERMAID_DIR, else npm into a
// temporary folder; skipped, saying why, without node or npm or offline).
func mermaidChecker(t *testing.T) (node, script string) {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("testdata", "mermaid", "check.mjs"))
	require.NoError(t, err)
	dir, node := npmtest.Dir(t, "ITR_MERMAID_DIR", "mermaid@11", "jsdom")
	script = filepath.Join(dir, "check.mjs")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(script, data, 0o644))
	if dir == os.Getenv("ITR_MERMAID_DIR") {
		t.Cleanup(func() { os.Remove(script) })
	}
	return node, script
}

// mermaidParsed is what check.mjs prints.
type mermaidParsed struct {
	Type     string `json:"type"`
	Vertices map[string]struct {
		Text    string   `json:"text"`
		Classes []string `json:"classes"`
	} `json:"vertices"`
	Edges []struct {
		From   string `json:"from"`
		To     string `json:"to"`
		Stroke string `json:"stroke"`
	} `json:"edges"`
}

func TestGraphMermaidParses(t *testing.T) {
	node, script := mermaidChecker(t)
	for name, g := range sampleGraphs(t) {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "graph.mmd")
			require.NoError(t, os.WriteFile(file, []byte(g.Mermaid()), 0o644))
			cmd := exec.Command(node, script, file)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			require.NoError(t, cmd.Run(), "mermaid refuses the text: %s", errOut.String())
			var p mermaidParsed
			require.NoError(t, json.Unmarshal(out.Bytes(), &p))
			assert.Equal(t, "flowchart-v2", p.Type)
			ids := g.graphIDs()
			units := 0
			for id := range p.Vertices {
				if !strings.HasPrefix(id, "legend_") && id != "empty" {
					units++
				}
			}
			assert.Equal(t, len(g.Nodes), units, "one vertex per unit, none made up by a title")
			for _, n := range g.Nodes {
				v, ok := p.Vertices[ids[n.ID]]
				require.True(t, ok, n.ID)
				want := marked(n.Class, n.ID)
				if title := graphText(n.Title); title != "" {
					want += ": " + title
				}
				assert.True(t, strings.HasPrefix(v.Text, want+"<br>"), "%s's label reads %q, not %q", n.ID, v.Text, want)
				assert.Contains(t, v.Classes, n.Class)
			}
			assert.Len(t, p.Edges, len(g.Edges))
			for i, e := range g.Edges {
				want := "normal"
				if e.Critical {
					want = "thick"
				}
				assert.Equal(t, want, p.Edges[i].Stroke, "%s → %s", e.From, e.To)
			}
		})
	}
}
