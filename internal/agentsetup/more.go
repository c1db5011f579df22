package agentsetup

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/itr-dev/itr/skills"
)

// SkillDir is where itr setup writes the itr-loop skill for agents that
// read AGENTS.md-style instructions: the folder the Agent Skills standard
// names for a repository's own skills.
const SkillDir = ".agents/skills/" + skills.Loop

// ownMark, followed by the agent's name and a semicolon, marks a file as
// itr's (in a rule's HTML comment, a hook program's shell comment): itr
// setup updates and removes only files that carry it.
const ownMark = "written by itr setup "

// markerLine is the marking line of agent's rule file.
func markerLine(agent string) string {
	return "<!-- " + ownMark + agent + "; `itr setup " + agent + " --remove` takes it out -->"
}

// mcpEntry is the itr MCP server in the mcpServers form (Kiro).
var mcpEntry = map[string]any{"command": "itr", "args": []string{"mcp"}}

// instructions is the text of a rule file: how to resume and record, and
// where the whole loop is.
func instructions(root string) string {
	if root == "" {
		root = ".claude/iterative"
	}
	return "# Iterative work with itr\n\n" +
		"Long-running tasks in this repository are recorded with itr in `" + root + "/`.\n\n" +
		"- At the start of a session and after a context compaction, run `itr prime` and continue from what it says; `itr next` names the one move to make now.\n" +
		"- Record every iteration with `itr checkpoint --did \"...\" --remaining \"...\"` (one git commit each); `itr status` shows the whole task.\n" +
		"- A unit is done after three gates: `--signal` when the work is done, a confirmation iteration that checks it again (`--signal`), then a verification (`--verified --verify` or `--verified-by NAME`).\n" +
		"- Do not edit `state.json` or `progress.md` by hand; `itr reconcile` rebuilds them from git.\n" +
		"- The whole loop (discover, plan, execute, verify, deliver; subagents; guardrails) is in `" + SkillDir + "/SKILL.md`: read it before planning a task.\n"
}

// moreAgent is an agent set up with whole files itr owns (rules, the skill)
// and members of JSON settings (MCP servers).
type moreAgent struct {
	rule      string   // a rule file itr owns, "" for none
	front     string   // its front matter
	skill     bool     // also the itr-loop skill in SkillDir
	scripts   []string // hook programs itr owns, by path (Cline's hooks)
	json      string   // a JSON settings file with an itr member, "" for none
	jsonFresh map[string]any
	member    memberSpec
	global    string // the JSON file under the home folder with --global
}

func moreSpec(agent string) (moreAgent, bool) {
	switch agent {
	case "opencode":
		return moreAgent{
			json: "opencode.json", global: ".config/opencode/opencode.json",
			jsonFresh: map[string]any{"$schema": "https://opencode.ai/config.json"},
			member:    memberSpec{path: []string{"mcp"}, key: "itr", value: map[string]any{"type": "local", "command": []string{"itr", "mcp"}}},
		}, true
	case "kiro":
		return moreAgent{
			rule: ".kiro/steering/itr.md", front: "---\ninclusion: always\n---\n", skill: true,
			json: ".kiro/settings/mcp.json", global: ".kiro/settings/mcp.json",
			member: memberSpec{path: []string{"mcpServers"}, key: "itr", value: mcpEntry},
		}, true
	case "windsurf":
		return moreAgent{rule: ".windsurf/rules/itr.md", front: "---\ntrigger: always_on\n---\n", skill: true}, true
	case "cline":
		return moreAgent{rule: ".clinerules/itr.md", skill: true, scripts: []string{".clinerules/hooks/TaskStart", ".clinerules/hooks/TaskResume"}}, true
	}
	return moreAgent{}, false
}

// ruleText is the rule file's content.
func (a moreAgent) ruleText(agent, root string) []byte {
	return []byte(a.front + markerLine(agent) + "\n\n" + instructions(root))
}

func planMore(o Options, a moreAgent) (*Report, error) {
	if o.PreCompact || o.Stop {
		return nil, fmt.Errorf("--precompact and --stop are hooks of claude, codex, gemini and cursor; %s gets instructions and the MCP server", o.Agent)
	}
	r := &Report{Agent: o.Agent}
	if o.Global {
		if a.json == "" || a.global == "" {
			return nil, fmt.Errorf("%s has no --global form here: its rules belong to a repository; run itr setup %s inside it", o.Agent, o.Agent)
		}
		if err := r.planMember(o.Home, a.global, "~/"+a.global, a, o.Remove); err != nil {
			return nil, err
		}
		return r, nil
	}
	if a.rule != "" {
		if err := r.planRule(o, a); err != nil {
			return nil, err
		}
	}
	for _, script := range a.scripts {
		if err := r.planOwned(o, script, clineHook(path.Base(script)), 0o755); err != nil {
			return nil, err
		}
	}
	if a.skill {
		if err := r.planSkill(o, o.Remove && !otherInstructions(o.Top, o.Agent)); err != nil {
			return nil, err
		}
	}
	if a.json != "" {
		if err := r.planMember(o.Top, a.json, a.json, a, o.Remove); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// planRule writes, updates or removes the rule file.
func (r *Report) planRule(o Options, a moreAgent) error {
	return r.planOwned(o, a.rule, a.ruleText(o.Agent, o.TaskRoot), 0o644)
}

// planOwned writes, updates or removes a file itr owns whole (a rule, a
// hook program); a file there that itr did not write is an error that
// changes nothing.
func (r *Report) planOwned(o Options, rel string, want []byte, mode os.FileMode) error {
	c, err := mdChange(o.Top, filepath.FromSlash(rel))
	if err != nil {
		return err
	}
	c.Rel, c.Mode = rel, mode
	if c.Old != nil && !bytes.Contains(c.Old, []byte(ownMark+o.Agent+";")) {
		return fmt.Errorf("%s exists and itr did not write it (it lacks the line %s); move it aside or merge the itr text in yourself, nothing was changed", rel, markerLine(o.Agent))
	}
	name := "the itr rule " + rel
	if mode&0o111 != 0 {
		name = "the itr hook " + rel
	}
	r.planWhole(c, name, want, o.Remove)
	return nil
}

// planWhole plans one file itr writes whole, named name in what it says:
// with remove it goes if it is there; otherwise it is written unless it
// already holds want.
func (r *Report) planWhole(c Change, name string, want []byte, remove bool) {
	if remove {
		if c.Old != nil {
			c.Delete, c.What = true, []string{"removed " + name}
			r.Changes = append(r.Changes, c)
		}
		return
	}
	switch {
	case bytes.Equal(c.Old, want):
		r.Present = append(r.Present, name)
		return
	case c.Old == nil:
		c.What = []string{"added " + name}
	default:
		c.What = []string{"updated " + name}
	}
	r.Missing = append(r.Missing, name)
	c.New = want
	r.Changes = append(r.Changes, c)
}

// clineHook is the program of Cline's hook event (TaskStart, TaskResume):
// itr prime's context as Cline's contextModification; when itr is missing
// or has nothing to say, {"cancel": false}, so the task goes on.
func clineHook(event string) []byte {
	return []byte("#!/bin/sh\n" +
		"# " + ownMark + "cline; `itr setup cline --remove` takes it out\n" +
		"# Cline runs this as a task " + map[string]string{"TaskStart": "starts", "TaskResume": "resumes"}[event] + ": itr prime's context, as contextModification.\n" +
		"out=$(itr prime --hook-json=cline 2>/dev/null)\n" +
		"if [ -n \"$out\" ]; then printf '%s\\n' \"$out\"; else echo '{\"cancel\": false}'; fi\n")
}

// planSkill writes the itr-loop skill's files into SkillDir, or with
// remove takes them out.
func (r *Report) planSkill(o Options, remove bool) error {
	if o.Remove && !remove {
		return nil // another agent's instructions still point at it
	}
	return fs.WalkDir(skills.FS, skills.Loop, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, err := skills.FS.ReadFile(p)
		if err != nil {
			return err
		}
		rel := path.Join(".agents/skills", p)
		c, err := mdChange(o.Top, filepath.FromSlash(rel))
		if err != nil {
			return err
		}
		c.Rel = rel
		r.planWhole(c, "the itr-loop skill's "+rel, want, remove)
		return nil
	})
}

// otherInstructions reports whether an itr instruction other than agent's
// points at the skill: the AGENTS.md block, or another agent's rule file.
func otherInstructions(top, agent string) bool {
	if agent != "agents" {
		if data, err := os.ReadFile(filepath.Join(top, "AGENTS.md")); err == nil {
			if _, _, ok := findBlock(data); ok {
				return true
			}
		}
	}
	for _, other := range Agents {
		a, ok := moreSpec(other)
		if !ok || other == agent || a.rule == "" || !a.skill {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(top, filepath.FromSlash(a.rule))); err == nil && bytes.Contains(data, []byte(ownMark+other+";")) {
			return true
		}
	}
	return false
}

// planMember adds or removes itr's member of a JSON settings file.
func (r *Report) planMember(base, rel, shown string, a moreAgent, remove bool) error {
	target, err := safeTarget(base, filepath.Join(base, filepath.FromSlash(rel)), shown)
	if err != nil {
		return err
	}
	old, mode, err := readExisting(target, shown)
	if err != nil {
		return err
	}
	f, err := openJSON(shown, old)
	if err != nil {
		return err
	}
	f.fresh = a.jsonFresh
	name := fmt.Sprintf("the itr MCP server (%s) in %s", a.member.where(), shown)
	c := Change{Path: target, Rel: shown, Old: old, Mode: mode}
	if remove {
		removed, err := f.removeMember(a.member)
		if err != nil || !removed {
			return err
		}
		c.What, c.New = []string{"removed " + name}, f.src
		if f.empty() && old != nil {
			c.Delete, c.New = true, nil
			c.What = append(c.What, "deleted "+shown+" (it held only itr's entry)")
		}
		r.Changes = append(r.Changes, c)
		return nil
	}
	added, err := f.addMember(a.member)
	if err != nil {
		return err
	}
	if !added {
		r.Present = append(r.Present, name)
		return nil
	}
	r.Missing = append(r.Missing, name)
	c.What, c.New = []string{"added " + name}, f.src
	r.Changes = append(r.Changes, c)
	return nil
}

// agentsSkillHint is the line of the AGENTS.md block that names the skill.
var agentsSkillHint = "- The whole loop (discover, plan, execute with an N+1 confirmation, verify, deliver; subagents; guardrails) is in `" + SkillDir + "/SKILL.md`: read it before planning a task.\n"
