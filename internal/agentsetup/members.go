package agentsetup

import "fmt"

// memberSpec is one member itr owns in a JSON settings file: key, inside
// the objects named by path, with value (an MCP server's entry).
type memberSpec struct {
	path  []string
	key   string
	value any
}

func (m memberSpec) where() string {
	s := ""
	for _, p := range append(append([]string{}, m.path...), m.key) {
		s += fmt.Sprintf("%q.", p)
	}
	return s[:len(s)-1]
}

// objectPath returns the object at path, nil when a part is missing.
func (f *jsonFile) objectPath(path []string) (*jnode, error) {
	n := f.root
	for i, k := range path {
		if n == nil {
			return nil, nil
		}
		next, err := f.objectAt(n, k, memberSpec{path: path[:i], key: k}.where())
		if err != nil {
			return nil, err
		}
		n = next
	}
	return n, nil
}

// hasMember reports whether the member is there (with any value: a user's
// own entry under itr's name is theirs to keep).
func (f *jsonFile) hasMember(m memberSpec) (bool, error) {
	n, err := f.objectPath(m.path)
	if err != nil || n == nil {
		return false, err
	}
	return n.get(m.key) != nil, nil
}

// addMember adds the member, making the objects of its path that are
// missing; it reports whether it changed the file.
func (f *jsonFile) addMember(m memberSpec) (bool, error) {
	if ok, err := f.hasMember(m); err != nil || ok {
		return false, err
	}
	if f.root == nil {
		doc := map[string]any{}
		for k, v := range f.fresh {
			doc[k] = v
		}
		k, v := m.nested(0)
		doc[k] = v
		text, err := render(doc, style{unit: "  ", colon: ": "}, "")
		if err != nil {
			return false, err
		}
		return true, f.reset([]byte(text + "\n"))
	}
	n, depth := f.root, 0
	for ; depth < len(m.path); depth++ {
		next, err := f.objectAt(n, m.path[depth], memberSpec{path: m.path[:depth], key: m.path[depth]}.where())
		if err != nil {
			return false, err
		}
		if next == nil {
			break
		}
		n = next
	}
	key, v := m.nested(depth)
	e, err := appendItem(f.src, n, f.st, key, v)
	if err != nil {
		return false, err
	}
	return true, f.apply(e)
}

// nested is the member to add to the object at depth of the path: the
// path's next name holding the objects below it, or the member itself.
func (m memberSpec) nested(depth int) (string, any) {
	if depth >= len(m.path) {
		return m.key, m.value
	}
	var v any = map[string]any{m.key: m.value}
	for i := len(m.path) - 1; i > depth; i-- {
		v = map[string]any{m.path[i]: v}
	}
	return m.path[depth], v
}

// removeMember takes the member out, then the objects of its path that
// this left empty; it reports whether it changed the file.
func (f *jsonFile) removeMember(m memberSpec) (bool, error) {
	n, err := f.objectPath(m.path)
	if err != nil || n == nil {
		return false, err
	}
	i := n.memberIndex(m.key)
	if i < 0 {
		return false, nil
	}
	if err := f.apply(removeItem(f.src, n, i)); err != nil {
		return false, err
	}
	for d := len(m.path); d > 0; d-- {
		parent, err := f.objectPath(m.path[:d-1])
		if err != nil || parent == nil {
			return true, err
		}
		child := parent.get(m.path[d-1])
		if child == nil || child.kind != jObject || len(child.members) > 0 {
			break
		}
		if err := f.apply(removeItem(f.src, parent, parent.memberIndex(m.path[d-1]))); err != nil {
			return true, err
		}
	}
	return true, nil
}
