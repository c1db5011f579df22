package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/itr-dev/itr/internal/agentsetup"
	"github.com/itr-dev/itr/internal/workspace"
	"github.com/itr-dev/itr/progresslog"
)

func newSetupCmd(g *globals) *cobra.Command {
	var o agentsetup.Options
	var check, print bool
	cmd := &cobra.Command{
		Use:   "setup [git|claude|codex|gemini|cursor|agents|opencode|kiro|windsurf|cline] [--check] [--remove] [--print] [--global]",
		Short: "Register itr with git (merge driver) or with a coding agent (resume hook)",
		Long: `With no argument, or git: register itr's git merge driver, so that git merge, rebase and
cherry-pick resolve progress.md, guardrails.md and state.json by themselves: the log becomes
the union of both sides' entries and state.json is rebuilt from it. It adds three lines to
<root>/.gitattributes and a [merge "itr"] section to the repository's git config. Run it once
in every clone (git does not copy config); itr init does it for new tasks.

With an agent: register a SessionStart hook (new session, resume, /clear, compaction) that
runs ` + "`itr prime --hook-json`" + `, so the agent starts every session knowing where the work stands:
  claude   .claude/settings.json  (--global: ~/.claude/settings.json)
  codex    .codex/hooks.json      (--global: ~/.codex/hooks.json)
  gemini   .gemini/settings.json  (--global: ~/.gemini/settings.json)
  cursor   .cursor/hooks.json     (--global: ~/.cursor/hooks.json)
  agents   a managed block in AGENTS.md, and @AGENTS.md in CLAUDE.md for Claude Code, and the
           itr-loop skill in .agents/skills/itr-loop/ that the block points at
Agents without a session hook itr can give context through get instructions, and the MCP
server where their project settings take one:
  opencode the itr MCP server in opencode.json's "mcp" (--global: ~/.config/opencode/opencode.json)
  kiro     a steering file .kiro/steering/itr.md (inclusion: always), the itr-loop skill, and
           the MCP server in .kiro/settings/mcp.json (--global: ~/.kiro/settings/mcp.json)
  windsurf a rule .windsurf/rules/itr.md (trigger: always_on) and the itr-loop skill
  cline    a rule .clinerules/itr.md, the itr-loop skill, and TaskStart and TaskResume hooks in
           .clinerules/hooks/ that give itr prime's context (--hook-json=cline)
The file is merged, never overwritten: every other key and hook stays byte for byte, in the
file's own indentation; running setup again changes nothing; --remove takes out only what
setup added. The hook exits 0 and prints nothing on every error, so it never blocks a session.
Gemini CLI fires no SessionStart after compressing a session, so gemini also gets a
PreCompress hook that marks the compression and a BeforeAgent hook that gives the next
prompt the prime context once. --precompact adds a compaction hook for the others, which
logs to .git/itr-agent.log; --stop adds a Stop hook that asks once for a checkpoint when
work commits are unrecorded (it honours stop_hook_active). Exit 3 from --check means the
registration is missing.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			agent := "git"
			if len(args) == 1 {
				agent = args[0]
			}
			if agent == "git" {
				if check || print || o.Remove || o.Global || o.PreCompact || o.Stop {
					return usageError{fmt.Errorf("--check, --remove, --print, --global, --precompact and --stop apply to agents (%s), not to the git merge driver", strings.Join(agentsetup.Agents, ", "))}
				}
				return setupGit(g)
			}
			if !slices.Contains(agentsetup.Agents, agent) {
				return usageError{fmt.Errorf("unknown agent %q: choose git or one of %s", agent, strings.Join(agentsetup.Agents, ", "))}
			}
			o.Agent = agent
			return setupAgent(g, o, check, print)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&check, "check", false, "change nothing; exit 3 when the registration is missing")
	f.BoolVar(&o.Remove, "remove", false, "take out what setup added")
	f.BoolVar(&print, "print", false, "show the change as a diff without writing it")
	f.BoolVar(&o.Global, "global", false, "the user's settings in the home folder instead of the project's")
	f.BoolVar(&o.PreCompact, "precompact", false, "also a compaction hook that logs (gemini always has one)")
	f.BoolVar(&o.Stop, "stop", false, "also a Stop hook that asks for a checkpoint when work is unrecorded")
	return cmd
}

func setupGit(g *globals) error {
	return g.withWorkspace(func(ws *workspace.Workspace) error {
		changed, err := ws.Setup()
		if err != nil {
			return err
		}
		rs := ws.Refspecs()
		return g.emit(map[string]any{"changed": nonNil(changed), "refspecs": rs}, func(w io.Writer) {
			if len(changed) == 0 {
				fmt.Fprintln(w, "itr's merge driver is already registered.")
			}
			for _, c := range changed {
				fmt.Fprintf(w, "registered: %s\n", c)
			}
			fmt.Fprintf(w, "\nitr sync carries claims and archives by itself. For plain git fetch and git push to carry\nthem too, add these refspecs to %s (claims are fetched only: itr claim pushes them, with a\ncompare-and-swap no plain push makes; git fetch --prune drops released ones):\n", rs.Remote)
			for _, f := range rs.Fetch {
				fmt.Fprintf(w, "  git config --add remote.%s.fetch '%s'\n", rs.Remote, f)
			}
			for _, p := range rs.Push {
				fmt.Fprintf(w, "  git config --add remote.%s.push '%s'\n", rs.Remote, p)
			}
		})
	})
}

func setupAgent(g *globals, o agentsetup.Options, check, print bool) error {
	ws, err := g.open()
	switch {
	case err == nil:
		defer ws.Close()
		o.Top, o.TaskRoot = ws.Repo.Root(), ws.Root
	case !o.Global:
		return fmt.Errorf("%w (itr setup %s writes the project's settings at the repository top; --global writes your own)", err, o.Agent)
	}
	if o.Global {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("find the home folder for --global: %w", err)
		}
		o.Home = home
	}
	r, err := agentsetup.Plan(o)
	if err != nil {
		return err
	}
	_, onPath := exec.LookPath("itr")
	type fileJSON struct {
		Path    string   `json:"path"`
		Changes []string `json:"changes"`
		Deleted bool     `json:"deleted,omitempty"`
		Diff    string   `json:"diff,omitempty"`
	}
	files := []fileJSON{}
	for _, c := range r.Changes {
		fj := fileJSON{Path: c.Rel, Changes: c.What, Deleted: c.Delete}
		if print {
			fj.Diff = progresslog.LineDiff(string(c.Old), string(c.New))
		}
		files = append(files, fj)
	}
	wrote := !check && !print && len(r.Changes) > 0
	if wrote {
		if err := agentsetup.Apply(r); err != nil {
			return err
		}
	}
	v := map[string]any{"agent": o.Agent, "files": files, "present": nonNil(r.Present), "missing": nonNil(r.Missing), "written": wrote, "itr_on_path": onPath == nil}
	err = g.emit(v, func(w io.Writer) {
		switch {
		case check:
			for _, p := range r.Present {
				fmt.Fprintf(w, "ok: %s\n", p)
			}
			for _, m := range r.Missing {
				fmt.Fprintf(w, "missing: %s (itr setup %s adds it)\n", m, o.Agent)
			}
		case len(r.Changes) == 0 && o.Remove:
			fmt.Fprintf(w, "Nothing of itr's is registered for %s.\n", o.Agent)
		case len(r.Changes) == 0:
			fmt.Fprintf(w, "itr is already set up for %s.\n", o.Agent)
		}
		if check {
			return
		}
		for _, c := range r.Changes {
			if print {
				fmt.Fprintf(w, "--- %s\n+++ %s\n%s", c.Rel, c.Rel, progresslog.LineDiff(string(c.Old), string(c.New)))
				continue
			}
			for _, what := range c.What {
				fmt.Fprintln(w, what)
			}
		}
		if onPath != nil && !o.Remove && usesItrProgram(o.Agent) {
			fmt.Fprintln(w, "warning: itr is not on PATH here; the hook runs `itr` and stays silent until it is.")
		}
	})
	if err != nil {
		return err
	}
	if check && len(r.Missing) > 0 {
		return problemsError{}
	}
	return nil
}

// usesItrProgram reports whether what setup writes for agent runs the itr
// program (a hook or the MCP server), not only instructions.
func usesItrProgram(agent string) bool {
	switch agent {
	case "agents", "windsurf", "cline":
		return false
	}
	return true
}

func newMergeDriverCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS PATH",
		Short: "git merge driver for itr's files (registered by itr setup)",
		Long: `git runs this as itr merge-driver %O %A %B %P for progress.md, guardrails.md and
state.json. It writes the merged file over OURS and exits 0, or, when a version is not
what it should be (missing, a directory or a symbolic link, binary, not a log, a
state.json that does not decode, a side that rewrote or removed an entry of the base),
prints one line naming the file and the problem, leaves OURS as it was and exits 1, so
that git keeps the conflict for itr reconcile or a person.`,
		Hidden: true,
		Args:   cobra.ExactArgs(4),
		RunE: func(_ *cobra.Command, args []string) error {
			return g.withWorkspace(func(ws *workspace.Workspace) error {
				var heads []string
				for _, kv := range os.Environ() {
					if k, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GITHEAD_") {
						heads = append(heads, strings.TrimPrefix(k, "GITHEAD_"))
					}
				}
				return ws.MergeDriver(workspace.MergeRequest{Base: args[0], Ours: args[1], Theirs: args[2], Path: args[3], Heads: heads})
			})
		},
	}
}
