package progresslog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/state"
)

// The fields of an iteration entry that record values of items and
// metrics of the unit:
//
//	**Values:** 7:score="4", 7:finding="Entity consolidation required"
//	**Metrics:** words=812, findings=8
//	**Moved back:** 7 level-3 → included
//
// Values and Metrics are folded into state.json; Moved back only tells a
// reader of the log that items went back to an earlier state (the Items
// field records the move itself).
const (
	FieldValues    = "Values"
	FieldMetrics   = "Metrics"
	FieldMovedBack = "Moved back"
)

const valueForm = `write ID:NAME="TEXT", such as 7:score="4" or 7:finding="Entity consolidation required"`

// ParseValues reads a Values value: ID:NAME="TEXT" parts separated by
// commas and/or white space, TEXT quoted as Go (and JSON, for plain text)
// quotes it; an empty TEXT takes the value away. The error names the
// first part that does not read.
func ParseValues(v string) ([]state.ItemValue, error) {
	var out []state.ItemValue
	rest := v
	for {
		rest = strings.TrimLeftFunc(rest, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
		if rest == "" {
			break
		}
		head, tail, ok := strings.Cut(rest, "=")
		if !ok {
			return nil, fmt.Errorf("value %s has no \"=\"; %s", clip.Quote(firstWord(rest)), valueForm)
		}
		id, name, ok := strings.Cut(head, ":")
		if !ok {
			return nil, fmt.Errorf("value %s names no item; %s", clip.Quote(head), valueForm)
		}
		q, err := strconv.QuotedPrefix(tail)
		if err != nil || !strings.HasPrefix(q, `"`) {
			return nil, fmt.Errorf("value %s: the text is not in double quotes; %s", head, valueForm)
		}
		text, _ := strconv.Unquote(q)
		iv, err := checkValue(id, name, text)
		if err != nil {
			return nil, err
		}
		out = append(out, iv)
		rest = tail[len(q):]
		if rest != "" && !strings.HasPrefix(rest, ",") && !unicode.IsSpace(rune(rest[0])) {
			return nil, fmt.Errorf("value %s: %s follows the text; separate values with commas", clip.Text(head), clip.Quote(firstWord(rest)))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no values given; %s", valueForm)
	}
	return out, nil
}

// FormatValues writes values as ParseValues reads them.
func FormatValues(vs []state.ItemValue) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Item + ":" + v.Name + "=" + strconv.Quote(v.Text)
	}
	return strings.Join(parts, ", ")
}

// ParseValueArg reads one value as a front end takes it: "NAME=TEXT" for
// the one item the request moves (item ""), or "ID:NAME=TEXT" naming the
// item; TEXT is everything after the first "=", as given ("" takes the
// value away).
func ParseValueArg(arg string) (state.ItemValue, error) {
	head, text, ok := strings.Cut(arg, "=")
	if !ok {
		return state.ItemValue{}, fmt.Errorf("%s has no \"=\": write NAME=TEXT for the item this checkpoint moves, or ID:NAME=TEXT, such as 7:score=4", clip.Quote(arg))
	}
	id, name, named := strings.Cut(head, ":")
	if !named {
		id, name = "", head
	}
	if named {
		return checkValue(id, name, text)
	}
	v, err := checkValue("1", name, text)
	v.Item = ""
	return v, err
}

// checkValue checks one value's item, name and text.
func checkValue(id, name, text string) (state.ItemValue, error) {
	r, err := state.ParseItemRange(id)
	switch {
	case err != nil:
		return state.ItemValue{}, fmt.Errorf("value %s:%s: %w", id, name, err)
	case r.Name == "" && r.Lo != r.Hi:
		return state.ItemValue{}, fmt.Errorf("value %s:%s: a value belongs to one item, not the range %s; name each item", id, name, id)
	case !state.ValidName(name):
		return state.ItemValue{}, fmt.Errorf("value %s:%s: %s is not a value's name (letters, digits, '-' or '_', starting with a letter, at most %d)", clip.Text(id), clip.Text(name), clip.Quote(name), state.MaxName)
	}
	if bad := state.CheckValue(text); bad != "" {
		return state.ItemValue{}, fmt.Errorf("value %s:%s %s", id, name, bad)
	}
	return state.ItemValue{Item: id, Name: name, Text: text}, nil
}

// ParseMetrics reads a Metrics value (and a front end's metric): NAME=NUMBER
// parts separated by commas and/or white space. The numbers are given in
// canonical form (state.ParseNumber).
func ParseMetrics(v string) ([]state.Metric, error) {
	var out []state.Metric
	for _, tok := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		name, num, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, fmt.Errorf("metric %s has no \"=\"; write NAME=NUMBER, such as words=812", clip.Quote(tok))
		}
		if !state.ValidName(name) {
			return nil, fmt.Errorf("metric %s: %s is not a metric's name (letters, digits, '-' or '_', starting with a letter, at most %d)", clip.Quote(tok), clip.Quote(name), state.MaxName)
		}
		n, err := state.ParseNumber(num)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", name, err)
		}
		out = append(out, state.Metric{Name: name, Value: n})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no metrics given; write NAME=NUMBER, such as words=812")
	}
	return out, nil
}

// FormatMetrics writes metrics as ParseMetrics reads them: "words=812,
// findings=8".
func FormatMetrics(ms []state.Metric) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return strings.Join(parts, ", ")
}

func firstWord(s string) string {
	if i := strings.IndexFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }); i >= 0 {
		return s[:i]
	}
	return s
}
