package reconcile

import (
	"strconv"
	"strings"
)

// The fields of an iteration entry that give a unit's own progress:
// "**Progress:** 40%" and "**Progress detail:** sections 1-3 of 6" (seed
// 004's progress and progress_detail).
const (
	FieldProgress       = "Progress"
	FieldProgressDetail = "Progress detail"
)

// ParseProgress reads a progress value: a whole number from 0 to 100,
// with or without "%".
func ParseProgress(v string) (int, bool) {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "%"))
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 100 {
		return 0, false
	}
	return n, true
}

// FormatProgress writes a progress value as the seed does: "40%".
func FormatProgress(n int) string { return strconv.Itoa(n) + "%" }
