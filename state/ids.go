package state

import (
	"fmt"
	"slices"
	"strings"

	"github.com/itr-dev/itr/internal/clip"
)

// MaxIDLen is the longest unit ID, in bytes: an ID names a claim ref and
// files, one path segment each.
const MaxIDLen = 64

// IDRule says what a unit ID is, for messages: "unit ID %q is not valid: "
// + IDRule.
const IDRule = "an ID starts with a letter and holds letters, digits, - and _ (such as T1, IV-A, PHASE_3)"

// ValidID reports whether s is a unit ID as the seeds write them: an ASCII
// letter, then ASCII letters, digits, '-' and '_', at most MaxIDLen bytes,
// such as T1, QA12, IV-A, W2-001 or PHASE_3_HIGH_SEVERITY. "Task", in any
// case, is not one: progress.md names the whole task by it. A dot is never
// part of an ID ("IV.A" is not one): "T1.output" names T1's outputs.
//
// IDs are case-sensitive; a plan refuses two that differ only in case
// (see FoldID). CheckID says why a string is not an ID.
func ValidID(s string) bool { return idProblem(s) == "" }

// CheckID returns nil for a unit ID, else an error naming the rule that s
// breaks and how to write it.
func CheckID(s string) error {
	if p := idProblem(s); p != "" {
		return fmt.Errorf("unit ID %s is not valid: %s", clip.Quote(s), p)
	}
	return nil
}

// idProblem says which rule s breaks as a unit ID, "" when none.
func idProblem(s string) string {
	if s == "" || !isLetter(s[0]) {
		return IDRule
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '-' && c != '_' {
			return IDRule
		}
	}
	if len(s) > MaxIDLen {
		return fmt.Sprintf("it is longer than %d characters; use a shorter one", MaxIDLen)
	}
	if strings.EqualFold(s, "Task") {
		return `"Task" names the whole task in progress.md; use another ID, such as T1`
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// FoldID is the form two IDs share when they differ only in case ("iv-a"
// and "IV-A" both fold to "iv-a"): such IDs clash, as a claim ref or a
// file named after them would on a case-insensitive disk.
func FoldID(s string) string { return strings.ToLower(s) }

// CompareIDs orders unit IDs naturally: the runs of digits by their value,
// everything else as text, so T2 sorts before T10, R9 before T1, IV-A
// before IV-B and W2-9 before W2-10. It returns -1, 0 or +1 and is a total
// order on all strings (text that is not an ID still sorts consistently;
// equal values such as T01 and T1 fall back to their bytes). plan,
// progresslog and reconcile all use this one order.
func CompareIDs(a, b string) int {
	i, j := 0, 0
	digits := false // the runs at i and j are digits; they start with text, maybe empty
	for i < len(a) || j < len(b) {
		ie, je := runEnd(a, i, digits), runEnd(b, j, digits)
		if i == len(a) || j == len(b) {
			// One has no more runs: it comes first.
			if i == len(a) && j == len(b) {
				break
			}
			if i == len(a) {
				return -1
			}
			return 1
		}
		var c int
		if digits {
			c = compareNumbers(a[i:ie], b[j:je])
		} else {
			c = strings.Compare(a[i:ie], b[j:je])
		}
		if c != 0 {
			return c
		}
		i, j, digits = ie, je, !digits
	}
	return strings.Compare(a, b)
}

// runEnd returns the end of the run of digits (or of non-digits) that
// starts at s[i].
func runEnd(s string, i int, digits bool) int {
	for i < len(s) && isDigit(s[i]) == digits {
		i++
	}
	return i
}

// compareNumbers compares two runs of decimal digits by value without
// parsing them: leading zeros dropped, the longer is larger, then digit by
// digit.
func compareNumbers(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// SortIDs sorts unit IDs in natural order (T1, T2, ..., T10), as
// CompareIDs orders them. IDs of the common form (text, then at most 19
// digits) are split once into a key, so that the n log n comparisons of a
// large plan compare a string and a number, not two IDs run by run; a list
// holding any other ID is sorted by CompareIDs itself.
func SortIDs(ids []string) {
	if len(ids) < 64 {
		slices.SortFunc(ids, CompareIDs)
		return
	}
	keys := make([]idKey, len(ids))
	for i, id := range ids {
		k, ok := splitID(id)
		if !ok {
			slices.SortFunc(ids, CompareIDs)
			return
		}
		keys[i] = k
	}
	slices.SortFunc(keys, compareKeys)
	for i := range keys {
		ids[i] = keys[i].id
	}
}

// idKey is an ID of the common form split once: its text run, whether
// digits follow it and their value.
type idKey struct {
	text   string
	num    uint64
	digits bool
	id     string
}

// splitID splits id into its key when it is a run of non-digits followed
// by at most one run of at most 19 digits (so the value fits a uint64).
func splitID(id string) (idKey, bool) {
	i := runEnd(id, 0, false)
	k := idKey{text: id[:i], id: id}
	if i == len(id) {
		return k, true
	}
	if len(id)-i > 19 || runEnd(id, i, true) != len(id) {
		return k, false
	}
	k.digits = true
	for ; i < len(id); i++ {
		k.num = k.num*10 + uint64(id[i]-'0')
	}
	return k, true
}

// compareKeys orders split IDs as CompareIDs orders the IDs: the text,
// then no digits before digits, then the number's value, then the bytes.
func compareKeys(a, b idKey) int {
	if c := strings.Compare(a.text, b.text); c != 0 {
		return c
	}
	switch {
	case a.digits != b.digits:
		if a.digits {
			return 1
		}
		return -1
	case a.num != b.num:
		if a.num < b.num {
			return -1
		}
		return 1
	}
	return strings.Compare(a.id, b.id)
}
