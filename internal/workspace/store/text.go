package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Plural is one when n is 1, else many: entr+Plural(n, "y", "ies").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// OrNone is s, or "None" when it is blank: the seed's word for an empty
// field of an entry.
func OrNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "None"
	}
	return s
}

// ListOrNone is list joined with commas, "none" when it is empty.
func ListOrNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// FirstN is s cut to its first n items, with "and N more" after them.
func FirstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
}

// LogDigest is the Itr-Log trailer value of a log.
func LogDigest(log []byte) string {
	sum := sha256.Sum256(log)
	return strconv.Itoa(len(log)) + " " + hex.EncodeToString(sum[:])
}

// OneLine shortens text to its first line of at most n characters.
func OneLine(s string, n int) string {
	n = max(n, 1)
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
