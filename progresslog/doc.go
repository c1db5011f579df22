// Package progresslog parses, renders and appends the entries of a task's
// progress.md (the append-only event log), guardrails.md (accumulated
// lessons) and decisions.md (settled choices), and checks that a new
// version of any of them only appends.
//
// The package is pure: it reads and returns bytes and never touches the
// filesystem, the clock, git or the environment.
//
// # Reading never fails
//
// A log must always be readable, so Parse and ParseGuardrails never fail:
// whatever they do not understand is kept as text and, where it looks like
// a mistake (a malformed iteration heading, a half-resolved merge), reported
// as a Problem with its line.
//
// # Structure that text cannot break
//
// An entry starts at a line "## heading". Its body is a list of fields:
// "**Name:** value" in progress.md, "- **Name**: value" in guardrails.md
// and decisions.md.
// A value's further lines are written indented by two spaces, so no text an
// agent puts in a value can start a new entry or a new field. A body line
// that is neither a field nor indented is free text (a Field with an empty
// Name). When a free-text line would itself read as structure (a heading, a
// field, an indented or blank line) it is written with a leading backslash,
// which the parser removes again; markdown shows it unchanged.
//
// # Merge conflicts
//
// A file holding git conflict markers is read as both sides at once; see
// Parse for how the entries of the two sides are merged.
package progresslog
