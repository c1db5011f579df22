package agentsetup

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs are settings files in the styles found in the wild: each agent's
// file is merged into, the result checked, and the removal compared with
// the original byte for byte.
var docs = map[string]string{
	"two spaces": `{
  "permissions": {
    "allow": ["Bash(go test:*)"],
    "deny": []
  },
  "model": "opus",
  "n": 1.50e3
}
`,
	"four spaces, hooks of others": `{
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "gofmt -w ."}]}
        ]
    },
    "env": {"A": "b & c <d>"}
}
`,
	"tabs, a session hook of another tool": "{\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]\n\t\t\t}\n\t\t],\n\t\t\"sessionStart\": [{\"command\": \"echo cursor\"}],\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./stop.sh\"}]}]\n\t}\n}\n",
	"one line":                             `{"version":1,"hooks":{"afterFileEdit":[{"command":"./fmt.sh"}]},"theme":"dark"}`,
	"one line, spaced":                     `{ "a": [1, 2], "b": { "c": null } }`,
	"crlf":                                 "{\r\n  \"theme\": \"dark\",\r\n  \"hooks\": {\r\n    \"Notification\": []\r\n  }\r\n}\r\n",
	"comments": `// Gemini settings
{
  /* shared */
  "hooks": {
    "BeforeTool": [] // none yet
  },
  "ui": {"theme": "GitHub"}
}
`,
	"empty object":     "{}\n",
	"no final newline": "{\n  \"a\": true\n}",
	"unicode and escapes": `{
  "greeting": "h\u00e9llo \"quoted\" ✓",
  "hooks": {}
}
`,
}

func setupIn(t *testing.T, o Options) *Report {
	t.Helper()
	r, err := Plan(o)
	require.NoError(t, err)
	require.NoError(t, Apply(r))
	return r
}

func TestSettingsMergeAndRemove(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini", "cursor"} {
		spec, err := specFor(agent)
		require.NoError(t, err)
		for name, doc := range docs {
			t.Run(agent+"/"+name, func(t *testing.T) {
				top := t.TempDir()
				path := filepath.Join(top, filepath.FromSlash(spec.rel))
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(doc), 0o600))
				o := Options{Agent: agent, Top: top, PreCompact: true, Stop: true}

				r := setupIn(t, o)
				require.Len(t, r.Changes, 1)
				assert.Len(t, r.Missing, len(spec.specs(o)))
				got, err := os.ReadFile(path)
				require.NoError(t, err)
				checkMerged(t, doc, string(got), spec)
				st, err := os.Stat(path)
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the file keeps its mode")

				again := setupIn(t, o)
				assert.Empty(t, again.Changes, "a second run changes nothing")
				assert.Len(t, again.Present, len(spec.specs(o)))
				same, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Equal(t, string(got), string(same))

				o.Remove = true
				setupIn(t, o)
				back, err := os.ReadFile(path)
				if name == "empty object" {
					// {} holds no settings: the file goes, as if setup had
					// created it.
					assert.True(t, os.IsNotExist(err), "an empty settings file is removed")
					return
				}
				require.NoError(t, err)
				if name == "unicode and escapes" {
					// "hooks": {} was there; removing itr's hooks leaves no
					// empty object behind.
					assert.Equal(t, "{\n  \"greeting\": \"h\\u00e9llo \\\"quoted\\\" ✓\"\n}\n", string(back))
					return
				}
				assert.Equal(t, doc, string(back), "--remove gives back the original bytes")
				assert.Empty(t, setupIn(t, o).Changes, "removing twice changes nothing")
			})
		}
	}
}

// checkMerged checks that after holds every member of before unchanged,
// plus itr's hooks, in the same layout.
func checkMerged(t *testing.T, before, after string, spec agentFile) {
	t.Helper()
	for _, ev := range append([]hookSpec{spec.session, spec.preCompact, spec.stop}, spec.reprime...) {
		assert.Contains(t, after, strings.Trim(commandOf(ev), "`"))
	}
	b, a := stripComments(before), stripComments(after)
	require.True(t, json.Valid([]byte(a)), "the result is JSON:\n%s", after)
	var bm, am map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(b), &bm))
	require.NoError(t, json.Unmarshal([]byte(a), &am))
	for k, v := range bm {
		if k != "hooks" {
			assert.Equal(t, string(v), string(am[k]), "member %q is byte for byte the same", k)
		}
	}
	var bh, ah map[string]json.RawMessage
	if raw, ok := bm["hooks"]; ok {
		require.NoError(t, json.Unmarshal(raw, &bh))
	}
	require.NoError(t, json.Unmarshal(am["hooks"], &ah))
	for k, v := range bh {
		if k == spec.session.event || k == spec.stop.event || k == spec.preCompact.event {
			var bl, al []json.RawMessage
			require.NoError(t, json.Unmarshal(v, &bl))
			require.NoError(t, json.Unmarshal(ah[k], &al))
			require.Len(t, al, len(bl)+1, "itr's entry is appended to %s", k)
			for i := range bl {
				assert.Equal(t, string(bl[i]), string(al[i]))
			}
			continue
		}
		assert.Equal(t, string(v), string(ah[k]))
	}
	if strings.Contains(before, "\r\n") {
		assert.NotRegexp(t, "[^\r]\n", after, "CRLF stays CRLF")
	}
	if strings.Contains(before, "\n\t") {
		assert.NotContains(t, after, "\n  \"", "tabs stay tabs")
	}
	assert.False(t, strings.Contains(after, "null") && !strings.Contains(before, "null"), "no null entries")
}

// stripComments blanks // and /* */ comments outside strings.
func stripComments(s string) string {
	var out strings.Builder
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			out.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				out.WriteByte(s[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out.WriteByte(c)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			i += 2 + end + 1
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}

func TestSettingsCreatedAndDeleted(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini", "cursor"} {
		t.Run(agent, func(t *testing.T) {
			top := t.TempDir()
			spec, _ := specFor(agent)
			path := filepath.Join(top, filepath.FromSlash(spec.rel))
			setupIn(t, Options{Agent: agent, Top: top})
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			var v map[string]any
			require.NoError(t, json.Unmarshal(got, &v), "%s", got)
			assert.True(t, strings.HasPrefix(string(got), "{\n  \""), "two-space indentation in a new file")
			if agent == "cursor" {
				assert.EqualValues(t, 1, v["version"])
			}
			r := setupIn(t, Options{Agent: agent, Top: top, Remove: true})
			require.Len(t, r.Changes, 1)
			assert.True(t, r.Changes[0].Delete)
			_, err = os.Stat(path)
			assert.True(t, os.IsNotExist(err), "a file that held only itr's hook is deleted")
		})
	}
}

func TestUserEditsInsideItrGroupSurviveRemove(t *testing.T) {
	top := t.TempDir()
	path := filepath.Join(top, ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	doc := `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {"type": "command", "command": "/usr/local/bin/itr prime --hook-json"},
          {"type": "command", "command": "./mine.sh"}
        ]
      }
    ]
  }
}
`
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
	r := setupIn(t, Options{Agent: "claude", Top: top})
	assert.Empty(t, r.Changes, "an itr hook by absolute path counts as present")
	setupIn(t, Options{Agent: "claude", Top: top, Remove: true})
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(got), `"./mine.sh"`)
	assert.NotContains(t, string(got), "itr prime")
	assert.True(t, json.Valid(got), "%s", got)
}

func TestBadSettingsChangeNothing(t *testing.T) {
	cases := map[string]struct{ doc, want string }{
		"syntax":           {"{\n  \"a\": 1,\n  \"b\" 2\n}\n", `.claude/settings.json:3:7: unexpected '2', ':' was expected after "b"`},
		"trailing comma":   {"{\n  \"a\": [1,],\n}\n", ".claude/settings.json:2:11: a trailing comma before ']' is not JSON"},
		"not an object":    {"[1, 2]\n", ".claude/settings.json: the document is not a JSON object"},
		"hooks not object": {"{\"hooks\": []}\n", `.claude/settings.json: "hooks" is not an object`},
		"event not array":  {"{\"hooks\": {\"SessionStart\": {}}}\n", `.claude/settings.json: "hooks"."SessionStart" is not an array`},
		"unterminated":     {"{\"a\": \"b", ".claude/settings.json:1:7: unterminated string"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			path := filepath.Join(top, ".claude", "settings.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(c.doc), 0o644))
			for _, remove := range []bool{false, true} {
				_, err := Plan(Options{Agent: "claude", Top: top, Remove: remove})
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.want)
				assert.Contains(t, err.Error(), "nothing was changed")
			}
			got, _ := os.ReadFile(path)
			assert.Equal(t, c.doc, string(got))
		})
	}
}

func TestSymlinks(t *testing.T) {
	outside := t.TempDir()
	target := filepath.Join(outside, "settings.json")
	require.NoError(t, os.WriteFile(target, []byte("{}\n"), 0o644))

	top := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(top, ".claude"), 0o755))
	link := filepath.Join(top, ".claude", "settings.json")
	require.NoError(t, os.Symlink(target, link))
	_, err := Plan(Options{Agent: "claude", Top: top})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a symbolic link to "+target+", outside")

	// A folder linked out of the repository is refused too.
	top2 := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(top2, ".codex")))
	_, err = Plan(Options{Agent: "codex", Top: top2})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside")
	got, _ := os.ReadFile(target)
	assert.Equal(t, "{}\n", string(got))

	// A link inside the repository is followed and stays a link.
	top3 := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(top3, "shared.json"), []byte("{\"a\": 1}\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(top3, ".gemini"), 0o755))
	require.NoError(t, os.Symlink("../shared.json", filepath.Join(top3, ".gemini", "settings.json")))
	setupIn(t, Options{Agent: "gemini", Top: top3})
	fi, err := os.Lstat(filepath.Join(top3, ".gemini", "settings.json"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is kept")
	shared, _ := os.ReadFile(filepath.Join(top3, "shared.json"))
	assert.Contains(t, string(shared), CommandPrime)
	entries, _ := os.ReadDir(top3)
	for _, e := range entries {
		assert.False(t, strings.Contains(e.Name(), ".itr-"), "no temporary file left: %s", e.Name())
	}
}

func TestAgentsMarkdown(t *testing.T) {
	cases := map[string]struct{ agents, claude string }{
		"both exist":             {"# Notes\n\nRun make test.\n", "# Claude\n\nPrefer small diffs.\n"},
		"no final newlines":      {"# Notes", "# Claude"},
		"neither exists":         {"", ""},
		"claude imports already": {"# Notes\n", "See @AGENTS.md for the rules.\n"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			write := func(rel, s string) {
				if s != "" {
					require.NoError(t, os.WriteFile(filepath.Join(top, rel), []byte(s), 0o644))
				}
			}
			write("AGENTS.md", c.agents)
			write("CLAUDE.md", c.claude)
			o := Options{Agent: "agents", Top: top, TaskRoot: "work/tasks"}
			setupIn(t, o)
			a, err := os.ReadFile(filepath.Join(top, "AGENTS.md"))
			require.NoError(t, err)
			assert.Contains(t, string(a), "`work/tasks/`")
			assert.True(t, strings.HasPrefix(string(a), c.agents), "the user's text stays first, unchanged")
			cl, err := os.ReadFile(filepath.Join(top, "CLAUDE.md"))
			require.NoError(t, err)
			assert.True(t, importsAgents(cl) || bytes.Contains(cl, []byte("\n@AGENTS.md\n")), "CLAUDE.md reads AGENTS.md")
			if strings.Contains(c.claude, "@AGENTS.md") {
				assert.Equal(t, c.claude, string(cl), "an existing import is enough")
			}

			r := setupIn(t, o)
			assert.Empty(t, r.Changes)
			assert.Empty(t, r.Missing)

			setupIn(t, Options{Agent: "agents", Top: top, Remove: true})
			for rel, want := range map[string]string{"AGENTS.md": c.agents, "CLAUDE.md": c.claude} {
				got, err := os.ReadFile(filepath.Join(top, rel))
				if want == "" {
					assert.True(t, os.IsNotExist(err), "%s created by setup is removed", rel)
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, want, string(got), rel)
			}
		})
	}
}

func TestAgentsBlockUpdated(t *testing.T) {
	top := t.TempDir()
	old := "# Notes\n\n" + blockBegin + "\nan older text\n" + blockEnd + "\n\n## More\n"
	require.NoError(t, os.WriteFile(filepath.Join(top, "AGENTS.md"), []byte(old), 0o644))
	r := setupIn(t, Options{Agent: "agents", Top: top})
	require.NotEmpty(t, r.Changes)
	assert.Contains(t, r.Changes[0].What[0], "updated")
	got, _ := os.ReadFile(filepath.Join(top, "AGENTS.md"))
	assert.Equal(t, "# Notes\n\n"+agentsBlock("")+"\n## More\n", string(got))
}

func TestIsItrCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"itr prime --hook-json":                 true,
		"itr prime --hook-json=cursor":          true,
		"/home/me/go/bin/itr prime --hook-json": true,
		"itr agent-hook stop --format gemini":   true,
		"itr agent-hook prompt --format gemini": true,
		"itr prime":                             false,
		"itrx prime --hook-json":                false,
		"echo itr prime --hook-json":            false,
		"":                                      false,
	} {
		assert.Equal(t, want, isItrCommand(cmd), cmd)
	}
}

// TestGeminiReprimeAfterCompression: Gemini CLI fires no SessionStart
// after compressing a session, so plain `itr setup gemini` registers,
// besides SessionStart, a PreCompress hook marking the compression and a
// BeforeAgent hook giving the context back at the next prompt. The others
// get SessionStart alone (Claude Code and Codex match "compact").
func TestGeminiReprimeAfterCompression(t *testing.T) {
	top := t.TempDir()
	r := setupIn(t, Options{Agent: "gemini", Top: top})
	assert.Equal(t, []string{
		"SessionStart hook `itr prime --hook-json` in .gemini/settings.json",
		"PreCompress hook `itr agent-hook pre-compact` in .gemini/settings.json",
		"BeforeAgent hook `itr agent-hook prompt --format gemini` in .gemini/settings.json",
	}, r.Missing)
	got, err := os.ReadFile(filepath.Join(top, ".gemini", "settings.json"))
	require.NoError(t, err)
	want := `{
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "name": "itr-prime",
            "type": "command",
            "command": "itr prime --hook-json",
            "timeout": 30000
          }
        ]
      }
    ],
    "PreCompress": [
      {
        "hooks": [
          {
            "name": "itr-pre-compress",
            "type": "command",
            "command": "itr agent-hook pre-compact",
            "timeout": 30000
          }
        ]
      }
    ],
    "BeforeAgent": [
      {
        "hooks": [
          {
            "name": "itr-reprime",
            "type": "command",
            "command": "itr agent-hook prompt --format gemini",
            "timeout": 30000
          }
        ]
      }
    ]
  }
}
`
	assert.Equal(t, want, string(got))

	// --precompact adds nothing more: PreCompress is there already.
	again := setupIn(t, Options{Agent: "gemini", Top: top, PreCompact: true})
	assert.Empty(t, again.Changes)
	assert.Len(t, again.Present, 3)

	// A file set up by an older itr (SessionStart alone) gets the two.
	old := t.TempDir()
	path := filepath.Join(old, ".gemini", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"itr prime --hook-json"}]}]}}`), 0o644))
	r, err = Plan(Options{Agent: "gemini", Top: old})
	require.NoError(t, err)
	assert.Len(t, r.Present, 1)
	assert.Len(t, r.Missing, 2)

	for _, agent := range []string{"claude", "codex", "cursor"} {
		r := setupIn(t, Options{Agent: agent, Top: t.TempDir()})
		assert.Len(t, r.Missing, 1, "%s: SessionStart alone", agent)
	}
}

func TestPromptContext(t *testing.T) {
	b, err := json.Marshal(PromptContext("gemini", "# ctx"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"# ctx"}}`, string(b))
	b, err = json.Marshal(PromptContext("claude", "# ctx"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"# ctx"}}`, string(b))
}
