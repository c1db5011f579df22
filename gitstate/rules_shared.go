package gitstate

// The rules below are git's, shared with fakes of Repository so that a fake
// and the real engine agree on them by construction.

// ValidRefName applies git's check-ref-format rules to a full ref name.
func ValidRefName(name string) error { return validRefName(name) }

// CleanMessage trims trailing whitespace and blank lines and ends the
// message with one newline, as `git commit` does.
func CleanMessage(m string) string { return cleanMessage(m) }

// MessageSubject returns git's %s of a commit message: its first paragraph
// joined with spaces.
func MessageSubject(msg string) string { return subject(msg) }

// NormaliseChanges validates the paths of a commit's changes and keeps the
// last change per path, as CommitFiles does.
func NormaliseChanges(in []FileChange) ([]FileChange, error) { return normaliseChanges(in) }
