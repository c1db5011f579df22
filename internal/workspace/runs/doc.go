// Package runs runs an itr verification check: a user's command, such as
// "go test ./auth/...", started in the work tree without a shell, with a
// timeout, Ctrl-C forwarding to the command's process group, and bounded,
// sanitized output capture.
//
// SplitCommand and QuoteCommand convert between the one-line form a check is
// written in (in a plan) and the argv that Run executes. Sanitize makes
// command output safe to print on a terminal and to store as text.
package runs
