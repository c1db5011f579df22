package plan

import (
	"path"
	"strings"
)

// Outputs returns the files the unit's Output sub-item names (relative to
// the task folder, else to the repository root: the reader decides), in
// order and without duplicates: the text of each
// `backquoted` span when the value has any (so prose around them is
// allowed), else each comma-separated item. A name ending in "/" is a
// folder. It returns nil without an Output sub-item or while its value is
// template text.
func (u *Unit) Outputs() []string {
	if u.Output == "" || isTemplate(u.Output) {
		return nil
	}
	return outputNames(u.Output)
}

// OutputFiles returns the names of Outputs that are files, leaving out folders
// (a name ending in "/"): the ones an output check reads.
func (u *Unit) OutputFiles() []string {
	var out []string
	for _, n := range u.Outputs() {
		if !strings.HasSuffix(n, "/") {
			out = append(out, n)
		}
	}
	return out
}

func outputNames(v string) []string {
	var raw []string
	if strings.Count(v, "`") >= 2 {
		parts := strings.Split(v, "`")
		for i := 1; i < len(parts)-1; i += 2 {
			raw = append(raw, strings.Split(parts[i], ",")...)
		}
	} else {
		raw = strings.Split(strings.ReplaceAll(v, "\n", ","), ",")
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range raw {
		n := strings.TrimSpace(r)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// badOutput returns the first name of an Output value that is not a path
// inside the task folder (absolute, or leaving it through ".."), or "".
func badOutput(v string) string {
	for _, n := range outputNames(v) {
		c := path.Clean(strings.TrimSuffix(n, "/"))
		if strings.HasPrefix(n, "/") || strings.HasPrefix(n, "\\") || c == ".." || strings.HasPrefix(c, "../") || c == "." {
			return n
		}
	}
	return ""
}

// completeValue reads a "Complete" value: "sentences", in any case and
// optionally in backquotes, on one line.
func completeValue(v string) (string, bool) {
	if strings.ContainsRune(v, '\n') {
		return "", false
	}
	s := strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "`"))
	if strings.EqualFold(s, "sentences") {
		return "sentences", true
	}
	return "", false
}

// Check returns the command line of the unit's Verify sub-item, without
// the backquotes it may be written in; "" without one or while it is
// template text.
func (u *Unit) Check() string {
	v := strings.TrimSpace(u.Verify)
	if v == "" || isTemplate(v) {
		return ""
	}
	if n := len(v) - len(strings.TrimLeft(v, "`")); n > 0 && len(v) > 2*n && strings.HasSuffix(v, strings.Repeat("`", n)) {
		v = strings.TrimSpace(v[n : len(v)-n])
	}
	return v
}
