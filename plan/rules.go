package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/internal/lazyre"
)

// Output rules a plan declares, beside Output, Min words and Complete.
//
// "Truncation markers: [DRAFT], [cut here" adds endings that say an output
// breaks off to the ones in force: itr's defaults (evidence.DefaultMarkers),
// then the header's "**Truncation markers:**", then the unit's own line.
// "only [continue, [TBD]" replaces the markers in force by the list, and
// "none" leaves none. Markers are separated by commas; one written in
// backquotes may hold a comma.
//
// "Must end with: END OF MEMORANDUM" is the footer each output ends with;
// more lines indented below it make a block of several lines; several
// backquoted texts joined by "or" are alternatives ("`---` or `##
// Footnotes`").
//
// "Sections: Summary, Risks, Conclusion" are headings each output holds,
// matched on their text.
//
// "Max size: 40 KB" (or "25000 tokens", or "none") is the largest an output
// may be, for one unit or, as "**Max size:**" in the header, for every
// unit; a unit's own line wins.

// The sub-item keys (and header lines) of the output rules.
const (
	MetaMarkers = "Truncation markers"
	MetaMaxSize = "Max size"
	keyMarkers  = MetaMarkers
	keyMustEnd  = "Must end with"
	keySections = "Sections"
	keyMaxSize  = MetaMaxSize
)

// The forms the messages show.
const (
	markersForm  = `write the endings that mean the text breaks off, separated by commas, such as "Truncation markers: [DRAFT], [cut" (added to itr's defaults), "only [continue, [TBD]" to replace the defaults, or "none"`
	mustEndForm  = `write the text each output ends with, such as "Must end with: END OF MEMORANDUM" (lines indented below it make a block; "` + "`---` or `## Footnotes`" + `" gives alternatives)`
	sectionsForm = `write the headings each output holds, separated by commas, such as "Sections: Summary, Risks, Conclusion"`
	sizeForm     = `write a number and a unit, such as "Max size: 40 KB" (B, KB or MB; a KB is 1,024 bytes) or "Max size: 25000 tokens" (a token is taken as 4 bytes), or "Max size: none" for no limit`
)

// MarkerList is one declaration of truncation markers.
type MarkerList struct {
	// Replace says the list replaces the markers in force ("only ...",
	// "none") instead of adding to them.
	Replace bool
	Markers []string // empty for "none"
}

// Apply returns the markers in force after the declaration, given those
// in force before it (base is not changed).
func (l MarkerList) Apply(base []string) []string {
	if l.Replace {
		return append([]string{}, l.Markers...)
	}
	out := append([]string{}, base...)
	for _, m := range l.Markers {
		if !containsFold(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// ParseMarkers reads a "Truncation markers" value; ok is false when it
// declares no marker (an empty list, "only" with nothing after it).
func ParseMarkers(v string) (MarkerList, bool) {
	s := strings.TrimSpace(v)
	if strings.EqualFold(strings.Trim(s, "`"), "none") {
		return MarkerList{Replace: true, Markers: []string{}}, true
	}
	var l MarkerList
	if len(s) >= 4 && strings.EqualFold(s[:4], "only") && (len(s) == 4 || strings.ContainsRune(" \t:`\n", rune(s[4]))) {
		l.Replace = true
		s = strings.TrimLeft(s[4:], " \t:\n")
	}
	l.Markers = ruleList(s)
	return l, len(l.Markers) > 0
}

// ruleList splits a list of markers or headings: items are separated by
// commas or line breaks outside backquotes, and an item in backquotes is
// taken as written inside them ("`Findings, open`" is one item). Empty
// items and repeats are left out.
func ruleList(v string) []string {
	var out, items []string
	var cur strings.Builder
	quoted := false
	for _, r := range v {
		switch {
		case r == '`':
			quoted = !quoted
		case !quoted && (r == ',' || r == '\n'):
			items = append(items, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	items = append(items, cur.String())
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" && !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out
}

// MarkerLists are the declarations of truncation markers in force for
// unit id, to apply in order to itr's defaults: the header's, then the
// unit's own. A value still template text declares nothing.
func (p *Plan) MarkerLists(id string) []MarkerList {
	if p == nil {
		return nil
	}
	var out []MarkerList
	raw, _ := p.metaValue(MetaMarkers)
	vals := []string{raw}
	if u := p.Unit(id); u != nil {
		vals = append(vals, u.TruncationMarkers)
	}
	for _, v := range vals {
		if v = strings.TrimSpace(v); v == "" || isTemplate(v) {
			continue
		}
		if l, ok := ParseMarkers(v); ok {
			out = append(out, l)
		}
	}
	return out
}

// Footers returns the texts the unit's Must end with allows, one of which
// each output ends with: the backquoted texts when the value is only
// backquoted texts joined by "or" or commas, else the whole value (its
// lines a block). nil without the sub-item or while it is template text.
func (u *Unit) Footers() []string {
	v := strings.TrimSpace(u.MustEndWith)
	if v == "" || isTemplate(v) {
		return nil
	}
	if alts, ok := quotedAlternatives(v); ok {
		return alts
	}
	return []string{v}
}

// quotedAlternatives reads "`a` or `b`, `c`": ok is false when anything
// but "or", commas and spaces stands outside the backquotes.
func quotedAlternatives(v string) ([]string, bool) {
	parts := strings.Split(v, "`")
	if len(parts) < 3 || len(parts)%2 == 0 {
		return nil, false
	}
	var out []string
	for i, p := range parts {
		if i%2 == 1 {
			if t := strings.TrimSpace(p); t != "" {
				out = append(out, t)
			}
			continue
		}
		for _, w := range strings.Fields(strings.ReplaceAll(p, ",", " ")) {
			if !strings.EqualFold(w, "or") {
				return nil, false
			}
		}
	}
	return out, len(out) > 0
}

// SectionNames returns the headings the unit's Sections asks each output
// to hold, in order; nil without the sub-item or while it is template
// text.
func (u *Unit) SectionNames() []string {
	if strings.TrimSpace(u.Sections) == "" || isTemplate(u.Sections) {
		return nil
	}
	var out []string
	for _, n := range ruleList(u.Sections) {
		if strings.Trim(n, "# \t") != "" {
			out = append(out, n)
		}
	}
	return out
}

// Size is a "Max size" value.
type Size struct {
	Bytes int64  // the limit in bytes; 0 with None
	Text  string // as written, such as "40 KB" or "25000 tokens"
	None  bool   // "none": no limit, and no warning for a large output
}

// sizeRe reads "40 KB", "1.5MB", "25,000 tokens", "25k tokens".
var sizeRe = lazyre.New(`^(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*([a-z][a-z \t]*)$`)

// sizeUnits are the bytes in one of each unit a Max size may be given in.
var sizeUnits = map[string]float64{
	"b": 1, "byte": 1, "bytes": 1,
	"kb": 1 << 10, "kib": 1 << 10,
	"mb": 1 << 20, "mib": 1 << 20,
	"token": 4, "tokens": 4,
	"k tokens": 4000, "ktokens": 4000,
}

// maxSizeBytes bounds a Max size (1 TiB).
const maxSizeBytes = 1 << 40

// ParseSize reads a "Max size" value: a number and a unit (B, KB or KiB,
// MB or MiB, tokens; "25k tokens" too), in any case and optionally in
// backquotes, or "none". A KB is 1,024 bytes and a token 4.
func ParseSize(v string) (Size, bool) {
	s := strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "`"))
	if strings.ContainsRune(v, '\n') || s == "" {
		return Size{}, false
	}
	if strings.EqualFold(s, "none") {
		return Size{Text: s, None: true}, true
	}
	m := sizeRe.FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return Size{}, false
	}
	per, ok := sizeUnits[strings.Join(strings.Fields(m[2]), " ")]
	if !ok {
		return Size{}, false
	}
	n, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	if err != nil {
		return Size{}, false
	}
	b := math.Floor(n * per)
	if b < 1 || b > maxSizeBytes {
		return Size{}, false
	}
	return Size{Bytes: int64(b), Text: s}, true
}

// MaxSizeOf is the Max size in force for unit id: its own, else the
// header's; declared is false when neither gives one (or it is template
// text).
func (p *Plan) MaxSizeOf(id string) (size Size, declared bool) {
	if p == nil {
		return Size{}, false
	}
	raw, _ := p.metaValue(MetaMaxSize)
	if u := p.Unit(id); u != nil && strings.TrimSpace(u.MaxSize) != "" {
		raw = strings.TrimSpace(u.MaxSize)
	}
	if raw == "" || isTemplate(raw) {
		return Size{}, false
	}
	return ParseSize(raw)
}

// setRule sets one of the output rules of unit u (key) from v, on line n,
// noting an error when v is not valid there.
func (ps *parser) setRule(u *Unit, key, v string, n int) {
	t := strings.TrimSpace(v)
	template := isTemplate(t)
	var bad string
	switch key {
	case keyMarkers:
		u.TruncationMarkers = v
		if _, ok := ParseMarkers(t); !ok {
			bad = fmt.Sprintf("Truncation markers %q declares no marker; %s", t, markersForm)
		}
	case keyMustEnd:
		u.MustEndWith = v
		if t == "" {
			bad = "Must end with is empty; " + mustEndForm
		}
	case keySections:
		u.Sections = v
		if len(u.SectionNames()) == 0 {
			bad = fmt.Sprintf("Sections %q names no heading; %s", t, sectionsForm)
		}
	case keyMaxSize:
		u.MaxSize = v
		if _, ok := ParseSize(t); !ok {
			bad = fmt.Sprintf("Max size %q is not a size; %s", t, sizeForm)
		}
	}
	if bad != "" && !template {
		ps.errorf(n, "%s: %s", u.ID, bad)
	}
}

// checkRuleMeta checks a header line of the output rules, "" when it is
// valid (or not one of them).
func checkRuleMeta(f Field) string {
	v := strings.TrimSpace(f.Value)
	if isTemplate(v) {
		return ""
	}
	switch {
	case strings.EqualFold(f.Key, MetaMarkers):
		if _, ok := ParseMarkers(v); !ok {
			return fmt.Sprintf("%s %q declares no marker; %s", MetaMarkers, v, strings.Replace(markersForm, `"Truncation markers: `, `"**Truncation markers:** `, 1))
		}
	case strings.EqualFold(f.Key, MetaMaxSize):
		if _, ok := ParseSize(v); !ok {
			return fmt.Sprintf("%s %q is not a size; %s", MetaMaxSize, v, strings.ReplaceAll(sizeForm, `"Max size: `, `"**Max size:** `))
		}
	}
	return ""
}

// containsFold reports whether list holds s, in any case.
func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
