package plan

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/lazyre"
)

// tokenRe is one piece of template text: "{N}", "{none|T1}", "{Context}".
var tokenRe = lazyre.New(`\{[^{}\n]*\}`)

// isTemplate reports whether v is still template text such as "{title}" or
// "`{paths}`".
func isTemplate(v string) bool { return templateText(v) != "" }

// wholeRe is a value that is one piece of template text: words, "|" and
// punctuation in braces, as the seed writes them ("{title}", "{none|T1}",
// "{Context for sub-agents}"). Quotes or a colon make it code such as
// {"ok": true}, not template text.
var wholeRe = lazyre.New(`^\{[^{}"':\n]+\}$`)

// templateText returns v without backticks and surrounding space when that
// is template text, one "{...}" and nothing else, such as "{title}" or
// "`{paths}`"; else "".
func templateText(v string) string {
	if !strings.Contains(v, "{") {
		return "" // the common case, without the regexp
	}
	s := strings.TrimSpace(strings.ReplaceAll(v, "`", ""))
	if wholeRe.MatchString(s) {
		return s
	}
	return ""
}

// templateID reports whether a unit ID is template text such as "{ID}". It
// holds no "*", so that Render's "**{ID}**" reads back as the same ID.
func templateID(id string) bool {
	return templateText(id) != "" && !strings.Contains(id, "*")
}

// countedKey reports whether key is a header key whose value is counts
// ("3 tasks", "1 done, 0 in progress, 2 pending"), where any "{...}" is
// template text.
func countedKey(key string) bool {
	return strings.EqualFold(key, "Total") || strings.EqualFold(key, "Status")
}

// metaTemplate returns the template text of a header line, "" when none.
func metaTemplate(f Field) string {
	if countedKey(f.Key) {
		return tokenRe.FindString(f.Value)
	}
	return templateText(f.Value)
}

// templateErrors lists the template text left in a plan that is not the
// template any more: placeholder units, unit sub-items and header lines that
// are still template text. A plan that is still the template has none.
func (p *Plan) templateErrors() []*Error {
	if p.Placeholder() {
		return nil
	}
	var errs []*Error
	add := func(line int, prefix, tok, fix string) {
		errs = append(errs, p.errorf(line, "%s%q is still template text; %s", prefix, tok, fix))
	}
	for i, f := range p.Meta {
		if tok := metaTemplate(f); tok != "" {
			line := 0
			if i < len(p.metaLines) {
				line = p.metaLines[i]
			}
			add(line, "", tok, p.metaFix(f, tok))
		}
	}
	fields := make([]Field, 0, 14)
	for _, u := range p.Units {
		if templateID(u.ID) {
			errs = append(errs, p.errorf(u.Line, "unit ID %q is still template text; give the unit an ID such as T1, or delete it", u.ID))
		} else if tok := templateText(u.Title); tok != "" {
			add(u.Line, u.ID+": ", tok, fmt.Sprintf("write the unit's title, such as \"- [ ] **%s**: Add the login form\", or delete the unit", u.ID))
		}
		// One array for every unit's fields: a plan of many units allocates none.
		fields = append(fields[:0], Field{keyFiles, u.Files}, Field{keyCriteria, u.Criteria}, Field{keyCompletion, u.Completion}, Field{keyInputs, u.Inputs}, Field{keyOutput, u.Output}, Field{keyVerify, u.Verify}, Field{keyModel, u.Model},
			Field{keyMarkers, u.TruncationMarkers}, Field{keyMustEnd, u.MustEndWith}, Field{keySections, u.Sections}, Field{keyMaxSize, u.MaxSize})
		if u.MaxIterations == 0 { // else Render drops the pending text
			fields = append(fields, Field{keyMax, u.Pending[keyMax]})
		}
		if u.MinWords == 0 {
			fields = append(fields, Field{keyMinWords, u.Pending[keyMinWords]})
		}
		if u.Depends == nil {
			fields = append(fields, Field{keyDepends, u.Pending[keyDepends]})
		}
		for _, f := range fields {
			if tok := templateText(f.Value); tok != "" {
				line := u.Line
				if n, ok := u.lines.find(f.Key); ok {
					line = n
				}
				add(line, u.ID+": ", tok, itemFix(u.ID, f.Key, tok))
			}
		}
		for i, f := range u.Extra {
			if tok := templateText(f.Value); tok != "" {
				line := u.Line
				if i < len(u.extraLines) {
					line = u.extraLines[i]
				}
				add(line, u.ID+": ", tok, itemFix(u.ID, f.Key, tok))
			}
		}
	}
	return errs
}

// choices returns the alternatives of template text such as
// "{haiku|sonnet|opus}", nil when it offers none.
func choices(tok string) []string {
	inner := strings.TrimSuffix(strings.TrimPrefix(tok, "{"), "}")
	if !strings.Contains(inner, "|") {
		return nil
	}
	var out []string
	for _, c := range strings.Split(inner, "|") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// itemFix says what to write instead of template text in a unit sub-item.
func itemFix(id, key, tok string) string {
	switch key {
	case keyFiles:
		return "write the files the unit touches, such as \"Files: `src/login.go`\", or delete the line"
	case keyCriteria:
		return `write how to tell the unit is done, such as "Criteria: go test ./... passes"`
	case keyCompletion:
		return fmt.Sprintf("write the signal the agent prints when done, such as \"Completion: `<signal>%s_DONE</signal>`\", or delete the line", id)
	case keyOutput:
		return "write the file the unit produces, such as \"Output: `outputs/report.md`\", or delete the line"
	case keyInputs:
		return "write the files the unit reads or another unit's outputs, such as \"Inputs: T1.output, `sources/cases.md`\", or delete the line"
	case keyVerify:
		return "write the command that checks the unit, such as \"Verify: `go test ./auth/...`\", or delete the line"
	case keyMax:
		return `write a number of iterations, such as "Max iterations: 5"`
	case keyDepends:
		return `write the units it waits for, such as "Depends: T1", or "Depends: none"`
	case keyModel:
		return `write one model, such as "Model: sonnet", or delete the line`
	case keyMarkers:
		return markersForm + ", or delete the line"
	case keyMustEnd:
		return mustEndForm + ", or delete the line"
	case keySections:
		return sectionsForm + ", or delete the line"
	case keyMaxSize:
		return sizeForm + ", or delete the line"
	case "":
		return "write the text or delete the line"
	}
	if c := choices(tok); len(c) > 0 {
		return fmt.Sprintf("write one of %s, such as \"%s: %s\", or delete the line", strings.Join(c, ", "), key, c[0])
	}
	return fmt.Sprintf("write the value of %q or delete the line", key)
}

// metaFix says what to write instead of template text in a header line.
func (p *Plan) metaFix(f Field, tok string) string {
	switch {
	case strings.EqualFold(f.Key, "Total"):
		n := len(p.IDs())
		return fmt.Sprintf("write the number of %s, such as \"**%s:** %d %s\", or delete the line", unitNoun(p.Mode, 2), f.Key, n, unitNoun(p.Mode, n))
	case strings.EqualFold(f.Key, "Status"):
		return fmt.Sprintf("write the counts, such as \"**%s:** 0 done, 0 in progress, %d pending\", or delete the line", f.Key, len(p.IDs()))
	}
	if c := choices(tok); len(c) > 0 {
		return fmt.Sprintf("write one of %s, such as \"**%s:** %s\", or delete the line", strings.Join(c, ", "), f.Key, c[0])
	}
	return fmt.Sprintf("write the value of \"**%s:**\" or delete the line", f.Key)
}

// unitNoun names units of a plan of mode m, singular when n is 1: "task",
// "tasks", "phase", "phases".
func unitNoun(m Mode, n int) string {
	noun := "task"
	if m == Knowledge {
		noun = "phase"
	}
	if n != 1 {
		noun += "s"
	}
	return noun
}
