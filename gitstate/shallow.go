package gitstate

import "strings"

// A shallow clone (git clone --depth N, --shallow-since) lists the commits
// where its history was cut in the file "shallow" of the common git
// directory: their parents were not fetched. Both engines read it the same
// way (parseShallow), History marks those commits (Commit.Shallow) and stops
// there, and the rooms above say what they could check from there on (itr
// verify: "checked N commits from the shallow boundary at …"). git fetch
// --deepen or --unshallow rewrites or removes the file; it is read afresh
// by every walk.

// parseShallow reads the boundary commits a shallow file lists, one object
// id (40 or 64 hex digits) a line; other lines are ignored, as git ignores
// what it cannot read as an id.
func parseShallow(data []byte) map[string]bool {
	var set map[string]bool
	for _, line := range strings.Split(string(data), "\n") {
		id := strings.TrimSpace(line)
		if (len(id) != 40 && len(id) != 64) || strings.Trim(id, "0123456789abcdef") != "" {
			continue
		}
		if set == nil {
			set = map[string]bool{}
		}
		set[id] = true
	}
	return set
}
