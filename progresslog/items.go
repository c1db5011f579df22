package progresslog

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/itr-dev/itr/internal/clip"
	"github.com/itr-dev/itr/state"
)

// FieldItems is the field of an iteration entry that records items of
// the unit's ledger: "**Items:** 1-12=done, 13=skipped, intro=failed".
const FieldItems = "Items"

// ParseItems reads an Items value: items or ranges of numbered items,
// each optionally followed by "=STATE" (done when left out), separated by
// commas and/or white space. STATE is done, skipped, failed or a state the
// plan declares (any state.ValidItemStateName: the rule book checks it
// against the plan, the fold keeps what the log says). The error names the
// first part that does not read and says how to write it.
func ParseItems(v string) ([]state.ItemMark, error) {
	var out []state.ItemMark
	for _, tok := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		m, err := ParseItem(tok)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no items given: write items such as 3=done, 4-7=skipped or intro=failed")
	}
	return out, nil
}

// ParseItem reads one "ID[=STATE]" or "N-M[=STATE]"; the state is done
// when left out.
func ParseItem(tok string) (state.ItemMark, error) {
	id, st, hasState := strings.Cut(tok, "=")
	if !hasState {
		st = state.ItemDone
	}
	if !state.ValidItemStateName(st) {
		return state.ItemMark{}, fmt.Errorf("item %s: %s is not an item state; write ID=done, ID=skipped, ID=failed or ID=STATE for a state the plan declares (done when left out)", clip.Quote(tok), clip.Quote(st))
	}
	r, err := state.ParseItemRange(id)
	if err != nil {
		return state.ItemMark{}, err
	}
	return state.ItemMark{Range: r, State: st}, nil
}

// FormatItems writes marks as ParseItems reads them: "1-12=done,
// 13=skipped", in the order given (a later mark of an item wins).
func FormatItems(marks []state.ItemMark) string {
	parts := make([]string, len(marks))
	for i, m := range marks {
		parts[i] = m.String()
	}
	return strings.Join(parts, ", ")
}
