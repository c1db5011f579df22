package plan

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/state"
)

// keyCheck is the key of a named check, "Check NAME: COMMAND": a unit may
// have several, each with its own name.
const keyCheck = "Check"

// DefaultCheck is the name the unit's Verify line has among its named
// checks: `itr checkpoint --verify` runs it first, beside them.
const DefaultCheck = "verify"

// NamedCheck is one "Check NAME: COMMAND (target OP N)" sub-item of a
// unit: a command itr runs for `--verify`, by name, with an optional
// target for the number its output ends with.
type NamedCheck struct {
	// Name is the check's name (letters, digits, '-' or '_', starting with
	// a letter).
	Name string
	// Raw is the value as written; Render writes it back.
	Raw string
	// Command is the command line, without the backquotes it may be
	// written in.
	Command string
	// Op and Number are the target, "" without one: the output's number
	// must be Op (>=, <= or =) Number (canonical, state.ParseNumber).
	Op, Number string
	// Line is the sub-item's line in the plan, for messages.
	Line int
}

// Target reads ">= 800", "" without a target.
func (c NamedCheck) Target() string {
	if c.Op == "" {
		return ""
	}
	return c.Op + " " + c.Number
}

// Met reports whether the canonical number v meets the target (true
// without one).
func (c NamedCheck) Met(v string) bool {
	if c.Op == "" {
		return true
	}
	return MetricTarget{Op: c.Op, Number: c.Number}.Met(v)
}

const checkForm = "write it as \"Check words: `wc -w memo.md` (target >= 800)\": a name, the command, and an optional target (>=, <= or =) for the number its output ends with"

// ParseNamedCheck reads a Check sub-item: name is what follows "Check"
// in its key, v its value.
func ParseNamedCheck(name, v string) (NamedCheck, error) {
	c := NamedCheck{Name: strings.TrimSpace(name), Raw: strings.TrimSpace(v)}
	if !state.ValidName(c.Name) {
		return NamedCheck{}, fmt.Errorf("check %q: the name is not a check's name (letters, digits, '-' or '_', starting with a letter); %s", c.Name, checkForm)
	}
	if strings.EqualFold(c.Name, DefaultCheck) {
		return NamedCheck{}, fmt.Errorf("check %q: the name %s is the unit's Verify line; give this check another name", c.Name, DefaultCheck)
	}
	cmd := c.Raw
	if i := strings.LastIndex(cmd, "(target"); i >= 0 && strings.HasSuffix(cmd, ")") {
		op, num, problem := parseTarget(cmd[i+len("(target") : len(cmd)-1])
		if problem != "" {
			return NamedCheck{}, fmt.Errorf("check %s: the target %q does not read (%s); %s", c.Name, cmd[i:], problem, checkForm)
		}
		c.Op, c.Number = op, num
		cmd = strings.TrimSpace(cmd[:i])
	}
	if n := len(cmd) - len(strings.TrimLeft(cmd, "`")); n > 0 && len(cmd) > 2*n && strings.HasSuffix(cmd, strings.Repeat("`", n)) {
		cmd = strings.TrimSpace(cmd[n : len(cmd)-n])
	}
	if cmd == "" || strings.ContainsRune(cmd, '\n') {
		return NamedCheck{}, fmt.Errorf("check %s names no command on its line; %s", c.Name, checkForm)
	}
	c.Command = cmd
	return c, nil
}

// parseTarget reads " >= 800": an operator and a number; problem says
// what does not read.
func parseTarget(v string) (op, number, problem string) {
	s := strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(v, "≥", ">="), "≤", "<="))
	for _, o := range []string{">=", "<=", "="} {
		if strings.HasPrefix(s, o) {
			op, s = o, strings.TrimSpace(s[len(o):])
			break
		}
	}
	if op == "" {
		return "", "", "the operator is not >=, <= or ="
	}
	n, err := state.ParseNumber(strings.Trim(s, "`"))
	if err != nil {
		return "", "", err.Error()
	}
	return op, n, ""
}

// checkName returns the name of a "Check NAME" key, ok false for any
// other key.
func checkName(key string) (string, bool) {
	k := oneSpaced(key)
	if len(k) <= len(keyCheck)+1 || !strings.EqualFold(k[:len(keyCheck)+1], keyCheck+" ") {
		return "", false
	}
	return k[len(keyCheck)+1:], true
}

// addCheck adds the Check sub-item it to unit u.
func (ps *parser) addCheck(u *Unit, it *item) {
	name, _ := checkName(it.key)
	if isTemplate(it.value) || templateID(name) {
		return
	}
	c, err := ParseNamedCheck(name, it.value)
	if err != nil {
		ps.errorf(it.line, "%s: %v", u.ID, err)
		return
	}
	for _, o := range u.Checks {
		if strings.EqualFold(o.Name, c.Name) {
			ps.errorf(it.line, "%s: check %s is given twice (first on line %d); give each check its own name", u.ID, c.Name, o.Line)
			return
		}
	}
	c.Line = it.line
	u.Checks = append(u.Checks, c)
}

// RunChecks are the checks `itr checkpoint --verify` runs for the unit
// when its plan names checks (Check lines): its Verify line first, as the
// check named "verify", then the named checks in plan order. nil for a
// unit without named checks: its Verify line alone is its check, run as
// before.
func (u *Unit) RunChecks() []NamedCheck {
	if len(u.Checks) == 0 {
		return nil
	}
	var out []NamedCheck
	if v := u.Check(); v != "" {
		out = append(out, NamedCheck{Name: DefaultCheck, Raw: u.Verify, Command: v, Line: u.lines.at(keyVerify)})
	}
	return append(out, u.Checks...)
}

// HasCheck reports whether the unit gives a check to run: a Verify line
// or a named check.
func (u *Unit) HasCheck() bool { return u.Check() != "" || len(u.Checks) > 0 }
