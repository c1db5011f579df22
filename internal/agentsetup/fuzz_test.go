package agentsetup

import (
	"encoding/json"
	"testing"
)

// FuzzSettingsEdit checks the parser against encoding/json on every input
// and, for every object it accepts, that adding itr's hook gives valid JSON
// that has it, that adding again changes nothing, and that removing it
// gives back the input byte for byte unless the input held empty hook
// containers (which removal does not leave behind).
func FuzzSettingsEdit(f *testing.F) {
	for _, d := range docs {
		f.Add([]byte(d))
	}
	f.Add([]byte(`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"itr prime --hook-json"}]}]}}`))
	f.Add([]byte(`{"a":[{"b":{"c":[1,2,{"d":"\u2028"}]}}],"hooks":{"X":[]}}`))
	f.Add([]byte("{\"k\":\"v\"} // end"))
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte(`{"a" 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := parseJSON(data)
		if json.Valid(data) && err != nil {
			t.Fatalf("valid JSON refused: %v\n%q", err, data)
		}
		if err == nil && root != nil && !hasComment(data) && !json.Valid(data) {
			t.Fatalf("invalid JSON accepted:\n%q", data)
		}
		if err != nil || root == nil || root.kind != jObject || !json.Valid(data) {
			return
		}
		f1, err := openJSON("f", data)
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := specFor("claude")
		if present, err := f1.has(spec.session.event); err != nil || present {
			return // a hooks member of another type, or itr's hook already there
		}
		if _, err := f1.add(spec.session); err != nil {
			t.Fatalf("add: %v\n%q", err, data)
		}
		added := f1.src
		if !json.Valid(added) {
			t.Fatalf("add gave invalid JSON:\n%q\nfrom\n%q", added, data)
		}
		if ok, _ := f1.has(spec.session.event); !ok {
			t.Fatalf("the hook is not there after add:\n%q", added)
		}
		if changed, _ := f1.add(spec.session); changed {
			t.Fatalf("a second add changed the file:\n%q", f1.src)
		}
		if _, err := f1.remove(spec.session.event); err != nil {
			t.Fatalf("remove: %v", err)
		}
		if !json.Valid(f1.src) {
			t.Fatalf("remove gave invalid JSON:\n%q", f1.src)
		}
		if ok, _ := f1.has(spec.session.event); ok {
			t.Fatalf("the hook is still there after remove:\n%q", f1.src)
		}
		if !emptyHookContainers(root) && string(f1.src) != string(data) {
			t.Fatalf("remove did not give back the input:\n%q\n%q", data, f1.src)
		}
	})
}

func hasComment(data []byte) bool {
	for _, c := range data {
		if c == '/' {
			return true
		}
	}
	return false
}

// emptyHookContainers reports whether the document has an empty "hooks"
// object or SessionStart array, an empty root with blanks inside, or
// duplicate names where the edit happens; removal leaves none of those as
// they were.
func emptyHookContainers(root *jnode) bool {
	if len(root.members) == 0 {
		return root.end-root.start != 2
	}
	seen := map[string]bool{}
	for _, m := range root.members {
		if seen[m.key] && m.key == "hooks" {
			return true
		}
		seen[m.key] = true
	}
	h := root.get("hooks")
	if h == nil {
		return false
	}
	if len(h.members) == 0 {
		return true
	}
	hs := map[string]bool{}
	for _, m := range h.members {
		if hs[m.key] && m.key == "SessionStart" {
			return true
		}
		hs[m.key] = true
	}
	s := h.get("SessionStart")
	return s != nil && len(s.elems) == 0
}

// FuzzMemberEdit checks the MCP-server member edits (itr setup opencode
// and kiro) on every object the parser accepts: adding gives valid JSON
// that has the member, adding again changes nothing, and removing gives
// valid JSON without it — the input byte for byte unless the input held an
// empty "mcp" object, duplicate names or no member at all (blanks inside
// "{ }"), which removal does not leave.
func FuzzMemberEdit(f *testing.F) {
	for _, d := range docs {
		f.Add([]byte(d))
	}
	f.Add([]byte(`{"$schema": "https://opencode.ai/config.json", "mcp": {"other": {"type": "remote", "url": "https://x"}}}`))
	f.Add([]byte("{\n\t\"model\": \"a\" // the team's\n}"))
	f.Add([]byte(`{"mcp": {"itr": {"type": "local", "command": ["itr", "mcp"]}}}`))
	f.Add([]byte(`{"mcp": []}`))
	f.Add([]byte(`{"mcp": {}}`))
	a, _ := moreSpec("opencode")
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := parseJSON(data)
		if err != nil || root == nil || root.kind != jObject || !json.Valid(data) {
			return
		}
		f1, err := openJSON("f", data)
		if err != nil {
			t.Fatal(err)
		}
		if present, err := f1.hasMember(a.member); err != nil || present {
			return // an "mcp" of another type, or itr's member already there
		}
		if _, err := f1.addMember(a.member); err != nil {
			t.Fatalf("add: %v\n%q", err, data)
		}
		if !json.Valid(f1.src) {
			t.Fatalf("add gave invalid JSON:\n%q\nfrom\n%q", f1.src, data)
		}
		if ok, _ := f1.hasMember(a.member); !ok {
			t.Fatalf("the member is not there after add:\n%q", f1.src)
		}
		if changed, _ := f1.addMember(a.member); changed {
			t.Fatalf("a second add changed the file:\n%q", f1.src)
		}
		if _, err := f1.removeMember(a.member); err != nil {
			t.Fatalf("remove: %v", err)
		}
		if !json.Valid(f1.src) {
			t.Fatalf("remove gave invalid JSON:\n%q", f1.src)
		}
		if ok, _ := f1.hasMember(a.member); ok {
			t.Fatalf("the member is still there after remove:\n%q", f1.src)
		}
		mcp := root.get("mcp")
		emptyMCP := mcp != nil && mcp.kind == jObject && len(mcp.members) == 0
		if !emptyMCP && !duplicateNames(root, "mcp") && len(root.members) > 0 && string(f1.src) != string(data) {
			t.Fatalf("remove did not give back the input:\n%q\n%q", data, f1.src)
		}
	})
}

// duplicateNames reports whether the root names key twice, or the object
// at key names itr twice.
func duplicateNames(root *jnode, key string) bool {
	count := func(n *jnode, k string) int {
		c := 0
		for _, m := range n.members {
			if m.key == k {
				c++
			}
		}
		return c
	}
	if count(root, key) > 1 {
		return true
	}
	if v := root.get(key); v != nil && v.kind == jObject && count(v, "itr") > 1 {
		return true
	}
	return false
}
