package progresslog

import (
	"fmt"
	"strconv"
	"strings"
)

// The fields that say who made an entry (seed 001's agent per state file,
// seed 002's Model per unit, the agents' session ids) and which files an
// iteration's work touched. An entry without them says nothing of who made
// it: absent is unknown, so logs written before them read as they always
// did.
const (
	// FieldAgent names the agent that made the entry (--agent,
	// ITR_AGENT, else user@host:worktree).
	FieldAgent = "Agent"
	// FieldModel names the model the agent ran on (--model, ITR_MODEL).
	FieldModel = "Model"
	// FieldSession is the agent's session id (ITR_SESSION, or the one
	// an agent's hook passes).
	FieldSession = "Session"
	// FieldFiles lists the files the iteration's work commits changed:
	// at most MaxFiles paths, one a line, then "(+N more)".
	FieldFiles = "Files"
)

// MaxFiles is how many paths a Files field lists before it counts the rest.
const MaxFiles = 10

// Who is who made an entry; a field the entry does not give is "".
type Who struct {
	Agent, Model, Session string
}

// WhoOf reads who made entry e.
func WhoOf(e Entry) Who {
	get := func(name string) string {
		v, _ := e.Field(name)
		return strings.TrimSpace(v)
	}
	return Who{Agent: get(FieldAgent), Model: get(FieldModel), Session: get(FieldSession)}
}

// Fields are the who fields that are known, in the order an entry writes
// them: Agent, Model, Session.
func (w Who) Fields() []Field {
	var out []Field
	for _, f := range []Field{{Name: FieldAgent, Value: w.Agent}, {Name: FieldModel, Value: w.Model}, {Name: FieldSession, Value: w.Session}} {
		if strings.TrimSpace(f.Value) != "" {
			out = append(out, Field{Name: f.Name, Value: strings.TrimSpace(f.Value)})
		}
	}
	return out
}

// Attribute appends to e the who fields it does not have yet: an entry
// that already names its agent (a hand-made one, a reconcile of another's
// entry) keeps its own.
func Attribute(e *Entry, w Who) {
	for _, f := range w.Fields() {
		if _, ok := e.Field(f.Name); !ok {
			e.Fields = append(e.Fields, f)
		}
	}
}

// FormatFiles writes a Files value: the first max of paths, one a line,
// then "(+N more)" for the rest. A path that would not read back as
// itself (control characters, white space at an end, a leading quote or
// "(+") is written as a Go-quoted string. "" for no paths.
func FormatFiles(paths []string, max int) string {
	if len(paths) == 0 {
		return ""
	}
	if max <= 0 || max > len(paths) {
		max = len(paths)
	}
	lines := make([]string, 0, max+1)
	for _, p := range paths[:max] {
		lines = append(lines, quotePath(p))
	}
	if rest := len(paths) - max; rest > 0 {
		lines = append(lines, fmt.Sprintf("(+%d more)", rest))
	}
	return strings.Join(lines, "\n")
}

// ParseFiles reads a Files value: the paths it lists and how many more it
// counts. Lines that read as neither are skipped.
func ParseFiles(v string) (paths []string, more int) {
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "(+") && strings.HasSuffix(line, " more)"):
			if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "(+"), " more)")); err == nil && n > 0 {
				more += n
			}
		case strings.HasPrefix(line, `"`):
			if p, err := strconv.Unquote(line); err == nil {
				paths = append(paths, p)
			}
		default:
			paths = append(paths, line)
		}
	}
	return paths, more
}

// quotePath is p as a Files line writes it.
func quotePath(p string) string {
	plain := p != "" && strings.TrimSpace(p) == p && !strings.HasPrefix(p, `"`) && !strings.HasPrefix(p, "(+")
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			plain = false
		}
	}
	if plain {
		return p
	}
	return strconv.Quote(p)
}
