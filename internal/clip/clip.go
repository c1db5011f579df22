// Package clip shortens what a message quotes of an argument: an error
// that echoed a 15 MB argument whole would be 15 MB long, and a client
// (an agent paying by the token, a terminal) gains nothing from it. At
// most Max bytes of the argument are shown, cut on a character boundary,
// with an ellipsis and the argument's size in bytes after them.
package clip

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Max is the most bytes of an argument a message quotes.
const Max = 200

// Quote is s quoted as %q quotes it, or, when s is longer than Max bytes,
// its first Max bytes quoted, then "…" and the whole size:
// "xxxx…" (1048576 bytes).
func Quote(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	return strconv.Quote(head(s)) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Text is s as it is, or, when s is longer than Max bytes, its first Max
// bytes, then "…" and the whole size: xxxx… (1048576 bytes).
func Text(s string) string {
	if len(s) <= Max {
		return s
	}
	return head(s) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// head is s cut to at most Max bytes, not inside a character.
func head(s string) string {
	n := Max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Within is msg with every whole occurrence of an argument longer than Max
// bytes (one of args) shortened as Text shortens it: the last guard of a
// front end, for the messages of code that quotes what it was given
// (a library's validation, a path of the operating system's) without
// knowing it came from a request.
func Within(msg string, args []string) string {
	for _, a := range args {
		if len(a) > Max && len(msg) >= len(a) {
			msg = strings.ReplaceAll(msg, a, Text(a))
		}
	}
	return msg
}
