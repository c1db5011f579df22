package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/itr-dev/itr/internal/clip"
)

// The states an item of a unit's ledger can be recorded in (itr checkpoint
// --item ID=STATE).
const (
	ItemDone    = "done"
	ItemSkipped = "skipped"
	ItemFailed  = "failed"
)

// ItemStates lists the built-in item states in the order state.json
// writes them. A plan may declare states of its own ("Item states:
// candidate, included, level-3"); skipped and failed are always there.
var ItemStates = []string{ItemDone, ItemSkipped, ItemFailed}

// MaxItemState is the longest name of an item state, in bytes.
const MaxItemState = 40

// ValidItemStateName reports whether s can name an item state: 1 to 40
// ASCII letters, digits, '-' or '_', starting with a letter ("included",
// "level-3", "Level-3-Complete").
func ValidItemStateName(s string) bool {
	if s == "" || len(s) > MaxItemState || !letter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// MaxItemNumber is the largest numbered item ("Items: N" allows at most
// this many), and MaxItemID the longest item ID, in bytes.
const (
	MaxItemNumber = 1_000_000
	MaxItemID     = 64
)

// ValidItemID reports whether s can be an item ID: 1 to 64 ASCII letters,
// digits, '.', '_' or '-', starting with a letter or a digit. A numbered
// item is written in decimal without leading zeros ("12"). Two numbers
// joined by '-' ("1-12") are a range of numbered items, not an ID.
func ValidItemID(s string) bool {
	if s == "" || len(s) > MaxItemID || !alnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	if lo, hi, ok := strings.Cut(s, "-"); ok && digits(lo) && digits(hi) {
		return false
	}
	if digits(s) {
		_, ok := ItemNumber(s)
		return ok
	}
	return true
}

func alnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ItemNumber reads a numbered item: decimal digits without a leading zero,
// from 1 to MaxItemNumber. ok is false for anything else (a named item
// such as "intro"; an ID of digits alone is always a number, so "007" is
// no item at all).
func ItemNumber(s string) (int, bool) {
	if !digits(s) || s[0] == '0' || len(s) > 7 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxItemNumber {
		return 0, false
	}
	return n, true
}

// ItemRange is one item ("intro", "12") or a range of numbered items
// ("1-12"): Name is set for a named item, else Lo and Hi (Lo ≤ Hi) bound
// the numbers.
type ItemRange struct {
	Name   string
	Lo, Hi int
}

// String writes the range as ParseItemRange reads it: "intro", "12",
// "1-12".
func (r ItemRange) String() string {
	switch {
	case r.Name != "":
		return r.Name
	case r.Lo == r.Hi:
		return strconv.Itoa(r.Lo)
	}
	return strconv.Itoa(r.Lo) + "-" + strconv.Itoa(r.Hi)
}

// Len is the number of items in the range.
func (r ItemRange) Len() int {
	if r.Name != "" {
		return 1
	}
	return r.Hi - r.Lo + 1
}

// ParseItemRange reads one item ID or a range "N-M" of numbered items
// (N ≤ M). The error says what is wrong and what an ID looks like.
func ParseItemRange(s string) (ItemRange, error) {
	if lo, hi, ok := strings.Cut(s, "-"); ok && digits(lo) && digits(hi) {
		a, okA := ItemNumber(lo)
		b, okB := ItemNumber(hi)
		switch {
		case !okA || !okB:
			return ItemRange{}, fmt.Errorf("item range %s: items are numbered from 1 to %d without leading zeros", clip.Quote(s), MaxItemNumber)
		case a > b:
			return ItemRange{}, fmt.Errorf("item range %s runs backwards; write it as %d-%d", clip.Quote(s), b, a)
		}
		return ItemRange{Lo: a, Hi: b}, nil
	}
	if n, ok := ItemNumber(s); ok {
		return ItemRange{Lo: n, Hi: n}, nil
	}
	if digits(s) {
		return ItemRange{}, fmt.Errorf("item %s: items are numbered from 1 to %d, without leading zeros", clip.Quote(s), MaxItemNumber)
	}
	if !ValidItemID(s) {
		return ItemRange{}, fmt.Errorf("%s is not an item ID: use 1 to %d letters, digits, '.', '_' or '-', starting with a letter or digit (such as 12, 1-12 or intro)", clip.Quote(s), MaxItemID)
	}
	return ItemRange{Name: s}, nil
}

// ItemMark is one item (or range) recorded in a state by an iteration.
type ItemMark struct {
	Range ItemRange
	// State is ItemDone, ItemSkipped, ItemFailed or a state the plan
	// declares (ValidItemStateName).
	State string
}

// String writes "1-12=done".
func (m ItemMark) String() string { return m.Range.String() + "=" + m.State }

// ValidItemState reports whether s is one of the built-in ItemStates.
func ValidItemState(s string) bool { return slices.Contains(ItemStates, s) }

// span is a run of numbered items, lo to hi.
type span struct{ lo, hi int }

// ItemSet is a set of items: runs of numbered items, kept sorted and
// merged so that thousands of items stay a few ranges, and named items in
// natural order.
type ItemSet struct {
	spans []span
	names []string
}

// Add puts the items of r in the set.
func (s *ItemSet) Add(r ItemRange) {
	if r.Name != "" {
		i, found := slices.BinarySearchFunc(s.names, r.Name, CompareIDs)
		if !found {
			s.names = slices.Insert(s.names, i, r.Name)
		}
		return
	}
	// The spans that touch or overlap lo..hi are spans[i:j]; they merge
	// into one. Binary searches keep a set of many runs quick to change.
	lo, hi := r.Lo, r.Hi
	i, _ := slices.BinarySearchFunc(s.spans, lo-1, func(sp span, n int) int { return cmpInt(sp.hi, n) })
	j, _ := slices.BinarySearchFunc(s.spans, hi+2, func(sp span, n int) int { return cmpInt(sp.lo, n) })
	if i < j {
		lo, hi = min(lo, s.spans[i].lo), max(hi, s.spans[j-1].hi)
	}
	s.spans = slices.Replace(s.spans, i, j, span{lo, hi})
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Remove takes the items of r out of the set.
func (s *ItemSet) Remove(r ItemRange) {
	if r.Name != "" {
		if i, found := slices.BinarySearchFunc(s.names, r.Name, CompareIDs); found {
			s.names = slices.Delete(s.names, i, i+1)
		}
		return
	}
	// The spans that overlap r are spans[i:j]: cut r out of them.
	i, _ := slices.BinarySearchFunc(s.spans, r.Lo, func(sp span, n int) int { return cmpInt(sp.hi, n) })
	j, _ := slices.BinarySearchFunc(s.spans, r.Hi+1, func(sp span, n int) int { return cmpInt(sp.lo, n) })
	if i >= j {
		return
	}
	var keep []span
	if first := s.spans[i]; first.lo < r.Lo {
		keep = append(keep, span{first.lo, r.Lo - 1})
	}
	if last := s.spans[j-1]; last.hi > r.Hi {
		keep = append(keep, span{r.Hi + 1, last.hi})
	}
	s.spans = slices.Replace(s.spans, i, j, keep...)
}

// Has reports whether item id is in the set.
func (s ItemSet) Has(id string) bool {
	if n, ok := ItemNumber(id); ok {
		i, _ := slices.BinarySearchFunc(s.spans, n, func(sp span, n int) int {
			if sp.hi < n {
				return -1
			}
			if sp.lo > n {
				return 1
			}
			return 0
		})
		return i < len(s.spans) && s.spans[i].lo <= n && n <= s.spans[i].hi
	}
	_, found := slices.BinarySearchFunc(s.names, id, CompareIDs)
	return found
}

// Len is the number of items in the set.
func (s ItemSet) Len() int {
	n := len(s.names)
	for _, sp := range s.spans {
		n += sp.hi - sp.lo + 1
	}
	return n
}

// Ranges lists the set as ranges: the runs of numbered items in order,
// then the named items in natural order.
func (s ItemSet) Ranges() []ItemRange {
	out := make([]ItemRange, 0, len(s.spans)+len(s.names))
	for _, sp := range s.spans {
		out = append(out, ItemRange{Lo: sp.lo, Hi: sp.hi})
	}
	for _, n := range s.names {
		out = append(out, ItemRange{Name: n})
	}
	return out
}

// List writes the set as state.json keeps it: "1-12", "14", "intro"; nil
// for an empty set.
func (s ItemSet) List() []string {
	var out []string
	for _, r := range s.Ranges() {
		out = append(out, r.String())
	}
	return out
}

// Within is the set cut to the numbered items 1..total and the named
// items names allows (nil names: none): the items a plan knows.
func (s ItemSet) Within(total int, names func(string) bool) ItemSet {
	var c ItemSet
	for _, sp := range s.spans {
		if sp.lo <= total {
			c.spans = append(c.spans, span{sp.lo, min(sp.hi, total)})
		}
	}
	for _, n := range s.names {
		if names != nil && names(n) {
			c.names = append(c.names, n)
		}
	}
	return c
}

// FirstMissing is the first number from 1 to total that the set lacks,
// 0 when it has them all.
func (s ItemSet) FirstMissing(total int) int {
	next := 1
	for _, sp := range s.spans {
		if sp.lo > next {
			break
		}
		next = max(next, sp.hi+1)
	}
	if next > total {
		return 0
	}
	return next
}

// Union is the set of the items in s or in o.
func (s ItemSet) Union(o ItemSet) ItemSet {
	var u ItemSet
	for _, x := range []ItemSet{s, o} {
		for _, r := range x.Ranges() {
			u.Add(r)
		}
	}
	return u
}

// ParseItemSet reads a list as List writes it (in any order, overlaps
// allowed). The error names the first entry that is not an item or range.
func ParseItemSet(list []string) (ItemSet, error) {
	var s ItemSet
	for _, e := range list {
		r, err := ParseItemRange(e)
		if err != nil {
			return ItemSet{}, err
		}
		s.Add(r)
	}
	return s, nil
}

// Items is a unit's item ledger, items in state.json: which items the
// unit's iterations recorded as done, skipped or failed (the latest entry
// for an item wins), kept as ranges ("1-12") so that thousands of items
// stay small, and Total, the number of items the plan gives ("Items:").
// A list that is nil is absent from the file.
type Items struct {
	Done, Skipped, Failed []string
	// States are the items in states a plan declares ("Item states:"),
	// beyond done, skipped and failed: state → items as ranges (states).
	// nil is absent; a state with no items left is taken out.
	States map[string][]string
	Total  *int
	// Values are the values recorded per item (itr checkpoint --value):
	// item ID → name → text (values). nil is absent.
	Values map[string]map[string]string

	extra object
}

// Clone returns a deep copy of it.
func (it *Items) Clone() *Items {
	if it == nil {
		return nil
	}
	c := *it
	c.Done, c.Skipped, c.Failed = slices.Clone(it.Done), slices.Clone(it.Skipped), slices.Clone(it.Failed)
	if it.States != nil {
		c.States = make(map[string][]string, len(it.States))
		for k, v := range it.States {
			c.States[k] = slices.Clone(v)
		}
	}
	if it.Values != nil {
		c.Values = make(map[string]map[string]string, len(it.Values))
		for id, vs := range it.Values {
			m := make(map[string]string, len(vs))
			for k, v := range vs {
				m[k] = v
			}
			c.Values[id] = m
		}
	}
	c.Total = clonePtr(it.Total)
	c.extra = it.extra.clone()
	return &c
}

// List returns the list of items in state st (one of ItemStates, or a
// state a plan declares).
func (it *Items) List(st string) []string {
	if it == nil {
		return nil
	}
	switch st {
	case ItemDone:
		return it.Done
	case ItemSkipped:
		return it.Skipped
	case ItemFailed:
		return it.Failed
	}
	return it.States[st]
}

// StateNames lists the states the ledger holds items in: done, skipped
// and failed (when they have items), then the declared states in byte
// order, as state.json writes them.
func (it *Items) StateNames() []string {
	if it == nil {
		return nil
	}
	var out []string
	for _, st := range ItemStates {
		if len(it.List(st)) > 0 {
			out = append(out, st)
		}
	}
	return append(out, sortedKeys(it.States)...)
}

// StateOf is the state item id is recorded in, "" when it is in none.
func (it *Items) StateOf(id string) string {
	for _, st := range it.StateNames() {
		if it.Set(st).Has(id) {
			return st
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Set returns the items in state st as a set; entries that do not read
// (a hand-edited file) are left out.
func (it *Items) Set(st string) ItemSet {
	var s ItemSet
	for _, e := range it.List(st) {
		if r, err := ParseItemRange(e); err == nil {
			s.Add(r)
		}
	}
	return s
}

// Mark records marks in order on the ledger: each item moves to its
// mark's state, out of the others (a later mark of an item wins). The
// state is done, skipped, failed or any other valid state name (a state
// the plan declares). Lists are rewritten in their canonical form; an
// empty one becomes nil, and a declared state without items leaves
// States.
func (it *Items) Mark(marks []ItemMark) {
	names := slices.Clone(ItemStates)
	for _, st := range sortedKeys(it.States) {
		if !slices.Contains(names, st) {
			names = append(names, st)
		}
	}
	for _, m := range marks {
		if ValidItemStateName(m.State) && !slices.Contains(names, m.State) {
			names = append(names, m.State)
		}
	}
	sets := map[string]*ItemSet{}
	for _, st := range names {
		s := it.Set(st)
		sets[st] = &s
	}
	for _, m := range marks {
		if !ValidItemStateName(m.State) {
			continue
		}
		for _, st := range names {
			if st == m.State {
				sets[st].Add(m.Range)
			} else {
				sets[st].Remove(m.Range)
			}
		}
	}
	it.Done, it.Skipped, it.Failed = sets[ItemDone].List(), sets[ItemSkipped].List(), sets[ItemFailed].List()
	it.States = nil
	for _, st := range names[len(ItemStates):] {
		if l := sets[st].List(); l != nil {
			if it.States == nil {
				it.States = map[string][]string{}
			}
			it.States[st] = l
		}
	}
}

// Empty reports whether no item is recorded in any state.
func (it *Items) Empty() bool {
	return it == nil || len(it.Done)+len(it.Skipped)+len(it.Failed)+len(it.States) == 0
}

var itemKeys = []string{"done", "skipped", "failed", "states", "total", "values"}

// decodeItems reads a unit's items.
func decodeItems(path string, raw json.RawMessage) (*Items, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, typeErr(path, raw, `an object such as {"done": ["1-12"], "skipped": ["13"], "total": 17}`)
	}
	kvs, err := decodeObject(raw, path)
	if err != nil {
		return nil, err
	}
	it := &Items{}
	for _, kv := range kvs {
		it.extra.order = append(it.extra.order, kv.key)
		fp := path + "." + kv.key
		switch kv.key {
		case ItemDone, ItemSkipped, ItemFailed:
			list, err := decodeItemList(fp, kv.raw)
			if err != nil {
				return nil, err
			}
			switch kv.key {
			case ItemDone:
				it.Done = list
			case ItemSkipped:
				it.Skipped = list
			default:
				it.Failed = list
			}
		case "total":
			n, err := decodeCount(fp, kv.raw)
			if err != nil {
				return nil, err
			}
			it.Total = n
		case "states":
			states, err := decodeItemStates(fp, kv.raw)
			if err != nil {
				return nil, err
			}
			it.States = states
		case "values":
			values, err := decodeItemValues(fp, kv.raw)
			if err != nil {
				return nil, err
			}
			it.Values = values
		default:
			it.extra.setUnknown(kv.key, kv.raw)
		}
	}
	return it, nil
}

// itemList is a list of items, written on one line.
type itemList []string

func (it *Items) write(b *bytes.Buffer, indent string) {
	present := map[string]any{}
	for _, st := range ItemStates {
		if l := it.List(st); l != nil {
			present[st] = itemList(l)
		}
	}
	if it.States != nil {
		present["states"] = itemStatesValue(it.States)
	}
	if it.Total != nil {
		present["total"] = *it.Total
	}
	if it.Values != nil {
		present["values"] = itemValuesValue(it.Values)
	}
	writeObject(b, indent, it.extra, itemKeys, present)
}

func writeItemList(b *bytes.Buffer, l itemList) {
	b.WriteByte('[')
	for i, s := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		writeString(b, s)
	}
	b.WriteByte(']')
}

// Minus is the set of the items in s that are not in o.
func (s ItemSet) Minus(o ItemSet) ItemSet {
	c := ItemSet{spans: slices.Clone(s.spans)}
	for _, n := range s.names {
		if !o.Has(n) {
			c.names = append(c.names, n)
		}
	}
	for _, sp := range o.spans {
		c.Remove(ItemRange{Lo: sp.lo, Hi: sp.hi})
	}
	return c
}

// Intersect is the set of the items in both s and o.
func (s ItemSet) Intersect(o ItemSet) ItemSet { return s.Minus(s.Minus(o)) }
