// Package agentsetup registers itr with coding agents: a SessionStart hook
// running `itr prime --hook-json` in each agent's own settings file, or a
// managed block in AGENTS.md. It merges, never overwrites: every byte it
// did not add stays where it was, running it twice changes nothing, and
// removing takes out only what it added.
package agentsetup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Agents are the agents itr can be set up for, in the order help lists
// them.
var Agents = []string{"claude", "codex", "gemini", "cursor", "agents", "opencode", "kiro", "windsurf", "cline"}

// Options choose what Plan does.
type Options struct {
	Agent      string
	Top        string // the repository's top folder (project settings)
	Home       string // the user's home folder (--global)
	Global     bool   // the user's settings instead of the project's
	Remove     bool   // take out what setup added
	PreCompact bool   // also a PreCompact hook that only logs
	Stop       bool   // also a Stop hook asking for a checkpoint
	TaskRoot   string // where tasks live, for the AGENTS.md text
}

// Change is the new content of one file; Delete means the file held only
// what itr added and goes away.
type Change struct {
	Path   string // absolute
	Rel    string // as shown to the user
	Old    []byte // nil when the file does not exist
	New    []byte
	Delete bool
	Mode   os.FileMode
	What   []string // what changed, one line each
}

// Report is what Plan found: the changes to make, and for --check what is
// missing.
type Report struct {
	Agent   string
	Changes []Change
	Missing []string // registrations not in place (setup would add them)
	Present []string // registrations in place
}

// agentFile is the settings file of an agent, with the event names of its
// format.
type agentFile struct {
	rel        string // relative to the repository top
	global     string // relative to the home folder; "" when there is none
	fresh      map[string]any
	session    hookSpec
	preCompact hookSpec
	stop       hookSpec
	// reprime are registered with session where SessionStart does not
	// fire after a compaction: the compaction marks itself, the next
	// prompt takes the mark and gets the context.
	reprime []hookSpec
}

func specFor(agent string) (agentFile, error) {
	nested := func(event, matcher, cmd string, timeout int) hookSpec {
		return hookSpec{event: event, entry: group{Matcher: matcher, Hooks: []handler{{Type: "command", Command: cmd, Timeout: timeout}}}}
	}
	gemini := func(event, name, cmd string) hookSpec {
		// Gemini CLI matches lifecycle events by exact string, so no
		// matcher: every source; its timeouts are in milliseconds.
		return hookSpec{event: event, entry: group{Hooks: []handler{{Name: name, Type: "command", Command: cmd, Timeout: 30000}}}}
	}
	switch agent {
	case "claude", "codex":
		// Codex reads the same shape as Claude Code, in its own file.
		rel := ".claude/settings.json"
		if agent == "codex" {
			rel = ".codex/hooks.json"
		}
		return agentFile{
			rel: rel, global: rel,
			session:    nested("SessionStart", sessionSources, CommandPrime, 30),
			preCompact: nested("PreCompact", "", CommandPreCompact, 30),
			stop:       nested("Stop", "", CommandStop, 30),
		}, nil
	case "gemini":
		// Gemini CLI's SessionStart sources are startup, resume and clear:
		// none follows a compression. PreCompress marks it, and BeforeAgent
		// (the next prompt) gives the context back.
		preCompress := gemini("PreCompress", "itr-pre-compress", CommandPreCompact)
		return agentFile{
			rel: ".gemini/settings.json", global: ".gemini/settings.json",
			session:    gemini("SessionStart", "itr-prime", CommandPrime),
			preCompact: preCompress,
			stop:       gemini("AfterAgent", "itr-stop", CommandStop+" --format gemini"),
			reprime:    []hookSpec{preCompress, gemini("BeforeAgent", "itr-reprime", CommandPrompt+" --format gemini")},
		}, nil
	case "cursor":
		return agentFile{
			rel: ".cursor/hooks.json", global: ".cursor/hooks.json",
			fresh:      map[string]any{"version": 1},
			session:    hookSpec{event: "sessionStart", entry: flatHook{Command: CommandPrimeCursor}},
			preCompact: hookSpec{event: "preCompact", entry: flatHook{Command: CommandPreCompact}},
			stop:       hookSpec{event: "stop", entry: flatHook{Command: CommandStop + " --format cursor"}},
		}, nil
	}
	return agentFile{}, fmt.Errorf("unknown agent %q: choose one of %s", agent, strings.Join(Agents, ", "))
}

// Plan computes what setup (or --remove) would change, reading the files
// but writing nothing.
func Plan(o Options) (*Report, error) {
	if o.Agent == "agents" {
		return planAgentsMD(o)
	}
	if a, ok := moreSpec(o.Agent); ok {
		return planMore(o, a)
	}
	spec, err := specFor(o.Agent)
	if err != nil {
		return nil, err
	}
	base, rel := o.Top, spec.rel
	if o.Global {
		base, rel = o.Home, spec.global
	}
	if base == "" {
		return nil, fmt.Errorf("no folder to set %s up in", o.Agent)
	}
	abs := filepath.Join(base, filepath.FromSlash(rel))
	shown := rel
	if o.Global {
		shown = "~/" + rel
	}
	target, err := safeTarget(base, abs, shown)
	if err != nil {
		return nil, err
	}
	old, mode, err := readExisting(target, shown)
	if err != nil {
		return nil, err
	}
	f, err := openJSON(shown, old)
	if err != nil {
		return nil, err
	}
	f.fresh = spec.fresh
	specs := spec.specs(o)
	r := &Report{Agent: o.Agent}
	ch := Change{Path: target, Rel: shown, Old: old, Mode: mode}
	for _, s := range specs {
		name := fmt.Sprintf("%s hook %s in %s", s.event, commandOf(s), shown)
		if o.Remove {
			removed, err := f.remove(s.event)
			if err != nil {
				return nil, err
			}
			if removed {
				ch.What = append(ch.What, "removed "+name)
			}
			continue
		}
		present, err := f.has(s.event)
		if err != nil {
			return nil, err
		}
		if present {
			r.Present = append(r.Present, name)
			continue
		}
		r.Missing = append(r.Missing, name)
		if _, err := f.add(s); err != nil {
			return nil, err
		}
		ch.What = append(ch.What, "added "+name)
	}
	if len(ch.What) > 0 {
		ch.New = f.src
		if o.Remove && f.empty() && old != nil {
			ch.Delete, ch.New = true, nil
			ch.What = append(ch.What, "deleted "+shown+" (it held only itr's hooks)")
		}
		r.Changes = append(r.Changes, ch)
	}
	return r, nil
}

// specs are the registrations o asks for, each event once, in the order
// of the file's events: the session's, the re-priming ones, --precompact's
// and --stop's; --remove takes every one out.
func (a agentFile) specs(o Options) []hookSpec {
	all := append([]hookSpec{a.session}, a.reprime...)
	if o.PreCompact || o.Remove {
		all = append(all, a.preCompact)
	}
	if o.Stop || o.Remove {
		all = append(all, a.stop)
	}
	var out []hookSpec
	seen := map[string]bool{}
	for _, s := range all {
		if !seen[s.event] {
			seen[s.event] = true
			out = append(out, s)
		}
	}
	return out
}

func commandOf(s hookSpec) string {
	switch e := s.entry.(type) {
	case group:
		return "`" + e.Hooks[0].Command + "`"
	case flatHook:
		return "`" + e.Command + "`"
	}
	return ""
}

// readExisting reads a settings file; a missing one is nil.
func readExisting(path, shown string) ([]byte, os.FileMode, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", shown, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", shown, err)
	}
	return data, st.Mode().Perm(), nil
}

// Apply writes the report's changes, each atomically.
func Apply(r *Report) error {
	for _, c := range r.Changes {
		if c.Delete {
			if err := os.Remove(c.Path); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("remove %s: %w", c.Rel, err)
			}
			removeEmptyDirs(c.Path, c.Rel)
			continue
		}
		if err := writeAtomic(c.Path, c.New, c.Mode); err != nil {
			return fmt.Errorf("write %s: %w", c.Rel, err)
		}
	}
	return nil
}

// removeEmptyDirs removes the folders of a deleted file that it leaves
// empty, up to the first folder of rel (a file at the top, or the home
// folder, keeps its folder): .agents/skills/itr-loop/references and the
// folders above it go with the skill's last file.
func removeEmptyDirs(abs, rel string) {
	dir := filepath.Dir(abs)
	for n := strings.Count(strings.TrimPrefix(filepath.ToSlash(rel), "~/"), "/"); n > 0; n-- {
		if os.Remove(dir) != nil { // not empty, or not there
			return
		}
		dir = filepath.Dir(dir)
	}
}
