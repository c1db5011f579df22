package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Values and metrics. An iteration may record values for items of its
// unit's ledger (itr checkpoint --value 7:score=4: the item, a name, a
// text), kept per item in the ledger (items.values), and numbers about the
// unit as a whole (--metric words=812), kept per unit with their latest
// value (metrics). Names are those of ValidName; a value is one line of
// plain text of at most MaxValue bytes; a metric is a decimal number.

// MaxName is the longest name of a value or metric, MaxValue the longest
// value, in bytes.
const (
	MaxName  = 32
	MaxValue = 500
)

// ValidName reports whether s can name a value or a metric: 1 to 32 ASCII
// letters, digits, '-' or '_', starting with a letter ("score",
// "key_finding", "words").
func ValidName(s string) bool { return len(s) <= MaxName && ValidItemStateName(s) }

// CheckValue says why text cannot be a value ("" when it can): a value is
// one line of at most MaxValue bytes without control characters.
func CheckValue(text string) string {
	switch {
	case len(text) > MaxValue:
		return fmt.Sprintf("is %d bytes long; a value holds at most %d (keep the whole text in an output file and record its gist)", len(text), MaxValue)
	case strings.ContainsAny(text, "\r\n"):
		return "runs over more than one line; a value is one line"
	}
	for _, r := range text {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return fmt.Sprintf("holds the control character %q; write plain text", r)
		}
	}
	return ""
}

// ItemValue is one value an iteration records for an item: Item is one
// item ID (not a range), Name the value's name, Text the value ("" takes
// the value away).
type ItemValue struct {
	Item, Name, Text string
}

// SetValue records a value of item id; an empty text takes it away.
func (it *Items) SetValue(v ItemValue) {
	if v.Text == "" {
		if m := it.Values[v.Item]; m != nil {
			delete(m, v.Name)
			if len(m) == 0 {
				delete(it.Values, v.Item)
			}
		}
		if len(it.Values) == 0 {
			it.Values = nil
		}
		return
	}
	if it.Values == nil {
		it.Values = map[string]map[string]string{}
	}
	if it.Values[v.Item] == nil {
		it.Values[v.Item] = map[string]string{}
	}
	it.Values[v.Item][v.Name] = v.Text
}

// Value is the value name of item id, "" when none is recorded.
func (it *Items) Value(id, name string) string {
	if it == nil {
		return ""
	}
	return it.Values[id][name]
}

// ValueItems lists the items that have values, in natural order.
func (it *Items) ValueItems() []string {
	if it == nil {
		return nil
	}
	ids := make([]string, 0, len(it.Values))
	for id := range it.Values {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, CompareIDs)
	return ids
}

// Metric is one number an iteration records about its unit (itr checkpoint
// --metric words=812): Value is the number in its canonical form
// (ParseNumber).
type Metric struct {
	Name, Value string
}

// String reads "words=812".
func (m Metric) String() string { return m.Name + "=" + m.Value }

// maxNumber bounds a metric so that it stays exact as a float64.
const maxNumber = 1e15

// ParseNumber reads a metric's number: decimal digits with an optional
// sign and fraction ("812", "-3", "87.5"), no exponent, of magnitude
// below 10^15. It returns the canonical form: no leading zeros, no
// trailing zeros in the fraction ("012.50" → "12.5").
func ParseNumber(s string) (string, error) {
	t := strings.TrimSpace(s)
	body := strings.TrimPrefix(t, "-")
	whole, frac, hasFrac := strings.Cut(body, ".")
	if !digits(whole) || hasFrac && !digits(frac) {
		return "", fmt.Errorf("%q is not a number; write digits with an optional sign and fraction, such as 812 or 87.5", s)
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.Abs(f) >= maxNumber {
		return "", fmt.Errorf("%q is out of range; a metric is below 10^15", s)
	}
	if f == 0 {
		f = 0 // no "-0"
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

// NumberValue is the number a canonical metric holds.
func NumberValue(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// SetMetric records a unit's metric, the latest value winning.
func (u *Unit) SetMetric(m Metric) {
	if u.Metrics == nil {
		u.Metrics = map[string]string{}
	}
	u.Metrics[m.Name] = m.Value
}

// MetricNames lists the unit's metrics by name, in byte order.
func (u *Unit) MetricNames() []string { return sortedKeys(u.Metrics) }

// itemStatesValue, itemValuesValue and metricsValue are written by
// writeValue: keys in their order, lists on one line.
type (
	itemStatesValue map[string][]string
	itemValuesValue map[string]map[string]string
	metricsValue    map[string]string
	numberText      string
)

func (v itemStatesValue) write(b *bytes.Buffer, indent string) {
	keys := sortedKeys(v)
	present := make(map[string]any, len(keys))
	for _, k := range keys {
		present[k] = itemList(v[k])
	}
	writeObject(b, indent, object{}, keys, present)
}

func (v itemValuesValue) write(b *bytes.Buffer, indent string) {
	ids := make([]string, 0, len(v))
	for id := range v {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, CompareIDs)
	present := make(map[string]any, len(ids))
	for _, id := range ids {
		present[id] = valueLine(v[id])
	}
	writeObject(b, indent, object{}, ids, present)
}

// valueLine is one item's values, written on one line.
type valueLine map[string]string

func (v valueLine) write(b *bytes.Buffer) {
	keys := sortedKeys(v)
	known := make(map[string]any, len(keys))
	for _, k := range keys {
		known[k] = v[k]
	}
	writeInline(b, keys, known, object{})
}

func (v metricsValue) write(b *bytes.Buffer, indent string) {
	keys := sortedKeys(v)
	present := make(map[string]any, len(keys))
	for _, k := range keys {
		present[k] = numberText(v[k])
	}
	writeObject(b, indent, object{}, keys, present)
}

// decodeItemStates reads items.states: an object of state names to lists
// of items and ranges.
func decodeItemStates(path string, raw json.RawMessage) (map[string][]string, error) {
	kvs, err := decodeMap(path, raw, `an object of states and their items such as {"included": ["1-4"], "level-3": ["5"]}`)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, kv := range kvs {
		fp := path + "." + kv.key
		if !ValidItemStateName(kv.key) || ValidItemState(kv.key) {
			return nil, &DecodeError{Path: fp, Msg: fmt.Sprintf("%q is not a declared item state (letters, digits, '-' or '_', starting with a letter; done, skipped and failed have lists of their own)", kv.key)}
		}
		list, err := decodeItemList(fp, kv.raw)
		if err != nil {
			return nil, err
		}
		out[kv.key] = list
	}
	return out, nil
}

// decodeItemList reads a list of items and ranges at path (items.done,
// items.skipped, items.failed and each of items.states).
func decodeItemList(path string, raw json.RawMessage) ([]string, error) {
	var list []string
	if json.Unmarshal(raw, &list) != nil || list == nil {
		return nil, typeErr(path, raw, `a list of items and ranges such as ["1-12", "intro"]`)
	}
	for _, e := range list {
		if _, err := ParseItemRange(e); err != nil {
			return nil, &DecodeError{Path: path, Msg: err.Error(), Err: err}
		}
	}
	return list, nil
}

// decodeItemValues reads items.values: an object of item IDs to objects
// of names to strings.
func decodeItemValues(path string, raw json.RawMessage) (map[string]map[string]string, error) {
	const want = `an object of items and their values such as {"7": {"score": "4"}}`
	kvs, err := decodeMap(path, raw, want)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, kv := range kvs {
		fp := path + "." + kv.key
		if !ValidItemID(kv.key) {
			return nil, &DecodeError{Path: fp, Msg: fmt.Sprintf("%q is not an item ID", kv.key)}
		}
		inner, err := decodeMap(fp, kv.raw, `an object of names and texts such as {"score": "4"}`)
		if err != nil {
			return nil, err
		}
		m := map[string]string{}
		for _, f := range inner {
			vp := fp + "." + f.key
			if !ValidName(f.key) {
				return nil, &DecodeError{Path: vp, Msg: fmt.Sprintf("%q is not a value's name (letters, digits, '-' or '_', starting with a letter, at most %d)", f.key, MaxName)}
			}
			var text string
			if err := decodeString(keyValue{vp, f.raw}, &text); err != nil {
				return nil, err
			}
			m[f.key] = text
		}
		out[kv.key] = m
	}
	return out, nil
}

// decodeMetrics reads a unit's metrics: an object of names to numbers.
func decodeMetrics(path string, raw json.RawMessage) (map[string]string, error) {
	kvs, err := decodeMap(path, raw, `an object of names and numbers such as {"words": 2847}`)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, kv := range kvs {
		fp := path + "." + kv.key
		if !ValidName(kv.key) {
			return nil, &DecodeError{Path: fp, Msg: fmt.Sprintf("%q is not a metric's name (letters, digits, '-' or '_', starting with a letter, at most %d)", kv.key, MaxName)}
		}
		n, err := ParseNumber(string(bytes.TrimSpace(kv.raw)))
		if err != nil {
			return nil, typeErr(fp, kv.raw, "a number such as 2847 or 87.5")
		}
		out[kv.key] = n
	}
	return out, nil
}

// decodeMap reads an object's keys and raw values; want says what it
// should be.
func decodeMap(path string, raw json.RawMessage, want string) ([]keyValue, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, typeErr(path, raw, want)
	}
	return decodeObject(raw, path)
}
