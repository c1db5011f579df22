package workspace

import (
	"strings"

	"github.com/itr-dev/itr/internal/workspace/record"
	"github.com/itr-dev/itr/internal/workspace/store"
	"github.com/itr-dev/itr/progresslog"
	"github.com/itr-dev/itr/reconcile"
)

// Pause puts the task on hold with a reason, as one Paused entry and one
// commit: checkpoints and finishes are refused until Resume. A pause says
// the stop was meant, so a later session reads "paused", not "crashed".
func (w *Workspace) Pause(slug, reason string) (*Outcome, error) {
	if err := record.PlainText(w.Config.FieldLimit(), "reason", reason); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	return record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		if _, err := reconcile.DecidePause(t.State, true, reason); err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: progresslog.KindPaused, Stamp: w.Stamp()}
		subject := "pause"
		if reason != "" {
			e.Fields = append(e.Fields, progresslog.Field{Name: "Reason", Value: reason})
			subject += ": " + reason
		}
		return &record.Change{Entry: e, Event: store.EventPaused, Subject: subject}, nil
	})
}

// Resume takes the task off hold, as one Resumed entry and one commit.
func (w *Workspace) Resume(slug string) (*Outcome, error) {
	return record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		if _, err := reconcile.DecidePause(t.State, false, ""); err != nil {
			return nil, err
		}
		e := &progresslog.Entry{Kind: progresslog.KindResumed, Stamp: w.Stamp()}
		return &record.Change{Entry: e, Event: store.EventResumed, Subject: "resume"}, nil
	})
}

// Note records a note on the task as one Note entry and one commit: where
// things stand, in the agent's or a person's words (the check-in prime
// asks for every N iterations), or, critical, context every resume must
// carry (compaction_summary.critical_context).
func (w *Workspace) Note(slug, text string, critical bool) (*Outcome, error) {
	if strings.TrimSpace(text) == "" {
		return nil, record.Required("text", "say what the note records")
	}
	if err := record.PlainText(w.Config.FieldLimit(), "text", text); err != nil {
		return nil, err
	}
	name := "Note"
	if critical {
		name = "Critical"
	}
	return record.Record(w.Store, slug, func(t *store.Task) (*record.Change, error) {
		e := &progresslog.Entry{Kind: progresslog.KindNote, Stamp: w.Stamp(),
			Fields: []progresslog.Field{{Name: name, Value: strings.TrimSpace(text)}}}
		return &record.Change{Entry: e, Event: store.EventNote, Subject: strings.ToLower(name) + ": " + text}, nil
	})
}
