package workspace

import "github.com/itr-dev/itr/internal/workspace/record"

// The types of the write path (package record) that front ends see
// through Workspace.
type (
	// Outcome is the result of one recorded event.
	Outcome = record.Outcome
	// ReconcileOptions choose what itr reconcile does.
	ReconcileOptions = record.ReconcileOptions
	// ReconcileReport says what reconcile found and did.
	ReconcileReport = record.ReconcileReport
	// IndexReport says what itr list --write-index did.
	IndexReport = record.IndexReport
	// FieldError is a request that lacks or misuses one of its fields.
	FieldError = record.FieldError
)

// MigrationNote says how a state.json of schema version from is brought
// to the current one; see record.MigrationNote.
func MigrationNote(from int) string { return record.MigrationNote(from) }

// Reconcile rebuilds state.json from the log by the rule "trust git over
// state"; see record.Reconcile.
func (w *Workspace) Reconcile(opts ReconcileOptions) (*ReconcileReport, error) {
	return record.Reconcile(w.Store, opts)
}

// WriteIndex rebuilds INDEX.md from every task and commits it; see
// record.WriteIndex.
func (w *Workspace) WriteIndex() (*IndexReport, error) { return record.WriteIndex(w.Store) }
