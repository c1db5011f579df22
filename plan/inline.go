package plan

import (
	"slices"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/internal/lazyre"
	"github.com/itr-dev/itr/state"
)

// The Status values of seed 003's inline form, in the order the seed lists
// them.
const (
	StatusPending    = "PENDING"
	StatusBlocked    = "BLOCKED"
	StatusInProgress = "IN_PROGRESS"
	StatusCompleted  = "COMPLETED"
	StatusFailed     = "FAILED"
)

// SeedStatuses are the values an inline Status may take, in any case.
var SeedStatuses = []string{StatusPending, StatusBlocked, StatusInProgress, StatusCompleted, StatusFailed}

// seedStatus returns the seed's Status value v is (ignoring case and the
// space around it), and whether it is one.
func seedStatus(v string) (string, bool) {
	v = strings.ToUpper(strings.TrimSpace(v))
	return v, slices.Contains(SeedStatuses, v)
}

// SeedStatus is the inline Status Sync writes for a unit of status st:
// COMPLETED for done; IN_PROGRESS for in_progress, confirming and
// verifying; BLOCKED for blocked and timeout (waiting for someone); FAILED
// for failed; PENDING for pending. A skipped unit has no word in the seed:
// "" (the value written stays, unless it says COMPLETED).
func SeedStatus(st state.Status) string {
	switch st {
	case state.Done:
		return StatusCompleted
	case state.InProgress, state.Confirming, state.Verifying:
		return StatusInProgress
	case state.Blocked, state.Timeout:
		return StatusBlocked
	case state.Failed:
		return StatusFailed
	case state.Skipped:
		return ""
	}
	return StatusPending
}

// inline is seed 003's parenthetical at the end of a unit line, "- [ ] S1:
// Search: Find sources (Status: PENDING, DependsOn: P1, P2)", as written.
type inline struct {
	hasStatus, hasDepends bool
	status, depends       string // the values, trimmed
	statusAt              int    // byte offset of the status value in the title
	twice                 string // a key given twice ("Status"), "" when none
}

// inlineKeyRe is a key of the inline form at the start of the
// parenthetical or after a comma: "Status:", "DependsOn:", "Depends On:".
var inlineKeyRe = lazyre.New(`(?i)(?:^|,)\s*(status|depends ?on)\s*:`)

// cutInline splits a unit's title into the title proper and seed 003's
// parenthetical ending it. It reports false, leaving the title whole, when
// the title does not end in a parenthetical that starts with "Status:" or
// "DependsOn:" (in any case) and holds only those keys: "Find sources (see
// notes)" keeps its parenthetical. A parenthetical still holding template
// text ("{STATUS}") is kept in the title too.
func cutInline(title string) (string, inline, bool) {
	if !strings.HasSuffix(title, ")") {
		return title, inline{}, false
	}
	open, depth := -1, 0
	for i := len(title) - 1; i >= 0 && open < 0; i-- {
		switch title[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				open = i
			}
		}
	}
	if open < 0 {
		return title, inline{}, false
	}
	inner := title[open+1 : len(title)-1]
	if strings.Contains(inner, "{") {
		return title, inline{}, false
	}
	keys := inlineKeyRe.FindAllStringSubmatchIndex(inner, -1)
	if len(keys) == 0 || keys[0][0] != 0 {
		return title, inline{}, false
	}
	var in inline
	for k, m := range keys {
		end := len(inner)
		if k+1 < len(keys) {
			end = keys[k+1][0]
		}
		raw := inner[m[1]:end]
		value := strings.TrimSpace(raw)
		at := open + 1 + m[1] + len(raw) - len(strings.TrimLeftFunc(raw, unicode.IsSpace))
		if strings.EqualFold(inner[m[2]:m[3]], "status") {
			if in.hasStatus && in.twice == "" {
				in.twice = "Status"
			}
			in.hasStatus, in.status, in.statusAt = true, value, at
			continue
		}
		if in.hasDepends && in.twice == "" {
			in.twice = "DependsOn"
		}
		in.hasDepends, in.depends = true, value
	}
	return strings.TrimSpace(title[:open]), in, true
}

// setInline reads the inline parenthetical in of unit u, on its unit line
// n: its DependsOn is the unit's Depends, as a "Depends:" sub-item would be
// (a sub-item as well must list the same units), and its Status must be
// one of the seed's values and say COMPLETED exactly when the box is
// checked. The other Status values are a view, like the box: the log says
// where the unit stands, and every event rewrites them (Sync).
func (ps *parser) setInline(u *Unit, in inline, n int) {
	if in.twice != "" {
		ps.errorf(n, "%s: %s is given twice in the parenthetical ending the unit line; keep one", u.ID, in.twice)
		return
	}
	if in.hasStatus {
		st, ok := seedStatus(in.status)
		switch {
		case !ok:
			ps.errorf(n, "%s: Status %q is not a status of the inline form; write one of %s", u.ID, in.status, strings.Join(SeedStatuses, ", "))
		case st == StatusCompleted && !u.Done:
			ps.errorf(n, "%s: Status is COMPLETED but the box is not checked; check it (\"- [x]\") or write the status it has, such as PENDING", u.ID)
		case st != StatusCompleted && u.Done:
			ps.errorf(n, "%s: the box is checked but Status is %s; a checked unit is COMPLETED: write \"Status: COMPLETED\" or uncheck the box", u.ID, st)
		default:
			u.Status = st
		}
	}
	if in.hasDepends {
		deps, bad := parseDepends(in.depends)
		if bad != "" {
			ps.errorf(n, `%s: DependsOn lists %q, which is not a unit ID; write unit IDs separated by commas, such as "DependsOn: P1, P2", or "none"`, u.ID, bad)
			return
		}
		u.Depends, u.DependsInline, u.dependsLine = deps, true, n
	}
}

// sameIDs reports whether a and b list the same IDs, in any order.
func sameIDs(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// renderInline is the parenthetical Render writes at the end of u's unit
// line, "" when u has none.
func (u *Unit) renderInline() string {
	var parts []string
	if u.Status != "" {
		parts = append(parts, "Status: "+u.Status)
	}
	if u.DependsInline {
		deps := "none"
		if len(u.Depends) > 0 {
			deps = strings.Join(u.Depends, ", ")
		}
		parts = append(parts, "DependsOn: "+deps)
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// statusSpan finds the value of the inline Status on unit line c, as Parse
// reads it: its start and end in c, and ok false when the line has none.
func statusSpan(c string) (start, end int, ok bool) {
	_, title, _, read := splitUnitLine(c)
	if !read {
		return 0, 0, false
	}
	_, in, found := cutInline(title)
	if !found || !in.hasStatus || in.twice != "" {
		return 0, 0, false
	}
	// The title is what ends the line, less trailing space.
	at := len(strings.TrimRightFunc(c, unicode.IsSpace)) - len(title) + in.statusAt
	if at < 0 || at+len(in.status) > len(c) || c[at:at+len(in.status)] != in.status {
		return 0, 0, false // cannot happen: the title is the line's end
	}
	return at, at + len(in.status), true
}
