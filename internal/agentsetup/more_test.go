package agentsetup

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/itr-dev/itr/internal/npmtest"
)

// tree returns every file under dir with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if info.IsDir() {
			if rel != "." {
				out[filepath.ToSlash(rel)+"/"] = ""
			}
			return nil
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

func keys(m map[string]string) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

func setupMore(t *testing.T, top, agent string, remove bool) *Report {
	t.Helper()
	r, err := Plan(Options{Agent: agent, Top: top, Remove: remove, TaskRoot: ".claude/iterative"})
	require.NoError(t, err)
	require.NoError(t, Apply(r))
	return r
}

// TestMoreAgents sets up each agent with instructions and the MCP server
// in a repository whose settings hold other things: the files it writes,
// nothing on a second run, and a removal that gives back the repository
// byte for byte.
func TestMoreAgents(t *testing.T) {
	for _, tc := range []struct {
		agent    string
		existing map[string]string
		want     []string // files setup adds or changes
		contains map[string]string
	}{
		{
			agent:    "opencode",
			existing: map[string]string{"opencode.json": "{\n\t\"$schema\": \"https://opencode.ai/config.json\",\n\t// the team's model\n\t\"model\": \"anthropic/claude-sonnet-4-5\"\n}\n"},
			want:     []string{"opencode.json"},
			contains: map[string]string{"opencode.json": "\t\"model\": \"anthropic/claude-sonnet-4-5\",\n\t\"mcp\": {\n\t\t\"itr\": {\n\t\t\t\"command\": [\n\t\t\t\t\"itr\",\n\t\t\t\t\"mcp\"\n\t\t\t],\n\t\t\t\"type\": \"local\"\n\t\t}\n\t}\n}\n"},
		},
		{
			agent:    "kiro",
			existing: map[string]string{".kiro/settings/mcp.json": `{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}` + "\n"},
			want:     []string{".kiro/settings/mcp.json", ".kiro/steering/itr.md", ".agents/skills/itr-loop/SKILL.md"},
			contains: map[string]string{
				".kiro/settings/mcp.json": `"mcp-server-fetch"]}, "itr": {"args":["mcp"],"command":"itr"}}}`,
				".kiro/steering/itr.md":   "---\ninclusion: always\n---\n<!-- written by itr setup kiro;",
			},
		},
		{
			agent:    "windsurf",
			existing: map[string]string{".windsurf/rules/style.md": "---\ntrigger: always_on\n---\nUse tabs.\n"},
			want:     []string{".windsurf/rules/itr.md", ".agents/skills/itr-loop/references/orchestrators.md"},
			contains: map[string]string{".windsurf/rules/itr.md": "---\ntrigger: always_on\n---\n<!-- written by itr setup windsurf;"},
		},
		{
			agent: "cline",
			want:  []string{".clinerules/itr.md", ".clinerules/hooks/TaskStart", ".clinerules/hooks/TaskResume", ".agents/skills/itr-loop/SKILL.md"},
			contains: map[string]string{
				".clinerules/itr.md":           "`.agents/skills/itr-loop/SKILL.md`",
				".clinerules/hooks/TaskStart":  "#!/bin/sh\n# written by itr setup cline;",
				".clinerules/hooks/TaskResume": "out=$(itr prime --hook-json=cline 2>/dev/null)\n",
			},
		},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			top := t.TempDir()
			for rel, text := range tc.existing {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(top, rel)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(top, rel), []byte(text), 0o644))
			}
			before := tree(t, top)

			r := setupMore(t, top, tc.agent, false)
			require.NotEmpty(t, r.Missing)
			after := tree(t, top)
			for _, rel := range tc.want {
				require.Contains(t, after, rel)
				require.NotEqual(t, before[rel], after[rel], rel)
			}
			for rel, text := range tc.contains {
				require.Contains(t, after[rel], text, rel)
			}
			for rel, text := range tc.existing {
				if !strings.HasSuffix(rel, ".json") {
					require.Equal(t, text, after[rel], "a file that is not itr's is left alone")
				}
			}

			again, err := Plan(Options{Agent: tc.agent, Top: top, TaskRoot: ".claude/iterative"})
			require.NoError(t, err)
			require.Empty(t, again.Changes, "a second run changes nothing")
			require.Empty(t, again.Missing)

			setupMore(t, top, tc.agent, true)
			require.Equal(t, keys(before), keys(tree(t, top)))
			require.Equal(t, before, tree(t, top), "--remove gives back the files as they were")
		})
	}
}

// TestRuleNotItrsRefused: a rule file of the same name that itr did not
// write is an error naming the file and the fix, and nothing changes.
func TestRuleNotItrsRefused(t *testing.T) {
	top := t.TempDir()
	rel := filepath.Join(".windsurf", "rules", "itr.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(top, rel)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(top, rel), []byte("my own notes on itr\n"), 0o644))
	before := tree(t, top)
	for _, remove := range []bool{false, true} {
		_, err := Plan(Options{Agent: "windsurf", Top: top, Remove: remove})
		require.ErrorContains(t, err, ".windsurf/rules/itr.md exists and itr did not write it")
		require.ErrorContains(t, err, "nothing was changed")
	}
	require.Equal(t, before, tree(t, top))
}

// TestSkillSharedByInstructions: the itr-loop skill stays while any itr
// instruction points at it (the AGENTS.md block, a rule file), and goes
// with the last one.
func TestSkillSharedByInstructions(t *testing.T) {
	top := t.TempDir()
	skill := ".agents/skills/itr-loop/SKILL.md"
	setupMore(t, top, "agents", false)
	setupMore(t, top, "cline", false)
	require.Contains(t, tree(t, top)["AGENTS.md"], "`.agents/skills/itr-loop/SKILL.md`")
	setupMore(t, top, "agents", true)
	require.Contains(t, tree(t, top), skill, "cline's rule still points at it")
	setupMore(t, top, "cline", true)
	require.Empty(t, tree(t, top), "the last removal takes the skill and its folders")
}

// TestMoreAgentsRefuse: the flags that do not apply are refused.
func TestMoreAgentsRefuse(t *testing.T) {
	top := t.TempDir()
	_, err := Plan(Options{Agent: "windsurf", Top: top, Global: true, Home: t.TempDir()})
	require.ErrorContains(t, err, "windsurf has no --global form")
	_, err = Plan(Options{Agent: "kiro", Top: top, Stop: true})
	require.ErrorContains(t, err, "--precompact and --stop are hooks")
	home := t.TempDir()
	r, err := Plan(Options{Agent: "opencode", Global: true, Home: home})
	require.NoError(t, err)
	require.NoError(t, Apply(r))
	require.FileExists(t, filepath.Join(home, ".config", "opencode", "opencode.json"))
}

// TestOpencodeAcceptsConfig runs the real opencode (npm's opencode-ai) on
// the opencode.json itr setup opencode merged into: it must load it as
// valid and list the itr MCP server; a wrong shape is shown to fail.
func TestOpencodeAcceptsConfig(t *testing.T) {
	dir, _ := npmtest.Dir(t, "ITR_OPENCODE_DIR", "opencode-ai@1")
	bin := filepath.Join(dir, "node_modules", ".bin", "opencode")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no opencode program in %s: %v", dir, err)
	}
	debugConfig := func(top string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "debug", "config")
		cmd.Dir = top
		home := t.TempDir()
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		_ = cmd.Run()
		return out.String()
	}
	top := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(top, "opencode.json"), []byte("{\n  // the team's settings\n  \"autoupdate\": false\n}\n"), 0o644))
	setupMore(t, top, "opencode", false)
	out := debugConfig(top)
	t.Logf("opencode debug config:\n%s", out)
	require.NotContains(t, out, "invalid")
	require.Contains(t, out, `"itr"`)
	require.Contains(t, out, `"autoupdate": false`)

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "opencode.json"), []byte(`{"mcp": {"itr": {"type": "local", "command": "itr mcp"}}}`), 0o644))
	require.Contains(t, debugConfig(bad), "invalid", "opencode refuses a wrong shape, so the check above means something")
}

// TestRuleFrontMatter checks each rule file's front matter against what
// its agent documents for a rule that always applies: Kiro's steering
// "inclusion: always" (https://kiro.dev/docs/steering/), Windsurf's
// "trigger: always_on" (https://docs.windsurf.com/windsurf/cascade/memories,
// activation modes), and none for Cline, whose .clinerules files apply
// always without it (https://docs.cline.bot/customization/overview). No
// npm package carries these clients' checks.
func TestRuleFrontMatter(t *testing.T) {
	for agent, want := range map[string]map[string]string{
		"kiro":     {"inclusion": "always"},
		"windsurf": {"trigger": "always_on"},
		"cline":    nil,
	} {
		a, ok := moreSpec(agent)
		require.True(t, ok)
		text := string(a.ruleText(agent, ""))
		got := map[string]string{}
		if rest, ok := strings.CutPrefix(text, "---\n"); ok {
			front, body, found := strings.Cut(rest, "\n---\n")
			require.True(t, found, "%s: the front matter is closed", agent)
			for _, line := range strings.Split(front, "\n") {
				k, v, ok := strings.Cut(line, ": ")
				require.True(t, ok, "%s: %q is a key: value line", agent, line)
				got[k] = v
			}
			text = body
		}
		if want == nil {
			want = map[string]string{}
		}
		require.Equal(t, want, got, agent)
		require.True(t, strings.HasPrefix(text, markerLine(agent)+"\n"), agent)
		require.Less(t, len(a.ruleText(agent, "")), 12000, "Windsurf reads at most 12,000 characters of a rule")
	}
}

// TestClineHooks: Cline's hook programs are executable, answer
// {"cancel": false} when itr has nothing to say, and prime --hook-json=cline
// gives Cline's envelope.
func TestClineHooks(t *testing.T) {
	top := t.TempDir()
	setupMore(t, top, "cline", false)
	for _, event := range []string{"TaskStart", "TaskResume"} {
		p := filepath.Join(top, ".clinerules", "hooks", event)
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o755), st.Mode().Perm(), event)
		if _, err := exec.LookPath("sh"); err != nil {
			continue
		}
		cmd := exec.Command(p)
		cmd.Dir = top
		cmd.Env = append(os.Environ(), "PATH="+t.TempDir()) // no itr
		cmd.Stdin = strings.NewReader(`{"hookName": "` + event + `", "taskId": "17"}`)
		out, err := cmd.Output()
		require.NoError(t, err)
		require.Equal(t, "{\"cancel\": false}\n", string(out))
	}
	got, err := json.Marshal(SessionContext("cline", "# itr"))
	require.NoError(t, err)
	require.JSONEq(t, `{"cancel": false, "contextModification": "# itr"}`, string(got))
	require.Equal(t, "17", ReadHookInput(strings.NewReader(`{"taskId": "17"}`)).SessionID)
}

// TestPluginHooksMatchSetup: the Claude Code plugin's manifest registers
// the same SessionStart entry itr setup claude writes, and runs the same
// MCP server as itr setup kiro registers.
func TestPluginHooksMatchSetup(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".claude-plugin", "plugin.json"))
	require.NoError(t, err)
	var plugin struct {
		Hooks      map[string][]json.RawMessage `json:"hooks"`
		MCPServers map[string]json.RawMessage   `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(data, &plugin))
	spec, err := specFor("claude")
	require.NoError(t, err)
	want, err := json.Marshal(spec.session.entry)
	require.NoError(t, err)
	require.Len(t, plugin.Hooks, 1, "only the SessionStart hook, as itr setup claude writes by default")
	require.Len(t, plugin.Hooks["SessionStart"], 1)
	require.JSONEq(t, string(want), string(plugin.Hooks["SessionStart"][0]))

	want, err = json.Marshal(mcpEntry)
	require.NoError(t, err)
	require.Len(t, plugin.MCPServers, 1)
	require.JSONEq(t, string(want), string(plugin.MCPServers["itr"]))
}
