package record

import (
	"fmt"
	"strings"

	"github.com/itr-dev/itr/internal/workspace/store"
)

// FieldError is a request that lacks or misuses one of its fields, as
// data: the field by its domain name ("did", "reason"), what is wrong with
// it and how to fix it. Each front end words the field its own way: the
// CLI as a flag (--did), MCP as a parameter (did). Nothing was changed.
type FieldError struct {
	Field   string // domain name of the field: did, reason, name, ...
	Problem string // what is wrong, e.g. "is required"
	Fix     string // what to do, e.g. "say what this iteration did"
}

// Error words the error with the field's domain name, as MCP does.
func (e *FieldError) Error() string { return e.Worded(e.Field) }

// Worded is the message with the field named as name (e.g. "--did").
func (e *FieldError) Worded(name string) string {
	msg := name + " " + e.Problem
	if e.Fix != "" {
		msg += ": " + e.Fix
	}
	return msg
}

// Required is the FieldError of a missing field.
func Required(field, fix string) *FieldError {
	return &FieldError{Field: field, Problem: "is required", Fix: fix}
}

// PlainText refuses a text field holding a NUL byte (git refuses NUL in a
// commit message: fsck's nulInCommit, and every server that checks what
// it receives; itr writes each such text into one), or more than limit
// bytes (.itr.yaml's entry_field_limit, store.Config.FieldLimit). It is
// the one check of a request's text that every front end goes through.
// fields are pairs of domain name and value; the first offender is named.
func PlainText(limit int, fields ...string) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if n := len(fields[i+1]); n > limit {
			return &FieldError{Field: fields[i], Problem: fmt.Sprintf("is %d bytes, over the limit of %d bytes for one field of an entry", n, limit),
				Fix: fmt.Sprintf("shorten it (keep long text in a file of the task, such as context.md, and name the file), or raise entry_field_limit in %s; nothing was changed", store.ConfigFile)}
		}
		if strings.IndexByte(fields[i+1], 0) >= 0 {
			return &FieldError{Field: fields[i], Problem: "holds a NUL byte (\\x00)",
				Fix: "remove it; git refuses NUL in a commit, and itr records this text in one"}
		}
	}
	return nil
}
