package agentsetup

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// The managed blocks in AGENTS.md and CLAUDE.md start and end with these
// comment lines; only what lies between them belongs to itr.
const (
	blockBegin = "<!-- BEGIN itr: managed by `itr setup agents`; edit outside this block -->"
	blockEnd   = "<!-- END itr -->"
)

// agentsBlock is the instruction AGENTS.md carries for agents without
// hooks: how to resume and how to record.
func agentsBlock(root string) string {
	if root == "" {
		root = ".claude/iterative"
	}
	return blockBegin + "\n" +
		"## Resuming iterative work (itr)\n\n" +
		"Long-running tasks in this repository are recorded with itr in `" + root + "/`.\n" +
		"- At the start of a session and after a context compaction, run `itr prime` and continue from what it says.\n" +
		"- Record every iteration with `itr checkpoint --did \"...\"` (one commit each); `itr status` shows the whole task.\n" +
		"- Do not edit `state.json` or `progress.md` by hand; `itr reconcile` rebuilds them from git.\n" +
		agentsSkillHint +
		blockEnd + "\n"
}

// claudeBlock makes Claude Code, which reads CLAUDE.md and not AGENTS.md,
// import AGENTS.md.
const claudeBlock = blockBegin + "\n@AGENTS.md\n" + blockEnd + "\n"

// findBlock returns the span of the managed block: from the start of its
// first line to the end of its last, newline included.
func findBlock(src []byte) (start, end int, ok bool) {
	b := bytes.Index(src, []byte("<!-- BEGIN itr:"))
	if b < 0 || (b > 0 && src[b-1] != '\n') {
		return 0, 0, false
	}
	e := bytes.Index(src[b:], []byte(blockEnd))
	if e < 0 {
		return 0, 0, false
	}
	end = b + e + len(blockEnd)
	if end < len(src) && src[end] == '\r' {
		end++
	}
	if end < len(src) && src[end] == '\n' {
		end++
	}
	return b, end, true
}

// withBlock returns src with block in place: replaced when a managed block
// is there, else appended after a blank line.
func withBlock(src []byte, block string) []byte {
	if s, e, ok := findBlock(src); ok {
		out := append([]byte{}, src[:s]...)
		if e == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
			block = strings.TrimSuffix(block, "\n")
		}
		out = append(out, block...)
		return append(out, src[e:]...)
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return []byte(block)
	}
	out := append([]byte{}, src...)
	if !bytes.HasSuffix(out, []byte("\n")) {
		// The file ends without a newline: so does the block, and
		// withoutBlock gives the same bytes back.
		out = append(out, "\n\n"...)
		return append(out, strings.TrimSuffix(block, "\n")...)
	}
	out = append(out, '\n')
	return append(out, block...)
}

// withoutBlock returns src without its managed block and the blank line
// withBlock put before it.
func withoutBlock(src []byte) ([]byte, bool) {
	s, e, ok := findBlock(src)
	if !ok {
		return src, false
	}
	if s >= 2 && src[s-1] == '\n' && src[s-2] == '\n' {
		s--
		if e == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
			s-- // withBlock's two newlines after a last line without one
		}
	}
	out := append([]byte{}, src[:s]...)
	return append(out, src[e:]...), true
}

// importsAgents reports whether a CLAUDE.md imports AGENTS.md outside the
// managed block.
func importsAgents(src []byte) bool {
	rest, _ := withoutBlock(src)
	for _, line := range strings.Split(string(rest), "\n") {
		for _, f := range strings.Fields(line) {
			if f == "@AGENTS.md" || f == "@./AGENTS.md" {
				return true
			}
		}
	}
	return false
}

func planAgentsMD(o Options) (*Report, error) {
	if o.Global {
		return nil, fmt.Errorf("agents has no --global form: AGENTS.md belongs to a repository; run itr setup agents inside it")
	}
	if o.PreCompact || o.Stop {
		return nil, fmt.Errorf("--precompact and --stop are hooks; AGENTS.md holds instructions only: use them with claude, codex, gemini or cursor")
	}
	r := &Report{Agent: "agents"}
	// AGENTS.md: the block.
	agents, err := mdChange(o.Top, "AGENTS.md")
	if err != nil {
		return nil, err
	}
	block := agentsBlock(o.TaskRoot)
	var next []byte
	if o.Remove {
		next, _ = withoutBlock(agents.Old)
	} else {
		next = withBlock(agents.Old, block)
		if bytes.Equal(next, agents.Old) {
			r.Present = append(r.Present, "the itr block in AGENTS.md")
		} else {
			r.Missing = append(r.Missing, "the itr block in AGENTS.md")
		}
	}
	r.addMD(agents, next, o.Remove, "the itr block in AGENTS.md")

	// The skill the block points at; removed with the block unless another
	// agent's rule file still points at it.
	if err := r.planSkill(o, o.Remove && !otherInstructions(o.Top, "agents")); err != nil {
		return nil, err
	}

	// CLAUDE.md: an import of AGENTS.md, unless it has one or is a link to it.
	claude, err := mdChange(o.Top, "CLAUDE.md")
	if err != nil {
		return nil, err
	}
	agentsPath, _ := filepath.EvalSymlinks(filepath.Join(o.Top, "AGENTS.md"))
	linked := agentsPath != "" && claude.Path == agentsPath
	switch {
	case o.Remove:
		next, _ = withoutBlock(claude.Old)
		r.addMD(claude, next, true, "the @AGENTS.md import in CLAUDE.md")
	case linked || importsAgents(claude.Old):
		r.Present = append(r.Present, "CLAUDE.md reads AGENTS.md")
	default:
		if _, _, ok := findBlock(claude.Old); ok {
			r.Present = append(r.Present, "CLAUDE.md reads AGENTS.md")
		} else {
			r.Missing = append(r.Missing, "CLAUDE.md reads AGENTS.md")
		}
		r.addMD(claude, withBlock(claude.Old, claudeBlock), false, "the @AGENTS.md import in CLAUDE.md")
	}
	return r, nil
}

// mdChange reads a Markdown file at the repository top.
func mdChange(top, rel string) (Change, error) {
	target, err := safeTarget(top, filepath.Join(top, rel), rel)
	if err != nil {
		return Change{}, err
	}
	old, mode, err := readExisting(target, rel)
	if err != nil {
		return Change{}, err
	}
	return Change{Path: target, Rel: rel, Old: old, Mode: mode}, nil
}

// addMD records the change from c.Old to next, if any; a file left empty by
// a removal is deleted.
func (r *Report) addMD(c Change, next []byte, remove bool, what string) {
	if bytes.Equal(c.Old, next) {
		return
	}
	if remove {
		c.What = append(c.What, "removed "+what)
		if len(bytes.TrimSpace(next)) == 0 {
			c.Delete = true
			c.What = append(c.What, "deleted "+c.Rel+" (it held only itr's block)")
			next = nil
		}
	} else {
		verb := "added "
		if _, _, ok := findBlock(c.Old); ok {
			verb = "updated "
		}
		c.What = append(c.What, verb+what)
	}
	c.New = next
	r.Changes = append(r.Changes, c)
}
