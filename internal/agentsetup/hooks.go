package agentsetup

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// The hook commands itr registers. Each one exits 0 on every error and
// prints nothing on stdout then, so no session is ever blocked or failed by
// it.
const (
	// CommandPrime gives the resume context in the hookSpecificOutput
	// envelope Claude Code, Codex and Gemini CLI read.
	CommandPrime = "itr prime --hook-json"
	// CommandPrimeCursor gives it in Cursor's {"additional_context": ...}.
	CommandPrimeCursor = "itr prime --hook-json=cursor"
	// CommandPreCompact logs the compaction and marks it, so that the
	// next prompt's hook (CommandPrompt) can give the context back where
	// SessionStart does not fire after one (Gemini CLI). It is --precompact
	// for the others.
	CommandPreCompact = "itr agent-hook pre-compact"
	// CommandPrompt runs as the user submits a prompt: after a compaction
	// marked by CommandPreCompact it gives the resume context, once.
	CommandPrompt = "itr agent-hook prompt"
	// CommandStop asks for a checkpoint before the agent stops, once
	// (--stop); it honours stop_hook_active.
	CommandStop = "itr agent-hook stop"
)

// hookSpec is one hook registration in one settings file: the event's key
// under "hooks" and the entry itr appends to its array.
type hookSpec struct {
	event string
	entry any
}

// handler is a command hook in the Claude Code / Codex / Gemini shape.
type handler struct {
	Name    string `json:"name,omitempty"` // Gemini CLI names its hooks
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"` // seconds (Claude, Codex); milliseconds (Gemini)
}

// group is the matcher group wrapping handlers.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

// flatHook is Cursor's entry: a command, no group.
type flatHook struct {
	Command string `json:"command"`
}

// sessionSources are the SessionStart sources that need the context: a new
// session, a resumed one, after /clear and after a compaction.
const sessionSources = "startup|resume|clear|compact"

// isItrCommand reports whether a hook command is one itr registers: the
// program is itr (by base name, so an absolute path counts) running prime
// with --hook-json or agent-hook.
func isItrCommand(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) < 2 || path.Base(strings.Trim(f[0], `"'`)) != "itr" {
		return false
	}
	switch f[1] {
	case "agent-hook":
		return true
	case "prime":
		for _, a := range f[2:] {
			if a == "--hook-json" || strings.HasPrefix(a, "--hook-json=") {
				return true
			}
		}
	}
	return false
}

// entryHasItr reports whether an entry of an event's array holds an itr
// command, nested (a group with "hooks") or flat (Cursor).
func entryHasItr(e *jnode) bool {
	if c := e.get("command"); c != nil && c.kind == jString && isItrCommand(c.str) {
		return true
	}
	if hs := e.get("hooks"); hs != nil && hs.kind == jArray {
		for _, h := range hs.elems {
			if c := h.get("command"); c != nil && c.kind == jString && isItrCommand(c.str) {
				return true
			}
		}
	}
	return false
}

// jsonFile edits one JSON settings file.
type jsonFile struct {
	name  string // for messages
	src   []byte
	root  *jnode
	st    style
	crlf  bool
	fresh map[string]any // the root's members when the file is created
}

func openJSON(name string, src []byte) (*jsonFile, error) {
	f := &jsonFile{name: name}
	if err := f.reset(src); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *jsonFile) reset(src []byte) error {
	root, err := parseJSON(src)
	if err != nil {
		return fmt.Errorf("%s:%w; fix the file (or move it aside) and run itr setup again; nothing was changed", f.name, err)
	}
	if root != nil && root.kind != jObject {
		return fmt.Errorf("%s: the document is not a JSON object; nothing was changed", f.name)
	}
	f.src, f.root = src, root
	f.st = detectStyle(src, root)
	f.crlf = bytes.Contains(src, []byte("\r\n"))
	return nil
}

func (f *jsonFile) apply(e edit) error {
	if f.crlf {
		e.text = strings.ReplaceAll(e.text, "\n", "\r\n")
	}
	return f.reset(e.apply(f.src))
}

// objectAt returns the object member key of n, checking its type.
func (f *jsonFile) objectAt(n *jnode, key, where string) (*jnode, error) {
	v := n.get(key)
	if v != nil && v.kind != jObject {
		return nil, fmt.Errorf("%s: %s is not an object; nothing was changed: %w", f.name, where, errNotObject)
	}
	return v, nil
}

func (f *jsonFile) arrayAt(n *jnode, key, where string) (*jnode, error) {
	v := n.get(key)
	if v != nil && v.kind != jArray {
		return nil, fmt.Errorf("%s: %s is not an array; nothing was changed: %w", f.name, where, errNotObject)
	}
	return v, nil
}

// has reports whether the event's array holds an itr entry.
func (f *jsonFile) has(event string) (bool, error) {
	if f.root == nil {
		return false, nil
	}
	hooks, err := f.objectAt(f.root, "hooks", `"hooks"`)
	if err != nil || hooks == nil {
		return false, err
	}
	arr, err := f.arrayAt(hooks, event, `"hooks"."`+event+`"`)
	if err != nil || arr == nil {
		return false, err
	}
	for _, e := range arr.elems {
		if entryHasItr(e) {
			return true, nil
		}
	}
	return false, nil
}

// add registers spec unless an itr entry is there already; it reports
// whether it changed the file.
func (f *jsonFile) add(spec hookSpec) (bool, error) {
	present, err := f.has(spec.event)
	if err != nil || present {
		return false, err
	}
	if f.root == nil {
		doc := orderedRoot(f.fresh, map[string]any{spec.event: []any{spec.entry}})
		text, err := render(doc, style{unit: "  ", colon: ": "}, "")
		if err != nil {
			return false, err
		}
		return true, f.reset([]byte(text + "\n"))
	}
	hooks, _ := f.objectAt(f.root, "hooks", `"hooks"`)
	if hooks == nil {
		e, err := appendItem(f.src, f.root, f.st, "hooks", map[string]any{spec.event: []any{spec.entry}})
		if err != nil {
			return false, err
		}
		return true, f.apply(e)
	}
	arr, _ := f.arrayAt(hooks, spec.event, "")
	var e edit
	if arr == nil {
		e, err = appendItem(f.src, hooks, f.st, spec.event, []any{spec.entry})
	} else {
		e, err = appendItem(f.src, arr, f.st, "", spec.entry)
	}
	if err != nil {
		return false, err
	}
	return true, f.apply(e)
}

// remove takes itr's entries out of the event's array (only itr's
// handlers where a group also holds others), then the array, the "hooks"
// object if that leaves them empty. It reports whether it changed the file.
func (f *jsonFile) remove(event string) (bool, error) {
	changed := false
	for {
		e, ok, err := f.nextRemoval(event, changed)
		if err != nil || !ok {
			return changed, err
		}
		if err := f.apply(e); err != nil {
			return changed, err
		}
		changed = true
	}
}

// nextRemoval returns the next edit of remove: an itr entry, else the
// containers that removing entries (cleared) left empty.
func (f *jsonFile) nextRemoval(event string, cleared bool) (edit, bool, error) {
	if f.root == nil {
		return edit{}, false, nil
	}
	hooks, err := f.objectAt(f.root, "hooks", `"hooks"`)
	if err != nil || hooks == nil {
		return edit{}, false, err
	}
	arr, err := f.arrayAt(hooks, event, `"hooks"."`+event+`"`)
	if err != nil {
		return edit{}, false, err
	}
	if arr != nil {
		if e, ok := f.removalIn(arr); ok {
			return e, true, nil
		}
		if len(arr.elems) == 0 && cleared {
			return removeItem(f.src, hooks, hooks.memberIndex(event)), true, nil
		}
		return edit{}, false, nil
	}
	if len(hooks.members) == 0 && cleared {
		return removeItem(f.src, f.root, f.root.memberIndex("hooks")), true, nil
	}
	return edit{}, false, nil
}

// removalIn finds the next itr entry to take out of an event's array.
func (f *jsonFile) removalIn(arr *jnode) (edit, bool) {
	for i, e := range arr.elems {
		if !entryHasItr(e) {
			continue
		}
		if c := e.get("command"); c != nil && c.kind == jString {
			return removeItem(f.src, arr, i), true // a flat entry
		}
		hs := e.get("hooks")
		others := 0
		for _, h := range hs.elems {
			if c := h.get("command"); c == nil || c.kind != jString || !isItrCommand(c.str) {
				others++
			}
		}
		if others == 0 {
			return removeItem(f.src, arr, i), true
		}
		for j, h := range hs.elems {
			if c := h.get("command"); c != nil && c.kind == jString && isItrCommand(c.str) {
				return removeItem(f.src, hs, j), true
			}
		}
	}
	return edit{}, false
}

// empty reports whether the document holds nothing but what itr would
// create it with, so removing itr's hooks may delete the file.
func (f *jsonFile) empty() bool {
	if f.root == nil {
		return true
	}
	for _, m := range f.root.members {
		if _, ok := f.fresh[m.key]; !ok {
			return false
		}
	}
	return true
}

// orderedRoot builds a new document: fresh members first, then "hooks".
func orderedRoot(fresh map[string]any, hooks map[string]any) any {
	if v, ok := fresh["version"]; ok {
		return struct {
			Version any            `json:"version"`
			Hooks   map[string]any `json:"hooks"`
		}{v, hooks}
	}
	return struct {
		Hooks map[string]any `json:"hooks"`
	}{hooks}
}
